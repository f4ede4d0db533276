// SPDX-License-Identifier: GPL-2.0-only
/* The GPU layer through the recorder's pipeline, from hand-made wire
 * records as bpf/gpu.bpf.c writes them: a fence made inside an ioctl is
 * linked to it, its signal (in another ioctl, and in an interrupt) to its
 * init and to that ioctl, a wait is a span, a context's names come once. */
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "pipeline_test_util.h"

#define START 1000000u
#define GAME 700

/* An ioctl of GAME, enter and exit in one record (written at its exit:
 * the fence records it made sit before it in the ring). */
static void ioctl_call(struct pipeline *pl, uint64_t enter, uint64_t exit)
{
	struct katra_ev_syscall sc = {
		.head = { KATRA_EV_SYSCALL, 0, GAME, GAME, START + exit },
		.enter_ts = START + enter, .exit_ts = START + exit, .nr = SYS_ioctl,
		.flags = KATRA_SC_ENTER | KATRA_SC_EXIT,
	};

	pipeline_on_record(pl, &sc, sizeof(sc));
}

static void fence(struct pipeline *pl, uint32_t tid, uint64_t ts, uint32_t what, uint32_t seqno)
{
	struct katra_ev_gpu_fence f = {
		.head = { KATRA_EV_GPU_FENCE, 0, tid ? GAME : 0, tid, START + ts },
		.context = 9, .seqno = seqno, .what = what, .owner_tgid = GAME,
	};

	pipeline_on_record(pl, &f, sizeof(f));
}

/* A fence numbered at its emit (virtio_gpu): seqno 0 at its init, the
 * probes' token in all its records. */
static void fence_tok(struct pipeline *pl, uint32_t tid, uint64_t ts, uint32_t what,
		      uint32_t seqno, uint32_t token)
{
	struct katra_ev_gpu_fence f = {
		.head = { KATRA_EV_GPU_FENCE, 0, tid ? GAME : 0, tid, START + ts },
		.context = 9, .seqno = seqno, .what = what, .owner_tgid = GAME, .token = token,
	};

	pipeline_on_record(pl, &f, sizeof(f));
}

static void names(struct pipeline *pl, uint64_t ts)
{
	struct katra_ev_gpu_timeline t = {
		.head = { KATRA_EV_GPU_TIMELINE, 0, GAME, GAME, START + ts },
		.context = 9, .driver = "vgem", .timeline = "file",
	};

	pipeline_on_record(pl, &t, sizeof(t));
}

Test(gpu, fences_link_to_the_ioctls_that_made_and_signalled_them)
{
	struct pl_ev ev[32];
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	/* ioctl 10..20 makes fence 1 (its context named first) */
	names(&t.pl, 12);
	fence(&t.pl, GAME, 12, KATRA_GPU_FENCE_INIT, 1);
	ioctl_call(&t.pl, 10, 20);
	/* ioctl 30..40 makes fence 2 */
	fence(&t.pl, GAME, 35, KATRA_GPU_FENCE_INIT, 2);
	ioctl_call(&t.pl, 30, 40);
	/* ioctl 50..60 signals fence 1; an interrupt signals fence 2 at 70 */
	fence(&t.pl, GAME, 55, KATRA_GPU_FENCE_SIGNALED, 1);
	ioctl_call(&t.pl, 50, 60);
	fence(&t.pl, 0, 70, KATRA_GPU_FENCE_SIGNALED, 2);
	/* a wait on fence 3 from 80 to 90, inside an ioctl 79..95 */
	fence(&t.pl, GAME, 80, KATRA_GPU_FENCE_WAIT_START, 3);
	fence(&t.pl, GAME, 90, KATRA_GPU_FENCE_WAIT_END, 3);
	ioctl_call(&t.pl, 79, 95);
	pl_trace_finish(&t, START + 1000);

	size_t n = pl_read_events(t.path, ev, 32);
	/* the process's name, then 4 ioctls (8 events), 1 name, 2 inits, 2
	 * signals, a wait's Begin and End */
	size_t ioctl_begin[4], nb = 0, init[2], ni = 0, sig[2], ns = 0, wait[2], nw = 0,
	       named = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN)
			ioctl_begin[nb++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_INIT)
			init[ni++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_SIGNALED)
			sig[ns++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_WAIT)
			wait[nw++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_TIMELINE)
			named++;
	}
	cr_assert_eq(nb, 4);
	cr_assert_eq(ni, 2);
	cr_assert_eq(ns, 2);
	cr_assert_eq(nw, 2);
	cr_assert_eq(named, 1);
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == KATRA_KIND_GPU_TIMELINE) {
			cr_assert_eq(ev[i].scope, KATRA_SCOPE_GPU);
			cr_assert_eq(ev[i].payload.type, KATRA_PAYLOAD_GPU_TIMELINE);
			cr_assert_eq(ev[i].payload.u.gpu_timeline.context, 9);
			cr_assert_eq(ev[i].payload.u.gpu_timeline.driver.len, 4);
			/* (the strings themselves: dump's test; these point into
			 * the reader's buffer, reused since) */
			cr_assert_eq(ev[i].payload.u.gpu_timeline.timeline.len, 4);
			cr_assert_eq(ev[i].res.domain, KATRA_RES_GPU_TIMELINE);
		}
	/* each init: scope Gpu, (context, seqno), caused by its ioctl's Begin */
	for (size_t i = 0; i < 2; i++) {
		struct pl_ev *e = &ev[init[i]];
		cr_assert_eq(e->scope, KATRA_SCOPE_GPU);
		cr_assert_eq(e->tid, GAME);
		cr_assert_eq(e->res.domain, KATRA_RES_GPU_TIMELINE);
		cr_assert_eq(e->res.id, 9);
		cr_assert_eq(e->payload.u.gpu_fence.seqno, i + 1);
		cr_assert_eq(e->ncauses, 1, "init %zu: its ioctl", i);
		cr_assert_eq(e->causes[0], ev[ioctl_begin[i]].seq);
	}
	/* the signal in an ioctl: [its init, that ioctl]; in an interrupt:
	 * [its init] on thread 0 */
	cr_assert_eq(ev[sig[0]].tid, GAME);
	cr_assert_eq(ev[sig[0]].ncauses, 2);
	cr_assert_eq(ev[sig[0]].causes[0], ev[init[0]].seq);
	cr_assert_eq(ev[sig[0]].causes[1], ev[ioctl_begin[2]].seq);
	cr_assert_eq(ev[sig[1]].tid, 0);
	cr_assert_eq(ev[sig[1]].ncauses, 1);
	cr_assert_eq(ev[sig[1]].causes[0], ev[init[1]].seq);
	/* the wait: a span inside its ioctl */
	cr_assert_eq(ev[wait[0]].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(ev[wait[0]].causes[0], ev[ioctl_begin[3]].seq);
	cr_assert_eq(ev[wait[1]].phase, KATRA_PHASE_END);
	cr_assert_eq(ev[wait[1]].span, ev[wait[0]].span);
	cr_assert_eq(ev[wait[1]].ncauses, 1);
	cr_assert_eq(ev[wait[1]].causes[0], ev[wait[0]].seq);
	cr_assert_eq(ev[wait[1]].ts - ev[wait[0]].ts, 10);
	temp_dir_remove(t.dir);
}

/* A GPU scheduler job, by its finished fence: made and queued in the
 * submitting ioctl, run on the ring and done from the scheduler's thread and
 * the ring's interrupt (thread 0), then the fence signals. */
Test(gpu, a_scheduler_job_links_to_its_fence_and_ioctl)
{
	static const uint32_t kinds[] = { KATRA_KIND_GPU_FENCE_INIT, KATRA_KIND_GPU_JOB_QUEUE,
					  KATRA_KIND_GPU_JOB_RUN, KATRA_KIND_GPU_JOB_DONE,
					  KATRA_KIND_GPU_FENCE_SIGNALED };
	struct pl_ev ev[32];
	struct pl_trace t;
	size_t at[5], k = 0, ioctl_begin = SIZE_MAX;

	pl_trace_open(&t, 1, START);
	fence(&t.pl, GAME, 12, KATRA_GPU_FENCE_INIT, 4);
	fence(&t.pl, GAME, 14, KATRA_GPU_JOB_QUEUE, 4);
	ioctl_call(&t.pl, 10, 20);
	fence(&t.pl, 0, 30, KATRA_GPU_JOB_RUN, 4);
	fence(&t.pl, 0, 50, KATRA_GPU_JOB_DONE, 4);
	fence(&t.pl, 0, 51, KATRA_GPU_FENCE_SIGNALED, 4);
	pl_trace_finish(&t, START + 1000);

	size_t n = pl_read_events(t.path, ev, 32);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN)
			ioctl_begin = i;
		else if (ev[i].scope == KATRA_SCOPE_GPU && k < 5)
			at[k++] = i;
	}
	cr_assert_eq(k, 5);
	cr_assert_neq(ioctl_begin, SIZE_MAX);
	for (size_t i = 0; i < 5; i++) {
		cr_assert_eq(ev[at[i]].kind, kinds[i], "event %zu", i);
		cr_assert_eq(ev[at[i]].payload.u.gpu_fence.seqno, 4);
		cr_assert_eq(ev[at[i]].res.domain, KATRA_RES_GPU_TIMELINE);
	}
	/* the queue: [init, the ioctl]; run, done, signal: [init] on thread 0 */
	cr_assert_eq(ev[at[1]].ncauses, 2);
	cr_assert_eq(ev[at[1]].causes[0], ev[at[0]].seq);
	cr_assert_eq(ev[at[1]].causes[1], ev[ioctl_begin].seq);
	for (size_t i = 2; i < 5; i++) {
		cr_assert_eq(ev[at[i]].tid, 0);
		cr_assert_eq(ev[at[i]].ncauses, 1, "event %zu", i);
		cr_assert_eq(ev[at[i]].causes[0], ev[at[0]].seq, "event %zu", i);
	}
	cr_assert_eq(ev[at[3]].ts - ev[at[2]].ts, 20, "run to done: the job's time on the ring");
	temp_dir_remove(t.dir);
}

/* A display record (context the CRTC, seqno the vblank's sequence). */
static void vblank(struct pipeline *pl, uint32_t tid, uint64_t ts, uint32_t what, uint32_t crtc,
		   uint32_t seq)
{
	struct katra_ev_gpu_fence f = {
		.head = { KATRA_EV_GPU_FENCE, 0, tid ? GAME : 0, tid, START + ts },
		.context = crtc, .seqno = seq, .what = what, .owner_tgid = GAME,
	};

	pipeline_on_record(pl, &f, sizeof(f));
}

/* A vblank event asked for in an ioctl (DRM_IOCTL_WAIT_VBLANK with an
 * event), the vblank on its CRTC and the event's delivery from the vblank's
 * interrupt (thread 0); then a flip's event delivered without a queueing
 * (page flips trace none), after the next vblank. */
Test(gpu, a_vblank_event_links_to_its_ioctl_and_its_vblank)
{
	static const uint32_t kinds[] = { KATRA_KIND_GPU_VBLANK_QUEUED, KATRA_KIND_GPU_VBLANK,
					  KATRA_KIND_GPU_VBLANK_DELIVERED, KATRA_KIND_GPU_VBLANK,
					  KATRA_KIND_GPU_VBLANK_DELIVERED };
	static const uint32_t seqs[] = { 7, 7, 7, 8, 8 };
	struct pl_ev ev[32];
	struct pl_trace t;
	size_t at[5], k = 0, ioctl_begin = SIZE_MAX;

	pl_trace_open(&t, 1, START);
	vblank(&t.pl, GAME, 12, KATRA_GPU_VBLANK_QUEUED, 1, 7);
	ioctl_call(&t.pl, 10, 20);
	vblank(&t.pl, 0, 30, KATRA_GPU_VBLANK, 1, 7);
	vblank(&t.pl, 0, 31, KATRA_GPU_VBLANK_DELIVERED, 1, 7);
	vblank(&t.pl, 0, 47, KATRA_GPU_VBLANK, 1, 8);
	vblank(&t.pl, 0, 48, KATRA_GPU_VBLANK_DELIVERED, 1, 8);
	pl_trace_finish(&t, START + 1000);

	size_t n = pl_read_events(t.path, ev, 32);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN)
			ioctl_begin = i;
		else if (ev[i].scope == KATRA_SCOPE_GPU && k < 5)
			at[k++] = i;
	}
	cr_assert_eq(k, 5);
	cr_assert_neq(ioctl_begin, SIZE_MAX);
	for (size_t i = 0; i < 5; i++) {
		const struct pl_ev *g = &ev[at[i]];
		cr_assert_eq(g->kind, kinds[i], "event %zu", i);
		cr_assert_eq(g->phase, KATRA_PHASE_INSTANT, "event %zu", i);
		cr_assert_eq(g->res.domain, KATRA_RES_DISPLAY_CRTC, "event %zu", i);
		cr_assert_eq(g->res.id, 1, "event %zu", i);
		cr_assert_eq(g->payload.type, KATRA_PAYLOAD_GPU_VBLANK, "event %zu", i);
		cr_assert_eq(g->payload.u.gpu_vblank.crtc, 1, "event %zu", i);
		cr_assert_eq(g->payload.u.gpu_vblank.sequence, seqs[i], "event %zu", i);
		cr_assert_eq(g->tid, i ? 0 : GAME, "event %zu", i);
	}
	/* queued: [the ioctl]; a vblank: none; delivered: [queued, its vblank];
	 * the flip's: [its vblank] */
	cr_assert_eq(ev[at[0]].ncauses, 1);
	cr_assert_eq(ev[at[0]].causes[0], ev[ioctl_begin].seq);
	cr_assert_eq(ev[at[1]].ncauses, 0);
	cr_assert_eq(ev[at[2]].ncauses, 2);
	cr_assert_eq(ev[at[2]].causes[0], ev[at[0]].seq);
	cr_assert_eq(ev[at[2]].causes[1], ev[at[1]].seq);
	cr_assert_eq(ev[at[3]].ncauses, 0);
	cr_assert_eq(ev[at[4]].ncauses, 1);
	cr_assert_eq(ev[at[4]].causes[0], ev[at[3]].seq);
	temp_dir_remove(t.dir);
}

/* Two fences numbered at their emit, made (seqno 0) in one ioctl each,
 * emitted there, signalled from the driver's worker (thread 0) in the
 * other order: each keeps its token as request_id from its init on, and
 * its emit and signal link to its own init. */
Test(gpu, a_fence_numbered_at_its_emit_keeps_its_token_and_links_to_its_init)
{
	const uint32_t tok[2] = { 0x80000001u, 0x81000001u };
	struct pl_ev ev[32];
	struct pl_trace t;
	size_t init[2] = { 0 }, emit[2] = { 0 }, sig[2] = { 0 }, ni = 0, ne = 0, ns = 0, ioctl[2],
	       nb = 0;

	pl_trace_open(&t, 1, START);
	names(&t.pl, 11);
	fence_tok(&t.pl, GAME, 12, KATRA_GPU_FENCE_INIT, 0, tok[0]);
	fence_tok(&t.pl, GAME, 13, KATRA_GPU_FENCE_EMIT, 7, tok[0]);
	ioctl_call(&t.pl, 10, 20);
	fence_tok(&t.pl, GAME, 32, KATRA_GPU_FENCE_INIT, 0, tok[1]);
	fence_tok(&t.pl, GAME, 33, KATRA_GPU_FENCE_EMIT, 8, tok[1]);
	ioctl_call(&t.pl, 30, 40);
	fence_tok(&t.pl, 0, 50, KATRA_GPU_FENCE_SIGNALED, 8, tok[1]);
	fence_tok(&t.pl, 0, 51, KATRA_GPU_FENCE_SIGNALED, 7, tok[0]);
	pl_trace_finish(&t, START + 1000);

	size_t n = pl_read_events(t.path, ev, 32);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN && nb < 2)
			ioctl[nb++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_INIT && ni < 2)
			init[ni++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_EMIT && ne < 2)
			emit[ne++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_SIGNALED && ns < 2)
			sig[ns++] = i;
	}
	cr_assert_eq(nb, 2);
	cr_assert_eq(ni, 2);
	cr_assert_eq(ne, 2);
	cr_assert_eq(ns, 2);
	for (size_t k = 0; k < 2; k++) {
		uint64_t rid = (uint64_t)9 << 32 | tok[k];
		struct pl_ev *in = &ev[init[k]], *em = &ev[emit[k]], *sg = &ev[sig[1 - k]];
		cr_assert_eq(in->payload.u.gpu_fence.seqno, 0);
		cr_assert_eq(in->request_id, rid, "init %zu: request_id %#llx", k,
			     (unsigned long long)in->request_id);
		cr_assert_eq(in->ncauses, 1);
		cr_assert_eq(in->causes[0], ev[ioctl[k]].seq);
		cr_assert_eq(em->payload.u.gpu_fence.seqno, 7 + k);
		cr_assert_eq(em->request_id, rid);
		cr_assert_eq(em->ncauses, 2, "emit %zu: its init and its ioctl", k);
		cr_assert_eq(em->causes[0], in->seq);
		cr_assert_eq(em->causes[1], ev[ioctl[k]].seq);
		/* signalled in the other order, from the worker */
		cr_assert_eq(sg->payload.u.gpu_fence.seqno, 7 + k);
		cr_assert_eq(sg->request_id, rid);
		cr_assert_eq(sg->ncauses, 1);
		cr_assert_eq(sg->causes[0], in->seq);
	}
	temp_dir_remove(t.dir);
}

static void cmd(struct pipeline *pl, uint32_t tid, uint64_t ts, uint32_t what, uint32_t type,
		uint64_t fence_id, uint32_t context, uint32_t token)
{
	struct katra_ev_gpu_cmd c = {
		.head = { KATRA_EV_GPU_CMD, 0, tid ? GAME : 0, tid, START + ts },
		.fence_id = fence_id, .what = what, .type = type, .flags = fence_id ? 1 : 0,
		.context = context, .token = token, .owner_tgid = GAME,
	};

	pipeline_on_record(pl, &c, sizeof(c));
}

/* virtio_gpu: a fence numbered at its emit, its fenced command queued in
 * the same ioctl, an unfenced command after it, then the device's response
 * from the driver's worker (thread 0): the command links to its fence's
 * init and its ioctl, the response to the command, both with the fence's
 * request_id; the unfenced command links to its ioctl only. */
Test(gpu, a_driver_command_links_to_its_fence_and_its_response_to_it)
{
	const uint32_t tok = 0x80000005u;
	const uint64_t rid = (uint64_t)9 << 32 | tok;
	struct pl_ev ev[32];
	struct pl_trace t;
	size_t init = 0, q[2], nq = 0, resp = 0, ioctl = 0, nr = 0;

	pl_trace_open(&t, 1, START);
	fence_tok(&t.pl, GAME, 12, KATRA_GPU_FENCE_INIT, 0, tok);
	fence_tok(&t.pl, GAME, 13, KATRA_GPU_FENCE_EMIT, 4, tok);
	cmd(&t.pl, GAME, 14, KATRA_GPU_CMD_QUEUE, 0x0105, 4, 9, tok);
	cmd(&t.pl, GAME, 15, KATRA_GPU_CMD_QUEUE, 0x0300, 0, 0, 0);
	ioctl_call(&t.pl, 10, 20);
	cmd(&t.pl, 0, 30, KATRA_GPU_CMD_RESPONSE, 0x1100, 4, 9, tok);
	pl_trace_finish(&t, START + 1000);

	size_t n = pl_read_events(t.path, ev, 32);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN)
			ioctl = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_INIT)
			init = i;
		else if (ev[i].kind == KATRA_KIND_GPU_CMD_QUEUE && nq < 2)
			q[nq++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_CMD_RESPONSE && ++nr)
			resp = i;
	}
	cr_assert_eq(nq, 2);
	cr_assert_eq(nr, 1);
	struct pl_ev *fc = &ev[q[0]], *uc = &ev[q[1]], *r = &ev[resp];
	cr_assert_eq(fc->scope, KATRA_SCOPE_GPU);
	cr_assert_eq(fc->payload.type, KATRA_PAYLOAD_GPU_CMD);
	cr_assert_eq(fc->payload.u.gpu_cmd.cmd_type, 0x0105);
	cr_assert_eq(fc->payload.u.gpu_cmd.fence_id, 4);
	cr_assert_eq(fc->payload.u.gpu_cmd.flags, 1);
	cr_assert_eq(fc->request_id, rid);
	cr_assert_eq(fc->res.domain, KATRA_RES_GPU_TIMELINE);
	cr_assert_eq(fc->res.id, 9);
	cr_assert_eq(fc->ncauses, 2, "the fence's init and the ioctl");
	cr_assert_eq(fc->causes[0], ev[init].seq);
	cr_assert_eq(fc->causes[1], ev[ioctl].seq);
	cr_assert_eq(uc->payload.u.gpu_cmd.cmd_type, 0x0300);
	cr_assert_eq(uc->request_id, 0);
	cr_assert_eq(uc->res.domain, KATRA_RES_NONE);
	cr_assert_eq(uc->ncauses, 1);
	cr_assert_eq(uc->causes[0], ev[ioctl].seq);
	cr_assert_eq(r->tid, 0);
	cr_assert_eq(r->payload.u.gpu_cmd.cmd_type, 0x1100);
	cr_assert_eq(r->request_id, rid);
	cr_assert_eq(r->ncauses, 1);
	cr_assert_eq(r->causes[0], fc->seq);
	temp_dir_remove(t.dir);
}

/* A record of fence (context, seqno) on a CRTC's out-fence timeline. */
static void crtc_fence(struct pipeline *pl, uint32_t tid, uint64_t ts, uint32_t what,
		       uint32_t context, uint32_t seqno)
{
	struct katra_ev_gpu_fence f = {
		.head = { KATRA_EV_GPU_FENCE, 0, tid ? GAME : 0, tid, START + ts },
		.context = context, .seqno = seqno, .what = what, .owner_tgid = GAME,
	};

	pipeline_on_record(pl, &f, sizeof(f));
}

/* Atomic commits with an out-fence each (the CRTC's fence, made in the
 * commit ioctl), their events sent from a worker (thread 0), each fence
 * signalled right after its event on the same CPU: each delivery links to
 * the init of the fence signalled with it, and so to its commit, also when
 * the signal is read in a later drain than the delivery.  An event on
 * another CRTC than the fence's timeline, and one with no fence after it
 * (a legacy flip), link to none; the latter is held until the watermark is
 * PIPELINE_DELIVERY_HOLD_NS past it. */
Test(gpu, an_atomic_commits_event_links_to_its_out_fence_and_so_to_its_commit)
{
	struct katra_ev_gpu_timeline names = {
		.head = { KATRA_EV_GPU_TIMELINE, 0, GAME, GAME, START + 12 },
		.context = 5, .driver = "bochs-drm", .timeline = "CRTC:35-crtc-1",
	};
	struct pl_ev ev[48];
	struct pl_trace t;
	size_t ioctl_begin[3], nb = 0, init[3], ni = 0, sig[3], ns = 0, dl[4], nd = 0;

	pl_trace_open(&t, 1, START);
	pipeline_on_record(&t.pl, &names, sizeof(names));
	crtc_fence(&t.pl, GAME, 12, KATRA_GPU_FENCE_INIT, 5, 1);
	ioctl_call(&t.pl, 10, 20);
	crtc_fence(&t.pl, GAME, 24, KATRA_GPU_FENCE_INIT, 5, 2);
	ioctl_call(&t.pl, 22, 28);
	vblank(&t.pl, 0, 30, KATRA_GPU_VBLANK_DELIVERED, 1, 0);
	crtc_fence(&t.pl, 0, 31, KATRA_GPU_FENCE_SIGNALED, 5, 1);
	/* commit 2's event read in one drain, its fence's signal in the next */
	vblank(&t.pl, 0, 40, KATRA_GPU_VBLANK_DELIVERED, 1, 0);
	cr_assert_eq(pipeline_emit_until(&t.pl, START + 40 + 1000000), 0);
	cr_assert_eq(t.pl.order.pending, 1, "the delivery waits for its CPU's next record");
	crtc_fence(&t.pl, 0, 41, KATRA_GPU_FENCE_SIGNALED, 5, 2);
	/* commit 3 (ioctl 60..64): its fence signalled after an event on CRTC 0 */
	crtc_fence(&t.pl, GAME, 62, KATRA_GPU_FENCE_INIT, 5, 3);
	ioctl_call(&t.pl, 60, 64);
	vblank(&t.pl, 0, 70, KATRA_GPU_VBLANK_DELIVERED, 0, 0);
	crtc_fence(&t.pl, 0, 71, KATRA_GPU_FENCE_SIGNALED, 5, 3);
	/* a legacy flip's event: nothing follows it */
	vblank(&t.pl, 0, 80, KATRA_GPU_VBLANK_DELIVERED, 1, 0);
	cr_assert_eq(pipeline_emit_until(&t.pl, START + 80 + PIPELINE_DELIVERY_HOLD_NS - 1), 0);
	cr_assert_eq(t.pl.order.pending, 1);
	cr_assert_eq(pipeline_emit_until(&t.pl, START + 80 + PIPELINE_DELIVERY_HOLD_NS), 0);
	cr_assert_eq(t.pl.order.pending, 0);
	pl_trace_finish(&t, START + 2 * PIPELINE_DELIVERY_HOLD_NS);

	size_t n = pl_read_events(t.path, ev, 48);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN && nb < 3)
			ioctl_begin[nb++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_INIT && ni < 3)
			init[ni++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_FENCE_SIGNALED && ns < 3)
			sig[ns++] = i;
		else if (ev[i].kind == KATRA_KIND_GPU_VBLANK_DELIVERED && nd < 4)
			dl[nd++] = i;
	}
	cr_assert_eq(nb, 3);
	cr_assert_eq(ni, 3);
	cr_assert_eq(ns, 3);
	cr_assert_eq(nd, 4);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(ev[init[i]].ncauses, 1);
		cr_assert_eq(ev[init[i]].causes[0], ev[ioctl_begin[i]].seq, "commit %zu", i);
		cr_assert_eq(ev[sig[i]].ncauses, 1);
		cr_assert_eq(ev[sig[i]].causes[0], ev[init[i]].seq, "signal %zu", i);
		cr_assert_eq(ev[sig[i]].seq, ev[dl[i]].seq + 1, "signal %zu right after", i);
	}
	/* commit k's event: [the init of commit k's fence] */
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(ev[dl[i]].tid, 0);
		cr_assert_eq(ev[dl[i]].ncauses, 1, "delivery %zu", i);
		cr_assert_eq(ev[dl[i]].causes[0], ev[init[i]].seq, "delivery %zu", i);
	}
	cr_assert_eq(ev[dl[2]].ncauses, 0, "an event on CRTC 0, the fence CRTC 1's");
	cr_assert_eq(ev[dl[3]].ncauses, 0, "a flip with no fence");
	temp_dir_remove(t.dir);
}
