// SPDX-License-Identifier: GPL-2.0-only
/* The per-CPU rings and the array of them the probes look theirs up in,
 * made on a thread of their own while the programs load: creating N rings
 * zeroes their pages (~5 ms per 32 MiB here), and every update of an array
 * of maps waits for an RCU grace period (~10 ms each here: N of them on a
 * machine of N CPUs).  The array is created first, sized and typed by ring
 * 0, so that the load can take it in place of its own (bpf_map__reuse_fd);
 * it is filled in one batch where the kernel has them (one grace period
 * from Linux 6.8), else slot by slot, while the verifier runs.  The rings'
 * mappings (a page-table entry per page: ~3.5 ms of CPU per 32 MiB here)
 * are made before the fill.  The fill's grace period is not waited for:
 * the slots are set before the kernel waits (the wait only tells the
 * caller that no program still runs with a slot's old value, and every
 * slot was empty with no program attached), so the load goes on once a
 * lookup finds every slot set (pk_rings_finish), while the thread sleeps
 * out the grace period (5-20 ms here, that under -p came after everything
 * else was loaded). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"
#include "rings.h"

struct pk_rings_job {
	pthread_t t;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct katra_probes *p;
	int outer_fd;   /* the array, once made (-1 before) */
	int err;        /* the first error */
	enum { NOTHING, OUTER, MAPPED, FILLED } done; /* what is made */
};

static int create_ring(struct ring *r, uint32_t bytes)
{
	r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "katra_ring", 0, 0, bytes, NULL);
	return r->fd < 0 ? -errno : 0;
}

static int map_ring(struct ring *r, uint32_t bytes, long page)
{
	void *m;

	m = mmap(NULL, page, PROT_READ, MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	r->cons = m;
	/* the producer page and the data, once, for the drain (rings.h) */
	m = mmap(NULL, page + (size_t)bytes, PROT_READ, MAP_SHARED, r->fd, page);
	if (m == MAP_FAILED)
		return -errno;
	r->prod = m;
	return 0;
}

int katra_probes_rings_open(struct katra_probes *p, struct katra_rings *rs)
{
	const void **maps = calloc(p->nrings, sizeof(*maps));
	int *fds = calloc(p->nrings, sizeof(*fds)), rc = pk_rings_mapped(p);

	if (!rc && (!maps || !fds))
		rc = -ENOMEM;
	for (unsigned i = 0; !rc && i < p->nrings; i++) {
		fds[i] = p->rings[i].fd;
		maps[i] = p->rings[i].prod;
	}
	if (!rc)
		rc = katra_rings_open_mapped(rs, fds, maps, p->nrings, p->ring_bytes);
	else
		memset(rs, 0, sizeof(*rs));
	free(maps);
	free(fds);
	return rc;
}

/* Slot i of the array: ring i.  One batch, or one update per slot where the
 * kernel has no batches for arrays of maps. */
static int fill(struct katra_probes *p, int outer)
{
	uint32_t *keys = calloc(p->nrings, sizeof(*keys)), n = p->nrings;
	int *fds = calloc(p->nrings, sizeof(*fds)), err = 0;

	if (!keys || !fds) {
		free(keys);
		free(fds);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < p->nrings; i++) {
		keys[i] = i;
		fds[i] = p->rings[i].fd;
	}
	if (bpf_map_update_batch(outer, keys, fds, &n, NULL)) /* none here: slot by slot */
		for (uint32_t i = 0; i < p->nrings && !err; i++)
			if (bpf_map_update_elem(outer, &keys[i], &fds[i], BPF_ANY))
				err = -errno;
	free(keys);
	free(fds);
	return err;
}

/* Says what is made (after an error: all there will be). */
static void publish(struct pk_rings_job *j, int outer_fd, int err, int done)
{
	pthread_mutex_lock(&j->lock);
	if (outer_fd >= 0)
		j->outer_fd = outer_fd;
	if (err && !j->err)
		j->err = err;
	j->done = err ? FILLED : done;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
}

static void *rings_main(void *arg)
{
	struct pk_rings_job *j = arg;
	struct katra_probes *p = j->p;
	long page = sysconf(_SC_PAGESIZE);
	int outer = -1, err;

	err = create_ring(&p->rings[0], p->ring_bytes);
	if (!err) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .inner_map_fd = p->rings[0].fd);
		outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "rings", sizeof(uint32_t),
				       sizeof(uint32_t), p->nrings, &mo);
		if (outer < 0)
			err = -errno;
	}
	publish(j, outer, err, OUTER);
	if (err)
		return NULL;
	for (unsigned i = 1; i < p->nrings && !err; i++)
		err = create_ring(&p->rings[i], p->ring_bytes);
	for (unsigned i = 0; i < p->nrings && !err; i++)
		err = map_ring(&p->rings[i], p->ring_bytes, page);
	publish(j, -1, err, MAPPED);
	if (!err)
		err = fill(p, outer);
	publish(j, -1, err, FILLED);
	return NULL;
}

int pk_rings_start(struct katra_probes *p)
{
	struct pk_rings_job *j;
	sigset_t all, old;
	int err;

	p->rings = calloc(p->nrings, sizeof(*p->rings));
	j = calloc(1, sizeof(*j));
	if (!p->rings || !j) {
		free(j);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < p->nrings; i++)
		p->rings[i].fd = -1;
	j->p = p;
	j->outer_fd = -1;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	sigfillset(&all); /* signals are the capture loop's business */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&j->t, NULL, rings_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_mutex_destroy(&j->lock);
		pthread_cond_destroy(&j->cond);
		free(j);
		return err;
	}
	p->rings_job = j;
	return 0;
}

/* Waits until `done` is made (or an error ends the thread). */
static int wait_for(struct pk_rings_job *j, int done)
{
	int err;

	pthread_mutex_lock(&j->lock);
	while ((int)j->done < done)
		pthread_cond_wait(&j->cond, &j->lock);
	err = j->err;
	pthread_mutex_unlock(&j->lock);
	return err;
}

int pk_rings_use(struct katra_probes *p)
{
	struct pk_rings_job *j = p->rings_job;
	int err = j ? wait_for(j, OUTER) : -EINVAL;

	if (!err)
		err = bpf_map__reuse_fd(p->skel->maps.rings, j->outer_fd);
	return err;
}

/* Whether every slot of the array holds its ring (a lookup from user
 * space reads the inner map's id, 0 for none). */
static bool all_set(const struct katra_probes *p, int outer)
{
	for (uint32_t i = 0; i < p->nrings; i++) {
		uint32_t id = 0;

		if (bpf_map_lookup_elem(outer, &i, &id) || !id)
			return false;
	}
	return true;
}

int pk_rings_finish(struct katra_probes *p)
{
	struct pk_rings_job *j = p->rings_job;
	int err = j ? wait_for(j, MAPPED) : 0;

	if (!j || err)
		return err;
	/* the slots are set before the fill's grace period: polled, not waited */
	pthread_mutex_lock(&j->lock);
	while (j->done < FILLED && !all_set(p, j->outer_fd)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 200 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&j->cond, &j->lock, &ts);
	}
	err = j->err;
	pthread_mutex_unlock(&j->lock);
	return err;
}

int pk_rings_mapped(struct katra_probes *p)
{
	struct pk_rings_job *j = p->rings_job;

	return j ? wait_for(j, MAPPED) : 0;
}

void pk_rings_end(struct katra_probes *p)
{
	struct pk_rings_job *j = p->rings_job;

	if (!j)
		return;
	wait_for(j, FILLED);
	pthread_join(j->t, NULL);
	if (j->outer_fd >= 0)
		close(j->outer_fd); /* the skeleton holds its own (reuse_fd dups it) */
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
	p->rings_job = NULL;
}
