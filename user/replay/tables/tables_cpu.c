// SPDX-License-Identifier: GPL-2.0-only
/* The frames' gpu_ns (kq_frame_gpu_ns, from stats --per-frame's GPU
 * rows) and cpu_ns: each thread's on-CPU time so far, from its first
 * event to its TaskExit, less the OffCpu spans (switch-out to switch-in) it
 * was in.  A frame's CPU time is its process's total at its present less
 * the total at the present before (a thread born in between counts from
 * its first event).  Known only when the capture recorded the scheduler
 * (the header's "events: all" or a selection with sched) and while every
 * thread fits the table. */
#include <string.h>

#include "replay/stats/perframe.h"
#include "tables_int.h"

struct kq_cpu {
	uint64_t pid, first, exit_ts, off_begin, cum_off;
	bool exited, off_open;
};

void kq_cpu_init(struct kq_run *q, const struct katra_header *h)
{
	kr_xmap_init(&q->cpu, 8, sizeof(struct kq_cpu), KQ_MAX_WAKEES);
	q->cpu_known = false;
	for (uint64_t i = 0; i < h->notes.len; i++) {
		const struct katra_str *n = &h->notes.items[i];
		char buf[128];

		if (n->len < 8 || memcmp(n->ptr, "events: ", 8) || n->len >= sizeof(buf))
			continue;
		memcpy(buf, n->ptr, n->len);
		buf[n->len] = 0;
		q->cpu_known = strstr(buf + 8, "all") || strstr(buf + 8, "sched");
	}
}

void kq_cpu_free(struct kq_run *q)
{
	kr_xmap_free(&q->cpu);
}

void kq_cpu_event(struct kq_run *q, const struct katra_event *e)
{
	struct kq_cpu *t;
	bool created;

	if (!q->cpu_known)
		return;
	t = kr_xmap_get(&q->cpu, &e->thread_id, &created);
	if (!t) {
		q->cpu_known = false; /* a thread beyond the table: not known */
		return;
	}
	if (created) {
		memset(t, 0, sizeof(*t));
		t->pid = e->process_id;
		t->first = e->ts_mono_ns;
	}
	if (e->kind == KATRA_KIND_OFF_CPU && e->phase == KATRA_PHASE_BEGIN) {
		t->off_open = true;
		t->off_begin = e->ts_mono_ns;
	} else if (e->kind == KATRA_KIND_OFF_CPU && e->phase == KATRA_PHASE_END && t->off_open) {
		if (e->ts_mono_ns > t->off_begin)
			t->cum_off += e->ts_mono_ns - t->off_begin;
		t->off_open = false;
	} else if (e->kind == KATRA_KIND_TASK_EXIT && !t->exited) {
		t->exited = true;
		t->exit_ts = e->ts_mono_ns;
	}
}

bool kq_cpu_total(struct kq_run *q, uint64_t pid, uint64_t ts, uint64_t *out)
{
	const struct kq_cpu *t;
	size_t it = 0;
	uint64_t sum = 0;

	if (!q->cpu_known)
		return false;
	while ((t = kr_xmap_next(&q->cpu, &it))) {
		uint64_t end = t->exited && t->exit_ts < ts ? t->exit_ts : ts, alive, off;

		if (t->pid != pid || end <= t->first)
			continue;
		alive = end - t->first;
		off = t->cum_off;
		if (t->off_open && end > t->off_begin)
			off += end - t->off_begin;
		sum += alive > off ? alive - off : 0;
	}
	*out = sum;
	return true;
}

bool kq_frame_gpu_ns(const struct kr_perframe *pf, uint64_t pid, uint64_t swapchain,
		     uint64_t index, uint64_t *ns)
{
	struct kr_pf_key k = { 0, KR_PF_GPU, (uint64_t)KATRA_KIND_GPU_JOB_DONE << 32 };
	const struct kr_pf_row *r;
	size_t lo, hi;

	if (!pf || !pf->row_first)
		return false;
	while (k.track < pf->ntracks && (pf->tracks[k.track].pid != pid ||
					 pf->tracks[k.track].swapchain != swapchain))
		k.track++;
	if (k.track == pf->ntracks || !(r = kr_xmap_find(&pf->rows, &k)))
		return false;
	/* the row's cells, sorted by frame */
	lo = pf->row_first[r->id];
	hi = pf->row_first[r->id + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pf->cells[mid].frame < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pf->row_first[r->id + 1] || pf->cells[lo].frame != index ||
	    !pf->cells[lo].count)
		return false;
	*ns = pf->cells[lo].ns;
	return true;
}
