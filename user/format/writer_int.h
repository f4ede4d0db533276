/* SPDX-License-Identifier: GPL-2.0-only */
/* The writer's state and its per-record commit, shared by writer.c and the
 * per-kind appends that take an event's fields as scalars (writer_sched.c).
 * Internal to the format library. */
#ifndef KATRA_FORMAT_WRITER_INT_H
#define KATRA_FORMAT_WRITER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "katra/format.h"

#define CLOCK_CHECK_EVERY 64 /* records between clock reads */

struct katra_writer {
	int fd;
	int error;         /* first error, sticky */
	bool finished;
	uint8_t *mem;      /* the buffer: KATRA_WRITER_BUFFER_BYTES + DIO_ALIGN, aligned */
	uint8_t *buf;      /* where the records start in it: mem + lead */
	size_t used;
	size_t cap;        /* bytes a buffer takes before it is handed over */
	uint64_t base;     /* stream (= file) offset of buf[0] */
	bool lead;         /* buf sits at mem + base % DIO_ALIGN (plain, our file) */
	struct katra_outworker *out; /* the output thread (out_worker.c) */
	struct katra_gzout *z;       /* KATRA_WRITER_GZIP: its compressor */
	/* the plain sink's, used on the output thread only */
	bool positioned;   /* a regular file of our own: pwrite at the job's offset */
	bool dio;          /* direct writes for the aligned middle of a buffer */
	bool direct_now;   /* the fd's O_DIRECT flag, as last set */
	uint64_t direct_bytes; /* sent with O_DIRECT (output thread; read atomically) */
	unsigned dio_pause; /* buffers still to write buffered after a slow one */
	uint64_t records;
	uint64_t last_flush_ns;
	unsigned since_clock;
};

/* Every CLOCK_CHECK_EVERY records: hands the buffer over when the last
 * hand-over is old enough (writer.c; out of line). */
int clock_check(struct katra_writer *w);
/* An event with strings or many causes, near the buffer's end, or after an
 * error: the general path (writer.c; out of line). */
int append_event_other(struct katra_writer *w, const struct katra_event *ev);

static inline void put_le32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian hosts only (encode_int.h) */
}

/* The record just encoded at used + 4 is n bytes: frame it, and read the
 * clock every CLOCK_CHECK_EVERY records, not per record. */
static inline __attribute__((always_inline)) int commit_record(struct katra_writer *w, size_t n)
{
	put_le32(w->buf + w->used, (uint32_t)n);
	w->used += 4 + n;
	w->records++;
	if (++w->since_clock >= CLOCK_CHECK_EVERY)
		return clock_check(w);
	return 0;
}

#endif
