// SPDX-License-Identifier: GPL-2.0-only
/* The writer's output thread: it runs the writer's sink (gzip_out.c's
 * compressor, or a plain write to the file) on full buffers while the
 * writer fills a second one.  zlib costs several hundred ns per event
 * (level 1, ~300 MB/s here), and a direct write waits for the disk: done on
 * the recorder's drain thread, either would stall the drain and lose
 * events.  At most one buffer is in flight; a writer kick (the recorder's
 * every 100 ms) hands over a partly filled one the same way, and a flush
 * (finish, close, a record larger than the buffer) waits until everything
 * handed over is in the file.  A failed write is reported, sticky, at the
 * next hand-over or flush; the file is then what the sink leaves it:
 * everything up to its last whole record (plain) or complete flush (gzip). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "out_worker.h"

struct katra_outworker {
	katra_outworker_sink sink;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint8_t *spare;     /* the buffer the writer gets at the next hand-over */
	struct katra_outjob job; /* in flight while busy */
	bool busy, quit;
	int error;          /* first write error, sticky */
	uint64_t file_bytes;
};

static void *run(void *arg)
{
	struct katra_outworker *g = arg;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->busy && !g->quit)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->busy)
			break;
		struct katra_outjob job = g->job;
		bool failed = g->error != 0; /* after a failure the file is closed */
		uint64_t fb = g->file_bytes;
		pthread_mutex_unlock(&g->mu);
		int rc = failed ? 0 : g->sink(g->ctx, &job, &fb);
		pthread_mutex_lock(&g->mu);
		if (rc && !g->error)
			g->error = rc;
		g->file_bytes = fb;
		g->busy = false;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int katra_outworker_new(struct katra_outworker **out, katra_outworker_sink sink, void *ctx,
			uint8_t *spare)
{
	struct katra_outworker *g = calloc(1, sizeof(*g));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->sink = sink;
	g->ctx = ctx;
	g->spare = spare;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	/* the capture's signals (SIGINT, SIGUSR1, ...) are for the thread that
	 * waits in poll: the new thread inherits a mask that blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&g->thread, NULL, run, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
		free(g);
		return rc;
	}
	*out = g;
	return 0;
}

/* Waits until nothing is in flight; the sticky error.  Called with mu held. */
static int idle_locked(struct katra_outworker *g)
{
	while (g->busy)
		pthread_cond_wait(&g->cv, &g->mu);
	return g->error;
}

int katra_outworker_wait(struct katra_outworker *g)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	rc = idle_locked(g);
	pthread_mutex_unlock(&g->mu);
	return rc;
}

int katra_outworker_post(struct katra_outworker *g, uint8_t **buf, const struct katra_outjob *job)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	rc = idle_locked(g);
	if (!rc && job->n) {
		uint8_t *give = g->spare;

		g->spare = *buf;
		g->job = *job; /* job->buf points into *buf */
		g->busy = true;
		*buf = give;
	}
	pthread_mutex_unlock(&g->mu);
	/* after the unlock: woken under the lock, the writer thread preempts
	 * this one and then blocks on the mutex it still holds */
	if (!rc && job->n)
		pthread_cond_broadcast(&g->cv);
	return rc;
}

int katra_outworker_write(struct katra_outworker *g, const struct katra_outjob *job)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	rc = idle_locked(g);
	if (!rc && job->n) {
		g->job = *job;
		g->busy = true;
		pthread_cond_broadcast(&g->cv);
		rc = idle_locked(g);
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}

int katra_outworker_idle_done(struct katra_outworker *g, int rc, uint64_t file_bytes)
{
	pthread_mutex_lock(&g->mu);
	g->file_bytes = file_bytes;
	if (rc && !g->error)
		g->error = rc;
	rc = g->error;
	pthread_mutex_unlock(&g->mu);
	return rc;
}

uint64_t katra_outworker_file_bytes(struct katra_outworker *g)
{
	uint64_t v;

	pthread_mutex_lock(&g->mu);
	v = g->file_bytes;
	pthread_mutex_unlock(&g->mu);
	return v;
}

void katra_outworker_free(struct katra_outworker *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	idle_locked(g);
	g->quit = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	katra_iobuf_free(g->spare);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g);
}
