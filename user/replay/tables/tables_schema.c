// SPDX-License-Identifier: GPL-2.0-only
/* The tables' columns: docs/parquet.md describes each; a change here is a
 * new KQ_SCHEMA_VERSION (tables.h). */
#include <string.h>

#include "tables.h"

const char *const kq_table_names[KQ_NTABLES] = {
	"runs", "processes", "threads", "thread_names", "spans", "calls", "offcpu", "frames",
	"drops", "frame_path", "frame_gpu",
};

static const struct kp_col runs[R_NCOLS] = {
	[R_TRACE] = { "trace", KP_STRING, false },
	[R_WORKLOAD] = { "workload", KP_STRING, false },
	[R_TOOL] = { "tool_version", KP_STRING, false },
	[R_HOST] = { "hostname", KP_STRING, false },
	[R_OS] = { "os", KP_STRING, false },
	[R_KERNEL] = { "kernel_release", KP_STRING, false },
	[R_MACHINE] = { "arch", KP_STRING, false },
	[R_CPUS] = { "cpu_count", KP_I32, false },
	[R_START_WALL] = { "start_wall_ns", KP_I64, false },
	[R_DURATION] = { "duration_ns", KP_I64, false },
	[R_RECORDS] = { "records", KP_I64, false },
	[R_EVENTS] = { "events", KP_I64, false },
	[R_SPANS] = { "spans", KP_I64, false },
	[R_COMPLETE] = { "complete", KP_BOOL, false },
	[R_ERROR] = { "error", KP_STRING, true },
	[R_SUMMARY] = { "session_summary", KP_BOOL, false },
	[R_SUMMARY_DROPPED] = { "summary_dropped_events", KP_I64, true },
	[R_DROP_EVENTS] = { "drop_events", KP_I64, false },
	[R_EVENTS_DROPPED] = { "drop_event_count", KP_I64, false },
	[R_UNMATCHED] = { "unmatched_ends", KP_I64, false },
	[R_LABELS] = { "labels", KP_STRING, false },
	[R_NOTES] = { "notes", KP_STRING, false },
	[R_SCHEMA] = { "schema_version", KP_I32, false },
	[R_TARGETS] = { "target_pids", KP_STRING, false },
	[R_FOLLOW] = { "follow_children", KP_BOOL, false },
	[R_PATHS] = { "record_paths", KP_BOOL, false },
	[R_BUFFER] = { "buffer_size_bytes", KP_I64, false },
	[R_DURATION_LIMIT] = { "duration_limit_ns", KP_I64, true },
};

static const struct kp_col processes[P_NCOLS] = {
	[P_PID] = { "pid", KP_I64, false },
	[P_NAME] = { "name", KP_STRING, true },
	[P_THREADS] = { "threads", KP_I64, false },
	[P_EVENTS] = { "events", KP_I64, false },
};

static const struct kp_col threads[T_NCOLS] = {
	[T_PID] = { "pid", KP_I64, false },
	[T_TID] = { "tid", KP_I64, false },
	[T_NAME] = { "name", KP_STRING, true },
	[T_EVENTS] = { "events", KP_I64, false },
};

static const struct kp_col thread_names[N_NCOLS] = {
	[N_PID] = { "pid", KP_I64, false },
	[N_TID] = { "tid", KP_I64, false },
	[N_TS] = { "ts_ns", KP_I64, false },
	[N_NAME] = { "name", KP_STRING, false },
	[N_BY] = { "renamed_by_tid", KP_I64, false },
};

static const struct kp_col spans[S_NCOLS] = {
	[S_PID] = { "pid", KP_I64, false },
	[S_TID] = { "tid", KP_I64, false },
	[S_KIND] = { "kind", KP_STRING, false },
	[S_LAYER] = { "layer", KP_STRING, false },
	[S_NAME] = { "name", KP_STRING, false },
	[S_START] = { "start_ns", KP_I64, false },
	[S_DUR] = { "dur_ns", KP_I64, false },
	[S_SPAN_ID] = { "span_id", KP_U64, false },
	[S_BEGIN_SEQ] = { "begin_seq", KP_I64, false },
	[S_END_SEQ] = { "end_seq", KP_I64, false },
	[S_RES_DOMAIN] = { "resource_domain", KP_STRING, false },
	[S_RES_ID] = { "resource_id", KP_U64, false },
	[S_RESOURCE] = { "resource", KP_STRING, true },
	[S_REQUEST] = { "request_id", KP_U64, true },
	[S_RET] = { "ret", KP_I64, true },
	[S_ERROR] = { "error", KP_BOOL, false },
	[S_CONFIDENCE] = { "confidence", KP_STRING, false },
	[S_SYSCALL] = { "is_syscall", KP_BOOL, false },
};

static const struct kp_col calls[C_NCOLS] = {
	[C_PID] = { "pid", KP_I64, false },
	[C_TID] = { "tid", KP_I64, false },
	[C_LAYER] = { "layer", KP_STRING, false },
	[C_NAME] = { "name", KP_STRING, false },
	[C_KIND] = { "kind", KP_STRING, false },
	[C_START] = { "start_ns", KP_I64, false },
	[C_DUR] = { "dur_ns", KP_I64, false },
	[C_STATUS] = { "status", KP_I64, true },
	[C_ERROR] = { "error", KP_BOOL, false },
};

static const struct kp_col offcpu[O_NCOLS] = {
	[O_PID] = { "pid", KP_I64, false },
	[O_TID] = { "tid", KP_I64, false },
	[O_START] = { "start_ns", KP_I64, false },
	[O_DUR] = { "dur_ns", KP_I64, false },
	[O_STATE] = { "state", KP_STRING, false },
	[O_REASON] = { "reason", KP_STRING, false },
	[O_SYSCALL_SPAN] = { "syscall_span_id", KP_U64, true },
	[O_WAKER_TID] = { "waker_tid", KP_I64, true },
	[O_WAKER_PID] = { "waker_pid", KP_I64, true },
	[O_WAKEUP_TS] = { "wakeup_ns", KP_I64, true },
};

static const struct kp_col frames[F_NCOLS] = {
	[F_PID] = { "pid", KP_I64, false },
	[F_SWAPCHAIN] = { "swapchain", KP_U64, false },
	[F_FRAME] = { "frame", KP_I64, false },
	[F_START] = { "start_ns", KP_I64, false },
	[F_END] = { "end_ns", KP_I64, false },
	[F_DUR] = { "frame_ns", KP_I64, false },
	[F_CPU] = { "cpu_ns", KP_I64, true },
	[F_GPU] = { "gpu_ns", KP_I64, true },
	[F_FLIP] = { "present_to_flip_ns", KP_I64, true },
	[F_BOUND] = { "bound", KP_STRING, true },
};

static const struct kp_col frame_gpu[FG_NCOLS] = {
	[FG_PID] = { "pid", KP_I64, false },
	[FG_SWAPCHAIN] = { "swapchain", KP_U64, false },
	[FG_FRAME] = { "frame", KP_I64, false },
	[FG_RING] = { "ring", KP_STRING, false },
	[FG_CONTEXT] = { "context", KP_U64, false },
	[FG_GPU] = { "gpu_ns", KP_I64, false },
	[FG_JOBS] = { "jobs", KP_I64, false },
	[FG_FENCES] = { "fences", KP_I64, false },
};

static const struct kp_col frame_path[FP_NCOLS] = {
	[FP_PID] = { "pid", KP_I64, false },
	[FP_SWAPCHAIN] = { "swapchain", KP_U64, false },
	[FP_FRAME] = { "frame", KP_I64, false },
	[FP_TID] = { "tid", KP_I64, false },
	[FP_THREAD] = { "thread_name", KP_STRING, true },
	[FP_THREAD_PID] = { "thread_pid", KP_I64, false },
	[FP_PROCESS] = { "process_name", KP_STRING, true },
	[FP_LAYER] = { "layer", KP_STRING, false },
	[FP_KIND] = { "blocked_in", KP_STRING, true },
	[FP_NS] = { "ns", KP_I64, false },
};

static const struct kp_col drops[D_NCOLS] = {
	[D_ORIGIN] = { "origin", KP_STRING, false },
	[D_SOURCE] = { "source", KP_STRING, false },
	[D_COUNT] = { "count", KP_I64, false },
	[D_TS] = { "ts_ns", KP_I64, true },
	[D_PID] = { "pid", KP_I64, true },
	[D_TID] = { "tid", KP_I64, true },
};

static const struct {
	const struct kp_col *cols;
	unsigned n;
} tables[KQ_NTABLES] = {
	[KQ_RUNS] = { runs, R_NCOLS },
	[KQ_PROCESSES] = { processes, P_NCOLS },
	[KQ_THREADS] = { threads, T_NCOLS },
	[KQ_THREAD_NAMES] = { thread_names, N_NCOLS },
	[KQ_SPANS] = { spans, S_NCOLS },
	[KQ_CALLS] = { calls, C_NCOLS },
	[KQ_OFFCPU] = { offcpu, O_NCOLS },
	[KQ_FRAMES] = { frames, F_NCOLS },
	[KQ_DROPS] = { drops, D_NCOLS },
	[KQ_FRAME_PATH] = { frame_path, FP_NCOLS },
	[KQ_FRAME_GPU] = { frame_gpu, FG_NCOLS },
};

const struct kp_col *kq_table_cols(unsigned table, unsigned *n)
{
	*n = tables[table].n;
	return tables[table].cols;
}

bool kq_reserved_key(const char *key)
{
	if (!strcmp(key, "run"))
		return true;
	for (unsigned t = 0; t < KQ_NTABLES; t++)
		for (unsigned i = 0; i < tables[t].n; i++)
			if (!strcmp(key, tables[t].cols[i].name))
				return true;
	return false;
}
