/* SPDX-License-Identifier: GPL-2.0-only */
/* `katra-replay export`: a Katra trace as a Chrome trace-event JSON timeline,
 * streamed with memory bounded whatever the trace length.
 *
 * What becomes what:
 *   - spans (Begin/End by (thread, span_id)) -> complete events 'X', written
 *     when the End is read, with the Begin's time and payload: only the open
 *     spans are held (at most EXPORT_MAX_OPEN_SPANS), never the events inside
 *     them.  The file is therefore in End order, not start order; every
 *     viewer sorts before it nests (Perfetto sorts JSON traces fully and puts
 *     the longer of two slices with the same start first; chrome://tracing
 *     and speedscope sort by start, then duration), so nesting per thread is
 *     what the trace says.  B/E pairs would be in file order, but then a span
 *     whose End is lost would unbalance every slice after it on its thread;
 *     an X is self-contained.
 *   - OffCpu spans -> 'X' named "off-CPU: blocked" or "off-CPU: preempted"
 *     (from the Begin's SwitchPayload.prev_state, 0 = preempted).
 *   - instants -> 'i' (thread scope); the kinds that start causal links
 *     (Wakeup, TaskFork, TaskExec, IoUringSubmit) -> 0-length 'X' carrying
 *     "bind_id": seq and "flow_out", because Perfetto binds flows to slices
 *     and does not read flow fields on 'i' events.
 *   - every cause on another thread -> a flow arrow: a 0-length 'X' on the
 *     caused thread at the caused event's time with the cause's bind_id and
 *     "flow_in" (Perfetto links a flow_in only to a flow_out it has already
 *     seen in time order, so the arrow cannot end on the OffCpu slice, which
 *     starts before its wakeup).
 *   - Counter records -> 'C' on the recorder's process; epochs -> global 'i'.
 *   - Frame epochs (a present ended a frame) -> also one 'X' per frame, from
 *     the previous Frame epoch of its track (process, swapchain) to this
 *     one, on a pseudo-thread of that process named "frames (swapchain
 *     0xS)", tid KX_FRAMES_TID + the track's index (above any Linux tid).
 *   - GPU fences (GpuFenceInit to GpuFenceSignaled) -> one 'X' each on a
 *     pseudo-thread of the fence's process per fence timeline, named "GPU
 *     DRIVER TIMELINE (context N)", tid KX_GPU_TID + the track's index, with
 *     a flow from the GpuFenceInit's thread (export_emit.c, kx_emit_gpu).
 *   - Display events (GpuVblank, GpuVblankDelivered) -> an 'i' each on a
 *     pseudo-thread of the process per CRTC, "Display CRTC N" (the GPU
 *     tracks' numbering), with a flow from the GpuVblankQueued's thread.
 *   - process names -> 'M' process_name (ProcessInfo comm, else "pid N");
 *     the main thread's thread_name likewise.
 *   - pid 0 (outside the traced set) -> KX_OUTSIDE_PID; --speedscope:
 *     numbered ids (export_order.c). */
#ifndef KATRA_REPLAY_EXPORT_H
#define KATRA_REPLAY_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "chrome.h"
#include "replay/util/idmap.h"
#include "replay/names/procnames.h"
#include "katra/format.h"

#define EXPORT_MAX_OPEN_SPANS (1u << 16)
#define EXPORT_MAX_THREADS (1u << 20)
#define EXPORT_MAX_PIDS 64
#define EXPORT_SEEN_BITS 15      /* look-back of every event, by seq */
#define EXPORT_SOURCE_BITS 13    /* look-back of link sources, by seq */
#define EXPORT_MAX_FRAME_TRACKS 64
#define KX_FRAMES_TID (1ull << 30) /* pid_max is at most 1 << 22 */
/* A process's GPU fence timelines: a pseudo-thread each, tid KX_GPU_TID +
 * the track's index; the timelines' names kept (from GpuTimeline events). */
#define KX_GPU_TID (KX_FRAMES_TID + (1ull << 16))
#define EXPORT_MAX_GPU_TRACKS 64
/* A display CRTC's track shares the GPU tracks: its key is KX_CRTC_KEY | crtc
 * (fence contexts are 32 bits). */
#define KX_CRTC_KEY (1ull << 63)
#define EXPORT_MAX_GPU_TIMELINES 256
#define EXPORT_MAX_GPU_FENCES (1u << 16)
/* The pid written for events outside the traced set (pid 0), and the base
 * of the ids --speedscope did not number: above every pid, so that a viewer
 * that sorts by pid (speedscope opens the first) never starts there. */
#define KX_OUTSIDE_PID (1ull << 32)
/* bind_ids of flows whose source is not a link kind: far above any seq */
#define EXPORT_EXTRA_FLOW_BASE (1ull << 52)

/* A --from or --to bound: seconds since capture start, or an epoch name. */
struct kx_bound {
	bool set;
	bool by_epoch;      /* resolved when the epoch marker is read */
	bool resolved;
	uint64_t ns;
	const char *epoch;  /* the name (by_epoch) */
};

struct kx_options {
	struct kx_bound from, to;
	uint64_t pids[EXPORT_MAX_PIDS];
	unsigned npids;     /* 0: every process */
	bool no_args;       /* leave "args" out (speedscope groups frames by name + args) */
	/* for speedscope: no args (its labels are name + args), processes and
	 * threads numbered from 1 busiest first (it opens the first), their real
	 * ids in their names ("gzip 9353") */
	bool speedscope;
	/* --stacks: an off-CPU or syscall slice's call stack (katra-record
	 * --stacks) in its args; the trace read twice.  symbols: --symbols DIR */
	bool stacks;
	const char *symbols;
};

/* An event remembered by seq, to draw a link that ends later. */
struct kx_seen {
	uint64_t seq;       /* UINT64_MAX: empty */
	uint64_t ts, pid, tid;
	uint32_t kind;
	bool shown;         /* written to the output (inside the filters) */
};

struct kx_span {
	uint64_t pid, tid, span_id, seq, ts;
	uint32_t scope, kind;
	struct katra_resource resource;
	struct katra_payload payload; /* the Begin's; its strings point into strings */
	char *strings;
	bool shown;                   /* the Begin passed the pid filter */
	uint32_t next_free;
};

/* A track of frames (a process's swapchain) and its latest Frame epoch. */
struct kx_frame_track {
	uint64_t pid, swapchain, last_ts;
};

struct kx_gpu_track {
	uint64_t pid, context;
};

struct kx_gpu_name {
	uint64_t context;
	char name[72]; /* "vgem unbound" */
};

struct kx_stats {
	uint64_t spans, instants, flows, counters, epochs;
	uint64_t frames;              /* frame slices written */
	uint64_t fences;              /* GPU fence slices written */
	uint64_t vblanks;             /* display instants written (vblanks, deliveries) */
	uint64_t flows_lost;          /* the cause was too far back to be known */
	uint64_t spans_unfinished;    /* still open at the end of the trace */
	uint64_t span_table_full, unmatched_ends;
	uint64_t after_exit;          /* OffCpu events of a thread after its TaskExit, not drawn */
};

struct kr_fsides;

struct kx_state {
	struct kr_chrome w;
	struct kr_stackidx *stacks; /* --stacks: the trace's, or NULL */
	struct kr_fsides *sides;    /* the frames' sides (a first pass), or NULL */
	struct kx_options opt;
	uint64_t recorder_pid;
	const struct katra_header *header;
	struct kr_idmap open;       /* (tid, span_id) -> v1 index into spans */
	struct kx_span *spans;
	uint32_t nspans, cap_spans, free_head;
	struct kr_idmap named;      /* (pid, tid) -> v1: named by ProcessInfo (tid 0: process) */
	struct kr_idmap exited;     /* (tid, 0): threads past their TaskExit */
	/* --speedscope: (pid, tid) -> v1 the thread's number in its process,
	 * (pid, UINT64_MAX) -> v1 the process's number (export_order.c) */
	struct kr_idmap ids;
	bool ranked;                /* ids are numbered */
	struct kx_seen *seen, *sources;
	struct kx_frame_track frame_tracks[EXPORT_MAX_FRAME_TRACKS];
	uint32_t nframe_tracks;
	struct kx_gpu_track gpu_tracks[EXPORT_MAX_GPU_TRACKS];
	uint32_t ngpu_tracks;
	struct kx_gpu_name gpu_names[EXPORT_MAX_GPU_TIMELINES];
	uint32_t ngpu_names;
	struct kr_idmap gpu_fences; /* (context << 32 | seqno, 0) -> v1 init ts, v2 init seq */
	uint64_t extra_flow_ids;
	uint64_t last_ts;
	bool recorder_named;
	bool active;                /* inside [from, to] */
	bool done;                  /* past --to: stop reading */
	bool oom;
	struct kx_stats st;
	/* the unix libraries' call names (WineUnixCallNames), read ahead from
	 * path at the first WinToUnix call (procnames.h) */
	struct kr_procnames unix_names;
	const char *path;
};

/* Writes the export of path to out.  0; 1 when the trace is invalid or
 * truncated, or an epoch named by --from/--to is not in it (what could be
 * read is still exported, as valid JSON); -errno.  Messages on err, each
 * "katra-replay: export: ...". */
int katra_export_chrome(const char *path, const struct kx_options *opt, FILE *out, FILE *err);

/* The pieces, for export.c and the unit tests. */
int kx_init(struct kx_state *s, const struct kx_options *opt, const struct katra_header *h,
	    FILE *out);
void kx_record(struct kx_state *s, const struct katra_record *rec);
/* Ends open spans, writes otherData and the closing brackets. */
void kx_finish(struct kx_state *s, const char *path);
void kx_free(struct kx_state *s);

/* Whether process pid passes the --pid filter. */
bool kx_pid_shown(const struct kx_state *s, uint64_t pid);

/* export_order.c: the ids written for (pid, tid) (KX_OUTSIDE_PID for pid 0;
 * the numbers once kx_order_busiest ran) */
void kx_ids(struct kx_state *s, uint64_t *pid, uint64_t *tid);
/* --speedscope: a first pass over path numbering the traced threads busiest
 * first (a path that is not a regular file: said on err, ids kept).  0 or
 * -errno. */
int kx_order_busiest(struct kx_state *s, const char *path, FILE *err);

/* export_spans.c */
struct kx_span *kx_span_open(struct kx_state *s, const struct katra_event *e);
struct kx_span *kx_span_find(struct kx_state *s, uint64_t tid, uint64_t span_id);
void kx_span_close(struct kx_state *s, struct kx_span *sp);

/* export_seen.c */
void kx_seen_put(struct kx_state *s, const struct katra_event *e, bool shown);
const struct kx_seen *kx_seen_get(const struct kx_state *s, uint64_t seq);
bool kx_is_link_source(uint32_t kind);

/* export_emit.c */
void kx_emit_span(struct kx_state *s, const struct kx_span *sp, const struct katra_event *end,
		  uint64_t ts, uint64_t end_ts, bool clipped, bool unfinished);
void kx_emit_instant(struct kx_state *s, const struct katra_event *e);
void kx_emit_links(struct kx_state *s, const struct katra_event *e, uint64_t own_begin);
void kx_emit_names(struct kx_state *s, const struct katra_event *e);
/* --speedscope: a "tid N" thread_name for every numbered thread (the names
 * the trace gives come later and win). */
void kx_emit_thread_ids(struct kx_state *s);
/* A Frame epoch: the slice of the frame it ended (shown: inside the
 * filters), and its track's time. */
void kx_emit_frame(struct kx_state *s, const struct katra_epoch_marker *m, bool shown);
/* An event of scope Gpu of a shown process: a timeline's names kept; a
 * fence's init remembered, its signal drawn as a slice from init to signal
 * on its process's track for the timeline, with a flow from the thread that
 * made it (shown: the signal is inside the window). */
void kx_emit_gpu(struct kx_state *s, const struct katra_event *e, bool shown);
void kx_emit_epoch(struct kx_state *s, const struct katra_epoch_marker *m);
void kx_emit_counter(struct kx_state *s, const struct katra_counter *c);

#endif
