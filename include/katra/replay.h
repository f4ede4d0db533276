/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-replay's analysis library: verify, dump (text and JSON lines) and
 * stats over a Katra trace, all streaming through the format reader so that
 * memory does not grow with the file size.
 *
 * Return convention for the whole-file functions: 0 on success, 1 when the
 * trace is invalid, truncated or corrupt (the reason went to err), -errno
 * when the file cannot be opened or read (the reason went to err too).
 * Every message written to err is one line starting with "katra-replay: ". */
#ifndef KATRA_REPLAY_H
#define KATRA_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"

/* ---- verify ---- */

/* Runs katra_verify_path: one line per problem on out (at most max_problems
 * printed, 0 = all; every problem is counted) and per advisory ("note: "),
 * then one summary line: "PATH: valid (N records, M events)" or "PATH:
 * invalid: K problems"; with strict, an advisory makes it invalid too. */
int katra_replay_verify(const char *path, FILE *out, uint64_t max_problems, bool strict,
			FILE *err);

/* ---- dump ---- */

/* Header first, then one line per record; jsonl selects JSON lines (the
 * exact shape is documented at the top of user/replay/dump/jsonl.c). */
int katra_dump(const char *path, FILE *out, bool jsonl, FILE *err);

/* A point in the capture for dump --from / --to: seconds since capture
 * start (ns), or the EpochMarker named epoch. */
struct katra_dump_when {
	bool set;
	const char *epoch; /* NULL: a time */
	uint64_t ns;
};

#define KATRA_DUMP_MAX_IDS 64

/* dump's filters.  An Event is printed when it matches every filter given;
 * EpochMarkers only obey --kind (when given) and the time window; Counters
 * are left out by --pid/--tid/--kind unless --kind lists Counter; the
 * SessionSummary is printed only without any filter, or when --kind lists
 * it.  The header is always printed. */
struct katra_dump_opts {
	bool jsonl;
	uint64_t pids[KATRA_DUMP_MAX_IDS]; /* process_id in this list (npids > 0) */
	unsigned npids;
	uint64_t tids[KATRA_DUMP_MAX_IDS]; /* thread_id in this list (ntids > 0) */
	unsigned ntids;
	bool kinds_set;
	uint64_t event_kinds;  /* bit k: EventKind k */
	unsigned record_types; /* bit t: TraceRecord variant t (EpochMarker, ...) */
	struct katra_dump_when from, to; /* inclusive */
};

/* katra_dump with filters and names: each End carries dur_ns, each pid its
 * process name once known.  An epoch that --from/--to names and the trace
 * lacks is an error (1, said on err) after the dump. */
int katra_dump_filtered(const char *path, FILE *out, const struct katra_dump_opts *o,
			FILE *err);

/* Single-item formatters, used by katra_dump and by tests.  Each writes
 * complete lines: one per record; the text header is a few lines starting
 * with '#', the JSON header one line. */
void katra_dump_header_text(FILE *out, const struct katra_header *h);
void katra_dump_record_text(FILE *out, const struct katra_record *rec);
void katra_jsonl_header(FILE *out, const struct katra_header *h);
void katra_jsonl_record(FILE *out, const struct katra_record *rec);

/* Writes s as a JSON string literal (with the quotes): control characters as
 * \u00XX, '"' and '\\' escaped, valid UTF-8 kept, and each byte that is not
 * part of valid UTF-8 as \u00XX (its Latin-1 code point) so every line is
 * valid JSON. */
void katra_json_string(FILE *out, const char *s, uint64_t len);

/* ---- stats ---- */

/* Capture duration, events by scope / kind / phase, per process and per
 * thread, span durations per kind (total, p50, p99), drops, epochs and
 * counters.  json selects one JSON object instead of aligned text. */
int katra_stats(const char *path, FILE *out, bool json, FILE *err);

/* What stats prints (bits); katra_stats and `stats` without a view option
 * print the overview and the syscall table. */
enum katra_stats_view {
	KATRA_STATS_OVERVIEW = 1 << 0, /* the sections katra_stats always had */
	KATRA_STATS_SYSCALLS = 1 << 1, /* strace -c: calls, errors, time per syscall */
	KATRA_STATS_FILES = 1 << 2,    /* reads, writes, bytes, I/O time per file */
	KATRA_STATS_OFFCPU = 1 << 3,   /* off-CPU time per thread by reason */
	KATRA_STATS_TOP = 1 << 4,      /* the longest spans */
	KATRA_STATS_CALLS = 1 << 5,    /* the Wine and Vulkan layers' calls by name */
	KATRA_STATS_GPU = 1 << 6,      /* the GPU layer's fences per timeline and process */
};

struct katra_stats_opts {
	bool json;
	unsigned views;   /* enum katra_stats_view bits; 0 = overview + syscalls */
	bool per_process; /* the syscall table per process too (with
			   * KATRA_STATS_CALLS: the calls table) */
	unsigned top;     /* KATRA_STATS_TOP: how many spans (1..10000) */
	bool per_frame;   /* the calls table (KATRA_STATS_CALLS) and the syscall
			   * table (KATRA_STATS_SYSCALLS) per frame of each swapchain;
			   * alone it implies KATRA_STATS_CALLS */
	/* only the records in this window (as dump's --from / --to); the
	 * SessionSummary is read whatever the window */
	struct katra_dump_when from, to;
	/* --stacks: the heaviest call stacks (alone: the other views are not
	 * printed); --folded: folded stacks instead; symbols: --symbols DIR */
	bool stacks, folded;
	const char *symbols;
	/* with stacks or folded: the timer samples' stacks alone (on_cpu), the
	 * off-CPU intervals' alone (views' KATRA_STATS_OFFCPU), both: all */
	bool on_cpu;
};

int katra_stats_with(const char *path, FILE *out, const struct katra_stats_opts *o, FILE *err);

#endif
