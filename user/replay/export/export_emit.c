// SPDX-License-Identifier: GPL-2.0-only
/* export: writing each kind of output event (see export.h for the
 * mapping). */
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "katra/replay.h"
#include "replay/util/out.h"
#include "replay/names/frames.h"
#include "replay/names/payload_fields.h"
#include "replay/names/resnames.h"
#include "replay/names/stackidx.h"
#include "replay/names/sysnames.h"
#include "replay/report/frame_sides.h"
#include "replay/util/gpukey.h"

#define NAMED_PROCESS UINT64_MAX /* k2 of a process's entry in s->named */
#define NAME_FALLBACK 1
#define NAME_INFO 2

/* Every event opens here: the ids a viewer sorts by (export_order.c). */
static void open_ev(struct kx_state *s, char ph, uint64_t pid, uint64_t tid, uint64_t ts)
{
	kx_ids(s, &pid, &tid);
	kr_chrome_open(&s->w, ph, pid, tid, ts);
}

static const char *kind_str(uint32_t kind, char buf[KR_NAME_BUF])
{
	return kr_enum(katra_kind_name(kind), kind, buf);
}

static void cat(struct kx_state *s, uint32_t scope)
{
	char buf[KR_NAME_BUF];

	kr_chrome_cstr(&s->w, "cat", kr_enum(katra_scope_name(scope), scope, buf));
}

/* The name a viewer shows: the kind, a plain syscall's name, a unix call's
 * name (kr_unix_call_label) and the reason for off-CPU time. */
static void event_name(struct kx_state *s, uint32_t kind, uint32_t phase,
		       const struct katra_payload *p, uint64_t pid, const struct katra_resource *r)
{
	char buf[96], kb[KR_NAME_BUF];

	char sb[KR_SYSNAME_BUF];

	/* a syscall by its name ("getppid", "i386:read"), its number in the args */
	if (kind == KATRA_KIND_SYSCALL && p->type == KATRA_PAYLOAD_SYSCALL)
		snprintf(buf, sizeof(buf), "%s", kr_syscall_name(p->u.syscall.nr, sb));
	else if (kind == KATRA_KIND_SYSCALL && p->type == KATRA_PAYLOAD_SYSCALL_RETURN)
		snprintf(buf, sizeof(buf), "%s", kr_syscall_name(p->u.syscall_return.nr, sb));
	else if (kind == KATRA_KIND_WIN_TO_UNIX && p->type == KATRA_PAYLOAD_WINE_SERVER_CALL) {
		kr_unix_call_label(&s->unix_names, pid, r->id, p->u.wine_server_call.request, buf,
				   sizeof(buf));
	} else if (kind == KATRA_KIND_OFF_CPU && phase == KATRA_PHASE_BEGIN &&
		 p->type == KATRA_PAYLOAD_SWITCH)
		snprintf(buf, sizeof(buf), "off-CPU: %s",
			 p->u.sched_switch.prev_state ? "blocked" : "preempted");
	else if (kind == KATRA_KIND_OFF_CPU)
		snprintf(buf, sizeof(buf), "off-CPU (until here)");
	else
		snprintf(buf, sizeof(buf), "%s", kind_str(kind, kb));
	kr_chrome_cstr(&s->w, "name", buf);
}

static void resource(struct kx_state *s, const struct katra_resource *r)
{
	char val[64];

	if (r->domain == KATRA_RES_NONE)
		return;
	kr_chrome_cstr(&s->w, "resource", kr_res_label(r->domain, r->id, val, sizeof(val)));
}

/* The payload's fields as args, each key prefixed with prefix. */
static void payload(struct kx_state *s, const struct katra_payload *p, const char *prefix)
{
	const struct kr_payload_desc *d = kr_payload_desc(p->type);
	char key[64];

	for (unsigned i = 0; d && i < d->count; i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, d->fields[i].name);
		kr_chrome_key(&s->w, key);
		kr_payload_field_value(s->w.f, p, &d->fields[i], true);
	}
}

static void confidence(struct kx_state *s, uint32_t c)
{
	char buf[KR_NAME_BUF];

	if (c != KATRA_CONFIDENCE_MEASURED)
		kr_chrome_cstr(&s->w, "confidence", kr_enum(katra_confidence_name(c), c, buf));
}

/* --stacks: an off-CPU slice's stack (its interval's), a Linux span's (the
 * syscall span it begins in), innermost frame first, ';' between frames */
static void span_stack(struct kx_state *s, const struct kx_span *sp, uint64_t end_ts)
{
	char buf[1024];
	unsigned samples;
	bool off = sp->kind == KATRA_KIND_OFF_CPU;

	if (!s->stacks || (!off && sp->scope != KATRA_SCOPE_LINUX))
		return;
	if (kr_stackidx_top(s->stacks, sp->tid, sp->ts, off ? end_ts : sp->ts,
			    off ? KATRA_SITE_OFF_CPU : KATRA_SITE_SYSCALL, 32, ";", buf, sizeof(buf),
			    &samples))
		kr_chrome_cstr(&s->w, "stack", buf);
}

void kx_emit_span(struct kx_state *s, const struct kx_span *sp, const struct katra_event *end,
		  uint64_t ts, uint64_t end_ts, bool clipped, bool unfinished)
{
	struct kr_chrome *w = &s->w;

	open_ev(s, 'X', sp->pid, sp->tid, ts);
	kr_chrome_dur(w, ts, end_ts);
	event_name(s, sp->kind, KATRA_PHASE_BEGIN, &sp->payload, sp->pid, &sp->resource);
	cat(s, sp->scope);
	s->st.spans++;
	if (s->opt.no_args) {
		kr_chrome_close(w);
		return;
	}
	kr_chrome_args_open(w);
	kr_chrome_u64(w, "seq", sp->seq);
	if (end)
		kr_chrome_u64(w, "end_seq", end->seq);
	kr_chrome_u64(w, "span", sp->span_id);
	resource(s, &sp->resource);
	if (sp->kind == KATRA_KIND_OFF_CPU && sp->payload.type == KATRA_PAYLOAD_SWITCH)
		kr_chrome_cstr(w, "reason",
			       sp->payload.u.sched_switch.prev_state ? "blocked" : "preempted");
	payload(s, &sp->payload, "");
	if (end && end->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN)
		kr_chrome_i64(w, "ret", end->payload.u.syscall_return.ret);
	else if (end && end->payload.type == KATRA_PAYLOAD_SWITCH)
		kr_chrome_u64(w, "cpu_in", end->payload.u.sched_switch.cpu);
	else if (end)
		payload(s, &end->payload, "end_");
	if (end)
		confidence(s, end->confidence);
	if (clipped)
		kr_chrome_bool(w, "clipped", true);
	if (unfinished)
		kr_chrome_bool(w, "unfinished", true);
	span_stack(s, sp, end_ts);
	kr_chrome_args_close(w);
	kr_chrome_close(w);
}

static void event_args(struct kx_state *s, const struct katra_event *e)
{
	if (s->opt.no_args)
		return;
	kr_chrome_args_open(&s->w);
	kr_chrome_u64(&s->w, "seq", e->seq);
	if (e->request_id.present)
		kr_chrome_u64(&s->w, "request_id", e->request_id.value);
	resource(s, &e->resource);
	payload(s, &e->payload, "");
	confidence(s, e->confidence);
	kr_chrome_args_close(&s->w);
}

void kx_emit_instant(struct kx_state *s, const struct katra_event *e)
{
	struct kr_chrome *w = &s->w;
	bool source = kx_is_link_source(e->kind);

	/* a link's start must be a slice for Perfetto to draw the arrow */
	open_ev(s, source ? 'X' : 'i', e->process_id, e->thread_id, e->ts_mono_ns);
	if (source) {
		kr_chrome_dur(w, 0, 0);
		kr_chrome_u64(w, "bind_id", e->seq);
		kr_chrome_bool(w, "flow_out", true);
	} else {
		kr_chrome_cstr(w, "s", "t");
	}
	event_name(s, e->kind, e->phase, &e->payload, e->process_id, &e->resource);
	cat(s, e->scope);
	event_args(s, e);
	kr_chrome_close(w);
	s->st.instants++;
}

/* A 0-length slice that is one end of a flow. */
static void anchor(struct kx_state *s, uint64_t pid, uint64_t tid, uint64_t ts, const char *name,
		   uint64_t id, bool out, uint64_t from_seq, uint64_t to_seq)
{
	struct kr_chrome *w = &s->w;

	open_ev(s, 'X', pid, tid, ts);
	kr_chrome_dur(w, 0, 0);
	kr_chrome_u64(w, "bind_id", id);
	kr_chrome_bool(w, out ? "flow_out" : "flow_in", true);
	kr_chrome_cstr(w, "name", name);
	kr_chrome_cstr(w, "cat", "flow");
	if (!s->opt.no_args) {
		kr_chrome_args_open(w);
		kr_chrome_u64(w, "from_seq", from_seq);
		kr_chrome_u64(w, "to_seq", to_seq);
		kr_chrome_args_close(w);
	}
	kr_chrome_close(w);
}

void kx_emit_links(struct kx_state *s, const struct katra_event *e, uint64_t own_begin)
{
	char name[64], b1[KR_NAME_BUF], b2[KR_NAME_BUF];

	for (uint64_t i = 0; i < e->causes.len; i++) {
		uint64_t c = e->causes.items[i], id;
		const struct kx_seen *x;

		if (c == own_begin)
			continue;
		x = kx_seen_get(s, c);
		if (!x) {
			s->st.flows_lost++;
			continue;
		}
		if ((x->tid == e->thread_id && x->pid == e->process_id) || !x->shown)
			continue;
		snprintf(name, sizeof(name), "%s -> %s", kind_str(x->kind, b1),
			 kind_str(e->kind, b2));
		if (kx_is_link_source(x->kind)) {
			id = c; /* its slice carries bind_id = seq and flow_out */
		} else {
			id = EXPORT_EXTRA_FLOW_BASE + s->extra_flow_ids++;
			anchor(s, x->pid, x->tid, x->ts, name, id, true, c, e->seq);
		}
		anchor(s, e->process_id, e->thread_id, e->ts_mono_ns > x->ts ? e->ts_mono_ns : x->ts,
		       name, id, false, c, e->seq);
		s->st.flows++;
	}
}

/* With numbered ids (--speedscope) a name carries the real one: "gzip
 * 9353" (the pid for process_name, the tid for thread_name), unless it is a
 * fallback that already says it ("pid 9353"). */
static void name_meta_id(struct kx_state *s, uint64_t pid, uint64_t tid, const char *what,
			 const char *name, uint64_t len, bool with_id)
{
	char buf[KR_PROCNAME_MAX + 32];

	open_ev(s, 'M', pid, tid, 0);
	kr_chrome_cstr(&s->w, "name", what);
	kr_chrome_args_open(&s->w);
	if (s->ranked && with_id) {
		snprintf(buf, sizeof(buf), "%.*s %llu", (int)(len < KR_PROCNAME_MAX ? len :
			 KR_PROCNAME_MAX), name, (unsigned long long)(what[0] == 'p' ? pid : tid));
		kr_chrome_cstr(&s->w, "name", buf);
	} else {
		kr_chrome_str(&s->w, "name", name, len);
	}
	kr_chrome_args_close(&s->w);
	kr_chrome_close(&s->w);
}

static void name_meta(struct kx_state *s, uint64_t pid, uint64_t tid, const char *what,
		      const char *name, uint64_t len)
{
	name_meta_id(s, pid, tid, what, name, len, true);
}

void kx_emit_thread_ids(struct kx_state *s)
{
	char buf[32];

	for (size_t i = 0; s->ranked && i < s->ids.cap; i++) {
		const struct kr_idmap_slot *t = &s->ids.slots[i];

		if (!t->used || t->k2 == UINT64_MAX)
			continue;
		snprintf(buf, sizeof(buf), "tid %llu", (unsigned long long)t->k2);
		name_meta_id(s, t->k1, t->k2, "thread_name", buf, strlen(buf), false);
	}
}

void kx_emit_names(struct kx_state *s, const struct katra_event *e)
{
	struct kr_idmap_slot *slot;
	bool created;
	char buf[48];

	if (e->kind == KATRA_KIND_PROCESS_INFO && e->payload.type == KATRA_PAYLOAD_PROCESS_INFO) {
		const struct katra_str *comm = &e->payload.u.process_info.comm;
		/* the process as dump names it: a Wine process by its Windows image */
		const struct katra_str *pname = e->payload.u.process_info.windows_image.present ?
			&e->payload.u.process_info.windows_image.value : comm;

		slot = kr_idmap_get(&s->named, e->process_id, NAMED_PROCESS, &created);
		if (slot)
			slot->v1 = NAME_INFO;
		/* the last name a viewer reads for a pid wins: after an exec or a
		 * rename, the new one (the name dump and stats give it) */
		name_meta(s, e->process_id, e->process_id, "process_name", pname->ptr, pname->len);
		name_meta(s, e->process_id, e->process_id, "thread_name", comm->ptr, comm->len);
		return;
	}
	if (e->kind == KATRA_KIND_TASK_RENAME && e->payload.type == KATRA_PAYLOAD_TASK_RENAME &&
	    e->resource.domain == KATRA_RES_THREAD) {
		const struct katra_str *comm = &e->payload.u.task_rename.comm;

		name_meta(s, e->process_id, e->resource.id, "thread_name", comm->ptr, comm->len);
		return;
	}
	slot = kr_idmap_get(&s->named, e->process_id, NAMED_PROCESS, &created);
	if (!slot || !created)
		return;
	slot->v1 = NAME_FALLBACK;
	if (e->process_id == 0)
		snprintf(buf, sizeof(buf), "outside the traced set");
	else
		snprintf(buf, sizeof(buf), "pid %llu", (unsigned long long)e->process_id);
	name_meta_id(s, e->process_id, e->process_id, "process_name", buf, strlen(buf), false);
}

static void recorder_name(struct kx_state *s)
{
	if (s->recorder_named)
		return;
	s->recorder_named = true;
	name_meta(s, s->recorder_pid, s->recorder_pid, "process_name", "katra-record",
		  strlen("katra-record"));
}

void kx_emit_epoch(struct kx_state *s, const struct katra_epoch_marker *m)
{
	struct kr_chrome *w = &s->w;
	char buf[KR_NAME_BUF];
	const char *kind = kr_enum(katra_epoch_kind_name(m->kind), m->kind, buf);

	recorder_name(s);
	open_ev(s, 'i', s->recorder_pid, s->recorder_pid, m->ts_mono_ns);
	kr_chrome_cstr(w, "s", "g");
	if (m->name.len)
		kr_chrome_str(w, "name", m->name.ptr, m->name.len);
	else
		kr_chrome_cstr(w, "name", kind);
	kr_chrome_cstr(w, "cat", "epoch");
	if (!s->opt.no_args) {
		kr_chrome_args_open(w);
		kr_chrome_u64(w, "seq", m->seq);
		kr_chrome_u64(w, "epoch", m->epoch);
		kr_chrome_cstr(w, "kind", kind);
		kr_chrome_args_close(w);
	}
	kr_chrome_close(w);
	s->st.epochs++;
}

/* The frame's sides, as report --frames and stats --per-frame give them:
 * "bound" (cpu, gpu, unknown), "present_to_flip_ns" (null: no flip),
 * "cpu_ns", "gpu_ns"; only for the frames of the track they walk. */
static void frame_sides(struct kx_state *s, const struct kr_frame *fr)
{
	const struct kr_fside *sd = kr_fsides_find(s->sides, fr->pid, fr->swapchain, fr->number);
	struct kr_chrome *w = &s->w;

	if (!sd)
		return;
	kr_chrome_cstr(w, "bound", kr_fgpu_bound(sd->bound));
	if (sd->to_flip_ns != UINT64_MAX) {
		kr_chrome_u64(w, "present_to_flip_ns", sd->to_flip_ns);
	} else {
		kr_chrome_key(w, "present_to_flip_ns");
		fputs("null", w->f);
	}
	kr_chrome_u64(w, "cpu_ns", sd->cpu_ns);
	kr_chrome_u64(w, "gpu_ns", sd->gpu_ns);
}

void kx_emit_frame(struct kx_state *s, const struct katra_epoch_marker *m, bool shown)
{
	struct kx_frame_track *t = NULL;
	struct kr_frame fr;
	char name[64];
	uint32_t i;

	if (!kr_frame_parse(m, &fr))
		return;
	for (i = 0; i < s->nframe_tracks && !t; i++)
		if (s->frame_tracks[i].pid == fr.pid && s->frame_tracks[i].swapchain == fr.swapchain)
			t = &s->frame_tracks[i];
	if (!t) {
		if (s->nframe_tracks == EXPORT_MAX_FRAME_TRACKS)
			return; /* its frames stay epochs only */
		i = s->nframe_tracks++;
		t = &s->frame_tracks[i];
		*t = (struct kx_frame_track){ fr.pid, fr.swapchain, UINT64_MAX };
		if (kx_pid_shown(s, fr.pid)) {
			int n = snprintf(name, sizeof(name), "frames (swapchain 0x%llx)",
					 (unsigned long long)fr.swapchain);
			name_meta(s, fr.pid, KX_FRAMES_TID + i, "thread_name", name, (uint64_t)n);
		}
	} else {
		i = (uint32_t)(t - s->frame_tracks);
	}
	/* the first present of a track opens its first frame, ends none */
	if (shown && t->last_ts != UINT64_MAX && kx_pid_shown(s, fr.pid)) {
		struct kr_chrome *w = &s->w;
		int n = snprintf(name, sizeof(name), "frame %llu", (unsigned long long)fr.number);

		open_ev(s, 'X', fr.pid, KX_FRAMES_TID + i, t->last_ts);
		kr_chrome_dur(w, t->last_ts, m->ts_mono_ns);
		kr_chrome_str(w, "name", name, (uint64_t)n);
		kr_chrome_cstr(w, "cat", "frame");
		if (!s->opt.no_args) {
			kr_chrome_args_open(w);
			kr_chrome_u64(w, "seq", m->seq);
			kr_chrome_u64(w, "epoch", m->epoch);
			frame_sides(s, &fr);
			kr_chrome_args_close(w);
		}
		kr_chrome_close(w);
		s->st.frames++;
	}
	t->last_ts = m->ts_mono_ns;
}

static const char *gpu_name(const struct kx_state *s, uint64_t context);

/* The GPU layer's counts of a fence context: one counter track per context
 * ("GPU vgem unbound (context 5) counts"), a series per kind. */
static const char *const gpu_count_keys[] = {
	"others_fences", "others_fence_ns", "others_busy_ns", "others_jobs",
	"others_ring_busy_ns", "busy_ns", "ring_busy_ns",
};
_Static_assert(sizeof(gpu_count_keys) / sizeof(gpu_count_keys[0]) ==
		       KATRA_COUNTER_GPU_RING_BUSY_NS - KATRA_COUNTER_GPU_OTHER_FENCES + 1,
	       "a series name per GPU counter kind");

void kx_emit_counter(struct kx_state *s, const struct katra_counter *c)
{
	struct kr_chrome *w = &s->w;
	char buf[KR_NAME_BUF], key[32];
	bool gpu = c->kind >= KATRA_COUNTER_GPU_OTHER_FENCES &&
		   c->kind <= KATRA_COUNTER_GPU_RING_BUSY_NS;

	recorder_name(s);
	open_ev(s, 'C', s->recorder_pid, s->recorder_pid, c->ts_mono_ns);
	if (gpu) {
		char title[96];
		snprintf(title, sizeof(title), "GPU %s (context %u) counts", gpu_name(s, c->instance),
			 c->instance);
		kr_chrome_cstr(w, "name", title);
	} else {
		kr_chrome_cstr(w, "name", kr_enum(katra_counter_kind_name(c->kind), c->kind, buf));
	}
	kr_chrome_cstr(w, "cat", "katra");
	if (gpu)
		snprintf(key, sizeof(key), "%s",
			 gpu_count_keys[c->kind - KATRA_COUNTER_GPU_OTHER_FENCES]);
	else if (c->kind == KATRA_COUNTER_EVENTS_DROPPED || c->kind == KATRA_COUNTER_RING_FILL_BYTES ||
	    c->kind == KATRA_COUNTER_RING_CAPACITY_BYTES)
		snprintf(key, sizeof(key), "ring %u", c->instance);
	else if (c->instance)
		snprintf(key, sizeof(key), "instance %u", c->instance);
	else
		snprintf(key, sizeof(key), "value");
	/* counters always carry their value in args: that is the series */
	kr_chrome_args_open(w);
	kr_chrome_u64(w, key, c->value);
	kr_chrome_args_close(w);
	kr_chrome_close(w);
	s->st.counters++;
}

/* ---- GPU fence timelines ---- */

static const char *gpu_name(const struct kx_state *s, uint64_t context)
{
	for (uint32_t i = 0; i < s->ngpu_names; i++)
		if (s->gpu_names[i].context == context)
			return s->gpu_names[i].name;
	return "?";
}

/* The track of (pid, context), named at its first fence; UINT32_MAX when
 * the table is full (its fences stay instants on their threads). */
static uint32_t gpu_track(struct kx_state *s, uint64_t pid, uint64_t context)
{
	char name[128];
	uint32_t i;

	for (i = 0; i < s->ngpu_tracks; i++)
		if (s->gpu_tracks[i].pid == pid && s->gpu_tracks[i].context == context)
			return i;
	if (s->ngpu_tracks == EXPORT_MAX_GPU_TRACKS)
		return UINT32_MAX;
	i = s->ngpu_tracks++;
	s->gpu_tracks[i] = (struct kx_gpu_track){ pid, context };
	int n = context & KX_CRTC_KEY ?
		snprintf(name, sizeof(name), "Display CRTC %llu",
			 (unsigned long long)(context & ~KX_CRTC_KEY)) :
		snprintf(name, sizeof(name), "GPU %s (context %llu)", gpu_name(s, context),
			 (unsigned long long)context);
	name_meta(s, pid, KX_GPU_TID + i, "thread_name", name, (uint64_t)n);
	return i;
}

/* A display event on its process's CRTC track: a vblank, or an event
 * delivered (a flip done, a wait over) with a flow from the thread that
 * asked for it, where written: its GpuVblankQueued's ioctl, or the commit
 * ioctl that made the out-fence signalled with it (its GpuFenceInit). */
static void emit_vblank(struct kx_state *s, const struct katra_event *e)
{
	uint64_t crtc = e->payload.u.gpu_vblank.crtc, seqno = e->payload.u.gpu_vblank.sequence;
	struct kr_chrome *w = &s->w;
	char name[48];
	int n;

	if (e->kind != KATRA_KIND_GPU_VBLANK && e->kind != KATRA_KIND_GPU_VBLANK_DELIVERED)
		return;
	uint32_t i = gpu_track(s, e->process_id, KX_CRTC_KEY | (crtc & 0xffffffffu));
	if (i == UINT32_MAX)
		return;
	n = snprintf(name, sizeof(name), "%s %llu",
		     e->kind == KATRA_KIND_GPU_VBLANK ? "vblank" : "event delivered",
		     (unsigned long long)seqno);
	open_ev(s, 'i', e->process_id, KX_GPU_TID + i, e->ts_mono_ns);
	kr_chrome_cstr(w, "s", "t");
	kr_chrome_str(w, "name", name, (uint64_t)n);
	kr_chrome_cstr(w, "cat", "display");
	kr_chrome_close(w);
	s->st.vblanks++;
	for (uint64_t k = 0; k < e->causes.len && e->kind == KATRA_KIND_GPU_VBLANK_DELIVERED; k++) {
		const struct kx_seen *x = kx_seen_get(s, e->causes.items[k]);
		if (!x || !x->shown || !x->tid ||
		    (x->kind != KATRA_KIND_GPU_VBLANK_QUEUED && x->kind != KATRA_KIND_GPU_FENCE_INIT))
			continue;
		const char *what = x->kind == KATRA_KIND_GPU_FENCE_INIT ? "commit -> flip" :
									  "GpuVblankQueued -> delivered";
		uint64_t id = EXPORT_EXTRA_FLOW_BASE + s->extra_flow_ids++;
		anchor(s, x->pid, x->tid, x->ts, what, id, true, x->seq, e->seq);
		anchor(s, e->process_id, KX_GPU_TID + i, e->ts_mono_ns, what, id, false, x->seq,
		       e->seq);
		s->st.flows++;
	}
}

void kx_emit_gpu(struct kx_state *s, const struct katra_event *e, bool shown)
{
	struct kr_idmap_slot *f;
	bool created;

	if (e->payload.type == KATRA_PAYLOAD_GPU_VBLANK) {
		if (shown)
			emit_vblank(s, e);
		return;
	}
	if (e->payload.type == KATRA_PAYLOAD_GPU_TIMELINE) {
		const struct katra_payload *p = &e->payload;
		struct kx_gpu_name *n = NULL;
		for (uint32_t i = 0; i < s->ngpu_names && !n; i++)
			if (s->gpu_names[i].context == p->u.gpu_timeline.context)
				n = &s->gpu_names[i];
		if (!n && s->ngpu_names < EXPORT_MAX_GPU_TIMELINES)
			n = &s->gpu_names[s->ngpu_names++];
		if (n) {
			n->context = p->u.gpu_timeline.context;
			snprintf(n->name, sizeof(n->name), "%.*s %.*s",
				 (int)(p->u.gpu_timeline.driver.len < 32 ? p->u.gpu_timeline.driver.len : 32),
				 p->u.gpu_timeline.driver.ptr,
				 (int)(p->u.gpu_timeline.timeline.len < 32 ? p->u.gpu_timeline.timeline.len : 32),
				 p->u.gpu_timeline.timeline.ptr);
		}
		return;
	}
	if (e->payload.type != KATRA_PAYLOAD_GPU_FENCE)
		return;
	uint64_t context = e->payload.u.gpu_fence.context;
	uint64_t key = kr_gpu_fence_key(e);
	if (e->kind == KATRA_KIND_GPU_FENCE_INIT) {
		f = kr_idmap_get(&s->gpu_fences, key, 0, &created);
		if (f) {
			f->v1 = e->ts_mono_ns;
			f->v2 = e->seq;
		}
		return;
	}
	if (e->kind != KATRA_KIND_GPU_FENCE_SIGNALED && e->kind != KATRA_KIND_GPU_FENCE_DESTROY)
		return;
	f = kr_idmap_find(&s->gpu_fences, key, 0);
	if (!f)
		return;
	uint64_t init_ts = f->v1, init_seq = f->v2;
	kr_idmap_remove(&s->gpu_fences, f);
	if (!shown || e->kind != KATRA_KIND_GPU_FENCE_SIGNALED)
		return;
	uint32_t i = gpu_track(s, e->process_id, context);
	if (i == UINT32_MAX)
		return;
	struct kr_chrome *w = &s->w;
	char name[48];
	int n = snprintf(name, sizeof(name), "fence %llu",
			 (unsigned long long)e->payload.u.gpu_fence.seqno);
	open_ev(s, 'X', e->process_id, KX_GPU_TID + i, init_ts);
	kr_chrome_dur(w, init_ts, e->ts_mono_ns);
	kr_chrome_str(w, "name", name, (uint64_t)n);
	kr_chrome_cstr(w, "cat", "gpu");
	if (!s->opt.no_args) {
		kr_chrome_args_open(w);
		kr_chrome_u64(w, "context", context);
		kr_chrome_u64(w, "seqno", e->payload.u.gpu_fence.seqno);
		kr_chrome_u64(w, "init_seq", init_seq);
		kr_chrome_u64(w, "signal_seq", e->seq);
		kr_chrome_args_close(w);
	}
	kr_chrome_close(w);
	s->st.fences++;
	/* the flow from the thread that made it (its ioctl) */
	const struct kx_seen *x = kx_seen_get(s, init_seq);
	if (x && x->shown) {
		uint64_t id = EXPORT_EXTRA_FLOW_BASE + s->extra_flow_ids++;
		anchor(s, x->pid, x->tid, x->ts, "GpuFenceInit -> fence", id, true, init_seq, e->seq);
		anchor(s, e->process_id, KX_GPU_TID + i, init_ts, "GpuFenceInit -> fence", id, false,
		       init_seq, e->seq);
		s->st.flows++;
	}
}
