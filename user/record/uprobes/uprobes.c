// SPDX-License-Identifier: GPL-2.0-only
/* Uprobes on Wine's ntdll.so and the Vulkan driver: which files, when
 * (the targets' maps, mmap records), and what could not attach.  The
 * layers' own probes are in uprobes_wine.c and uprobes_vk.c; the ELF
 * reading and attaching they share, in uprobes_attach.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "linger.h"
#include "uprobes_int.h"
#include "winenames.h"

/* ---- rescans from mmap records ---- */

static uint64_t seen_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	return h ? h : 1;
}

void katra_uprobes_note_mapping(struct katra_uprobes *u, uint32_t pid, uint64_t kdev,
				uint64_t ino)
{
	uint64_t h = seen_hash(kdev, ino);
	size_t i;

	if (!u || (!u->o.wine && !u->o.vulkan) || !u->seen)
		return;
	up_wine_frame_mapped(u, pid, kdev, ino); /* an ntdll.so already read (--stacks) */
	/* open addressing over SEEN_MAX slots (the drain's own table) */
	for (i = h & (SEEN_MAX - 1); u->seen[i]; i = (i + 1) & (SEEN_MAX - 1)) {
		if (u->seen[i] == h)
			return;
	}
	if (u->nseen < SEEN_MAX * 3 / 4) {
		u->seen[i] = h;
		u->nseen++;
	}
	katra_uprobes_request_scan(u, pid);
}

/* ---- lifetime and reports ---- */

int katra_uprobes_new(struct katra_probes *p, const struct katra_uprobes_opts *o,
		      struct katra_uprobes **out)
{
	struct katra_uprobes *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->probes = p;
	u->o = *o;
	u->via_fd = -1;
	/* tests only: a cap small enough to reach with a few files */
	const char *cap = getenv("KATRA_TEST_UP_FILES_MAX");
	u->files_max = cap ? (size_t)strtoul(cap, NULL, 10) : UP_FILES_MAX;
	u->seen = calloc(SEEN_MAX, sizeof(*u->seen));
	if (!u->seen) {
		free(u);
		return -ENOMEM;
	}
	pthread_mutex_init(&u->qlock, NULL);
	/* the worker's timed wait is on CLOCK_MONOTONIC (uprobes_worker.c): a
	 * monotonic deadline on the default CLOCK_REALTIME is long past, and
	 * the idle worker spun on a CPU for the whole capture */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&u->qcond, &ca);
	pthread_cond_init(&u->qdone, &ca);
	pthread_condattr_destroy(&ca);
	/* tests: a helper that hangs (t_vulkan_hung) */
	const char *test_helper = getenv("KATRA_TEST_VKRESOLVE");
	if (o->vkresolve || test_helper) {
		snprintf(u->vkresolve, sizeof(u->vkresolve), "%s",
			 o->vkresolve ? o->vkresolve : test_helper);
	} else {
		ssize_t n = readlink("/proc/self/exe", u->vkresolve, sizeof(u->vkresolve) - 1);
		if (n > 0) {
			u->vkresolve[n] = 0;
			char *slash = strrchr(u->vkresolve, '/');
			if (slash)
				snprintf(slash + 1, sizeof(u->vkresolve) - (size_t)(slash + 1 - u->vkresolve),
					 "katra-vkresolve");
		}
	}
	*out = u;
	return 0;
}

void katra_uprobes_set_probes(struct katra_uprobes *u, struct katra_probes *p)
{
	if (u)
		u->probes = p;
}

/* No traced process is left (the tracked set is empty: every uprobe
 * program returns at its first check, and the teardown's grace period sees
 * the runs in flight end): the links are released by a child, after this
 * process has let go of them (linger.h).  True when it took them. */
static bool hand_over_links(struct katra_uprobes *u)
{
	int *fds, release_fd;
	bool handed;

	/* no probes: their load failed after links made while it ran */
	if (!u->nlinks || !u->probes || katra_probes_tracked_count(u->probes) ||
	    !(fds = malloc(u->nlinks * sizeof(int))))
		return false;
	for (size_t i = 0; i < u->nlinks; i++)
		fds[i] = bpf_link__fd(u->links[i]);
	handed = katra_linger_fork(fds, u->nlinks, &release_fd);
	free(fds);
	if (!handed)
		return false;
	for (size_t i = 0; i < u->nlinks; i++)
		bpf_link__destroy(u->links[i]); /* our copies: not the last */
	close(release_fd);
	return true;
}

void katra_uprobes_detach(struct katra_uprobes *u)
{
	if (!u)
		return;
	katra_uprobes_stop(u); /* no attach after this */
	if (u->abandoned)
		return; /* the worker may still add links: the kernel's at exit */
	/* uprobe_multi links: released here, waited for at katra_uprobes_free
	 * (the last drain runs meanwhile) */
	up_release_start(u);
	if (!hand_over_links(u))
		for (size_t i = 0; i < u->nlinks; i++)
			bpf_link__destroy(u->links[i]);
	u->nlinks = 0;
}

bool katra_uprobes_free(struct katra_uprobes *u)
{
	if (!u)
		return false;
	katra_uprobes_stop(u);
	if (u->abandoned)
		return true; /* still the worker's: the process exits soon */
	up_vk_early_drop(u); /* never claimed: the capture ended first */
	katra_uprobes_detach(u);
	up_release_wait(u);
	pthread_mutex_destroy(&u->qlock);
	pthread_cond_destroy(&u->qcond);
	pthread_cond_destroy(&u->qdone);
	free(u->links);
	free(u->batch);
	free(u->files);
	for (unsigned i = 0; i < u->nnt; i++) {
		katra_names_free(u->nt[i].names, u->nt[i].count);
		katra_names_free(u->nt[i].names1, u->nt[i].count1);
	}
	for (unsigned i = 0; i < u->nreq; i++) {
		katra_names_free(u->req[i].names, u->req[i].count);
		free(u->req[i].strs);
	}
	up_unix_libs_free(u);
	free(u->seen);
	for (size_t i = 0; i < u->nattached; i++)
		free(u->attached[i]);
	for (size_t i = 0; i < u->nfailed; i++)
		free(u->failed[i]);
	for (unsigned i = 0; i < u->nrefused; i++)
		free(u->refused[i]);
	free(u);
	return false;
}

/* (a worker left behind may still be writing the lists: none then) */
size_t katra_uprobes_attached(const struct katra_uprobes *u, const char *const **names)
{
	bool ok = u && !u->abandoned;

	*names = ok ? (const char *const *)u->attached : NULL;
	return ok ? u->nattached : 0;
}

size_t katra_uprobes_failed(const struct katra_uprobes *u, const char *const **names)
{
	bool ok = u && !u->abandoned;

	*names = ok ? (const char *const *)u->failed : NULL;
	return ok ? u->nfailed : 0;
}

size_t katra_uprobes_notes(const struct katra_uprobes *u, char (*out)[KATRA_NOTE_MAX],
			   size_t cap)
{
	size_t n = 0;
	unsigned nt = 0, vk = 0, d3 = 0;

	if (!u)
		return 0;
	for (size_t i = 0; i < u->nfiles; i++) {
		const struct probed_file *f = &u->files[i];
		if (n < cap && (f->what & FILE_NTDLL) && !(f->what & FILE_SKIPPED)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer wine: %u uprobes on %.200s", f->nprobes,
				 f->path);
			nt++;
		} else if (n < cap && (f->what & FILE_VK_DRIVER)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer vulkan: %u uprobes on %.200s",
				 f->nprobes, f->path);
			vk++;
		} else if (n < cap && (f->what & FILE_D3D12) && !(f->what & FILE_SKIPPED)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer d3d12: %u uprobes on %.200s",
				 f->nprobes, f->path);
			d3++;
		} else if (n < cap && (f->what & FILE_D3D12) && f->why) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer d3d12 off: %.200s: %s", f->path,
				 f->why);
			d3++;
		} else if (f->what & FILE_VK_LOADER) {
			vk += f->nprobes ? 1 : 0;
		}
	}
	if ((u->o.wine || u->o.vulkan) && n < cap) {
		const char *off = katra_probes_uprobe_multi_off(u->probes);
		if (off)
			snprintf(out[n++], KATRA_NOTE_MAX, "uprobe links: perf-event, one per uprobe "
				 "(uprobe_multi: %s)", off);
		else
			snprintf(out[n++], KATRA_NOTE_MAX, "uprobe links: uprobe_multi, one per program "
				 "and file (%zu at start)",
				 __atomic_load_n(&u->nmlinks, __ATOMIC_RELAXED));
	}
	if (!u->o.wine && !u->o.vulkan && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layers wine and vulkan off: --no-uprobes");
	if (u->o.wine && !nt && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer wine off: no traced process maps Wine's "
			 "ntdll.so at start (probed when one does)");
	if (u->o.wine && !d3 && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer d3d12 off: no traced process maps vkd3d's "
			 "DLL (wined3d.dll, d3d12core.dll) with its symbols at start (probed when "
			 "one does)");
	for (unsigned i = 0; i < u->nnt && n < cap; i++)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->nt[i].note);
	n += up_wine_frame_notes(u, out + n, cap - n);
	/* what a traced process named and was not read (procfs/procpath.h) */
	for (unsigned i = 0; i < u->nrefused && n < cap; i++)
		snprintf(out[n++], KATRA_NOTE_MAX, "file refused: %s", u->refused[i]);
	if (u->refused_more && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "files refused: %u more", u->refused_more);
	if (u->settle_note[0] && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->settle_note);
	if (u->vk_note[0] && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->vk_note);
	if (u->o.vulkan && !vk && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer vulkan off: no traced process maps the "
			 "Vulkan loader at start (probed when one does)");
	return n;
}
