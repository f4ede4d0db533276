// SPDX-License-Identifier: GPL-2.0-only
/* Stats accumulation (the driver is stats_cmd.c). */
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "stats.h"

/* clamps an enum value into its table, the last slot holding strays */
#define SLOT(v, n) ((v) < (n) ? (v) : (n))

static uint32_t copy_str(char *dst, size_t cap, struct katra_str s)
{
	size_t n = s.len < cap ? (size_t)s.len : cap;

	if (n)
		memcpy(dst, s.ptr, n);
	return (uint32_t)n;
}

void kr_stats_init(struct kr_stats *s, const struct katra_header *h)
{
	memset(s, 0, sizeof(*s));
	kr_idmap_init(&s->processes, KR_MAX_PROCESSES);
	kr_idmap_init(&s->threads, KR_MAX_THREADS);
	kr_idmap_init(&s->open_spans, KR_MAX_OPEN_SPANS);
	kr_procnames_init(&s->names);
	s->workload_len = copy_str(s->workload, sizeof(s->workload), h->workload);
	s->tool_version_len = copy_str(s->tool_version, sizeof(s->tool_version),
				       h->tool_version);
	kr_labels_read(h, &s->labels);
}

void kr_stats_free(struct kr_stats *s)
{
	kr_idmap_free(&s->processes);
	kr_idmap_free(&s->threads);
	kr_idmap_free(&s->open_spans);
	kr_procnames_free(&s->names);
	for (unsigned k = 0; k <= KATRA_KIND_COUNT; k++)
		free(s->spans[k].durations);
}

static void see_ts(struct kr_stats *s, uint64_t ts)
{
	if (!s->have_ts || ts < s->first_ts)
		s->first_ts = ts;
	if (!s->have_ts || ts > s->last_ts)
		s->last_ts = ts;
	s->have_ts = true;
}

static void count_thread(struct kr_stats *s, const struct katra_event *e)
{
	struct kr_idmap_slot *t, *p;
	bool tnew, pnew;

	p = kr_idmap_get(&s->processes, e->process_id, 0, &pnew);
	t = kr_idmap_get(&s->threads, e->process_id, e->thread_id, &tnew);
	if (!t) {
		s->untracked_events++;
	} else {
		t->v1++;
		if (tnew && p)
			p->v2++;
	}
	if (p)
		p->v1++;
}

static void span_end(struct kr_stats *s, const struct katra_event *e)
{
	struct kr_idmap_slot *b = kr_idmap_find(&s->open_spans, e->thread_id, e->span_id.value);
	struct kr_span_kind *sk;
	uint64_t dur;

	if (!b) {
		s->unmatched_ends++;
		return;
	}
	/* the span belongs to the kind its Begin announced */
	sk = &s->spans[SLOT(b->v2, KATRA_KIND_COUNT)];
	dur = e->ts_mono_ns >= b->v1 ? e->ts_mono_ns - b->v1 : 0;
	kr_idmap_remove(&s->open_spans, b);
	sk->ends++;
	if (!sk->durations) {
		sk->durations = calloc(1, sizeof(*sk->durations));
		if (!sk->durations) {
			s->oom = true;
			return;
		}
	}
	kr_histo_add(sk->durations, dur);
}

static void span_begin(struct kr_stats *s, const struct katra_event *e)
{
	struct kr_idmap_slot *b;
	bool created;

	s->spans[SLOT(e->kind, KATRA_KIND_COUNT)].begins++;
	b = kr_idmap_get(&s->open_spans, e->thread_id, e->span_id.value, &created);
	if (!b) {
		s->span_overflow++;
		return;
	}
	if (!created)
		s->begun_twice++; /* the later Begin wins */
	b->v1 = e->ts_mono_ns;
	b->v2 = e->kind;
}

static void add_event(struct kr_stats *s, const struct katra_event *e)
{
	s->events++;
	see_ts(s, e->ts_mono_ns);
	s->by_scope[SLOT(e->scope, KATRA_SCOPE_COUNT)]++;
	s->by_kind[SLOT(e->kind, KATRA_KIND_COUNT)]++;
	s->by_phase[SLOT(e->phase, KATRA_PHASE_COUNT)]++;
	count_thread(s, e);
	kr_procnames_see(&s->names, e);
	if (e->phase == KATRA_PHASE_BEGIN || e->phase == KATRA_PHASE_END) {
		if (!e->span_id.present)
			s->spanless++;
		else if (e->phase == KATRA_PHASE_BEGIN)
			span_begin(s, e);
		else
			span_end(s, e);
	}
	if (e->payload.type == KATRA_PAYLOAD_DROP) {
		s->drop_events++;
		s->event_drops[SLOT(e->payload.u.drop.source, KATRA_DROP_SOURCE_COUNT)] +=
			e->payload.u.drop.count;
	}
}

static void add_epoch(struct kr_stats *s, const struct katra_epoch_marker *m)
{
	struct kr_epoch_entry *x;

	s->epoch_markers++;
	see_ts(s, m->ts_mono_ns);
	s->epochs_by_kind[SLOT(m->kind, KATRA_EPOCH_KIND_COUNT)]++;
	if (s->epochs_listed >= KR_EPOCHS_LISTED)
		return;
	x = &s->epochs[s->epochs_listed++];
	x->seq = m->seq;
	x->ts_mono_ns = m->ts_mono_ns;
	x->epoch = m->epoch;
	x->kind = m->kind;
	x->name_len = copy_str(x->name, sizeof(x->name), m->name);
	x->name_cut = m->name.len > sizeof(x->name);
}

static void add_summary(struct kr_stats *s, const struct katra_summary *sum)
{
	s->has_summary = true;
	s->summary_duration = sum->duration_ns;
	s->summary_dropped = sum->dropped_events;
	for (uint64_t i = 0; i < sum->drops_len; i++)
		s->summary_drops[SLOT(sum->drops[i].source, KATRA_DROP_SOURCE_COUNT)] +=
			sum->drops[i].count;
}

void kr_stats_add(struct kr_stats *s, const struct katra_record *rec)
{
	s->records++;
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		add_event(s, &rec->u.event);
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		add_epoch(s, &rec->u.epoch);
		break;
	case KATRA_RECORD_COUNTER: {
		unsigned k = SLOT(rec->u.counter.kind, KATRA_COUNTER_KIND_COUNT);

		s->counters++;
		see_ts(s, rec->u.counter.ts_mono_ns);
		if (!s->counter_records[k]++ || rec->u.counter.value > s->counter_max[k])
			s->counter_max[k] = rec->u.counter.value;
		break;
	}
	case KATRA_RECORD_SESSION_SUMMARY:
		add_summary(s, &rec->u.summary);
		break;
	}
}

uint64_t kr_stats_duration(const struct kr_stats *s)
{
	if (!s->have_ts)
		return 0;
	return s->windowed ? s->last_ts - s->first_ts : s->last_ts;
}
