/* SPDX-License-Identifier: GPL-2.0-only */
/* The writer's output thread (out_worker.c): internal to user/format/. */
#ifndef KATRA_FORMAT_OUT_WORKER_H
#define KATRA_FORMAT_OUT_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One buffer to write: buf[0..n) goes at stream offset base, and buf
 * starts a record.  The gzip sink uses buf and n only. */
struct katra_outjob {
	const uint8_t *buf;
	size_t n;
	uint64_t base;
};

/* Runs on the output thread: writes job, sets *file_bytes (the bytes now in
 * the file, as katra_outworker_file_bytes reports them); 0 or -errno. */
typedef int (*katra_outworker_sink)(void *ctx, const struct katra_outjob *job,
				    uint64_t *file_bytes);

struct katra_outworker;

/* The writer's buffers (iobuf.c): one 2 MiB region each, 2 MiB aligned and
 * marked for a transparent huge page; a plain trace's buffer and the direct
 * writes' lead (DIO_ALIGN) fill it exactly.  NULL when out of memory. */
#define KATRA_IOBUF_REGION (2u << 20)
void *katra_iobuf_alloc(void);
void katra_iobuf_free(void *p);

/* An output thread running sink(ctx, ...); spare (from katra_iobuf_alloc)
 * is the buffer the first hand-over gives back, freed with the worker.  0, -ENOMEM or -errno from pthread_create (spare is then
 * the caller's). */
int katra_outworker_new(struct katra_outworker **out, katra_outworker_sink sink, void *ctx,
			uint8_t *spare);
/* Hands job over (job->buf points into the buffer *buf) and puts in *buf
 * the spare buffer to go on with; waits first for the previous hand-over.
 * 0, or the sticky error of an earlier write. */
int katra_outworker_post(struct katra_outworker *g, uint8_t **buf, const struct katra_outjob *job);
/* Writes job (after what was handed over before) and returns once all of it
 * is in the file: 0 or the sticky error. */
int katra_outworker_write(struct katra_outworker *g, const struct katra_outjob *job);
/* Waits until everything handed over is in the file: 0 or the sticky error. */
int katra_outworker_wait(struct katra_outworker *g);
/* After the caller wrote to the file itself while the thread was idle (the
 * gzip trailer): records the file's bytes and rc; returns the sticky error. */
int katra_outworker_idle_done(struct katra_outworker *g, int rc, uint64_t file_bytes);
uint64_t katra_outworker_file_bytes(struct katra_outworker *g);
/* Waits, stops the thread and frees it and its spare buffer (the fd stays
 * open). */
void katra_outworker_free(struct katra_outworker *g);

#endif
