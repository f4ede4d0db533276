// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay stats --json`: one JSON object, exact integers, for scripts.
 * After "tool_version": "labels":{"KEY":"VALUE",..} (the header's label
 * notes, in their order; {} without).
 * Maps keyed by variant name list only non-zero entries, in enum order:
 *   {"file":"..","workload":"..","tool_version":"..","complete":true,
 *    "error":null|"..","records":N,"events":N,"epoch_markers":N,"counters":N,
 *    "session_summary":true,"first_ts_mono_ns":N|null,"last_ts_mono_ns":N|null,
 *    "duration_ns":N (the last ts_mono_ns: timestamps count from capture
 *    start; with --from/--to the window's, first to last record),
 *    "windowed":B,"capture_duration_ns":N (the whole capture's),
 *    "summary_duration_ns":N|null,
 *    "by_scope":{"Linux":N,..},"by_kind":{"FileRead":N,..},"by_phase":{..},
 *    "processes":[{"process_id":N,"name":".."|null,"threads":N,"events":N},..],
 *    "threads":[{"process_id":N,"thread_id":N,"events":N},..],
 *    "untracked_thread_events":N,
 *    "spans":{"by_kind":{"FileRead":{"count":N,"total_ns":N,"min_ns":N,
 *      "p50_ns":N,"p99_ns":N,"max_ns":N},..},"begins_by_kind":{..},
 *      "unmatched_ends":N,"never_ended":N,"begun_twice":N,
 *      "without_span_id":N,"table_overflow":N},
 *    "drops":{"summary_dropped_events":N|null,"summary_by_source":{..},
 *      "drop_events":N,"events_by_source":{..}},
 *    "epochs":{"by_kind":{..},"markers":[{"seq":N,"ts_mono_ns":N,"epoch":N,
 *      "kind":"..","name":".."},..],"markers_not_listed":N},
 *    "counters_by_kind":{"EventsRecorded":{"records":N,"max":N},..}}
 * processes and threads are sorted by id; a process's name is the latest a
 * ProcessInfo event gave it; p50_ns/p99_ns are not exact: nearest-rank over
 * log-linear histogram buckets (exact below 64 ns, within 1/32 above),
 * the "percentiles" key says so.  The views (stats_*.c) add their keys
 * after these. */
#include <stdlib.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "stats.h"

static void key(FILE *f, bool *first, const char *k)
{
	if (!*first)
		putc(',', f);
	*first = false;
	katra_json_string(f, k, katra_cstr(k).len);
	putc(':', f);
}

static void ku64(FILE *f, bool *first, const char *k, uint64_t v)
{
	key(f, first, k);
	kr_u64(f, v);
}

/* {"Name":N,..} over a counts table, non-zero entries only */
static void name_map(FILE *f, const uint64_t *v, unsigned n, const char *(*name)(uint32_t))
{
	char buf[KR_NAME_BUF];
	bool first = true;

	putc('{', f);
	for (unsigned i = 0; i <= n; i++)
		if (v[i])
			ku64(f, &first, kr_enum(name(i), i, buf), v[i]);
	putc('}', f);
}

static int by_id(const void *a, const void *b)
{
	const struct kr_idmap_slot *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

static void tasks(FILE *f, const struct kr_stats *s, bool *first)
{
	struct kr_idmap_slot *v;
	size_t n;

	v = kr_idmap_sorted(&s->processes, &n, by_id);
	key(f, first, "processes");
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		const struct kr_procname *pn = kr_procnames_get(&s->names, v[i].k1);

		fprintf(f, "%s{\"process_id\":%llu,\"name\":", i ? "," : "",
			(unsigned long long)v[i].k1);
		if (pn)
			katra_json_string(f, pn->name, pn->len);
		else
			kr_s(f, "null");
		fprintf(f, ",\"threads\":%llu,\"events\":%llu}", (unsigned long long)v[i].v2,
			(unsigned long long)v[i].v1);
	}
	putc(']', f);
	free(v);
	v = kr_idmap_sorted(&s->threads, &n, by_id);
	key(f, first, "threads");
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		const struct kr_procname *tn = kr_procnames_thread(&s->names, v[i].k2);

		fprintf(f, "%s{\"process_id\":%llu,\"thread_id\":%llu,\"name\":", i ? "," : "",
			(unsigned long long)v[i].k1, (unsigned long long)v[i].k2);
		if (tn)
			katra_json_string(f, tn->name, tn->len);
		else
			kr_s(f, "null");
		fprintf(f, ",\"events\":%llu}", (unsigned long long)v[i].v1);
	}
	putc(']', f);
	free(v);
	ku64(f, first, "untracked_thread_events", s->untracked_events);
}

static void spans(FILE *f, const struct kr_stats *s, bool *first)
{
	char buf[KR_NAME_BUF];
	uint64_t begins[KATRA_KIND_COUNT + 1];
	bool f2 = true;

	key(f, first, "spans");
	kr_s(f, "{\"by_kind\":{");
	for (unsigned k = 0; k <= KATRA_KIND_COUNT; k++) {
		const struct kr_histo *h = s->spans[k].durations;
		bool f3 = true;

		begins[k] = s->spans[k].begins;
		if (!h || !h->count)
			continue;
		key(f, &f2, kr_enum(katra_kind_name(k), k, buf));
		putc('{', f);
		ku64(f, &f3, "count", h->count);
		ku64(f, &f3, "total_ns", h->total);
		ku64(f, &f3, "min_ns", h->min);
		ku64(f, &f3, "p50_ns", kr_histo_percentile(h, 500));
		ku64(f, &f3, "p99_ns", kr_histo_percentile(h, 990));
		ku64(f, &f3, "max_ns", h->max);
		putc('}', f);
	}
	kr_s(f, "},\"begins_by_kind\":");
	name_map(f, begins, KATRA_KIND_COUNT, katra_kind_name);
	f2 = false;
	ku64(f, &f2, "unmatched_ends", s->unmatched_ends);
	ku64(f, &f2, "never_ended", s->open_spans.len);
	ku64(f, &f2, "begun_twice", s->begun_twice);
	ku64(f, &f2, "without_span_id", s->spanless);
	ku64(f, &f2, "table_overflow", s->span_overflow);
	key(f, &f2, "percentiles");
	kr_s(f, "\"p50_ns and p99_ns: histogram bucket midpoints, within 1/32 (exact below "
	     "64 ns)\"");
	putc('}', f);
}

static void drops(FILE *f, const struct kr_stats *s, bool *first)
{
	bool f2 = true;

	key(f, first, "drops");
	putc('{', f);
	key(f, &f2, "summary_dropped_events");
	if (s->has_summary)
		kr_u64(f, s->summary_dropped);
	else
		kr_s(f, "null");
	key(f, &f2, "summary_by_source");
	name_map(f, s->summary_drops, KATRA_DROP_SOURCE_COUNT, katra_drop_source_name);
	ku64(f, &f2, "drop_events", s->drop_events);
	key(f, &f2, "events_by_source");
	name_map(f, s->event_drops, KATRA_DROP_SOURCE_COUNT, katra_drop_source_name);
	putc('}', f);
}

static void epochs(FILE *f, const struct kr_stats *s, bool *first)
{
	char buf[KR_NAME_BUF];
	const char *n;

	key(f, first, "epochs");
	kr_s(f, "{\"by_kind\":");
	name_map(f, s->epochs_by_kind, KATRA_EPOCH_KIND_COUNT, katra_epoch_kind_name);
	kr_s(f, ",\"markers\":[");
	for (uint32_t i = 0; i < s->epochs_listed; i++) {
		const struct kr_epoch_entry *e = &s->epochs[i];

		n = kr_enum(katra_epoch_kind_name(e->kind), e->kind, buf);
		fprintf(f, "%s{\"seq\":%llu,\"ts_mono_ns\":%llu,\"epoch\":%llu,\"kind\":\"%s\","
			"\"name\":", i ? "," : "", (unsigned long long)e->seq,
			(unsigned long long)e->ts_mono_ns, (unsigned long long)e->epoch, n);
		katra_json_string(f, e->name, e->name_len);
		kr_s(f, e->name_cut ? ",\"name_truncated\":true}" : "}");
	}
	fprintf(f, "],\"markers_not_listed\":%llu}",
		(unsigned long long)(s->epoch_markers - s->epochs_listed));
}

static void counters(FILE *f, const struct kr_stats *s, bool *first)
{
	char buf[KR_NAME_BUF];
	bool f2 = true;

	key(f, first, "counters_by_kind");
	putc('{', f);
	for (unsigned i = 0; i <= KATRA_COUNTER_KIND_COUNT; i++) {
		if (!s->counter_records[i])
			continue;
		key(f, &f2, kr_enum(katra_counter_kind_name(i), i, buf));
		fprintf(f, "{\"records\":%llu,\"max\":%llu}",
			(unsigned long long)s->counter_records[i],
			(unsigned long long)s->counter_max[i]);
	}
	putc('}', f);
}

static void opt_u64(FILE *f, bool *first, const char *k, bool present, uint64_t v)
{
	key(f, first, k);
	if (present)
		kr_u64(f, v);
	else
		kr_s(f, "null");
}

void kr_stats_print_json(FILE *f, const struct kr_stats *s, const char *path,
			 const char *error)
{
	kr_stats_print_json_open(f, s, path, error, true);
	kr_s(f, "}\n");
}

void kr_stats_print_json_open(FILE *f, const struct kr_stats *s, const char *path,
			      const char *error, bool overview)
{
	bool first = true;

	putc('{', f);
	key(f, &first, "file");
	katra_json_string(f, path, katra_cstr(path).len);
	key(f, &first, "workload");
	katra_json_string(f, s->workload, s->workload_len);
	key(f, &first, "tool_version");
	katra_json_string(f, s->tool_version, s->tool_version_len);
	key(f, &first, "labels");
	putc('{', f);
	for (unsigned i = 0; i < s->labels.n; i++) {
		if (i)
			putc(',', f);
		katra_json_string(f, s->labels.l[i].key, katra_cstr(s->labels.l[i].key).len);
		putc(':', f);
		katra_json_string(f, s->labels.l[i].value, katra_cstr(s->labels.l[i].value).len);
	}
	putc('}', f);
	key(f, &first, "complete");
	kr_s(f, error ? "false" : "true");
	key(f, &first, "error");
	if (error)
		katra_json_string(f, error, katra_cstr(error).len);
	else
		kr_s(f, "null");
	if (!overview)
		return;
	ku64(f, &first, "records", s->records);
	ku64(f, &first, "events", s->events);
	ku64(f, &first, "epoch_markers", s->epoch_markers);
	ku64(f, &first, "counters", s->counters);
	key(f, &first, "session_summary");
	kr_s(f, s->has_summary ? "true" : "false");
	opt_u64(f, &first, "first_ts_mono_ns", s->have_ts, s->first_ts);
	opt_u64(f, &first, "last_ts_mono_ns", s->have_ts, s->last_ts);
	ku64(f, &first, "duration_ns", kr_stats_duration(s));
	key(f, &first, "windowed");
	kr_s(f, s->windowed ? "true" : "false");
	ku64(f, &first, "capture_duration_ns", s->windowed ? s->capture_ts :
		     s->have_ts ? s->last_ts : 0);
	opt_u64(f, &first, "summary_duration_ns", s->has_summary, s->summary_duration);
	key(f, &first, "by_scope");
	name_map(f, s->by_scope, KATRA_SCOPE_COUNT, katra_scope_name);
	key(f, &first, "by_kind");
	name_map(f, s->by_kind, KATRA_KIND_COUNT, katra_kind_name);
	key(f, &first, "by_phase");
	name_map(f, s->by_phase, KATRA_PHASE_COUNT, katra_phase_name);
	tasks(f, s, &first);
	spans(f, s, &first);
	drops(f, s, &first);
	epochs(f, s, &first);
	counters(f, s, &first);
}
