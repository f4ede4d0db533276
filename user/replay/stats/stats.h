/* SPDX-License-Identifier: GPL-2.0-only */
/* The stats accumulator: fed one record at a time, memory bounded by the
 * number of distinct processes, threads and simultaneously open spans (each
 * capped), never by the number of records. */
#ifndef KATRA_REPLAY_STATS_H
#define KATRA_REPLAY_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"
#include "replay/util/histo.h"
#include "replay/util/idmap.h"
#include "replay/util/labels.h"
#include "replay/names/procnames.h"

#define KR_MAX_PROCESSES (1u << 16)
#define KR_MAX_THREADS (1u << 17)
#define KR_MAX_OPEN_SPANS (1u << 16)
#define KR_EPOCHS_LISTED 16
#define KR_EPOCH_NAME_MAX 64

struct kr_epoch_entry {
	uint64_t seq, ts_mono_ns, epoch;
	uint32_t kind;
	uint32_t name_len; /* bytes kept in name (the name may have been longer) */
	bool name_cut;
	char name[KR_EPOCH_NAME_MAX];
};

struct kr_span_kind {
	uint64_t begins, ends;
	struct kr_histo *durations; /* allocated on the first completed span */
};

struct kr_stats {
	/* header facts (copied: the reader owns the header's strings) */
	char workload[128];
	uint32_t workload_len;
	char tool_version[64];
	uint32_t tool_version_len;
	struct kr_labels labels; /* the header's "label KEY=VALUE" notes */

	uint64_t records, events, epoch_markers, counters;
	bool has_summary, have_ts;
	uint64_t first_ts, last_ts;
	/* --from/--to: the sums cover the records inside; capture_ts is the
	 * last time of the whole capture (names are taken from every record) */
	bool windowed;
	uint64_t capture_ts;
	uint64_t by_scope[KATRA_SCOPE_COUNT + 1]; /* last slot: out of range */
	uint64_t by_kind[KATRA_KIND_COUNT + 1];
	uint64_t by_phase[KATRA_PHASE_COUNT + 1];

	struct kr_idmap processes; /* (pid, 0) -> events, threads */
	struct kr_idmap threads;   /* (pid, tid) -> events */
	uint64_t untracked_events; /* events of threads beyond KR_MAX_THREADS */

	struct kr_idmap open_spans; /* (tid, span_id) -> begin ts, kind */
	struct kr_span_kind spans[KATRA_KIND_COUNT + 1];
	uint64_t unmatched_ends, begun_twice, spanless, span_overflow;

	/* drops: from the SessionSummary and from Drop payloads, by source */
	uint64_t summary_dropped;
	uint64_t summary_drops[KATRA_DROP_SOURCE_COUNT + 1];
	uint64_t drop_events;
	uint64_t event_drops[KATRA_DROP_SOURCE_COUNT + 1];
	uint64_t summary_duration;

	uint64_t epochs_by_kind[KATRA_EPOCH_KIND_COUNT + 1];
	struct kr_epoch_entry epochs[KR_EPOCHS_LISTED];
	uint32_t epochs_listed;

	uint64_t counter_records[KATRA_COUNTER_KIND_COUNT + 1];
	uint64_t counter_max[KATRA_COUNTER_KIND_COUNT + 1];

	struct kr_procnames names; /* from ProcessInfo events: the names known by the end */

	bool oom;
};

void kr_stats_init(struct kr_stats *s, const struct katra_header *h);
void kr_stats_add(struct kr_stats *s, const struct katra_record *rec);
/* The capture's length (its last timestamp: they count from its start), or
 * with --from/--to the window's, from its first record to its last. */
uint64_t kr_stats_duration(const struct kr_stats *s);
void kr_stats_free(struct kr_stats *s);

/* error: NULL for a complete trace, else why it stopped early. */
void kr_stats_print_text(FILE *out, const struct kr_stats *s, const char *path,
			 const char *error);
void kr_stats_print_json(FILE *out, const struct kr_stats *s, const char *path,
			 const char *error);
/* The pieces: the first lines of the text (trace, workload, records,
 * duration); the JSON object opened with file, workload, tool_version,
 * complete and error, then (overview) every other overview key, left open
 * for more keys (each written as ,"key":value) and the closing "}\n". */
void kr_stats_print_text_head(FILE *out, const struct kr_stats *s, const char *path,
			      const char *error);
void kr_stats_print_json_open(FILE *out, const struct kr_stats *s, const char *path,
			      const char *error, bool overview);

struct katra_stats_opts;
/* stats --stacks / --folded (stats_stacks.c): 0 or as katra_stats_with */
int kr_stacks_report(const char *path, FILE *out, const struct katra_stats_opts *o, FILE *err);

#endif
