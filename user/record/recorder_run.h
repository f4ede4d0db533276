/* SPDX-License-Identifier: GPL-2.0-only */
/* One capture's state, shared by its phases.  recorder.c runs the phases in
 * order (check, load, attach, open, go live: recorder.c; run, stop, drain,
 * finish: recorder_run.c) and one teardown releases whatever a phase set up,
 * however far the capture got.  Each phase returns 0 or -errno and has said
 * why on stderr. */
#ifndef KATRA_RECORD_RECORDER_RUN_H
#define KATRA_RECORD_RECORDER_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "record/drain/drain.h"
#include "record/kernel/consumer_sched.h"
#include "record/kernel/probes.h"
#include "record/kernel/rings.h"
#include "record/pipeline/pipeline.h"
#include "record/table/table.h"
#include "record/targets/session.h"
#include "record/targets/targets.h"
#include "record/uprobes/uprobes.h"
#include "recorder.h"
#include "recorder_epochs.h"
#include "recorder_header.h"

#define KIDS_MAX 1024

struct recorder {
	struct katra_record_opts opts; /* the caller's, thread ids resolved (check) */
	const struct katra_record_opts *o; /* &opts */
	struct katra_record_result *res;
	uint64_t t0;            /* katra_record_run's start */
	sigset_t stop_ignored;  /* stop signals our caller left ignored */
	/* what is traced from the start: -p targets and the command */
	uint32_t pids[KATRA_MAX_TARGETS];
	size_t npids;
	struct katra_launch launch;
	struct header_store *hs;
	bool ready_made;        /* --ready-file created: removed at the teardown */
	uint64_t start_mono, start_wall; /* the capture's start (open) */
	uint64_t live;          /* when the capture went live (go live) */
	uint64_t end;           /* the capture's end instant (stop) */

	struct katra_probes *probes;
	struct katra_uprobes *up; /* Wine and Vulkan libraries (uprobes.c) */
	struct katra_rings rings; /* the per-CPU rings, read in place */
	bool rings_open;
	struct katra_writer *w;
	struct pipeline pl;
	bool pl_ready;
	unsigned nrings;
	uint64_t *drops_seen;
	uint64_t *drops_now;
	struct katra_drain drain; /* the rings read and released by marks */
	bool drain_ready;
	bool exit_seen;         /* a process's last thread exited since the last check */
	bool told_ignored;      /* the forwarded stop signal was checked against the command */
	struct katra_wine_names *wine; /* Wine sessions: members, names, roster */
	uint64_t ktable_seen[KATRA_KTABLE_COUNT];
	uint64_t skipped_seen[PIPELINE_SKIPPED_MAX]; /* program runs skipped, by probe */
	uint64_t stacks_lost_seen[2]; /* call stacks lost: slots full, stack ring full */
	uint32_t kids[KIDS_MAX]; /* processes below the targets at start */
	size_t nkids;
	struct epoch_input epochs; /* the FIFO's lines and SIGUSR1's marks */
	int wait_fd;            /* epoll over the rings and the FIFO (-1: rings only) */
	struct consumer_sched drain_sched; /* the drain's CPU policy */
	bool drain_sched_on;
	struct recorder_stacks *stk; /* --stacks (recorder_stacks.c), or NULL */
	struct ktable gpu_last; /* context -> the GPU counts last written (recorder_gpu.c) */
};

static inline uint64_t recorder_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run: the loop until a stop signal, the end of -d, every target gone or an
 * error; it waits at most POLL_MS at a time and checks the stop flag after
 * each wait. */
int recorder_run(struct recorder *r);
/* Stop: one end instant for every layer, the probes detached (each wait
 * bounded: KATRA_DETACH_WAIT_MS). */
void recorder_stop(struct recorder *r);
/* Drain: the epochs and losses until the end, the rings read to empty. */
int recorder_drain(struct recorder *r);
/* Finish: the summary written, the result filled. */
int recorder_finish(struct recorder *r);
/* The teardown's end of a command still running (-d, a second stop signal,
 * an error): SIGTERM, then SIGKILL after a bounded grace. */
void recorder_end_command(struct recorder *r);

/* The GPU layer's counts (bpf/gpu_totals.bpf.h) as Counter records at NOW:
 * per fence context, each kind whose value is not 0 and changed since it
 * was last written (at each counter tick and at the capture's end). */
void recorder_gpu_counters(struct recorder *r, uint64_t now);

#endif
