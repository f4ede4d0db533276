// SPDX-License-Identifier: GPL-2.0-only
/* uprobe_multi links (Linux 6.6; kernel/probes_umulti.c): the attaches of a
 * file, queued while a layer probes it (up_batch_begin .. up_batch_end),
 * are made as one link per program and file with all its offsets and
 * cookies; at the capture's end the recorder releases them itself, from
 * threads of their own so that their grace periods overlap (one per link,
 * not under the kernel's event_mutex: no child has to outlive the recorder
 * for them, as linger.c does for perf-event links). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uprobes_int.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void up_batch_begin(struct katra_uprobes *u)
{
	u->batching = katra_probes_uprobe_multi(u->probes);
	u->batch_start_ns = now_ns();
	u->batch_links0 = u->nlinks + u->nmlinks;
}

static int keep_fd(struct katra_uprobes *u, int fd)
{
	if (u->nmlinks == u->cap_mlinks) {
		size_t cap = u->cap_mlinks ? 2 * u->cap_mlinks : 32;
		int *m = realloc(u->mlinks, cap * sizeof(*m));
		if (!m) {
			close(fd);
			return -ENOMEM;
		}
		u->mlinks = m;
		u->cap_mlinks = cap;
	}
	u->mlinks[u->nmlinks] = fd;
	/* the header's note reads the count from another thread */
	__atomic_store_n(&u->nmlinks, u->nmlinks + 1, __ATOMIC_RELAXED);
	return 0;
}

static bool same_group(const struct up_pending *a, const struct up_pending *b)
{
	return a->ret == b->ret && !strcmp(a->prog, b->prog) && !strcmp(a->path, b->path);
}

/* A group's probes counted on their file that did not attach */
static void uncount(struct katra_uprobes *u, const char *path, unsigned n)
{
	for (size_t i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i].path, path))
			u->files[i].nprobes -= n < u->files[i].nprobes ? n : u->files[i].nprobes;
}

/* The fd that path was read from: the first queued entry's of that path */
static int batch_fd(const struct katra_uprobes *u, const char *path)
{
	for (size_t j = 0; j < u->nbatch; j++)
		if (u->batch[j].fd >= 0 && !strcmp(u->batch[j].path, path))
			return u->batch[j].fd;
	return -1;
}

/* One link of the group that starts at batch[first]: its members marked
 * done, named attached or failed; the members that failed. */
static unsigned attach_group(struct katra_uprobes *u, size_t first)
{
	struct up_pending *g = &u->batch[first];
	uint64_t *offsets = calloc(u->nbatch - first, sizeof(*offsets));
	uint64_t *cookies = calloc(u->nbatch - first, sizeof(*cookies));
	const char *kind = g->ret ? "uretprobe" : "uprobe";
	char multi[96], kpath[32];
	uint32_t cnt = 0;
	int fd = -ENOMEM;

	/* through the very file read (up_via_name), not its name once more */
	snprintf(kpath, sizeof(kpath), "/proc/self/fd/%d", batch_fd(u, g->path));
	for (size_t j = first; j < u->nbatch && offsets && cookies; j++)
		if (!u->batch[j].done && same_group(g, &u->batch[j])) {
			offsets[cnt] = u->batch[j].offset;
			cookies[cnt++] = u->batch[j].cookie;
		}
	snprintf(multi, sizeof(multi), "%s_multi", g->prog);
	if (cnt) {
		const struct bpf_program *prog = katra_probes_program(u->probes, multi);
		fd = prog ? katra_probes_attach_uprobe_multi(prog, kpath, offsets, cookies, cnt,
							     g->ret)
			  : -ENOENT;
		if (fd >= 0)
			fd = keep_fd(u, fd) ? -ENOMEM : 0;
	}
	unsigned failed = 0;
	for (size_t j = first; j < u->nbatch; j++) {
		struct up_pending *m = &u->batch[j];
		char *s;
		if (m->done || !same_group(g, m))
			continue;
		m->done = true;
		if (fd >= 0) {
			if (asprintf(&s, "%s %s", kind, m->label) >= 0)
				up_add_name(u->attached, &u->nattached, s);
		} else if (fd == -ENOENT && !katra_probes_program(u->probes, multi)) {
			up_failed(u, m->label, "no BPF program %s", multi);
			failed++;
		} else {
			up_failed(u, m->label, "%s at %s+0x%llx (a uprobe_multi link of %u): %s", kind,
				  m->path, (unsigned long long)m->offset, cnt, strerror(-fd));
			failed++;
		}
	}
	if (failed)
		uncount(u, g->path, failed);
	free(offsets);
	free(cookies);
	return failed;
}

/* The queued attaches as links, in the order of each group's first member:
 * a return queued before its entry is attached before it (a call is seen
 * whole or not at all). */
static unsigned flush(struct katra_uprobes *u)
{
	unsigned failed = 0;

	for (size_t i = 0; i < u->nbatch; i++)
		if (!u->batch[i].done)
			failed += attach_group(u, i);
	for (size_t i = 0; i < u->nbatch; i++) {
		free(u->batch[i].label);
		free(u->batch[i].path);
		if (u->batch[i].fd >= 0)
			close(u->batch[i].fd);
	}
	u->nbatch = 0;
	return failed;
}

unsigned up_batch_end(struct katra_uprobes *u)
{
	unsigned failed;

	u->batching = false;
	failed = flush(u);
	/* measurements: what the attaches cost, either way */
	if (getenv("KATRA_TEST_LINK_TIMES"))
		fprintf(stderr, "katra-record: %zu %s links made in %.1f ms\n",
			u->nlinks + u->nmlinks - u->batch_links0,
			katra_probes_uprobe_multi(u->probes) ? "uprobe_multi" : "perf-event",
			(double)(now_ns() - u->batch_start_ns) / 1e6);
	return failed;
}

int up_attach_multi(struct katra_uprobes *u, const char *label, const char *prog_name,
		    const char *path, uint64_t offset, bool ret, uint64_t cookie)
{
	struct up_pending *m;
	char kpath[32];
	int err;

	if ((err = up_via_name(u, label, path, kpath, sizeof(kpath))))
		return err;
	if (u->nbatch == u->cap_batch) {
		size_t cap = u->cap_batch ? 2 * u->cap_batch : 32;
		m = realloc(u->batch, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		u->batch = m;
		u->cap_batch = cap;
	}
	m = &u->batch[u->nbatch];
	memset(m, 0, sizeof(*m));
	m->label = strdup(label);
	m->path = strdup(path);
	/* the file held until the flush (its reader may close its own fd) */
	m->fd = batch_fd(u, path) >= 0 ? -1 : fcntl(u->via_fd, F_DUPFD_CLOEXEC, 0);
	if (!m->label || !m->path || (m->fd < 0 && batch_fd(u, path) < 0)) {
		int e = m->label && m->path ? -errno : -ENOMEM;
		free(m->label);
		free(m->path);
		if (m->fd >= 0)
			close(m->fd);
		return e;
	}
	snprintf(m->prog, sizeof(m->prog), "%s", prog_name);
	m->offset = offset;
	m->ret = ret;
	m->cookie = cookie;
	u->nbatch++;
	/* outside a batch: a link of its own, now */
	return u->batching ? 0 : flush(u) ? -EINVAL : 0;
}

/* ---- the release ---- */

static void *release_main(void *arg)
{
	struct up_releaser *r = arg;
	const struct katra_uprobes *u = r->u;

	for (size_t i = r->first; i < u->nreleasing; i += u->nreleasers)
		close(u->releasing[i]);
	return NULL;
}

void up_release_start(struct katra_uprobes *u)
{
	sigset_t all, old;

	if (!u->nmlinks || u->releasing)
		return;
	u->releasing = u->mlinks;
	u->nreleasing = u->nmlinks;
	u->mlinks = NULL;
	u->nmlinks = u->cap_mlinks = 0;
	u->release_start_ns = now_ns();
	u->nreleasers = u->nreleasing < UP_RELEASERS_MAX ? (unsigned)u->nreleasing
							 : UP_RELEASERS_MAX;
	/* the threads block every signal (the recorder's are the main thread's) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < u->nreleasers; i++) {
		u->rel[i].u = u;
		u->rel[i].first = i;
		u->rel[i].started = !pthread_create(&u->rel[i].t, NULL, release_main, &u->rel[i]);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (unsigned i = 0; i < u->nreleasers; i++)
		if (!u->rel[i].started)
			release_main(&u->rel[i]);
}

void up_release_wait(struct katra_uprobes *u)
{
	if (!u->releasing)
		return;
	for (unsigned i = 0; i < u->nreleasers; i++)
		if (u->rel[i].started)
			pthread_join(u->rel[i].t, NULL);
	/* measurements: how long the kernel took */
	if (getenv("KATRA_TEST_LINK_TIMES"))
		fprintf(stderr, "katra-record: %zu uprobe_multi links released in %.1f ms (%u threads)\n",
			u->nreleasing, (double)(now_ns() - u->release_start_ns) / 1e6, u->nreleasers);
	free(u->releasing);
	u->releasing = NULL;
	u->nreleasing = 0;
	u->nreleasers = 0;
}
