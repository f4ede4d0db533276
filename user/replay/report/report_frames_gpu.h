/* SPDX-License-Identifier: GPL-2.0-only */
/* report --frames: a frame's GPU time and whether its critical path waited
 * more for the GPU than it ran (report_frames_gpu.c). */
#ifndef KATRA_REPLAY_REPORT_FRAMES_GPU_H
#define KATRA_REPLAY_REPORT_FRAMES_GPU_H

#include <stdio.h>

#include "frame_sides.h"
#include "report_render.h"

struct kr_fgpu_frame {
	uint64_t cpu_ns;      /* the process's threads on the CPU in the frame */
	uint64_t gpu_ns;      /* its fences' flights (jobs' runs), overlaps once */
	uint64_t fences;      /* fences it made in the frame */
	uint64_t run_ns;      /* the critical path's running */
	uint64_t gpu_wait_ns; /* the critical path's waits for the GPU */
	uint64_t to_flip_ns;  /* its present to its flip, UINT64_MAX: none */
	int verdict;
	unsigned nrings;      /* its GPU time per timeline (kr_fgpu_rings) */
	struct kr_fgpu_ring rings[KR_FSIDES_RINGS];
};

struct kr_fgpu;
int kr_fgpu_new(struct kr_fgpu **out);
void kr_fgpu_free(struct kr_fgpu *g);
/* Takes one event (the GPU layer's; others are ignored). */
void kr_fgpu_event(struct kr_fgpu *g, const struct katra_event *e);
/* The track's frame that ended at end_ns (its present), in order. */
void kr_fgpu_present(struct kr_fgpu *g, uint64_t end_ns);
/* Every event fed: sorts the fences by their making (before the below). */
void kr_fgpu_done(struct kr_fgpu *g);
/* out[i]: the GPU time of frame b[i] (its length; its end the i-th
 * kr_fgpu_present).  0, -EINVAL (not one end a bar) or -ENOMEM. */
int kr_fgpu_frames_gpu(const struct kr_fgpu *g, uint64_t pid, const struct kr_bar *b, size_t n,
		       uint64_t *out);
/* Whether the trace had any GPU event. */
bool kr_fgpu_any(const struct kr_fgpu *g);
/* The GPU side of process pid's frame [start_ns, end_ns) with path p
 * (out->cpu_ns is the caller's).  0 or -ENOMEM. */
int kr_fgpu_frame(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns, uint64_t end_ns,
		  const struct kr_path *p, struct kr_fgpu_frame *out);
/* The same from the path's running and its hops that kr_fgpu_hop_kept
 * keeps (the others do not change it): every frame's, without its path. */
int kr_fgpu_frame_hops(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns,
		       uint64_t end_ns, uint64_t run_ns, const struct kr_hop *hops, size_t nhops,
		       struct kr_fgpu_frame *out);
bool kr_fgpu_hop_kept(const struct kr_hop *h);

/* The timelines of process pid's fences made in [start_ns, end_ns), in the
 * order first made, max at most (*n).  0 or -ENOMEM. */
int kr_fgpu_rings(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns, uint64_t end_ns,
		  struct kr_fgpu_ring *out, unsigned max, unsigned *n);
/* "driver:timeline" as its GpuTimeline named it, else "?:ctx N". */
void kr_fgpu_ring_name(const struct kr_fgpu *g, uint64_t ctx, char *buf, size_t cap);
const char *kr_fgpu_verdict(int v);
void kr_fgpu_text(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		  const struct kr_fgpu_frame *fr, const struct kr_path *p);
void kr_fgpu_html(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		  const struct kr_fgpu_frame *fr, const struct kr_path *p);
/* ,"cpu_ns":..,"gpu_ns":..,"bound":"cpu|gpu|unknown","gpu_hops":[..],
 * "gpu_rings":[{"ring","context","gpu_ns","jobs","fences"}] */
void kr_fgpu_json(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		  const struct kr_fgpu_frame *fr, const struct kr_path *p);

#endif
