// SPDX-License-Identifier: GPL-2.0-only
/* The writer's compression thread.  zlib costs several hundred ns per event
 * (level 1, ~300 MB/s here): done on the recorder's drain thread, it would
 * halve the rate a capture keeps up with.  So a full buffer is handed to
 * this thread, which compresses and writes it while the writer fills a
 * second buffer; at most one buffer is in flight, and a writer flush (the
 * recorder's every 100 ms, finish, close, a record larger than the buffer)
 * waits until everything handed over is in the file.  A failed write is
 * reported, sticky, at the next hand-over or flush; the file is then what
 * gzip_out.c leaves it: everything up to the last complete flush. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "gzip.h"

struct katra_gzworker {
	struct katra_gzout *z;
	int fd;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint8_t *spare;     /* the buffer the writer gets at the next hand-over */
	const uint8_t *job; /* in flight while busy */
	size_t job_n;
	bool busy, quit;
	int error;          /* first write error, sticky */
	uint64_t file_bytes, raw_bytes;
};

static void *run(void *arg)
{
	struct katra_gzworker *g = arg;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->busy && !g->quit)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->busy)
			break;
		const uint8_t *job = g->job;
		size_t n = g->job_n;
		bool failed = g->error != 0; /* after a failure the file is closed */
		pthread_mutex_unlock(&g->mu);
		int rc = failed ? 0 : katra_gzout_write(g->z, g->fd, job, n);
		pthread_mutex_lock(&g->mu);
		if (rc && !g->error)
			g->error = rc;
		g->file_bytes = katra_gzout_file_bytes(g->z);
		g->raw_bytes = katra_gzout_raw_bytes(g->z);
		g->busy = false;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int katra_gzworker_new(struct katra_gzworker **out, int fd, int level, size_t buf_bytes)
{
	struct katra_gzworker *g = calloc(1, sizeof(*g));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->fd = fd;
	g->spare = malloc(buf_bytes);
	rc = g->spare ? katra_gzout_new(&g->z, level) : -ENOMEM;
	if (rc) {
		free(g->spare);
		free(g);
		return rc;
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	/* the capture's signals (SIGINT, SIGUSR1, ...) are for the thread that
	 * waits in poll: the new thread inherits a mask that blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&g->thread, NULL, run, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		katra_gzout_free(g->z);
		free(g->spare);
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
		free(g);
		return rc;
	}
	*out = g;
	return 0;
}

/* Waits until nothing is in flight; the sticky error.  Called with mu held. */
static int idle_locked(struct katra_gzworker *g)
{
	while (g->busy)
		pthread_cond_wait(&g->cv, &g->mu);
	return g->error;
}

int katra_gzworker_wait(struct katra_gzworker *g)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	rc = idle_locked(g);
	pthread_mutex_unlock(&g->mu);
	return rc;
}

int katra_gzworker_post(struct katra_gzworker *g, uint8_t **buf, size_t n)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	rc = idle_locked(g);
	if (!rc && n) {
		uint8_t *give = g->spare;

		g->spare = *buf;
		g->job = *buf;
		g->job_n = n;
		g->busy = true;
		*buf = give;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}

int katra_gzworker_write(struct katra_gzworker *g, const uint8_t *buf, size_t n)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	rc = idle_locked(g);
	if (!rc && n) {
		g->job = buf;
		g->job_n = n;
		g->busy = true;
		pthread_cond_broadcast(&g->cv);
		rc = idle_locked(g);
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}

int katra_gzworker_finish(struct katra_gzworker *g)
{
	int rc = katra_gzworker_wait(g);

	if (rc)
		return rc;
	/* nothing in flight: the stream is this thread's to end */
	rc = katra_gzout_finish(g->z, g->fd);
	pthread_mutex_lock(&g->mu);
	g->file_bytes = katra_gzout_file_bytes(g->z);
	g->raw_bytes = katra_gzout_raw_bytes(g->z);
	if (rc && !g->error)
		g->error = rc;
	pthread_mutex_unlock(&g->mu);
	return rc;
}

bool katra_gzworker_finished(struct katra_gzworker *g)
{
	bool done;

	pthread_mutex_lock(&g->mu);
	idle_locked(g);
	done = katra_gzout_finished(g->z);
	pthread_mutex_unlock(&g->mu);
	return done;
}

uint64_t katra_gzworker_file_bytes(struct katra_gzworker *g)
{
	uint64_t v;

	pthread_mutex_lock(&g->mu);
	v = g->file_bytes;
	pthread_mutex_unlock(&g->mu);
	return v;
}

void katra_gzworker_free(struct katra_gzworker *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	idle_locked(g);
	g->quit = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	katra_gzout_free(g->z);
	free(g->spare);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g);
}
