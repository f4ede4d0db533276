// SPDX-License-Identifier: GPL-2.0-only
/* The Katra verification rules over a record stream, one pass, memory
 * bounded by the open spans, the threads and the gaps in seq numbering
 * (a trace numbered contiguously keeps one range, whatever its length). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "katra/format.h"

/* ---- open-addressing map from a (u64, u64) key to two u64 values ---- */

struct slot {
	uint64_t k1, k2;
	uint64_t v1, v2;
	bool used;
};

struct map {
	struct slot *slots;
	size_t cap; /* power of two */
	size_t count;
};

static size_t hash2(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ (h >> 29));
}

static struct slot *map_find(struct map *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash2(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct slot *s = &m->slots[i];
		if (!s->used)
			return NULL;
		if (s->k1 == k1 && s->k2 == k2)
			return s;
	}
}

static int map_grow(struct map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		struct slot *s = &m->slots[i];
		if (!s->used)
			continue;
		size_t j = hash2(s->k1, s->k2) & (cap - 1);
		while (slots[j].used)
			j = (j + 1) & (cap - 1);
		slots[j] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

static struct slot *map_insert(struct map *m, uint64_t k1, uint64_t k2)
{
	if ((m->count + 1) * 4 > m->cap * 3 && map_grow(m))
		return NULL;
	size_t i = hash2(k1, k2) & (m->cap - 1);
	while (m->slots[i].used)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (struct slot){ .k1 = k1, .k2 = k2, .used = true };
	m->count++;
	return &m->slots[i];
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void map_remove(struct map *m, struct slot *s)
{
	size_t i = (size_t)(s - m->slots);

	m->slots[i].used = false;
	m->count--;
	for (size_t j = (i + 1) & (m->cap - 1); m->slots[j].used; j = (j + 1) & (m->cap - 1)) {
		size_t home = hash2(m->slots[j].k1, m->slots[j].k2) & (m->cap - 1);
		/* move j back to i when i lies cyclically in [home, j) */
		bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
		if (movable) {
			m->slots[i] = m->slots[j];
			m->slots[j].used = false;
			i = j;
		}
	}
}

/* ---- the set of seqs seen, as sorted disjoint ranges ---- */

struct range {
	uint64_t lo, hi;
};

struct seq_set {
	struct range *r;
	size_t n, cap;
};

static int seq_add(struct seq_set *s, uint64_t seq)
{
	if (s->n && s->r[s->n - 1].hi + 1 == seq) {
		s->r[s->n - 1].hi = seq;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct range *r = realloc(s->r, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		s->r = r;
		s->cap = cap;
	}
	s->r[s->n++] = (struct range){ seq, seq };
	return 0;
}

static bool seq_has(const struct seq_set *s, uint64_t seq)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->r[mid].hi < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->r[lo].lo <= seq;
}

/* ---- the verifier ---- */

struct verifier {
	katra_problem_fn fn;
	void *ctx;
	uint64_t max_problems;
	struct katra_verify_report rep;
	bool have_seq;
	uint64_t last_seq;
	uint64_t last_seq_offset;
	struct seq_set seqs;
	struct map spans;   /* (thread, span) -> (begin seq, byte offset) */
	struct map threads; /* (thread, 0) -> (last ts, byte offset) */
	struct map procs;   /* (process, 0): the distinct process ids */
	struct map stack_ids; /* (1, Module id), (2, Stack id): those seen */
	uint64_t nthreads, nprocs, inferred; /* nonzero ids; Inferred events */
	uint64_t by_kind[KATRA_KIND_COUNT];
	uint64_t epochs, counters;
	uint64_t summary_offset;
	int oom;
};

static void problem(struct verifier *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct verifier *v, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	v->rep.problems++;
	if (v->max_problems && v->rep.problems > v->max_problems)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (v->fn)
		v->fn(v->ctx, line);
}

static void check_seq(struct verifier *v, uint64_t seq, uint64_t off)
{
	if (v->have_seq && seq <= v->last_seq) {
		if (seq_has(&v->seqs, seq))
			problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": duplicate seq", seq, off);
		else
			problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": not greater than the previous "
				"seq %" PRIu64 " at byte %" PRIu64, seq, off, v->last_seq,
				v->last_seq_offset);
		return;
	}
	if (seq_add(&v->seqs, seq))
		v->oom = -ENOMEM;
	v->have_seq = true;
	v->last_seq = seq;
	v->last_seq_offset = off;
}

static void check_event(struct verifier *v, const struct katra_event *ev, uint64_t off)
{
	struct slot *s;

	v->rep.events++;
	v->by_kind[ev->kind]++;
	for (uint64_t i = 0; i < ev->causes.len; i++) {
		uint64_t c = ev->causes.items[i];
		if (c >= ev->seq)
			problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": cause %" PRIu64 " is not an "
				"earlier seq", ev->seq, off, c);
		else if (!seq_has(&v->seqs, c))
			problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": cause %" PRIu64 " refers to no "
				"record", ev->seq, off, c);
	}

	s = map_find(&v->threads, ev->thread_id, 0);
	if (s && ev->ts_mono_ns < s->v1)
		problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": ts_mono_ns %" PRIu64 " goes back in "
			"time on thread %" PRIu64 " (previous %" PRIu64 " at byte %" PRIu64 ")",
			ev->seq, off, ev->ts_mono_ns, ev->thread_id, s->v1, s->v2);
	if (!s && (s = map_insert(&v->threads, ev->thread_id, 0)) && ev->thread_id)
		v->nthreads++;
	if (!s) {
		v->oom = -ENOMEM;
		return;
	}
	if (ev->confidence == KATRA_CONFIDENCE_INFERRED)
		v->inferred++;
	if (ev->process_id && !map_find(&v->procs, ev->process_id, 0)) {
		if (!map_insert(&v->procs, ev->process_id, 0)) {
			v->oom = -ENOMEM;
			return;
		}
		v->nprocs++;
	}
	if (ev->ts_mono_ns >= s->v1) {
		s->v1 = ev->ts_mono_ns;
		s->v2 = off;
	}

	if (ev->phase == KATRA_PHASE_INSTANT)
		return;
	if (!ev->span_id.present) {
		problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": %s without a span_id", ev->seq, off,
			katra_phase_name(ev->phase));
		return;
	}
	s = map_find(&v->spans, ev->thread_id, ev->span_id.value);
	if (ev->phase == KATRA_PHASE_BEGIN) {
		if (s) {
			problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": span %" PRIu64 " on thread %"
				PRIu64 " begun twice (first Begin seq %" PRIu64 " at byte %" PRIu64 ")",
				ev->seq, off, ev->span_id.value, ev->thread_id, s->v1, s->v2);
			return;
		}
		s = map_insert(&v->spans, ev->thread_id, ev->span_id.value);
		if (!s) {
			v->oom = -ENOMEM;
			return;
		}
		s->v1 = ev->seq;
		s->v2 = off;
		return;
	}
	if (!s) {
		problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": End of span %" PRIu64 " on thread %"
			PRIu64 " without its Begin", ev->seq, off, ev->span_id.value, ev->thread_id);
		return;
	}
	map_remove(&v->spans, s);
}

static void advisory(struct verifier *v, const char *what, uint64_t said, uint64_t seen,
		     uint64_t off)
{
	char line[256];

	v->rep.advisories++;
	snprintf(line, sizeof(line), "note: SessionSummary at byte %" PRIu64 ": %s %" PRIu64
		 " but the events hold %" PRIu64 " (a SHOULD of SPEC section 7)", off, what, said,
		 seen);
	if (v->fn)
		v->fn(v->ctx, line);
}

static void check_summary(struct verifier *v, const struct katra_summary *s, uint64_t off)
{
	uint64_t listed[KATRA_KIND_COUNT] = { 0 };
	uint64_t drops = 0;

	if (s->event_count != v->rep.events)
		problem(v, "SessionSummary at byte %" PRIu64 ": event_count %" PRIu64 " but %" PRIu64
			" events precede it", off, s->event_count, v->rep.events);
	if (s->epoch_count != v->epochs)
		problem(v, "SessionSummary at byte %" PRIu64 ": epoch_count %" PRIu64 " but %" PRIu64
			" EpochMarkers precede it", off, s->epoch_count, v->epochs);
	if (s->counter_count != v->counters)
		problem(v, "SessionSummary at byte %" PRIu64 ": counter_count %" PRIu64 " but %" PRIu64
			" Counters precede it", off, s->counter_count, v->counters);
	for (uint64_t i = 0; i < s->events_by_kind_len; i++)
		listed[s->events_by_kind[i].kind] += s->events_by_kind[i].count;
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++)
		if (listed[k] != v->by_kind[k])
			problem(v, "SessionSummary at byte %" PRIu64 ": events_by_kind says %" PRIu64
				" %s events but %" PRIu64 " precede it", off, listed[k],
				katra_kind_name(k), v->by_kind[k]);
	for (uint64_t i = 0; i < s->drops_len; i++)
		drops += s->drops[i].count;
	if (drops != s->dropped_events)
		problem(v, "SessionSummary at byte %" PRIu64 ": dropped_events %" PRIu64 " but drops "
			"add up to %" PRIu64, off, s->dropped_events, drops);
	if (s->inferred_events != v->inferred)
		advisory(v, "inferred_events", s->inferred_events, v->inferred, off);
	if (s->processes_seen != v->nprocs)
		advisory(v, "processes_seen (distinct nonzero process ids)", s->processes_seen,
			 v->nprocs, off);
	if (s->threads_seen != v->nthreads)
		advisory(v, "threads_seen (distinct nonzero thread ids)", s->threads_seen,
			 v->nthreads, off);
}

/* §7 rule 8: ids unique, each named only after its record */
static void stack_id_seen(struct verifier *v, uint64_t kind, uint64_t id, const char *what,
			  uint64_t off)
{
	if (map_find(&v->stack_ids, kind, id))
		problem(v, "%s %" PRIu64 " at byte %" PRIu64 ": duplicate id", what, id, off);
	else if (!map_insert(&v->stack_ids, kind, id))
		v->oom = -ENOMEM;
}

static void check_stack_record(struct verifier *v, const struct katra_record *rec, uint64_t off)
{
	if (rec->type == KATRA_RECORD_MODULE) {
		stack_id_seen(v, 1, rec->u.module.id, "Module", off);
	} else if (rec->type == KATRA_RECORD_STACK) {
		const struct katra_stack *st = &rec->u.stack;
		for (uint64_t i = 0; i < st->frames_len; i++)
			if (st->frames[i].module && !map_find(&v->stack_ids, 1, st->frames[i].module))
				problem(v, "Stack %" PRIu64 " at byte %" PRIu64 ": frame %" PRIu64
					" names Module %" PRIu32 ", not an earlier one", st->id, off,
					i, st->frames[i].module);
		stack_id_seen(v, 2, st->id, "Stack", off);
	} else if (rec->type == KATRA_RECORD_SYMBOLS) {
		if (!map_find(&v->stack_ids, 1, rec->u.symbols.module))
			problem(v, "Symbols at byte %" PRIu64 ": Module %" PRIu32
				" is not an earlier one", off, rec->u.symbols.module);
	} else if (!map_find(&v->stack_ids, 2, rec->u.stack_of.stack_id)) {
		problem(v, "StackOf at byte %" PRIu64 ": Stack %" PRIu64 " is not an earlier one",
			off, rec->u.stack_of.stack_id);
	}
}

static void check_record(struct verifier *v, const struct katra_record *rec, uint64_t off)
{
	if (v->rep.has_summary) {
		char seq[48] = "";
		if (rec->type == KATRA_RECORD_EVENT)
			snprintf(seq, sizeof(seq), " (seq %" PRIu64 ")", rec->u.event.seq);
		else if (rec->type == KATRA_RECORD_EPOCH_MARKER)
			snprintf(seq, sizeof(seq), " (seq %" PRIu64 ")", rec->u.epoch.seq);
		else if (rec->type == KATRA_RECORD_COUNTER)
			snprintf(seq, sizeof(seq), " (seq %" PRIu64 ")", rec->u.counter.seq);
		problem(v, "record %" PRIu64 "%s at byte %" PRIu64 " follows the SessionSummary at "
			"byte %" PRIu64 " (it must be last)", v->rep.records - 1, seq, off,
			v->summary_offset);
	}
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		check_seq(v, rec->u.event.seq, off);
		check_event(v, &rec->u.event, off);
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		v->epochs++;
		check_seq(v, rec->u.epoch.seq, off);
		break;
	case KATRA_RECORD_COUNTER:
		v->counters++;
		check_seq(v, rec->u.counter.seq, off);
		break;
	case KATRA_RECORD_SESSION_SUMMARY:
		check_summary(v, &rec->u.summary, off);
		v->rep.has_summary = true;
		v->summary_offset = off;
		break;
	case KATRA_RECORD_MODULE:
	case KATRA_RECORD_STACK:
	case KATRA_RECORD_STACK_OF:
	case KATRA_RECORD_SYMBOLS:
		check_stack_record(v, rec, off);
		break;
	}
}

static void report_open_spans(struct verifier *v)
{
	/* report in Begin order so the output is deterministic */
	for (;;) {
		struct slot *first = NULL;
		for (size_t i = 0; i < v->spans.cap; i++) {
			struct slot *s = &v->spans.slots[i];
			if (s->used && (!first || s->v1 < first->v1))
				first = s;
		}
		if (!first)
			return;
		problem(v, "seq %" PRIu64 " at byte %" PRIu64 ": Begin of span %" PRIu64 " on thread %"
			PRIu64 " never ended", first->v1, first->v2, first->k2, first->k1);
		map_remove(&v->spans, first);
	}
}

int katra_verify_reader(struct katra_reader *r, katra_problem_fn fn, void *ctx,
			uint64_t max_problems, struct katra_verify_report *out)
{
	struct verifier v = { .fn = fn, .ctx = ctx, .max_problems = max_problems };
	struct katra_record rec;
	enum katra_read_status st;
	int rc;

	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		v.rep.records++;
		check_record(&v, &rec, katra_reader_record_offset(r));
		if (v.oom)
			break;
	}
	if (v.oom) {
		rc = v.oom;
		goto cleanup;
	}
	if (st == KATRA_READ_IO_ERROR) {
		rc = -EIO;
		problem(&v, "%s", katra_reader_message(r));
		goto cleanup;
	}
	if (st == KATRA_READ_TRUNCATED || st == KATRA_READ_CORRUPT) {
		v.rep.truncated = st == KATRA_READ_TRUNCATED;
		problem(&v, "%s", katra_reader_message(r));
	} else if (!v.rep.has_summary) {
		problem(&v, "no SessionSummary: the trace ends cleanly at byte %" PRIu64 " after %"
			PRIu64 " records but the capture did not finish",
			katra_reader_record_offset(r), v.rep.records);
	}
	/* spans left open by a cut-off capture say nothing new: the cut does */
	if (st == KATRA_READ_EOF)
		report_open_spans(&v);
	rc = v.rep.problems ? 1 : 0;
cleanup:
	if (out)
		*out = v.rep;
	free(v.seqs.r);
	free(v.spans.slots);
	free(v.threads.slots);
	free(v.procs.slots);
	free(v.stack_ids.slots);
	return rc;
}

int katra_verify_path(const char *path, katra_problem_fn fn, void *ctx, uint64_t max_problems,
		      struct katra_verify_report *out)
{
	struct katra_reader *r = NULL;
	char msg[300];
	int rc = katra_reader_open(&r, path, msg, sizeof(msg));

	if (out)
		memset(out, 0, sizeof(*out));
	if (rc == -EINVAL) {
		/* magic, version, hash or header: the file is not a valid trace */
		if (fn)
			fn(ctx, msg);
		if (out)
			out->problems = 1;
		return 1;
	}
	if (rc)
		return rc;
	rc = katra_verify_reader(r, fn, ctx, max_problems, out);
	katra_reader_close(r);
	return rc;
}
