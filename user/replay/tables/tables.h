/* SPDX-License-Identifier: GPL-2.0-only */
/* `katra-replay export --parquet DIR TRACE...`: each trace as a run of
 * Parquet tables, one table per question (docs/parquet.md is the schema,
 * versioned by KQ_SCHEMA_VERSION), in Hive-style partitions
 * DIR/TABLE/KEY=VALUE/.../run=ID/part.parquet (the run's labels, then its
 * id).  The rows come from the same accumulators as stats (the overview,
 * the views' span pairing and names), so the tables and stats agree. */
#ifndef KATRA_REPLAY_TABLES_H
#define KATRA_REPLAY_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "replay/parquet/parquet.h"

#define KQ_SCHEMA_VERSION 2
#define KQ_STR2(x) #x
#define KQ_STR(x) KQ_STR2(x)

enum kq_table {
	KQ_RUNS, KQ_PROCESSES, KQ_THREADS, KQ_THREAD_NAMES, KQ_SPANS, KQ_CALLS, KQ_OFFCPU,
	KQ_FRAMES, KQ_DROPS, KQ_FRAME_PATH, KQ_FRAME_GPU, KQ_NTABLES
};

/* columns, in each table's order */
enum { R_TRACE, R_WORKLOAD, R_TOOL, R_HOST, R_OS, R_KERNEL, R_MACHINE, R_CPUS, R_START_WALL,
       R_DURATION, R_RECORDS, R_EVENTS, R_SPANS, R_COMPLETE, R_ERROR, R_SUMMARY,
       R_SUMMARY_DROPPED, R_DROP_EVENTS, R_EVENTS_DROPPED, R_UNMATCHED, R_LABELS, R_NOTES,
       R_SCHEMA, R_TARGETS, R_FOLLOW, R_PATHS, R_BUFFER, R_DURATION_LIMIT, R_NCOLS };
enum { P_PID, P_NAME, P_THREADS, P_EVENTS, P_NCOLS };
enum { T_PID, T_TID, T_NAME, T_EVENTS, T_NCOLS };
enum { N_PID, N_TID, N_TS, N_NAME, N_BY, N_NCOLS };
enum { S_PID, S_TID, S_KIND, S_LAYER, S_NAME, S_START, S_DUR, S_SPAN_ID, S_BEGIN_SEQ,
       S_END_SEQ, S_RES_DOMAIN, S_RES_ID, S_RESOURCE, S_REQUEST, S_RET, S_ERROR,
       S_CONFIDENCE, S_SYSCALL, S_NCOLS };
enum { C_PID, C_TID, C_LAYER, C_NAME, C_KIND, C_START, C_DUR, C_STATUS, C_ERROR, C_NCOLS };
enum { O_PID, O_TID, O_START, O_DUR, O_STATE, O_REASON, O_SYSCALL_SPAN, O_WAKER_TID,
       O_WAKER_PID, O_WAKEUP_TS, O_NCOLS };
enum { F_PID, F_SWAPCHAIN, F_FRAME, F_START, F_END, F_DUR, F_CPU, F_GPU, F_FLIP, F_BOUND,
       F_NCOLS };
enum { FP_PID, FP_SWAPCHAIN, FP_FRAME, FP_TID, FP_THREAD, FP_THREAD_PID, FP_PROCESS, FP_LAYER,
       FP_KIND, FP_NS, FP_NCOLS };
enum { FG_PID, FG_SWAPCHAIN, FG_FRAME, FG_RING, FG_CONTEXT, FG_GPU, FG_JOBS, FG_FENCES,
       FG_NCOLS };
enum { D_ORIGIN, D_SOURCE, D_COUNT, D_TS, D_PID, D_TID, D_NCOLS };

extern const char *const kq_table_names[KQ_NTABLES];
/* A table's columns and their number. */
const struct kp_col *kq_table_cols(unsigned table, unsigned *n);
/* A label KEY that is a column name of some table, or "run", is written in
 * paths as label_KEY (DuckDB and ClickHouse would mix the two up). */
bool kq_reserved_key(const char *key);

struct kq_opts {
	const char *dir;
	bool compress;       /* page compression ZSTD (default), else none */
	unsigned group_rows; /* rows per row group; 0: KP_GROUP_ROWS */
};

/* Exports one trace.  0: written (a truncated trace's readable prefix too,
 * said on err); 1: refused (one line on err, nothing left behind);
 * -errno: could not write (said on err, nothing left behind). */
int kq_export_trace(const char *path, const struct kq_opts *o, FILE *err);

#endif
