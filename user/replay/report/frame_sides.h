/* SPDX-License-Identifier: GPL-2.0-only */
/* Every frame's sides, computed once for stats --per-frame, export
 * --parquet and export: the report model run with only one track's Frame
 * epochs (the track report --frames walks), and per frame its CPU time,
 * its GPU time (all and per timeline), its present to flip and whether its
 * critical path was CPU- or GPU-bound (report_frames_gpu.h, the function
 * report --frames uses for its slowest frames). */
#ifndef KATRA_REPLAY_FRAME_SIDES_H
#define KATRA_REPLAY_FRAME_SIDES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "katra/format.h"
#include "replay/names/frames.h"

/* apart from report.h: stats' headers name some of its types too */
struct kr_report;
struct kr_window;
struct kr_hop;
struct kr_fgpu;

#define KR_FSIDES_RINGS 16 /* timelines kept per frame */

enum { KR_FGPU_UNKNOWN = 0, KR_FGPU_CPU_BOUND, KR_FGPU_GPU_BOUND };
/* "cpu", "gpu" or "unknown" */
const char *kr_fgpu_bound(int v);

/* A frame's GPU time on one timeline (a ring: a fence context). */
struct kr_fgpu_ring {
	uint64_t ctx, gpu_ns, jobs, fences; /* jobs: fences with their run and done */
};

/* The track of the frames: the first Frame epoch's (of want_pid's process
 * when not 0) chooses it. */
struct kr_ftrack {
	uint64_t want_pid;
	bool have;
	struct kr_frame f;
};
/* 1: m is a Frame epoch of the track (*f parsed; the first one also sets
 * rp's path process), 0: another track's (*f parsed), -1: not a Frame
 * epoch, -2: a Frame epoch whose name does not parse. */
int kr_ftrack_see(struct kr_ftrack *t, struct kr_report *rp, const struct katra_epoch_marker *m,
		  struct kr_frame *f);

struct kr_fside {
	uint64_t number, start_ns, end_ns; /* the frame: present to present */
	uint64_t cpu_ns, gpu_ns, fences; /* as struct kr_fgpu_frame's */
	uint64_t to_flip_ns;             /* UINT64_MAX: no flip of it */
	int bound;                       /* KR_FGPU_* */
	unsigned nrings;                 /* its rings, KR_FSIDES_RINGS at most */
	const struct kr_fgpu_ring *rings;
};

struct kr_fsides_opts {
	uint64_t pid; /* the track's process, 0: the first track */
	/* the report model's, passed on (on_window: the track's frames only,
	 * f the frame it ends, NULL for another window) */
	void (*on_hop)(void *ctx, const struct kr_hop *h);
	void (*on_window)(void *ctx, const struct kr_report *rp, const struct kr_window *w,
			  const struct kr_frame *f);
	void *ctx;
};

struct kr_fsides;
int kr_fsides_new(struct kr_fsides **out, const struct katra_header *h,
		  const struct kr_fsides_opts *o);
void kr_fsides_free(struct kr_fsides *s);
/* 0 or -ENOMEM */
int kr_fsides_add(struct kr_fsides *s, const struct katra_record *rec);
/* After the last record: every frame's sides.  0 or -ENOMEM. */
int kr_fsides_finish(struct kr_fsides *s);
/* The track (NULL: no Frame epoch) and its frames, in order. */
const struct kr_frame *kr_fsides_track(const struct kr_fsides *s);
const struct kr_fside *kr_fsides_frames(const struct kr_fsides *s, size_t *n);
/* The frame numbered number of the track (pid, swapchain), else NULL. */
const struct kr_fside *kr_fsides_find(const struct kr_fsides *s, uint64_t pid,
				      uint64_t swapchain, uint64_t number);
/* "driver:timeline" of fence context ctx */
void kr_fsides_ring_name(const struct kr_fsides *s, uint64_t ctx, char *buf, size_t cap);

#endif
