// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay stats`: aligned text.  Sections: trace facts, events by
 * scope / kind / phase, processes (with their names) and the busiest
 * threads, span durations per kind, drops, epochs, counters.  Zero rows are
 * left out.  The views (stats_*.c) follow. */
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "katra/replay.h"
#include "replay/util/out.h"
#include "views.h"
#include "stats.h"

#define TOP_THREADS 20
#define TOP_PROCESSES 20

static const char *nm(const char *name, unsigned v, char buf[KR_NAME_BUF])
{
	return kr_enum(name, v, buf);
}

/* Human duration (views.h), right-aligned in 12 columns by the caller. */

static void row(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, "  %-24s %12llu\n", name, (unsigned long long)v);
}

static int by_events_desc(const void *a, const void *b)
{
	const struct kr_idmap_slot *x = a, *y = b;

	if (x->v1 != y->v1)
		return x->v1 > y->v1 ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

static void header(FILE *f, const struct kr_stats *s, const char *path, const char *error)
{
	char a[32], b[32];

	fprintf(f, "trace      %s\n", path);
	kr_s(f, "workload   ");
	katra_json_string(f, s->workload, s->workload_len);
	kr_s(f, "  tool ");
	katra_json_string(f, s->tool_version, s->tool_version_len);
	if (s->labels.n)
		kr_s(f, "\nlabels    ");
	for (unsigned i = 0; i < s->labels.n; i++) {
		/* KEY=VALUE, the value quoted when it has a space or a quote */
		fprintf(f, " %s=", s->labels.l[i].key);
		if (strpbrk(s->labels.l[i].value, " \"\\") || !s->labels.l[i].value[0])
			katra_json_string(f, s->labels.l[i].value,
					  katra_cstr(s->labels.l[i].value).len);
		else
			kr_s(f, s->labels.l[i].value);
	}
	fprintf(f, "\nrecords    %llu (events %llu, epoch markers %llu, counters %llu, "
		"session summary %s)\n", (unsigned long long)s->records,
		(unsigned long long)s->events, (unsigned long long)s->epoch_markers,
		(unsigned long long)s->counters, s->has_summary ? "yes" : "no");
	if (error)
		fprintf(f, "incomplete %s\n", error);
	kr_s(f, "duration   ");
	/* timestamps count from capture start, so the last one is the length;
	 * a window's is from its first record to its last */
	kr_ts(f, kr_stats_duration(s));
	kr_s(f, " s");
	if (s->have_ts)
		fprintf(f, " (%srecords from %s to %s)", s->windowed ? "--from/--to: " : "",
			kr_fmt_dur(a, sizeof(a), s->first_ts), kr_fmt_dur(b, sizeof(b), s->last_ts));
	if (s->windowed) {
		kr_s(f, ", the whole capture ");
		kr_ts(f, s->capture_ts);
		kr_s(f, " s");
	} else if (s->has_summary) {
		kr_s(f, ", SessionSummary says ");
		kr_ts(f, s->summary_duration);
		kr_s(f, " s");
	}
	putc('\n', f);
}

static void events(FILE *f, const struct kr_stats *s)
{
	char buf[KR_NAME_BUF];

	fprintf(f, "\n%-26s %12s\n", "events by scope", "events");
	for (unsigned i = 0; i <= KATRA_SCOPE_COUNT; i++)
		if (s->by_scope[i])
			row(f, nm(katra_scope_name(i), i, buf), s->by_scope[i]);
	fprintf(f, "\n%-26s %12s\n", "events by kind", "events");
	for (unsigned i = 0; i <= KATRA_KIND_COUNT; i++)
		if (s->by_kind[i])
			row(f, nm(katra_kind_name(i), i, buf), s->by_kind[i]);
	fprintf(f, "\n%-26s %12s\n", "events by phase", "events");
	for (unsigned i = 0; i <= KATRA_PHASE_COUNT; i++)
		if (s->by_phase[i])
			row(f, nm(katra_phase_name(i), i, buf), s->by_phase[i]);
}

static void tasks(FILE *f, const struct kr_stats *s)
{
	struct kr_idmap_slot *v;
	size_t n;

	char label[96];

	v = kr_idmap_sorted(&s->processes, &n, by_events_desc);
	fprintf(f, "\n%-26s %12s %12s\n", "process", "threads", "events");
	for (size_t i = 0; i < n && i < TOP_PROCESSES; i++)
		fprintf(f, "  %-24s %12llu %12llu\n",
			kr_pid_label(&s->names, v[i].k1, label, sizeof(label)),
			(unsigned long long)v[i].v2, (unsigned long long)v[i].v1);
	if (n > TOP_PROCESSES)
		fprintf(f, "  ... %zu more %s (stats --json lists all)\n", n - TOP_PROCESSES,
			katra_plural(n - TOP_PROCESSES, "process", "processes"));
	free(v);

	v = kr_idmap_sorted(&s->threads, &n, by_events_desc);
	fprintf(f, "\n%-26s %-24s %12s\n", "thread", "process", "events");
	for (size_t i = 0; i < n && i < TOP_THREADS; i++) {
		char tlabel[96];

		fprintf(f, "  %-24s %-24s %12llu\n",
			kr_tid_label(&s->names, v[i].k2, tlabel, sizeof(tlabel)),
			kr_pid_label(&s->names, v[i].k1, label, sizeof(label)),
			(unsigned long long)v[i].v1);
	}
	if (n > TOP_THREADS)
		fprintf(f, "  ... %zu more %s (stats --json lists all)\n", n - TOP_THREADS,
			katra_plural(n - TOP_THREADS, "thread", "threads"));
	if (s->untracked_events)
		fprintf(f, "  %llu %s of threads beyond the %u-thread table\n",
			(unsigned long long)s->untracked_events,
			katra_plural(s->untracked_events, "event", "events"), KR_MAX_THREADS);
	free(v);
}

static void spans(FILE *f, const struct kr_stats *s)
{
	char buf[KR_NAME_BUF], d[5][32];

	fprintf(f, "\n%-26s %12s %12s %12s %12s %12s %12s\n", "spans by kind", "count",
		"total", "min", "p50~", "p99~", "max");
	for (unsigned k = 0; k <= KATRA_KIND_COUNT; k++) {
		const struct kr_histo *h = s->spans[k].durations;

		if (!h || !h->count)
			continue;
		fprintf(f, "  %-24s %12llu %12s %12s %12s %12s %12s\n",
			nm(katra_kind_name(k), k, buf), (unsigned long long)h->count,
			kr_fmt_dur(d[0], sizeof(d[0]), h->total), kr_fmt_dur(d[1], sizeof(d[1]), h->min),
			kr_fmt_dur(d[2], sizeof(d[2]), kr_histo_percentile(h, 500)),
			kr_fmt_dur(d[3], sizeof(d[3]), kr_histo_percentile(h, 990)),
			kr_fmt_dur(d[4], sizeof(d[4]), h->max));
	}
	kr_s(f, "  p50~ p99~: nearest-rank percentiles from histogram buckets, within 1/32 "
	     "(exact below 64 ns)\n");
	fprintf(f, "  unmatched End %llu, never ended %llu, begun twice %llu, "
		"without span_id %llu, table overflow %llu\n",
		(unsigned long long)s->unmatched_ends, (unsigned long long)s->open_spans.len,
		(unsigned long long)s->begun_twice, (unsigned long long)s->spanless,
		(unsigned long long)s->span_overflow);
}

static void drops(FILE *f, const struct kr_stats *s)
{
	char buf[KR_NAME_BUF];
	uint64_t st = 0, et = 0;

	fprintf(f, "\n%-26s %12s %12s\n", "drops by source", "summary", "events");
	for (unsigned i = 0; i <= KATRA_DROP_SOURCE_COUNT; i++) {
		st += s->summary_drops[i];
		et += s->event_drops[i];
		if (s->summary_drops[i] || s->event_drops[i])
			fprintf(f, "  %-24s %12llu %12llu\n",
				nm(katra_drop_source_name(i), i, buf),
				(unsigned long long)s->summary_drops[i],
				(unsigned long long)s->event_drops[i]);
	}
	fprintf(f, "  %-24s %12llu %12llu\n", "total", (unsigned long long)st,
		(unsigned long long)et);
	if (s->has_summary)
		fprintf(f, "  SessionSummary dropped_events %llu\n",
			(unsigned long long)s->summary_dropped);
	fprintf(f, "  Drop events %llu\n", (unsigned long long)s->drop_events);
}

static void epochs(FILE *f, const struct kr_stats *s)
{
	char buf[KR_NAME_BUF];

	fprintf(f, "\n%-26s %12s\n", "epochs by kind", "markers");
	for (unsigned i = 0; i <= KATRA_EPOCH_KIND_COUNT; i++)
		if (s->epochs_by_kind[i])
			row(f, nm(katra_epoch_kind_name(i), i, buf), s->epochs_by_kind[i]);
	for (uint32_t i = 0; i < s->epochs_listed; i++) {
		const struct kr_epoch_entry *e = &s->epochs[i];

		fprintf(f, "  seq=%llu ts=", (unsigned long long)e->seq);
		kr_ts(f, e->ts_mono_ns);
		fprintf(f, " epoch=%llu %s name=", (unsigned long long)e->epoch,
			nm(katra_epoch_kind_name(e->kind), e->kind, buf));
		katra_json_string(f, e->name, e->name_len);
		kr_s(f, e->name_cut ? "...\n" : "\n");
	}
	if (s->epoch_markers > s->epochs_listed)
		fprintf(f, "  ... %llu more epoch %s\n",
			(unsigned long long)(s->epoch_markers - s->epochs_listed),
			katra_plural(s->epoch_markers - s->epochs_listed, "marker", "markers"));
}

static void counters(FILE *f, const struct kr_stats *s)
{
	char buf[KR_NAME_BUF];

	if (!s->counters)
		return;
	fprintf(f, "\n%-26s %12s %20s\n", "counters by kind", "records", "max");
	for (unsigned i = 0; i <= KATRA_COUNTER_KIND_COUNT; i++)
		if (s->counter_records[i])
			fprintf(f, "  %-24s %12llu %20llu\n",
				nm(katra_counter_kind_name(i), i, buf),
				(unsigned long long)s->counter_records[i],
				(unsigned long long)s->counter_max[i]);
}

void kr_stats_print_text_head(FILE *f, const struct kr_stats *s, const char *path,
			      const char *error)
{
	header(f, s, path, error);
}

void kr_stats_print_text(FILE *f, const struct kr_stats *s, const char *path,
			 const char *error)
{
	header(f, s, path, error);
	events(f, s);
	tasks(f, s);
	spans(f, s);
	drops(f, s);
	epochs(f, s);
	counters(f, s);
}
