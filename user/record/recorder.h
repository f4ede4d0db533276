/* SPDX-License-Identifier: GPL-2.0-only */
/* The capture: load and attach the probes for the targets, drain the rings,
 * order, emit, and finish a complete trace whatever ends the capture
 * (Ctrl-C, SIGTERM, the end of -d, every target gone, or a write error). */
#ifndef KATRA_RECORD_RECORDER_H
#define KATRA_RECORD_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "katra/format.h"
#include "record/kernel/probes.h"

#define KATRA_RECORD_VERSION "0.1.0"
#define KATRA_MAX_TARGETS 64
#define KATRA_MAX_LABELS 16     /* --label KEY=VALUE given at most (header notes: 64 in all) */
#define KATRA_LABEL_KEY_MAX 64  /* bytes of a label's KEY */
#define KATRA_LABEL_VALUE_MAX 160 /* bytes of its VALUE */
#define KATRA_RECORD_PROBE_RUNS 128 /* --bpf-stats: probes counted at most */
/* exit status when --max-loss is exceeded (the trace is still complete) */
#define KATRA_EXIT_LOSS 3

struct katra_record_opts {
	uint32_t pids[KATRA_MAX_TARGETS];
	size_t npids;
	char **command;            /* argv after --, or NULL */
	const char *output;        /* default "katra.ktrc" */
	bool force;                /* replace an existing output file */
	uint64_t duration_ns;      /* 0 = until stopped */
	bool follow_children;
	int session_mode;          /* enum katra_session_mode: --session, --no-session */
	uint64_t buffer_size;      /* per-CPU ring bytes; 0 = default */
	bool record_paths;
	const char *epoch_fifo;
	const char *summary_json;
	const char *ready_file;
	int verbose;
	bool quiet;                /* -q: no summary on stderr */
	const char *user;          /* -u: who -- COMMAND runs as ("root": stay root) */
	bool has_max_loss;         /* --max-loss: exit KATRA_EXIT_LOSS when more was lost */
	double max_loss_pct;
	bool force_raw_tp;         /* --raw-tp (tests): the raw_tp twins, not tp_btf */
	uint32_t small_tables;     /* --small-tables N (tests): kernel in-flight tables and
				    * the process table of N */
	uint32_t detach_pause_ms;  /* --detach-pause MS (tests): a pause after the syscall
				    * probes are detached, before the others */
	struct katra_selection select; /* -e; every class by default */
	bool no_uprobes;           /* --no-uprobes: no Wine / Vulkan layers */
	uint64_t counter_interval_ns;
	uint64_t reorder_window_ns;
	bool compress;             /* -z: gzip the trace (KATRA_WRITER_GZIP) */
	bool drain_idle;           /* --drain-policy idle: SCHED_IDLE while calm */
	bool bpf_stats;            /* --bpf-stats: the probes' run counts in the summary */
	const char *labels[KATRA_MAX_LABELS]; /* --label KEY=VALUE, as given (checked) */
	size_t nlabels;
	bool stacks;               /* --stacks: call stacks of off-CPU intervals */
	bool no_symbols;           /* --no-symbols: their frames not named in the trace */
	uint64_t stack_threshold_ns; /* --stack-threshold: of those this long or more */
	uint32_t sample_hz;        /* --sample-hz: timer samples of running threads */
};

struct katra_proc_entry;

struct katra_record_result {
	int command_status;        /* wait status of -- COMMAND, -1 if none */
	uint64_t events;
	uint64_t epochs, counters;
	uint64_t dropped;          /* the trace's dropped_events: the sum of the four below */
	uint64_t events_lost;      /* events known lost (rings full, Reorder, calls not
				    * written): what --max-loss reads */
	uint64_t links_lost;       /* causal links lost (a state table full) */
	uint64_t runs_skipped;     /* probe runs the kernel skipped (each one lost at
				    * most its events; one for an untraced task none) */
	uint64_t stacks_lost;      /* call stacks not recorded (--stacks): no event lost */
	uint64_t bytes;
	uint64_t duration_ns;
	uint64_t late;             /* dropped as out of time order (Reorder) */
	uint64_t forced;           /* items written before every ring was read up to
				    * them: the reorder budget was spent */
	uint64_t offcpu_inferred;  /* OffCpu spans closed at the thread's next event */
	uint64_t wakeups_unseen;   /* Wakeups written Inferred: the kernel's not seen */
	uint64_t drain_boosts;     /* times the idle drain went to the normal policy */
	/* every process named in the trace (session.h; latest names; malloc'ed:
	 * free it) */
	struct katra_proc_entry *procs;
	size_t nprocs;
	uint64_t procs_total;      /* named in all (procs keeps the first 4096) */
	uint64_t by_kind[KATRA_KIND_COUNT];
	uint64_t live_after_ns;    /* from start of katra_record_run to capture live */
	uint64_t live_at_ns;       /* capture live, from the trace's capture start */
	uint64_t cpu_ns_setup;     /* the recorder's own CPU (user + sys) until live */
	uint64_t cpu_ns_capture;   /* ... from live to the end: the per-event cost */
	unsigned probes_attached, probes_failed;
	unsigned probes_fallback;  /* of the failed, off by an expected fallback (said
				    * once as information, not counted as failed) */
	uint64_t peak_rss_kib;     /* the recorder's VmHWM */
	uint64_t ring_rss_kib;     /* of it, the BPF maps' mappings (the rings) */
	uint64_t ring_bytes;       /* the probes' ring traffic (katra_drain_ring_bytes) */
	unsigned nprobe_runs;      /* --bpf-stats: each probe's runs, as the kernel counted */
	struct katra_probe_runs probe_runs[KATRA_RECORD_PROBE_RUNS];
};

/* Returns 0 on a complete capture, else -errno after printing the reason
 * to stderr (prefixed "katra-record: "). */
int katra_record_run(const struct katra_record_opts *o, struct katra_record_result *res);

/* The emitter's counts the summary says: late, inferred OffCpu ends, unseen
 * wakeups. */
struct emit_stats;
void katra_record_take_emit_stats(struct katra_record_result *res, const struct emit_stats *st);
/* Adds the trace's drops to res's events_lost, links_lost, runs_skipped and
 * stacks_lost. */
struct katra_drop_count;
void katra_record_split_losses(struct katra_record_result *res, const struct katra_drop_count *drops,
			       size_t n);
/* Events known lost as a percentage of events that happened (recorded +
 * lost); lost links and skipped probe runs are not in it. */
double katra_record_loss_pct(const struct katra_record_result *res);

/* The summary for people (stderr) and for scripts (--summary-json). */
void katra_record_print_summary(FILE *out, const struct katra_record_opts *o,
				const struct katra_record_result *res);
int katra_record_write_summary_json(const char *path, const struct katra_record_opts *o,
				    const struct katra_record_result *res);

#endif
