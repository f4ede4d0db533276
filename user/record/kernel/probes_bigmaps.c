// SPDX-License-Identifier: GPL-2.0-only
/* The preallocated tables made on a thread while the flavours are chosen.
 * `flushed` (32,768 cpu slots) and `ucall_states` (16,384 call states) are
 * hashes the kernel preallocates whole: making them took 2-14 ms of the
 * main thread's wall time here (page allocation, zeroing, memory-cgroup
 * charging, the per-CPU free lists), between the flavours' choice and the
 * loads, on the way to live.  Their shapes are final once the skeleton is
 * sized (before pk_rings_start): they are made then, by bpf_map_create
 * alone, from a copy of their shapes (the skeleton is not touched off the
 * main thread); the skeleton takes them before the split object's maps are
 * made (pk_bigmaps_use).  Any failure: the skeleton makes them, as before. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

#define BIGMAPS 2

struct pk_bigmaps {
	pthread_t t;
	struct {
		struct bpf_map *m;      /* the skeleton's (main thread only) */
		char name[BPF_OBJ_NAME_LEN];
		enum bpf_map_type type;
		uint32_t key_size, value_size, max_entries, flags;
		int fd;                 /* made, or -errno */
	} maps[BIGMAPS];
};

static void *make_maps(void *arg)
{
	struct pk_bigmaps *b = arg;

	for (int i = 0; i < BIGMAPS; i++) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = b->maps[i].flags);
		int fd = bpf_map_create(b->maps[i].type, b->maps[i].name, b->maps[i].key_size,
					b->maps[i].value_size, b->maps[i].max_entries, &mo);
		b->maps[i].fd = fd < 0 ? -errno : fd;
	}
	return NULL;
}

void pk_bigmaps_start(struct katra_probes *p)
{
	struct bpf_map *ms[BIGMAPS] = { p->skel->maps.flushed, p->skel->maps.ucall_states };
	struct pk_bigmaps *b = calloc(1, sizeof(*b));
	sigset_t all, old;

	if (!b)
		return; /* the skeleton makes them */
	for (int i = 0; i < BIGMAPS; i++) {
		b->maps[i].m = ms[i];
		snprintf(b->maps[i].name, sizeof(b->maps[i].name), "%s", bpf_map__name(ms[i]));
		b->maps[i].type = bpf_map__type(ms[i]);
		b->maps[i].key_size = bpf_map__key_size(ms[i]);
		b->maps[i].value_size = bpf_map__value_size(ms[i]);
		b->maps[i].max_entries = bpf_map__max_entries(ms[i]);
		b->maps[i].flags = bpf_map__map_flags(ms[i]);
		b->maps[i].fd = -EAGAIN;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&b->t, NULL, make_maps, b)) {
		free(b);
		b = NULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->bigmaps = b;
}

/* Waits for the thread; frees what it made unless use: the skeleton takes
 * each map made whose shape is still the one it was made with. */
static void finish(struct katra_probes *p, bool use)
{
	struct pk_bigmaps *b = p->bigmaps;

	if (!b)
		return;
	pthread_join(b->t, NULL);
	for (int i = 0; i < BIGMAPS; i++) {
		struct bpf_map *m = b->maps[i].m;

		if (b->maps[i].fd < 0)
			continue;
		if (use && bpf_map__fd(m) < 0 && bpf_map__autocreate(m) &&
		    bpf_map__max_entries(m) == b->maps[i].max_entries &&
		    bpf_map__map_flags(m) == b->maps[i].flags)
			bpf_map__reuse_fd(m, b->maps[i].fd); /* on failure: made at load */
		close(b->maps[i].fd); /* the skeleton holds its own */
	}
	free(b);
	p->bigmaps = NULL;
}

void pk_bigmaps_use(struct katra_probes *p)
{
	finish(p, true);
}

void pk_bigmaps_free(struct katra_probes *p)
{
	finish(p, false);
}
