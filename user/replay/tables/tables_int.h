/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside export --parquet: one run being exported (tables.c opens and
 * closes its files; tables_rows.c writes the rows). */
#ifndef KATRA_REPLAY_TABLES_INT_H
#define KATRA_REPLAY_TABLES_INT_H

#include <limits.h>

#include "replay/stats/stats.h"
#include "replay/stats/views.h"
#include "replay/util/xmap.h"
#include "tables.h"

#define KQ_MAX_WAKEES (1u << 17)
#define KQ_MAX_TRACKS 4096

struct kr_perframe;

/* A frames row, kept until the end: its gpu_ns is known only once the
 * jobs submitted in it are done (40 bytes a frame). */
struct kq_frame_row {
	uint64_t pid, swapchain, number, start, end, cpu;
	uint32_t index; /* the frame's index on its track (0: first present to second) */
	bool cpu_known;
};

struct kq_run {
	const char *path;
	struct kp_file f[KQ_NTABLES];
	char tmp[KQ_NTABLES][PATH_MAX];
	bool open[KQ_NTABLES];
	struct kr_stats s;
	struct kr_views v;
	struct kr_xmap wakers; /* woken tid -> struct kq_waker: its latest Wakeup */
	struct kr_xmap tracks; /* (pid, swapchain) -> struct kq_track */
	struct kr_xmap cpu;    /* tid -> its on-CPU account (tables_cpu.c) */
	bool cpu_known;        /* the frames' cpu_ns can be told */
	struct kq_frame_row *frames; /* in the order of their presents */
	size_t nframes, frames_cap;
	struct kq_path *fpath; /* frame_path (tables_path.c) */
	uint64_t spans;
	/* the last span's resource label, kept: a thread's calls repeat one
	 * file or socket, and formatting it is a third of a span's row */
	uint32_t res_domain;
	uint64_t res_id;
	bool res_known;
	char res_label[96];
	int err; /* the first write error */
};

/* Feeds one record to the accumulators and writes the rows it completes. */
void kq_rows_record(struct kq_run *q, const struct katra_record *rec);
/* After the last record: the per-run tables (runs, processes, threads,
 * drops of the summary).  error: NULL, or why the trace ended early. */
void kq_rows_finish(struct kq_run *q, const struct katra_header *h, const char *error);
/* The callback the views call at each span's End. */
void kq_rows_span(void *ctx, const struct kr_span_done *d);
void kq_rows_init(struct kq_run *q);
/* The threads' on-CPU time (tables_cpu.c): per event, and a process's
 * total up to ts (false: not known in this trace). */
void kq_cpu_init(struct kq_run *q, const struct katra_header *h);
void kq_cpu_event(struct kq_run *q, const struct katra_event *e);
bool kq_cpu_total(struct kq_run *q, uint64_t pid, uint64_t ts, uint64_t *out);
void kq_cpu_free(struct kq_run *q);
/* A frame's GPU time from stats --per-frame's accounting (after
 * kr_pf_finish): the run-to-done time of the GPU jobs submitted in frame
 * `index` of track (pid, swapchain); false when it has none. */
bool kq_frame_gpu_ns(const struct kr_perframe *pf, uint64_t pid, uint64_t swapchain,
		     uint64_t index, uint64_t *ns);
void kq_rows_free(struct kq_run *q);
/* frame_path (tables_path.c, apart: the report model's header and the
 * views' share names): rows go to f, the first error to *err.  0 or
 * -errno. */
struct kq_path;
int kq_path_new(struct kq_path **out, const struct katra_header *h, struct kp_file *f,
		int *err);
void kq_path_record(struct kq_path *p, const struct katra_record *rec);
void kq_path_finish(struct kq_path *p);
void kq_path_free(struct kq_path *p);
/* Every frame's sides, after kq_path_finish (frame_sides.h). */
struct kr_fsides;
const struct kr_fsides *kq_path_sides(const struct kq_path *p);

#endif
