// SPDX-License-Identifier: GPL-2.0-only
/* export --parquet's frame_path: each frame's critical path as report
 * --frames walks it (frame_sides.h: the report model with only the frames'
 * track's Frame epochs kept, the first track seen, as report --frames
 * without --pid; it also gives the frames table each frame's sides),
 * summed per thread and layer (the hop's type as report names it; blocked
 * hops by the syscall kind blocked in).  The hops come from the model's
 * on_hop as it counts them, so a frame's rows add up to its path's
 * length_ns; the rows are written when the frame's window ends. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/names/frames.h"
#include "replay/names/procnames.h"
#include "replay/report/frame_sides.h"
#include "replay/report/report.h"
#include "replay/util/out.h"
#include "replay/util/xmap.h"
#include "tables.h"

#define KQ_PATH_CELLS 4096 /* (thread, layer, kind) per frame */

struct kq_path {
	struct kr_fsides *sides;
	struct kp_file *f;
	int *err;
	struct kr_xmap cells; /* (tid, pid, layer) -> ns of the frame being walked */
	uint64_t overflow_ns; /* hops beyond the cells of the frame being walked */
};

struct cell_key {
	uint64_t tid, pid, type_kind;
};

static void on_hop(void *ctx, const struct kr_hop *h)
{
	struct kq_path *q = ctx;
	struct cell_key k = { h->tid, h->pid,
			      (uint64_t)h->type << 32 | (h->type == KR_HOP_BLOCKED ? h->kind :
							   KR_KIND_NONE) };
	bool created;
	uint64_t *ns = kr_xmap_get(&q->cells, &k, &created);

	if (ns)
		*ns += h->to_ns - h->from_ns;
	else
		q->overflow_ns += h->to_ns - h->from_ns;
}

static void on_window(void *ctx, const struct kr_report *rp, const struct kr_window *w,
		      const struct kr_frame *frame)
{
	struct kq_path *q = ctx;
	struct kp_file *f = q->f;
	const struct kr_procnames *names = kr_report_names(rp);
	uint64_t *ns;
	size_t it = 0;
	char kb[KR_NAME_BUF];

	if (frame && w->path && w->path->present) {
		const struct kr_frame fr = *frame;

		while ((ns = kr_xmap_next(&q->cells, &it))) {
			const struct cell_key *k = kr_xmap_key(&q->cells, ns);
			unsigned type = (unsigned)(k->type_kind >> 32);
			uint32_t kind = (uint32_t)k->type_kind;
			const struct kr_procname *pn;

			kp_i64(f, FP_PID, (int64_t)fr.pid);
			kp_u64(f, FP_SWAPCHAIN, fr.swapchain);
			kp_i64(f, FP_FRAME, (int64_t)fr.number);
			kp_i64(f, FP_TID, (int64_t)k->tid);
			pn = kr_procnames_thread_or_process(names, k->tid, k->pid);
			if (pn)
				kp_str(f, FP_THREAD, pn->name, pn->len);
			kp_i64(f, FP_THREAD_PID, (int64_t)k->pid);
			pn = kr_procnames_get(names, k->pid);
			if (pn)
				kp_str(f, FP_PROCESS, pn->name, pn->len);
			kp_cstr_static(f, FP_LAYER, kr_hop_type_name(type));
			if (kind != KR_KIND_NONE)
				kp_cstr(f, FP_KIND, kr_enum(katra_kind_name(kind), kind, kb));
			kp_i64(f, FP_NS, (int64_t)*ns);
			int rc = kp_row(f);

			if (rc && !*q->err)
				*q->err = rc;
		}
		/* beyond KQ_PATH_CELLS: one row (tid 0, layer "other"), so the
		 * frame's rows still add up to its path */
		if (q->overflow_ns) {
			kp_i64(f, FP_PID, (int64_t)fr.pid);
			kp_u64(f, FP_SWAPCHAIN, fr.swapchain);
			kp_i64(f, FP_FRAME, (int64_t)fr.number);
			kp_i64(f, FP_TID, 0);
			kp_i64(f, FP_THREAD_PID, 0);
			kp_cstr_static(f, FP_LAYER, "other");
			kp_i64(f, FP_NS, (int64_t)q->overflow_ns);
			int rc = kp_row(f);

			if (rc && !*q->err)
				*q->err = rc;
		}
	}
	q->overflow_ns = 0;
	kr_xmap_free(&q->cells);
	kr_xmap_init(&q->cells, sizeof(struct cell_key), 8, KQ_PATH_CELLS);
}

int kq_path_new(struct kq_path **out, const struct katra_header *h, struct kp_file *f,
		int *err)
{
	struct kr_fsides_opts o = { .on_hop = on_hop, .on_window = on_window };
	struct kq_path *q = calloc(1, sizeof(*q));

	*out = q;
	if (!q)
		return -ENOMEM;
	q->f = f;
	q->err = err;
	kr_xmap_init(&q->cells, sizeof(struct cell_key), 8, KQ_PATH_CELLS);
	o.ctx = q;
	return kr_fsides_new(&q->sides, h, &o);
}

void kq_path_record(struct kq_path *q, const struct katra_record *rec)
{
	int rc = kr_fsides_add(q->sides, rec);

	if (rc && !*q->err)
		*q->err = rc;
}

void kq_path_finish(struct kq_path *q)
{
	int rc = kr_fsides_finish(q->sides);

	if (rc && !*q->err)
		*q->err = rc;
}

const struct kr_fsides *kq_path_sides(const struct kq_path *q)
{
	return q ? q->sides : NULL;
}

void kq_path_free(struct kq_path *q)
{
	if (!q)
		return;
	kr_fsides_free(q->sides);
	kr_xmap_free(&q->cells);
	free(q);
}
