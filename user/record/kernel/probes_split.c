// SPDX-License-Identifier: GPL-2.0-only
/* The BPF load spread over the CPUs.  The kernel verifies one program at a
 * time per load, and sys_enter, sys_exit and sched_switch take about half of
 * the skeleton's (verified instructions on 6.18: 1,622 + 1,924 + 4,274 of
 * 15,305): they load into a second object opened from the same ELF, on a
 * thread of its own, while the skeleton loads the rest.  So do the io_uring
 * completion programs: their CO-RE relocations' candidate searches and
 * their verification leave the main thread.  The io_uring submit (~500
 * instructions, the costliest of them to verify) loads in the skeleton:
 * with it here the second object ended 4-7 ms after the skeleton (the
 * medians of `KATRA_TIMING=1`'s steps over 8 `-p` starts: 38.8 against
 * 33.3 ms), without it both end together (32.6, 33.8), now that the
 * candidate searches walk the cut BTF (probes_btfcore.c).  Both objects
 * must share every map, so the maps
 * the skeleton has not been given yet (the rings' array and .bss are made
 * elsewhere) are made here first, .rodata filled from the skeleton's and
 * frozen as libbpf would (the verifier reads its frozen values); both
 * objects then reuse them (bpf_map__reuse_fd).  Each object parses the
 * kernel's BTF for itself (~15-20 ms each here, as long as the flavours'
 * own parse): both parses start on threads as soon as the skeleton is
 * open, while the flavours are chosen (bpf_program__set_attach_target loads
 * an object's copy before load; the load then keeps it).  Under -e with
 * per-syscall functions (probes_fn.c) nothing is split: their copies are
 * made from the skeleton's programs. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

#define SPLIT_MAX 6

struct pk_split {
	pthread_t t, skel_t;
	bool running, skel_running;
	struct katra_probes *p;
	struct bpf_object *obj;
	struct probe *probes[SPLIT_MAX]; /* the probes whose programs it loads */
	const char *names[SPLIT_MAX];    /* their programs' names */
	unsigned n;
	int err;
};

static bool splits(const char *probe)
{
	return !strcmp(probe, "sys_enter") || !strcmp(probe, "sys_exit") ||
	       !strcmp(probe, "sched_switch") || !strcmp(probe, "io_uring_complete") ||
	       !strcmp(probe, "io_uring_cqe_overflow");
}

/* A map the skeleton would make at load, made now the same way. */
static int create_map(struct bpf_map *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = bpf_map__map_flags(m),
		    .numa_node = bpf_map__numa_node(m), .map_extra = bpf_map__map_extra(m));
	const void *init;
	size_t sz = 0;
	uint32_t zero = 0;
	int fd, err = 0;

	fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m), bpf_map__key_size(m),
			    bpf_map__value_size(m), bpf_map__max_entries(m), &mo);
	if (fd < 0)
		return -errno;
	/* .rodata: the values set before load, then frozen (the only internal
	 * map made here: .bss is made zeroed in probes.c) */
	init = bpf_map__initial_value(m, &sz);
	if (init && sz) {
		if (bpf_map_update_elem(fd, &zero, init, 0) || bpf_map_freeze(fd))
			err = -errno;
	}
	if (!err)
		err = bpf_map__reuse_fd(m, fd);
	close(fd); /* the skeleton holds its own */
	return err;
}

static double ms_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void pk_timing(const char *step)
{
	static int on = -1;
	static double t0; /* set by the first step, on the main thread, before the threads */

	if (on < 0)
		on = getenv("KATRA_TIMING") && *getenv("KATRA_TIMING") == '1';
	if (!on)
		return;
	if (!t0)
		t0 = ms_of(CLOCK_MONOTONIC);
	fprintf(stderr, "katra-record: timing:   probes: %-16s %7.2f ms (cpu %7.2f ms, "
		"thread %6.2f ms)\n", step, ms_of(CLOCK_MONOTONIC) - t0,
		ms_of(CLOCK_PROCESS_CPUTIME_ID), ms_of(CLOCK_THREAD_CPUTIME_ID));
}

static void *load_split(void *arg)
{
	struct pk_split *s = arg;

	s->err = bpf_object__load(s->obj);
	pk_timing("split loaded");
	return NULL;
}

/* The kernel's BTF for an object, parsed before its load: a target that
 * every kernel with tp_btf has (the load finds the same one). */
static void parse_kernel_btf(struct bpf_object *obj)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "tpb_sys_enter");

	if (prog)
		bpf_program__set_attach_target(prog, 0, "sys_enter");
}

static void *skel_btf(void *arg)
{
	struct pk_split *s = arg;

	parse_kernel_btf(s->p->skel->obj);
	return NULL;
}

/* The second object opened and its BTF parsed (its programs and maps are
 * set once the flavours are chosen). */
static void *open_split(void *arg)
{
	struct pk_split *s = arg;

	s->obj = pk_open_twin(pk_btf_core_path(), &s->err);
	if (s->obj)
		parse_kernel_btf(s->obj);
	return NULL;
}

int pk_split_prefetch(struct katra_probes *p)
{
	struct pk_split *s;
	cpu_set_t cpus;
	int err;

	/* without BTF the flavours' choice says why, once */
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	p->split = s;
	s->p = p;
	err = -pthread_create(&s->skel_t, NULL, skel_btf, s);
	if (err)
		return err;
	s->skel_running = true;
	/* one CPU verifies one program at a time: a second object would only
	 * add its open and its parse (KATRA_TEST_NO_SPLIT: the start-up as
	 * before, for comparisons) */
	if (!sched_getaffinity(0, sizeof(cpus), &cpus) && CPU_COUNT(&cpus) < 2)
		return 0;
	if (getenv("KATRA_TEST_NO_SPLIT"))
		return 0;
	/* a kernel whose BTF file must be read a page at a time (before 6.16)
	 * makes each parse slow and its buffer twice the file: a third parse at
	 * once would cost more memory (~8-20 MiB more peak) than its time saves */
	if (!pk_btf_mappable())
		return 0;
	err = -pthread_create(&s->t, NULL, open_split, s);
	if (err)
		return err;
	s->running = true;
	return 0;
}

void pk_split_skel_ready(struct katra_probes *p)
{
	struct pk_split *s = p->split;

	if (s && s->skel_running) {
		pthread_join(s->skel_t, NULL);
		s->skel_running = false;
	}
}

/* The second object's programs and maps, now that the flavours are chosen. */
static int use_split(struct katra_probes *p, struct pk_split *s)
{
	struct bpf_program *prog;
	struct bpf_map *m;
	int err = 0;

	bpf_object__for_each_program(prog, s->obj) {
		bool mine = false;

		for (unsigned i = 0; i < s->n; i++)
			mine |= !strcmp(bpf_program__name(prog), s->names[i]);
		bpf_program__set_autoload(prog, mine);
	}
	bpf_object__for_each_map(m, s->obj) {
		struct bpf_map *own = bpf_object__find_map_by_name(p->skel->obj, bpf_map__name(m));

		err = pk_reuse_map(own, m);
		if (err)
			break;
	}
	return err;
}

int pk_split_start(struct katra_probes *p)
{
	struct pk_split *s = p->split;
	struct bpf_map *m;
	int err = 0;

	pk_split_skel_ready(p);
	if (!s || !s->running)
		return 0;
	pthread_join(s->t, NULL);
	s->running = false;
	if (s->err || p->fn) {
		/* no second object: everything loads in the skeleton, as before */
		bpf_object__close(s->obj);
		s->obj = NULL;
		s->err = 0;
		return 0;
	}
	for (unsigned i = 0; i < p->nprobes && s->n < SPLIT_MAX; i++) {
		struct probe *pr = &p->probes[i];

		if (!pr->use || !splits(pr->name))
			continue;
		s->probes[s->n] = pr;
		s->names[s->n++] = bpf_program__name(pr->use);
	}
	if (!s->n)
		return 0;
	bpf_object__for_each_map(m, p->skel->obj) {
		if (bpf_map__fd(m) >= 0 || !bpf_map__autocreate(m))
			continue; /* made already (the rings' array, .bss), or not at all */
		err = create_map(m);
		if (err)
			return err;
	}
	err = use_split(p, s);
	if (!err)
		err = -pthread_create(&s->t, NULL, load_split, s);
	if (err)
		return err;
	s->running = true;
	/* the skeleton leaves them to the second object */
	for (unsigned i = 0; i < s->n; i++)
		bpf_program__set_autoload(s->probes[i]->use, false);
	return 0;
}

int pk_split_finish(struct katra_probes *p)
{
	struct pk_split *s = p->split;

	if (!s || !s->running)
		return s ? s->err : 0;
	pthread_join(s->t, NULL);
	s->running = false;
	if (s->err || !s->n)
		return s->err;
	for (unsigned i = 0; i < s->n; i++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(s->obj, s->names[i]);

		if (!prog)
			return s->err = -ENOENT;
		s->probes[i]->use = prog;
	}
	return 0;
}

void pk_split_free(struct katra_probes *p)
{
	struct pk_split *s = p->split;

	if (!s)
		return;
	/* a failure elsewhere: its threads end first */
	pk_split_skel_ready(p);
	pk_split_finish(p);
	bpf_object__close(s->obj);
	free(s);
	p->split = NULL;
}
