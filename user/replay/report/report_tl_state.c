// SPDX-License-Identifier: GPL-2.0-only
/* A thread's category on the HTML timeline as its state moves: drawn from
 * when it was entered to when it changes; nothing is drawn for time not
 * known (before a thread's first switch) or after its exit. */
#include "report_int.h"

static bool is_file_kind(uint32_t k)
{
	return k == KATRA_KIND_FILE_READ || k == KATRA_KIND_FILE_WRITE ||
	       k == KATRA_KIND_FILE_OPEN || k == KATRA_KIND_FILE_CLOSE ||
	       k == KATRA_KIND_NT_READ_FILE || k == KATRA_KIND_NT_WRITE_FILE ||
	       k == KATRA_KIND_NT_CREATE_FILE || k == KATRA_KIND_PAGE_FAULT;
}

/* What the thread is doing now, for the timeline. */
static unsigned tl_state(const struct kr_thread *th)
{
	if (th->exited)
		return KR_TL_DEAD;
	if (!th->switched)
		return KR_TL_UNKNOWN;
	if (th->off_open) {
		if (th->off_cls == KR_OFF_PREEMPTED)
			return KR_TL_OFF_PREEMPT;
		return th->off_cls == KR_OFF_FAULT || is_file_kind(th->off_kind) ? KR_TL_OFF_IO
										  : KR_TL_OFF_WAIT;
	}
	if (th->nspans)
		return kr_tl_cat_of_kind(th->spans[th->nspans - 1].kind);
	return KR_TL_RUN;
}

void kr_tl_draw(struct kr_report *rp, struct kr_thread *th, uint64_t ts)
{
	if (!rp->tl || th->tl_cat == KR_TL_DEAD || th->tl_cat == KR_TL_UNKNOWN)
		return;
	if (th->lane < 0)
		th->lane = kr_timeline_lane(rp->tl, th->tid, th->pid);
	kr_timeline_add(rp->tl, th->lane, th->tl_since, ts, th->tl_cat);
}

void kr_tl_update(struct kr_report *rp, struct kr_thread *th, uint64_t ts)
{
	unsigned cat = tl_state(th);

	if (cat == th->tl_cat)
		return;
	kr_tl_draw(rp, th, ts);
	th->tl_cat = (uint8_t)cat;
	th->tl_since = ts;
}
