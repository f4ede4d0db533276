// SPDX-License-Identifier: GPL-2.0-only
/* Frames (SPEC section 10, Frames): each vkQueuePresentKHR that returns ends
 * one frame of its swapchain.  Frames are counted per (process, swapchain:
 * the first of the present's pSwapchains) from 1; the present's End is
 * followed by an EpochMarker of kind Frame named "frame N (pid P, swapchain
 * 0xS)", and from then on the process's events carry N + 1, the frame in
 * progress, in request_id (the present's own Begin and End carry the number
 * of the frame they end).  Only a process that presented pays a lookup per
 * event; the others none. */
#include <stdio.h>

#include "emit_int.h"

static uint64_t track_key(uint32_t tgid, uint64_t swapchain)
{
	return (swapchain * 0x9e3779b97f4a7c15ull) ^ tgid;
}

static struct frame_track *track_get(struct emitter *e, uint32_t tgid, uint64_t swapchain,
				     bool create)
{
	uint64_t key = track_key(tgid, swapchain);
	struct frame_track *t;
	bool created = false;

	t = create ? ktable_upsert(&e->frames, key, &created) : ktable_get(&e->frames, key);
	if (!t) {
		if (create) /* full: this swapchain's frames go unmarked */
			e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
		return NULL;
	}
	if (t->tgid == tgid && t->swapchain == swapchain && !created)
		return t;
	if (!create)
		return NULL;
	/* new, or another track with the same key: it starts over */
	*t = (struct frame_track){ .swapchain = swapchain, .tgid = tgid };
	return t;
}

uint64_t emit_frame_of_present(struct emitter *e, uint32_t tgid, uint64_t swapchain)
{
	struct frame_track *t = e->frames.count ? track_get(e, tgid, swapchain, false) : NULL;

	return (t ? t->presents : 0) + 1;
}

int emit_frame_presented(struct emitter *e, uint32_t tgid, uint64_t swapchain, uint64_t key)
{
	struct frame_track *t = track_get(e, tgid, swapchain, true);
	struct proc_state *ps;
	char name[96];
	int n;

	if (!t)
		return 0;
	t->presents++;
	ps = ktable_get(&e->procs, tgid);
	if (ps)
		ps->frame = t->presents + 1;
	n = snprintf(name, sizeof(name), "frame %llu (pid %u, swapchain 0x%llx)",
		     (unsigned long long)t->presents, tgid, (unsigned long long)swapchain);
	return emit_epoch(e, key, KATRA_EPOCH_FRAME, name, (size_t)n);
}

void emit_frames_forget(struct emitter *e, uint32_t tgid)
{
	struct proc_state *ps = ktable_get(&e->procs, tgid);

	if (ps)
		ps->frame = 0;
	ktable_each(&e->frames, i) {
		const struct frame_track *t = ktable_value_at(&e->frames, i);
		if (t->tgid == tgid)
			ktable_remove(&e->frames, ktable_key_at(&e->frames, i));
	}
}
