// SPDX-License-Identifier: GPL-2.0-only
/* The Vulkan layer's programs loaded before the rest, and their first links
 * made while the rest loads.  Registering a uprobe takes the kernel's
 * dup_mmap_sem for writing (kernel/events/uprobes.c, register_for_each_vma),
 * a per-CPU rwsem whose first writer waits for an RCU grace period
 * (rcu_sync_enter; the next writers wait no more only until one grace
 * period after the last has left): 5-20 ms of wall time on this kind of
 * machine for almost no CPU, which a command's first uprobe_multi link
 * (its Vulkan drivers) paid on the way to live.  So where the caller has
 * links to make at once (opts->uprobes_ready), the programs they use
 * (bpf/vulkan.bpf.c: up_vk*, ur_vulkan*, the twin in use) are left out of
 * the skeleton and load into an object of their own on the skeleton's maps
 * as soon as those exist (made for the split object, probes_split.c), on a
 * thread that then calls opts->uprobes_ready: its links wait for their
 * grace period while the skeleton and the split object load.  They find no
 * tracked process (ucall.bpf.h) until the caller tracks its targets, after
 * katra_probes_open.  The thread ends before katra_probes_open returns.
 * KATRA_TEST_NO_EARLY=1: as before (everything in the skeleton, the links
 * after the load), for comparisons. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

#define EARLY_MAX 16

/* What the early object and warm_main share; freed by the last of them. */
struct pk_warm {
	int refs;    /* atomic */
	bool linked; /* atomic: the links are made (or will not be) */
};

struct pk_early {
	pthread_t t;
	bool running;
	struct pk_warm *warm; /* NULL: none */
	struct katra_probes *p;
	struct bpf_object *obj;
	const char *names[EARLY_MAX]; /* its programs (the skeleton's strings) */
	size_t n;
	int err;
	void (*ready)(void *ctx, struct katra_probes *p);
	void *ctx;
};

static bool is_vulkan(const char *name)
{
	return !strncmp(name, "up_vk", 5) || !strncmp(name, "ur_vulkan", 9);
}

static bool is_early(const struct pk_early *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->names[i], name))
			return true;
	return false;
}

/* Keeps dup_mmap_sem's first-writer wait off the links: registers a
 * uprobe nobody can hit (the last byte of our own file, past the page of
 * every loaded segment's end, so that no mapping of it reaches it) every 2 ms from the open until the links are made, so that the
 * wait for a grace period happens here, at once, and each later writer, the
 * links' included, comes within a grace period of the last one (see above)
 * and waits no more.  Through perf_event_open's uprobe PMU on this process
 * alone; any refusal ends it (the links then wait as before).  Dropping a
 * uprobe waits for RCU tasks-trace and SRCU grace periods (tens of ms), so
 * they are dropped together at the end, on this detached thread, which
 * nothing waits for. */
#define WARM_MAX 64

static void warm_put(struct pk_warm *w)
{
	if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(w);
}

/* An offset of our own file past the page of every loaded segment's end
 * (no mapping of the file reaches it), or 0 for none. */
static uint64_t unmapped_offset(const char *exe)
{
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	uint64_t end = 0, size = 0;
	long page = sysconf(_SC_PAGESIZE);
	Elf64_Ehdr eh;
	struct stat st;

	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(Elf64_Phdr)) {
		size = (uint64_t)st.st_size;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph)) {
				size = 0;
				break;
			}
			if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > end)
				end = ph.p_offset + ph.p_filesz;
		}
	}
	close(fd);
	end = (end + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
	return size > end + 1 ? size - 1 : 0;
}

static void *warm_main(void *arg)
{
	struct pk_warm *w = arg;
	const char *exe = "/proc/self/exe";
	int type = -1, fds[WARM_MAX], n = 0;
	uint64_t off = unmapped_offset(exe);
	char buf[16] = "";
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");

	if (f && fgets(buf, sizeof(buf), f))
		type = atoi(buf);
	if (f)
		fclose(f);
	while (type >= 0 && off && n < WARM_MAX && !__atomic_load_n(&w->linked, __ATOMIC_ACQUIRE)) {
		struct perf_event_attr a = { .type = (uint32_t)type, .size = sizeof(a),
					     .config1 = (uint64_t)(uintptr_t)exe,
					     .config2 = off, .disabled = 1 };
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			break;
		fds[n++] = fd;
		usleep(2000);
	}
	while (n)
		close(fds[--n]);
	warm_put(w);
	return NULL;
}

static void warm_start(struct pk_early *e)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;

	if (getenv("KATRA_TEST_NO_WARM") || !(e->warm = calloc(1, sizeof(*e->warm))))
		return;
	e->warm->refs = 2;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all); /* signals are the capture loop's business */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, &attr, warm_main, e->warm))
		e->warm->refs = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* The links are made, or will not be: the warming ends. */
static void warm_end(struct pk_early *e)
{
	if (!e->warm)
		return;
	__atomic_store_n(&e->warm->linked, true, __ATOMIC_RELEASE);
	warm_put(e->warm);
	e->warm = NULL;
}

static void *open_early(void *arg)
{
	struct pk_early *e = arg;

	e->obj = pk_open_twin(pk_btf_core_path(), &e->err);
	pk_timing("early opened");
	return NULL;
}

int pk_early_prefetch(struct katra_probes *p, void (*ready)(void *, struct katra_probes *),
		      void *ctx)
{
	struct pk_early *e;
	const char *off = getenv("KATRA_TEST_NO_EARLY");
	int err;

	if (!ready || (off && *off == '1'))
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->p = p;
	e->ready = ready;
	e->ctx = ctx;
	p->early = e;
	err = -pthread_create(&e->t, NULL, open_early, e);
	e->running = !err;
	if (!err)
		warm_start(e);
	return err;
}

static void *load_early(void *arg)
{
	struct pk_early *e = arg;

	id_t tid = (id_t)syscall(SYS_gettid);

	/* a few ms of CPU whose end starts the kernel's wait: ahead of the
	 * other loads (nice -10; refused: as it is); ready runs at the
	 * normal priority (nothing it may start inherits more) */
	if (setpriority(PRIO_PROCESS, tid, -10))
		errno = 0;
	pk_timing("early start");
	e->err = bpf_object__load(e->obj);
	if (setpriority(PRIO_PROCESS, tid, 0))
		errno = 0;
	pk_timing("early loaded");
	if (!e->err) {
		e->ready(e->ctx, e->p);
		pk_timing("early links");
	}
	warm_end(e);
	return NULL;
}

/* Nothing early: the Vulkan programs stay in the skeleton, as before. */
static int none(struct katra_probes *p)
{
	pk_early_free(p);
	return 0;
}

int pk_early_start(struct katra_probes *p)
{
	struct pk_early *e = p->early;
	struct bpf_program *prog;
	struct bpf_map *m;
	sigset_t all, old;
	int err = 0;

	if (!e)
		return 0;
	pthread_join(e->t, NULL);
	e->running = false;
	if (e->err) /* its open failed: the skeleton loads them */
		return none(p);
	/* the maps the split object had made (none made: none early) */
	bpf_object__for_each_map(m, p->skel->obj)
		if (bpf_map__autocreate(m) && bpf_map__fd(m) < 0)
			return none(p);
	/* after the twins' choice: only the one in use is named */
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);

		if (e->n < EARLY_MAX && bpf_program__autoload(prog) && is_vulkan(name))
			e->names[e->n++] = name;
	}
	if (!e->n)
		return none(p);
	bpf_object__for_each_program(prog, e->obj) {
		const char *name = bpf_program__name(prog);
		bool early = is_early(e, name);

		bpf_program__set_autoload(prog, early);
		if (early && p->uprobe_multi && strstr(name, "_multi"))
			pk_uprobe_multi_type(prog);
	}
	bpf_object__for_each_map(m, e->obj) {
		struct bpf_map *own = bpf_object__find_map_by_name(p->skel->obj, bpf_map__name(m));

		if (pk_reuse_map(own, m))
			return none(p);
	}
	/* signals are the capture loop's business (its links never wait on one) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&e->t, NULL, load_early, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return err;
	e->running = true;
	/* the skeleton leaves them to the early object */
	bpf_object__for_each_program(prog, p->skel->obj)
		if (is_early(e, bpf_program__name(prog)))
			bpf_program__set_autoload(prog, false);
	return 0;
}

int pk_early_finish(struct katra_probes *p)
{
	struct pk_early *e = p->early;

	if (!e || !e->running) {
		if (e)
			warm_end(e);
		return e ? e->err : 0;
	}
	pthread_join(e->t, NULL);
	e->running = false;
	warm_end(e);
	return e->err;
}

struct bpf_program *pk_early_find(struct katra_probes *p, const char *name)
{
	struct pk_early *e = p->early;

	return e && e->obj && !e->err && is_early(e, name)
		       ? bpf_object__find_program_by_name(e->obj, name)
		       : NULL;
}

struct bpf_object *pk_early_object(const struct katra_probes *p)
{
	return p->early && !p->early->err ? p->early->obj : NULL;
}

void pk_early_free(struct katra_probes *p)
{
	struct pk_early *e = p->early;

	if (!e)
		return;
	pk_early_finish(p); /* a failure elsewhere: its thread ends first */
	warm_end(e);
	bpf_object__close(e->obj);
	free(e);
	p->early = NULL;
}
