/* SPDX-License-Identifier: GPL-2.0-only */
/* stats --per-frame: the calls of the Wine and Vulkan layers (and the
 * syscalls) per frame.  A frame is the window between two Frame epochs of
 * one track, a process and a swapchain (format/SPEC.md section 10, Frames;
 * names/frames.h): frame k of a track runs from its present k to its
 * present k + 1 (0-based), named by the number of the epoch that ends it.
 * A call is in the frame whose window holds its Begin, in the trace's order
 * (a Begin written after a present's epoch, even in the same nanosecond, is
 * in the next frame), on every track of its process: with two swapchains a
 * call counts in the frames of both.  Its time (entry to return) goes
 * whole to that frame, also when it returns frames later.
 *
 * Memory: per present 24 bytes, per (row, frame) where the row has calls
 * one cell (24 bytes); every table is capped and what does not fit is
 * counted. */
#ifndef KATRA_REPLAY_PERFRAME_H
#define KATRA_REPLAY_PERFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "katra/format.h"
#include "replay/util/xmap.h"

#define KR_PF_MAX_TRACKS 256
#define KR_PF_MAX_ROWS 8192
#define KR_PF_MAX_CELLS (1u << 22) /* 96 MiB */
#define KR_PF_MAX_PIDS (1u << 16)
#define KR_PF_MAX_FENCES (1u << 16) /* GPU fences in flight */
#define KR_PF_SLOWEST 3            /* the slowest frames broken down */
#define KR_PF_SLOW_CALLS 6         /* the calls shown in each of them */

/* KR_PF_GPU: the GPU layer's work of the frame's process, what = the
 * event kind << 32: GpuFenceSignaled (count, made to signalled),
 * GpuJobDone (count, run to done on the ring), GpuVblankDelivered (count:
 * flips done, vblank waits over), each in the frame that holds the
 * fence's GpuFenceInit (its submit) or the delivery. */
enum kr_pf_class { KR_PF_CALL = 0, KR_PF_SYSCALL = 1, KR_PF_GPU = 2 };

/* A fence in flight, for the GPU rows. */
struct kr_pf_fence {
	uint64_t init_seq, init_ts, run_ts;
};

struct kr_pf_track {
	uint64_t pid, swapchain;
	uint64_t *seq, *ts, *number; /* per present, in order */
	size_t n, cap;
	uint64_t before, after;      /* calls before its first present, after its last */
	/* present to its flip, per present that had one: the flip of the
	 * last commit made in its frame (a display event delivered, linked to
	 * the GpuFenceInit of its out-fence) as report --frames says it, else
	 * the first display event delivered to its process after it; sorted
	 * by kr_pf_finish */
	uint64_t *flip;
	size_t nflip, flip_cap, flipped; /* flipped: presents already matched */
	uint64_t flip_commit; /* the commit (init seq) of the last flip kept, else 0 */
};

/* One row's calls in one frame. */
struct kr_pf_cell {
	uint32_t row, frame;
	uint64_t count, ns;
};

/* A row: track index, class, and what (a call's kind << 32 | number, or a
 * syscall key of views.h). */
struct kr_pf_key {
	uint64_t track, cls, what;
};

struct kr_pf_row {
	uint64_t id;
	uint64_t cur_frame, cur_count, cur_ns; /* the latest frame's, not yet a cell */
};

struct kr_perframe {
	bool calls, syscalls;                 /* which classes are counted */
	struct kr_pf_track tracks[KR_PF_MAX_TRACKS];
	unsigned ntracks;
	struct kr_xmap rows;                  /* struct kr_pf_key -> struct kr_pf_row */
	struct kr_xmap trackless;             /* pid -> calls while it had no track */
	struct kr_xmap fences;                /* context << 32 | seqno -> struct kr_pf_fence */
	struct kr_xmap inits;                 /* a fence in flight's init seq -> its key */
	uint64_t gpu_events;                  /* GPU rows' events added */
	struct kr_pf_cell *cells;             /* after kr_pf_finish: by row, then frame */
	size_t ncells, cap;
	size_t *row_first;                    /* after kr_pf_finish: row id -> its cells */
	uint64_t nrows;
	uint64_t no_frames;                   /* calls of processes that presented nothing */
	uint64_t unreadable, track_overflow, row_overflow, cell_overflow;
	bool oom;
};

/* NULL when out of memory. */
struct kr_perframe *kr_pf_new(bool calls, bool syscalls);
void kr_pf_free(struct kr_perframe *pf);
void kr_pf_epoch(struct kr_perframe *pf, const struct katra_epoch_marker *m);
/* A call of pid begun at begin_seq took dur. */
void kr_pf_add(struct kr_perframe *pf, uint64_t pid, uint64_t begin_seq, unsigned cls,
	       uint64_t what, uint64_t dur);
/* A GPU layer event (scope Gpu): the GPU rows (KR_PF_GPU). */
void kr_pf_gpu(struct kr_perframe *pf, const struct katra_event *e);
/* After the last record: the cells sorted, the calls outside frames counted. */
void kr_pf_finish(struct kr_perframe *pf);
/* The number of complete frames of a track. */
static inline size_t kr_pf_frames(const struct kr_pf_track *t)
{
	return t->n ? t->n - 1 : 0;
}

#endif
