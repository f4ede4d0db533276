/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the format library's unit tests: a growable byte buffer,
 * an in-memory trace builder on top of the encoder, and small record
 * constructors.  Header-only (static) so each test file stays standalone. */
#ifndef KATRA_FORMAT_TEST_UTIL_H
#define KATRA_FORMAT_TEST_UTIL_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "katra/format.h"
#include "../../tools/sample_records.h"

struct tbuf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

static inline void tbuf_put(struct tbuf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		cr_assert_not_null(b->p);
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static inline void tbuf_u32(struct tbuf *b, uint32_t v)
{
	uint8_t le[4] = { v, v >> 8, v >> 16, v >> 24 };

	tbuf_put(b, le, 4);
}

static inline void tbuf_free(struct tbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Encodes one record (exact size) and appends it unframed. */
static inline size_t tbuf_record(struct tbuf *b, const struct katra_record *r)
{
	size_t n = katra_encoded_record_size(r);
	uint8_t *tmp = malloc(n ? n : 1);
	long got;

	cr_assert_not_null(tmp);
	got = katra_encode_record(r, tmp, n);
	cr_assert_eq(got, (long)n, "encode returned %ld, size said %zu", got, n);
	tbuf_put(b, tmp, n);
	free(tmp);
	return n;
}

/* "KATRATRC" + version + header_len + header. */
static inline void tbuf_preamble(struct tbuf *b, const struct katra_header *h)
{
	uint8_t tmp[4096];
	long n = katra_encode_header(h, tmp, sizeof(tmp));

	cr_assert_gt(n, 0);
	tbuf_put(b, KATRA_MAGIC, KATRA_MAGIC_LEN);
	tbuf_u32(b, h->format_version);
	tbuf_u32(b, (uint32_t)n);
	tbuf_put(b, tmp, (size_t)n);
}

/* Appends u32 length + record; returns the offset of the length prefix. */
static inline size_t tbuf_framed(struct tbuf *b, const struct katra_record *r)
{
	size_t at = b->len;

	tbuf_u32(b, (uint32_t)katra_encoded_record_size(r));
	tbuf_record(b, r);
	return at;
}

/* The whole sample trace in memory; offsets[i] gets record i's offset. */
static inline void tbuf_sample_trace(struct tbuf *b, size_t *offsets)
{
	tbuf_preamble(b, katra_sample_header());
	for (size_t i = 0; i < katra_sample_count(); i++) {
		size_t at = tbuf_framed(b, katra_sample_record(i));

		if (offsets)
			offsets[i] = at;
	}
}

static inline void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(p, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

static inline uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct tbuf b = { 0 };
	uint8_t chunk[4096];
	size_t n;

	cr_assert_not_null(f, "cannot open %s", path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		tbuf_put(&b, chunk, n);
	fclose(f);
	*len = b.len;
	return b.p;
}

/* A private temporary directory per test (tests may run in parallel). */
static inline void temp_dir(char *out, size_t cap)
{
	snprintf(out, cap, "/tmp/katra-unit-XXXXXX");
	cr_assert_not_null(mkdtemp(out), "mkdtemp: %s", strerror(errno));
}

static inline void temp_dir_remove(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* ---- record constructors for hand-made traces ---- */

static inline struct katra_record mk_event(uint64_t seq, uint64_t ts, uint64_t tid,
					   uint32_t phase, int64_t span)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_EVENT;
	r.u.event.seq = seq;
	r.u.event.ts_mono_ns = ts;
	r.u.event.ts_wall_ns = 1000000 + ts;
	r.u.event.thread_id = tid;
	r.u.event.process_id = 100;
	r.u.event.scope = KATRA_SCOPE_LINUX;
	r.u.event.kind = KATRA_KIND_SYSCALL;
	r.u.event.phase = phase;
	if (span >= 0)
		r.u.event.span_id = (struct katra_opt_u64){ true, (uint64_t)span };
	r.u.event.payload.type = KATRA_PAYLOAD_NONE;
	return r;
}

static inline struct katra_record mk_counter(uint64_t seq, uint64_t ts)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_COUNTER;
	r.u.counter.seq = seq;
	r.u.counter.ts_mono_ns = ts;
	r.u.counter.kind = KATRA_COUNTER_EVENTS_RECORDED;
	return r;
}

static inline struct katra_record mk_epoch(uint64_t seq, uint64_t ts, const char *name)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_EPOCH_MARKER;
	r.u.epoch.seq = seq;
	r.u.epoch.ts_mono_ns = ts;
	r.u.epoch.kind = KATRA_EPOCH_USER;
	r.u.epoch.name = katra_cstr(name);
	return r;
}

/* A SessionSummary whose counts match recs[0..n) (kinds kept in *kinds). */
static inline struct katra_record mk_summary(const struct katra_record *recs, size_t n,
					     struct katra_kind_count kinds[KATRA_KIND_COUNT])
{
	uint64_t per_kind[KATRA_KIND_COUNT] = { 0 };
	struct katra_record r;
	size_t k = 0;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_SESSION_SUMMARY;
	for (size_t i = 0; i < n; i++) {
		if (recs[i].type == KATRA_RECORD_EVENT) {
			const struct katra_event *ev = &recs[i].u.event;
			bool proc_new = ev->process_id != 0, thread_new = ev->thread_id != 0;
			for (size_t j = 0; j < i; j++) {
				if (recs[j].type != KATRA_RECORD_EVENT)
					continue;
				proc_new &= recs[j].u.event.process_id != ev->process_id;
				thread_new &= recs[j].u.event.thread_id != ev->thread_id;
			}
			r.u.summary.event_count++;
			per_kind[ev->kind]++;
			r.u.summary.processes_seen += proc_new;
			r.u.summary.threads_seen += thread_new;
			r.u.summary.inferred_events += ev->confidence == KATRA_CONFIDENCE_INFERRED;
		} else if (recs[i].type == KATRA_RECORD_EPOCH_MARKER) {
			r.u.summary.epoch_count++;
		} else if (recs[i].type == KATRA_RECORD_COUNTER) {
			r.u.summary.counter_count++;
		}
	}
	for (uint32_t i = 0; i < KATRA_KIND_COUNT; i++)
		if (per_kind[i])
			kinds[k++] = (struct katra_kind_count){ i, per_kind[i] };
	r.u.summary.events_by_kind = kinds;
	r.u.summary.events_by_kind_len = k;
	return r;
}

/* A complete trace: sample header, recs framed, offsets[i] per record. */
static inline void tbuf_trace(struct tbuf *b, const struct katra_record *recs, size_t n,
			      size_t *offsets)
{
	tbuf_preamble(b, katra_sample_header());
	for (size_t i = 0; i < n; i++) {
		size_t at = tbuf_framed(b, &recs[i]);

		if (offsets)
			offsets[i] = at;
	}
}

#endif
