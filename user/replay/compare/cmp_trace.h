/* SPDX-License-Identifier: GPL-2.0-only */
/* One side of `katra-replay compare`: a trace reduced to what two runs of the
 * same deterministic workload share.
 *
 * Each thread becomes a sequence of tokens (scope, kind, phase) in its own
 * event order; processes are numbered by first appearance in the trace,
 * threads by first appearance within their process, so pids, tids, times
 * and seqs drop out.  Kinds in the ignore set are left out entirely (they
 * still count in the per-kind table).  The structural hash covers every
 * thread's tokens; the causal hash every causes[] edge, as (renumbered
 * thread, kind) of the cause -> (renumbered thread, kind) of the event, in
 * each thread's own order.
 *
 * Memory is linear in the events compared: 2 bytes per token, plus 4 bytes
 * per seq for the (thread, kind) label that resolves causes (in pages of
 * 4096, allocated only where seqs exist).  Both are about a twentieth of the
 * trace's own size. */
#ifndef KATRA_REPLAY_CMP_TRACE_H
#define KATRA_REPLAY_CMP_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"
#include "replay/util/histo.h"
#include "replay/util/idmap.h"
#include "replay/util/kindset.h"
#include "replay/names/procnames.h"

#define KR_CMP_MAX_THREADS (1u << 20)
#define KR_CMP_MAX_OPEN_SPANS (1u << 16)
#define KR_CMP_PAGE_BITS 12
#define KR_CMP_PATH_MAX 256    /* bytes of a path kept for a first divergence */
#define KR_CMP_MAX_PATHS 4096  /* file ids whose open path the second pass keeps */

/* The kinds left out by default: what the scheduler, the MMU and the
 * recorder decide rather than the program (format/SPEC.md section 10). */
#define KR_CMP_DEFAULT_IGNORE                                                        \
	(kr_kindset_bit(KATRA_KIND_OFF_CPU) | kr_kindset_bit(KATRA_KIND_WAKEUP) |     \
	 kr_kindset_bit(KATRA_KIND_PAGE_FAULT) | kr_kindset_bit(KATRA_KIND_EPOCH) |   \
	 kr_kindset_bit(KATRA_KIND_COUNTER) | kr_kindset_bit(KATRA_KIND_DROP) |       \
	 kr_kindset_bit(KATRA_KIND_PROCESS_INFO))

/* A token: scope (3 bits), kind (6), phase (2). */
static inline uint16_t kr_cmp_token(uint32_t scope, uint32_t kind, uint32_t phase)
{
	return (uint16_t)((scope & 7) << 8 | (kind & 63) << 2 | (phase & 3));
}

/* An event named in a report (a first divergence). */
struct kr_cmp_event {
	bool present;
	uint64_t seq, ts_mono_ns;
	uint32_t scope, kind, phase;
	bool has_nr;
	uint32_t nr; /* the syscall number, from a Syscall or SyscallReturn payload */
	uint32_t res_domain;
	uint64_t res_id;
	/* the path it names (FileOpen, Execve, TaskExec) or that its file was
	 * opened by earlier in the trace; "" when none is known */
	char path[KR_CMP_PATH_MAX];
};

struct kr_cmp_thread {
	uint64_t pid, tid;
	uint32_t proc_no, thread_no;
	uint16_t *tok;
	uint64_t len, cap;
	uint64_t edges, edge_hash;
	/* filled by kr_cmp_trace_fetch */
	uint64_t want; /* token index to describe, UINT64_MAX: none */
	uint64_t seen;
	struct kr_cmp_event at;
};

struct kr_cmp_kind {
	uint64_t count;
	struct kr_histo *dur; /* completed spans of this kind (allocated on the first) */
};

struct kr_cmp_trace {
	kr_kindset ignore;
	struct kr_cmp_thread *threads;
	uint32_t nthreads, cap_threads;
	uint32_t nprocs;
	uint32_t *order; /* thread indices by (proc_no, thread_no), after finish */
	struct kr_idmap thread_ix; /* (pid, tid) -> v1 thread index */
	struct kr_idmap procs;     /* (pid, 0) -> v1 proc_no, v2 threads numbered */
	struct kr_idmap pages;     /* (seq >> PAGE_BITS, 0) -> v1 page of labels */
	struct kr_idmap open;      /* (tid, span_id) -> v1 Begin ts */
	struct kr_cmp_kind kinds[KATRA_KIND_COUNT];
	struct kr_procnames names; /* process and thread names, to label threads */
	uint64_t events, compared;
	uint64_t edges, ignored_causes, unresolved_causes;
	uint64_t span_overflow, thread_overflow;
	uint64_t structural_hash, causal_hash;
	bool oom;
};

void kr_cmp_trace_init(struct kr_cmp_trace *t, kr_kindset ignore);
void kr_cmp_trace_add(struct kr_cmp_trace *t, const struct katra_record *rec);
/* Orders the threads and computes both hashes.  0 or -ENOMEM. */
int kr_cmp_trace_finish(struct kr_cmp_trace *t);
void kr_cmp_trace_free(struct kr_cmp_trace *t);

/* Reads path into t (init, add each record, finish).  0; 1 when the trace is
 * invalid or truncated; -errno.  Messages on err, prefixed
 * "katra-replay: compare: ". */
int kr_cmp_trace_load(struct kr_cmp_trace *t, const char *path, kr_kindset ignore, FILE *err);
/* Second pass: fills threads[i].at for every thread whose want is set. */
int kr_cmp_trace_fetch(struct kr_cmp_trace *t, const char *path, FILE *err);

#endif
