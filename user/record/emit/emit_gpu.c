// SPDX-License-Identifier: GPL-2.0-only
/* The GPU layer's events (bpf/gpu.bpf.c): a dma_fence timeline's names, and
 * the life of each fence a traced process made or touched, in scope Gpu.
 * A fence is (context, seqno): its events carry it as request_id
 * (context << 32 | seqno) and resource (GpuTimeline, context); a fence the
 * driver numbers only at its emit (virtio_gpu: seqno 0 at its init) is
 * (context, the probes' token) in all its events' request_id, its init's
 * included (katra_ev_gpu_fence.token).  Links: the
 * fence's init to the syscall its thread was in (the driver's ioctl), each
 * later event to the init and to the syscall of the thread that caused it
 * (a signal from an ioctl), a wait's End to its Begin.  A GPU scheduler job
 * is its finished fence: its queueing, run and completion link to that
 * fence's init (made in the submitting ioctl) like the fence's own events. */
#include <stdio.h>

#include "emit_int.h"

static const uint32_t fence_kinds[KATRA_GPU_FENCE_EVENTS] = {
	[KATRA_GPU_FENCE_INIT] = KATRA_KIND_GPU_FENCE_INIT,
	[KATRA_GPU_FENCE_EMIT] = KATRA_KIND_GPU_FENCE_EMIT,
	[KATRA_GPU_FENCE_ENABLE_SIGNAL] = KATRA_KIND_GPU_FENCE_ENABLE_SIGNAL,
	[KATRA_GPU_FENCE_SIGNALED] = KATRA_KIND_GPU_FENCE_SIGNALED,
	[KATRA_GPU_FENCE_WAIT_START] = KATRA_KIND_GPU_FENCE_WAIT,
	[KATRA_GPU_FENCE_WAIT_END] = KATRA_KIND_GPU_FENCE_WAIT,
	[KATRA_GPU_FENCE_DESTROY] = KATRA_KIND_GPU_FENCE_DESTROY,
	[KATRA_GPU_JOB_QUEUE] = KATRA_KIND_GPU_JOB_QUEUE,
	[KATRA_GPU_JOB_RUN] = KATRA_KIND_GPU_JOB_RUN,
	[KATRA_GPU_JOB_DONE] = KATRA_KIND_GPU_JOB_DONE,
	[KATRA_GPU_VBLANK] = KATRA_KIND_GPU_VBLANK,
	[KATRA_GPU_VBLANK_QUEUED] = KATRA_KIND_GPU_VBLANK_QUEUED,
	[KATRA_GPU_VBLANK_DELIVERED] = KATRA_KIND_GPU_VBLANK_DELIVERED,
};

/* The thread of a record made in a traced thread's context, else NULL
 * (thread 0: an interrupt or another process's thread). */
static struct thread_state *gpu_thread(struct emitter *e, const struct katra_wire_head *h)
{
	return h->tid ? emit_thread(e, h->tid, h->tgid) : NULL;
}

/* The event delivered on crtc signalled an atomic commit's out-fence when
 * the record right after it on its CPU (the kernel signals an event's
 * fence as it sends the event, under the event lock) is the signal of a
 * fence a traced thread made on a CRTC timeline, of that CRTC where its
 * name says it: true and *seq its GpuFenceInit. */
static bool out_fence_init(struct emitter *e, uint32_t crtc, uint64_t *seq)
{
	const struct katra_ev_gpu_fence *n = e->gpu_next;
	uint64_t *init;

	if (!n || n->what != KATRA_GPU_FENCE_SIGNALED)
		return false;
	for (unsigned i = 0; i < e->ncrtc_timelines; i++) {
		if (e->crtc_timelines[i].context != n->context)
			continue;
		if (e->crtc_timelines[i].crtc >= 0 && (uint32_t)e->crtc_timelines[i].crtc != crtc)
			return false;
		init = ktable_get(&e->gpu_fences, (uint64_t)n->context << 32 | n->seqno);
		if (init)
			*seq = *init;
		return init != NULL;
	}
	return false;
}

/* A CRTC's out-fence timeline (drm_crtc_create_fence's, named
 * "CRTC:<object id>-<CRTC name>", the name "crtc-<index>" unless the driver
 * gave one; its driver name is the DRM driver's): kept with the CRTC's
 * index where the name says it, else -1. */
static void note_crtc_timeline(struct emitter *e, const struct katra_ev_gpu_timeline *t)
{
	char name[KATRA_GPU_NAME_MAX + 1], end;
	unsigned i, id, idx;
	int at = 0;

	memcpy(name, t->timeline, sizeof(t->timeline));
	name[sizeof(t->timeline)] = 0;
	if (sscanf(name, "CRTC:%u-%n", &id, &at) != 1 || !at)
		return;
	for (i = 0; i < e->ncrtc_timelines && e->crtc_timelines[i].context != t->context; i++)
		;
	if (i == KATRA_CRTC_TIMELINES)
		return;
	e->ncrtc_timelines += i == e->ncrtc_timelines;
	e->crtc_timelines[i].context = t->context;
	e->crtc_timelines[i].crtc = -1;
	if (sscanf(name + at, "crtc-%u%c", &idx, &end) == 1 && idx < INT32_MAX)
		e->crtc_timelines[i].crtc = (int32_t)idx;
}

/* A display event (KATRA_GPU_VBLANK*: context the CRTC, seqno the vblank's
 * sequence).  Links: a vblank event's queueing to the ioctl that asked for
 * it; its delivery to its queueing and to the vblank of that sequence on
 * that CRTC, where both were written, else (a page flip's or an atomic
 * commit's event, queued with no trace event) to the init of the
 * out-fence signalled with it, made in the commit's ioctl. */
static int emit_gpu_vblank(struct emitter *e, const struct katra_ev_gpu_fence *f,
			   struct thread_state *th, uint64_t pkey)
{
	uint64_t vkey = (uint64_t)f->context << 32 | f->seqno, causes[4];
	struct katra_event ev;
	unsigned n = 0;

	emit_base(&ev, &f->head, KATRA_SCOPE_GPU, fence_kinds[f->what], KATRA_PHASE_INSTANT);
	if (!f->head.tid)
		ev.process_id = f->owner_tgid;
	ev.resource.domain = KATRA_RES_DISPLAY_CRTC;
	ev.resource.id = f->context;
	ev.payload.type = KATRA_PAYLOAD_GPU_VBLANK;
	ev.payload.u.gpu_vblank.crtc = f->context;
	ev.payload.u.gpu_vblank.sequence = f->seqno;
	if (f->what == KATRA_GPU_VBLANK_DELIVERED) {
		uint64_t *q = ktable_get(&e->gpu_vblanks, vkey);
		if (q) {
			causes[n++] = *q;
			ktable_remove(&e->gpu_vblanks, vkey);
		} else if (out_fence_init(e, f->context, &causes[n])) {
			n++;
		}
		if (f->context < KATRA_CRTCS && e->vblank_seq[f->context] &&
		    e->vblank_no[f->context] == f->seqno)
			causes[n++] = e->vblank_seq[f->context] - 1;
	}
	if (th && (th->flags & TH_SYSCALL_OPEN))
		causes[n++] = th->sc_seq;
	emit_note_tracked(e, th, causes, &n);
	if (f->what == KATRA_GPU_VBLANK_QUEUED) {
		bool created;
		uint64_t *slot = ktable_upsert(&e->gpu_vblanks, vkey, &created);
		if (slot)
			*slot = e->next_seq;
		else
			e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
	} else if (f->what == KATRA_GPU_VBLANK && f->context < KATRA_CRTCS) {
		e->vblank_no[f->context] = f->seqno;
		e->vblank_seq[f->context] = e->next_seq + 1;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	return emit_write(e, &ev, pkey, th);
}

int emit_gpu_fence(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_gpu_fence *f = &p->u.gf;
	struct thread_state *th = gpu_thread(e, &f->head);
	uint64_t fkey = (uint64_t)f->context << 32 | (f->token ? f->token : f->seqno);
	uint32_t phase = KATRA_PHASE_INSTANT;
	struct katra_event ev;
	uint64_t causes[4];
	unsigned n = 0;

	if (f->what >= KATRA_GPU_FENCE_EVENTS)
		return 0;
	if (emit_late(e, th, f->head.tid, p->key, 1))
		return 0;
	int rc = emit_running(e, th, f->head.tid, p->key);
	if (rc)
		return rc;
	if (f->what >= KATRA_GPU_VBLANK)
		return emit_gpu_vblank(e, f, th, p->key);
	emit_base(&ev, &f->head, KATRA_SCOPE_GPU, fence_kinds[f->what], KATRA_PHASE_INSTANT);
	if (!f->head.tid) /* outside the traced threads: the fence's process */
		ev.process_id = f->owner_tgid;
	ev.request_id = emit_some(fkey);
	ev.resource.domain = KATRA_RES_GPU_TIMELINE;
	ev.resource.id = f->context;
	ev.payload.type = KATRA_PAYLOAD_GPU_FENCE;
	ev.payload.u.gpu_fence.context = f->context;
	ev.payload.u.gpu_fence.seqno = f->seqno;

	if (f->what == KATRA_GPU_FENCE_WAIT_START && th) {
		phase = KATRA_PHASE_BEGIN;
	} else if (f->what == KATRA_GPU_FENCE_WAIT_END && th && (th->flags & TH_GPU_WAIT_OPEN)) {
		phase = KATRA_PHASE_END;
		th->flags &= ~TH_GPU_WAIT_OPEN;
		ev.span_id = emit_some(th->gw_span);
		causes[n++] = th->gw_seq;
	}
	ev.phase = phase;
	if (f->what != KATRA_GPU_FENCE_INIT && phase == KATRA_PHASE_INSTANT) {
		uint64_t *init = ktable_get(&e->gpu_fences, fkey);
		if (init) {
			causes[n++] = *init;
			if (f->what == KATRA_GPU_FENCE_SIGNALED || f->what == KATRA_GPU_FENCE_DESTROY)
				ktable_remove(&e->gpu_fences, fkey);
		}
	}
	/* the syscall the thread is in: the ioctl that made, emitted or
	 * signalled the fence, or the call that waits on it */
	if (th && (th->flags & TH_SYSCALL_OPEN) && phase != KATRA_PHASE_END)
		causes[n++] = th->sc_seq;
	emit_note_tracked(e, th, causes, &n);
	if (f->what == KATRA_GPU_FENCE_INIT) {
		bool created;
		uint64_t *slot = ktable_upsert(&e->gpu_fences, fkey, &created);
		if (slot)
			*slot = e->next_seq;
		else
			e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
	}
	if (phase == KATRA_PHASE_BEGIN) {
		ev.span_id = emit_some(e->next_span++);
		th->flags |= TH_GPU_WAIT_OPEN;
		th->gw_span = ev.span_id.value;
		th->gw_seq = e->next_seq;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	return emit_write(e, &ev, p->key, th);
}

/* A driver's command to its device, or the device's response
 * (katra_ev_gpu_cmd): scope Gpu, payload GpuCmd; a fenced one of a traced
 * process's fence has that fence's request_id and resource, its queueing
 * links to the fence's init (and to the syscall its thread is in), its
 * response to its queueing. */
int emit_gpu_cmd(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_gpu_cmd *c = &p->u.gc;
	struct thread_state *th = gpu_thread(e, &c->head);
	uint64_t fkey = (uint64_t)c->context << 32 | (c->token ? c->token : (uint32_t)c->fence_id);
	struct katra_event ev;
	uint64_t causes[4], *q;
	unsigned n = 0;

	if (emit_late(e, th, c->head.tid, p->key, 1))
		return 0;
	int rc = emit_running(e, th, c->head.tid, p->key);
	if (rc)
		return rc;
	emit_base(&ev, &c->head, KATRA_SCOPE_GPU,
		  c->what == KATRA_GPU_CMD_QUEUE ? KATRA_KIND_GPU_CMD_QUEUE
						 : KATRA_KIND_GPU_CMD_RESPONSE,
		  KATRA_PHASE_INSTANT);
	if (!c->head.tid)
		ev.process_id = c->owner_tgid;
	ev.payload.type = KATRA_PAYLOAD_GPU_CMD;
	ev.payload.u.gpu_cmd.cmd_type = c->type;
	ev.payload.u.gpu_cmd.flags = c->flags;
	ev.payload.u.gpu_cmd.fence_id = c->fence_id;
	ev.payload.u.gpu_cmd.ctx_id = c->ctx_id;
	if (c->context) {
		ev.request_id = emit_some(fkey);
		ev.resource.domain = KATRA_RES_GPU_TIMELINE;
		ev.resource.id = c->context;
		if (c->what == KATRA_GPU_CMD_QUEUE && (q = ktable_get(&e->gpu_fences, fkey)))
			causes[n++] = *q;
		if (c->what == KATRA_GPU_CMD_RESPONSE && (q = ktable_get(&e->gpu_cmds, fkey))) {
			causes[n++] = *q;
			ktable_remove(&e->gpu_cmds, fkey);
		}
	}
	if (th && (th->flags & TH_SYSCALL_OPEN))
		causes[n++] = th->sc_seq;
	emit_note_tracked(e, th, causes, &n);
	if (c->context && c->what == KATRA_GPU_CMD_QUEUE) {
		bool created;
		uint64_t *slot = ktable_upsert(&e->gpu_cmds, fkey, &created);
		if (slot)
			*slot = e->next_seq;
		else
			e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	return emit_write(e, &ev, p->key, th);
}

int emit_gpu_timeline(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_gpu_timeline *t = &p->u.gt;
	struct thread_state *th = gpu_thread(e, &t->head);
	struct katra_event ev;

	note_crtc_timeline(e, t);
	if (emit_late(e, th, t->head.tid, p->key, 1))
		return 0;
	emit_base(&ev, &t->head, KATRA_SCOPE_GPU, KATRA_KIND_GPU_TIMELINE, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_GPU_TIMELINE;
	ev.resource.id = t->context;
	ev.payload.type = KATRA_PAYLOAD_GPU_TIMELINE;
	ev.payload.u.gpu_timeline.context = t->context;
	ev.payload.u.gpu_timeline.driver =
		(struct katra_str){ t->driver, strnlen(t->driver, sizeof(t->driver)) };
	ev.payload.u.gpu_timeline.timeline =
		(struct katra_str){ t->timeline, strnlen(t->timeline, sizeof(t->timeline)) };
	return emit_write(e, &ev, p->key, th);
}

/* A wait still open at the thread's exit or the capture's end: its End,
 * inferred. */
int emit_gpu_close(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key)
{
	struct katra_wire_head h = { .tid = tid, .tgid = th->tgid };
	uint64_t causes[1] = { th->gw_seq };
	struct katra_event ev;

	if (!(th->flags & TH_GPU_WAIT_OPEN))
		return 0;
	th->flags &= ~TH_GPU_WAIT_OPEN;
	emit_base(&ev, &h, KATRA_SCOPE_GPU, KATRA_KIND_GPU_FENCE_WAIT, KATRA_PHASE_END);
	ev.span_id = emit_some(th->gw_span);
	ev.causes = (struct katra_u64_vec){ causes, 1 };
	ev.confidence = KATRA_CONFIDENCE_INFERRED;
	return emit_write(e, &ev, key, th);
}
