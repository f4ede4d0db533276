/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the unit tests that feed hand-made wire records through
 * the recorder's pipeline into a trace on disk (test_record.c, test_ucall.c):
 * the setup and the finish every such test repeats.  Header-only (static)
 * so each test file stays standalone. */
#ifndef KATRA_PIPELINE_TEST_UTIL_H
#define KATRA_PIPELINE_TEST_UTIL_H

#include "format_test_util.h"
#include "record/pipeline/pipeline.h"

/* A pipeline writing t.ktrc in a private temporary directory. */
struct pl_trace {
	char dir[64], path[128];
	struct katra_writer *w;
	struct pipeline pl;
	struct pipeline_config pc;
	/* pipeline_finish's summary points into these until the writer has it */
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_drop_count drops[4];
	struct katra_summary s;
};

static inline void pl_trace_open(struct pl_trace *t, unsigned nrings, uint64_t start_mono)
{
	t->pc = (struct pipeline_config){
		.nrings = nrings, .fifo_items = 64, .start_mono = start_mono,
		.limits = { 64, 16, 16 },
	};
	temp_dir(t->dir, sizeof(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/t.ktrc", t->dir);
	cr_assert_eq(katra_writer_open(&t->w, t->path, katra_sample_header(), 0), 0);
	cr_assert_eq(pipeline_init(&t->pl, t->w, &t->pc), 0);
}

/* Drains the pipeline up to end_key (no ring lost anything); split from
 * pl_trace_close so a test can look at the pipeline's state in between. */
static inline void pl_trace_end(struct pl_trace *t, uint64_t end_key)
{
	uint64_t ring_drops[t->pc.nrings];

	memset(ring_drops, 0, sizeof(ring_drops));
	cr_assert_eq(pipeline_finish(&t->pl, end_key, ring_drops, NULL, &t->s, t->kinds,
				     t->drops, 4), 0);
}

static inline void pl_trace_close(struct pl_trace *t)
{
	cr_assert_eq(katra_writer_finish(t->w, &t->s), 0);
	cr_assert_eq(katra_writer_close(t->w), 0);
	pipeline_free(&t->pl);
}

static inline void pl_trace_finish(struct pl_trace *t, uint64_t end_key)
{
	pl_trace_end(t, end_key);
	pl_trace_close(t);
}

/* An event as the pipeline tests look at it (test_ucall.c, test_winewake.c). */
struct pl_ev {
	uint32_t kind, phase, confidence, scope;
	uint64_t seq, ts, tid, span;
	uint64_t request_id; /* 0: none */
	uint64_t causes[4], ncauses;
	struct katra_resource res;
	struct katra_payload payload;
};

/* The trace's events, at most cap of them, into out: how many. */
static inline size_t pl_read_events(const char *path, struct pl_ev *out, size_t cap)
{
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];
	size_t n = 0;

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD && n < cap) {
		if (rec.type != KATRA_RECORD_EVENT)
			continue;
		const struct katra_event *e = &rec.u.event;
		struct pl_ev *g = &out[n++];
		memset(g, 0, sizeof(*g));
		g->kind = e->kind;
		g->phase = e->phase;
		g->confidence = e->confidence;
		g->scope = e->scope;
		g->seq = e->seq;
		g->ts = e->ts_mono_ns;
		g->tid = e->thread_id;
		g->span = e->span_id.value;
		g->request_id = e->request_id.present ? e->request_id.value : 0;
		g->ncauses = e->causes.len;
		for (uint64_t i = 0; i < e->causes.len && i < 4; i++)
			g->causes[i] = e->causes.items[i];
		g->res = e->resource;
		g->payload = e->payload;
	}
	katra_reader_close(r);
	return n;
}

#endif
