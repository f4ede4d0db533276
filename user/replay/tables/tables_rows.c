// SPDX-License-Identifier: GPL-2.0-only
/* export --parquet's rows: spans, calls and off-CPU intervals from the
 * views' pairing (kr_views.on_span), frames from the Frame epochs, thread
 * names from TaskRename events, drops from Drop events and the summary, and
 * one row per process, thread and run from the overview. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/names/frames.h"
#include "replay/names/resnames.h"
#include "replay/report/frame_sides.h"
#include "replay/util/out.h"
#include "tables_int.h"

struct kq_waker {
	uint64_t seq, tid, pid, ts;
};

struct kq_track {
	uint64_t presents;
	uint64_t last_ts;
	uint64_t cpu_at_last; /* the process's on-CPU total at the last present */
	bool seen, cpu_known;
};

static void row(struct kq_run *q, unsigned t)
{
	int rc = kp_row(&q->f[t]);

	if (rc && !q->err)
		q->err = rc;
}

void kq_rows_init(struct kq_run *q)
{
	kr_xmap_init(&q->wakers, 8, sizeof(struct kq_waker), KQ_MAX_WAKEES);
	kr_xmap_init(&q->tracks, 16, sizeof(struct kq_track), KQ_MAX_TRACKS);
}

void kq_rows_free(struct kq_run *q)
{
	kr_xmap_free(&q->wakers);
	kr_xmap_free(&q->tracks);
	free(q->frames);
}

/* The status an End reports: a syscall's return value, a call's NTSTATUS,
 * VkResult or HRESULT; false when it reports none. */
static bool end_status(const struct katra_event *e, int64_t *v)
{
	const struct katra_payload *p = &e->payload;

	switch (p->type) {
	case KATRA_PAYLOAD_SYSCALL_RETURN:
		*v = p->u.syscall_return.ret;
		return true;
	case KATRA_PAYLOAD_NT_CALL:
		*v = p->u.nt_call.status.value;
		return p->u.nt_call.status.present;
	case KATRA_PAYLOAD_NT_SYSCALL:
		*v = p->u.nt_syscall.status.value;
		return p->u.nt_syscall.status.present;
	case KATRA_PAYLOAD_WINE_SERVER_CALL:
		*v = p->u.wine_server_call.status.value;
		return p->u.wine_server_call.status.present;
	case KATRA_PAYLOAD_VULKAN:
		*v = p->u.vulkan.result.value;
		return p->u.vulkan.result.present;
	case KATRA_PAYLOAD_D3D12:
		*v = p->u.d3d12.result.value;
		return p->u.d3d12.result.present;
	default:
		return false;
	}
}

/* An enum's name: a static table's (found by address), else Unknown(N). */
static void enum_col(struct kp_file *f, unsigned col, const char *name, uint32_t v)
{
	char b[KR_NAME_BUF];

	if (name)
		kp_cstr_static(f, col, name);
	else
		kp_cstr(f, col, kr_enum(NULL, v, b));
}

static const char *const reasons[] = { "preempted", "syscall", "page_fault", "other" };

static void offcpu_row(struct kq_run *q, const struct kr_span_done *d)
{
	struct kp_file *f = &q->f[KQ_OFFCPU];
	const struct katra_event *e = d->end;
	struct kq_waker *w = kr_xmap_find(&q->wakers, &e->thread_id);
	char st[2] = { d->off_state ? d->off_state : '?', 0 };
	bool cited = false;

	kp_i64(f, O_PID, (int64_t)d->pid);
	kp_i64(f, O_TID, (int64_t)e->thread_id);
	kp_i64(f, O_START, (int64_t)d->begin_ts);
	kp_i64(f, O_DUR, (int64_t)d->dur);
	kp_cstr(f, O_STATE, st);
	kp_cstr_static(f, O_REASON, reasons[d->off_reason & 3]);
	if (d->off_reason == KR_OFF_SYSCALL)
		kp_u64(f, O_SYSCALL_SPAN, d->off_syscall_span);
	/* the waker: the Wakeup this End cites, when it is the thread's latest */
	for (uint64_t i = 0; w && i < e->causes.len && !cited; i++)
		cited = e->causes.items[i] == w->seq;
	if (cited) {
		kp_i64(f, O_WAKER_TID, (int64_t)w->tid);
		kp_i64(f, O_WAKER_PID, (int64_t)w->pid);
		kp_i64(f, O_WAKEUP_TS, (int64_t)w->ts);
	}
	row(q, KQ_OFFCPU);
}

static void call_row(struct kq_run *q, const struct kr_span_done *d, const char *name,
		     bool has_status, int64_t status)
{
	struct kp_file *f = &q->f[KQ_CALLS];

	kp_i64(f, C_PID, (int64_t)d->pid);
	kp_i64(f, C_TID, (int64_t)d->end->thread_id);
	kp_cstr_static(f, C_LAYER, kr_call_layer(d->call));
	kp_cstr(f, C_NAME, name);
	enum_col(f, C_KIND, katra_kind_name(d->kind), d->kind);
	kp_i64(f, C_START, (int64_t)d->begin_ts);
	kp_i64(f, C_DUR, (int64_t)d->dur);
	if (has_status)
		kp_i64(f, C_STATUS, status);
	kp_bool(f, C_ERROR, d->call_failed);
	row(q, KQ_CALLS);
}

void kq_rows_span(void *ctx, const struct kr_span_done *d)
{
	struct kq_run *q = ctx;
	struct kp_file *f = &q->f[KQ_SPANS];
	const struct katra_event *e = d->end;
	char kb[KR_NAME_BUF], nb[160];
	const char *kind = kr_enum(katra_kind_name(d->kind), d->kind, kb), *name = kind;
	bool has_status;
	int64_t status = 0;

	q->spans++;
	if (d->syskey != KR_SYSKEY_NONE)
		name = kr_syskey_name(d->syskey, nb);
	else if (d->call)
		name = kr_call_label(&q->v, d->call, nb, sizeof(nb));
	has_status = end_status(e, &status);
	kp_i64(f, S_PID, (int64_t)d->pid);
	kp_i64(f, S_TID, (int64_t)e->thread_id);
	enum_col(f, S_KIND, katra_kind_name(d->kind), d->kind);
	enum_col(f, S_LAYER, katra_scope_name(d->scope), d->scope);
	kp_cstr(f, S_NAME, name);
	kp_i64(f, S_START, (int64_t)d->begin_ts);
	kp_i64(f, S_DUR, (int64_t)d->dur);
	kp_u64(f, S_SPAN_ID, e->span_id.value);
	kp_i64(f, S_BEGIN_SEQ, (int64_t)d->begin_seq);
	kp_i64(f, S_END_SEQ, (int64_t)e->seq);
	enum_col(f, S_RES_DOMAIN, katra_resource_domain_name((uint32_t)d->res_domain),
		 (uint32_t)d->res_domain);
	kp_u64(f, S_RES_ID, d->res_id);
	if (d->res_domain != KATRA_RES_NONE) {
		if (!q->res_known || q->res_domain != (uint32_t)d->res_domain ||
		    q->res_id != d->res_id) {
			kr_res_label((uint32_t)d->res_domain, d->res_id, q->res_label,
				     sizeof(q->res_label));
			q->res_domain = (uint32_t)d->res_domain;
			q->res_id = d->res_id;
			q->res_known = true;
		}
		kp_cstr(f, S_RESOURCE, q->res_label);
	}
	if (e->request_id.present)
		kp_u64(f, S_REQUEST, e->request_id.value);
	if (has_status)
		kp_i64(f, S_RET, status);
	if (d->syskey != KR_SYSKEY_NONE)
		kp_bool(f, S_ERROR, e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN &&
				    status < 0 && status > -4096);
	else
		kp_bool(f, S_ERROR, d->call_failed);
	enum_col(f, S_CONFIDENCE, katra_confidence_name(e->confidence), e->confidence);
	kp_bool(f, S_SYSCALL, d->syskey != KR_SYSKEY_NONE);
	row(q, KQ_SPANS);
	if (d->call)
		call_row(q, d, name, has_status, status);
	if (d->offcpu)
		offcpu_row(q, d);
}

static void frame_epoch(struct kq_run *q, const struct katra_epoch_marker *m)
{
	struct kr_frame fr;
	uint64_t key[2], cpu = 0;
	struct kq_track *t;
	bool created, known;

	if (!kr_frame_parse(m, &fr))
		return;
	key[0] = fr.pid;
	key[1] = fr.swapchain;
	t = kr_xmap_get(&q->tracks, key, &created);
	if (!t)
		return;
	if (created)
		memset(t, 0, sizeof(*t));
	known = kq_cpu_total(q, fr.pid, m->ts_mono_ns, &cpu);
	/* frame N runs from the track's previous present to this one */
	if (t->seen) {
		struct kq_frame_row *r;

		if (q->nframes == q->frames_cap) {
			size_t nc = q->frames_cap ? q->frames_cap * 2 : 1024;

			r = realloc(q->frames, nc * sizeof(*r));
			if (!r) {
				q->err = q->err ? q->err : -ENOMEM;
				return;
			}
			q->frames = r;
			q->frames_cap = nc;
		}
		r = &q->frames[q->nframes++];
		*r = (struct kq_frame_row){ fr.pid, fr.swapchain, fr.number, t->last_ts,
					    m->ts_mono_ns, 0, (uint32_t)(t->presents - 1),
					    known && t->cpu_known };
		if (r->cpu_known)
			r->cpu = cpu >= t->cpu_at_last ? cpu - t->cpu_at_last : 0;
	}
	t->seen = true;
	t->presents++;
	t->last_ts = m->ts_mono_ns;
	t->cpu_known = known;
	t->cpu_at_last = cpu;
}

/* A frame's frame_gpu rows: its GPU time per ring (frame_sides.h). */
static void ring_rows(struct kq_run *q, const struct kq_frame_row *r, const struct kr_fside *sd)
{
	struct kp_file *f = &q->f[KQ_FRAME_GPU];
	char name[80];

	for (unsigned k = 0; k < sd->nrings; k++) {
		const struct kr_fgpu_ring *g = &sd->rings[k];

		kr_fsides_ring_name(kq_path_sides(q->fpath), g->ctx, name, sizeof(name));
		kp_i64(f, FG_PID, (int64_t)r->pid);
		kp_u64(f, FG_SWAPCHAIN, r->swapchain);
		kp_i64(f, FG_FRAME, (int64_t)r->number);
		kp_cstr(f, FG_RING, name);
		kp_u64(f, FG_CONTEXT, g->ctx);
		kp_i64(f, FG_GPU, (int64_t)g->gpu_ns);
		kp_i64(f, FG_JOBS, (int64_t)g->jobs);
		kp_i64(f, FG_FENCES, (int64_t)g->fences);
		row(q, KQ_FRAME_GPU);
	}
}

/* The frames rows, once the GPU work of every frame is known; the frames
 * of the track frame_path walks carry their sides (present to flip, bound)
 * and their frame_gpu rows. */
static void frame_rows(struct kq_run *q)
{
	struct kp_file *f = &q->f[KQ_FRAMES];

	for (size_t i = 0; i < q->nframes; i++) {
		const struct kq_frame_row *r = &q->frames[i];
		const struct kr_fside *sd = kr_fsides_find(kq_path_sides(q->fpath), r->pid,
							   r->swapchain, r->number);
		uint64_t gpu;

		kp_i64(f, F_PID, (int64_t)r->pid);
		kp_u64(f, F_SWAPCHAIN, r->swapchain);
		kp_i64(f, F_FRAME, (int64_t)r->number);
		kp_i64(f, F_START, (int64_t)r->start);
		kp_i64(f, F_END, (int64_t)r->end);
		kp_i64(f, F_DUR, (int64_t)(r->end >= r->start ? r->end - r->start : 0));
		if (r->cpu_known)
			kp_i64(f, F_CPU, (int64_t)r->cpu);
		if (kq_frame_gpu_ns(q->v.pf, r->pid, r->swapchain, r->index, &gpu))
			kp_i64(f, F_GPU, (int64_t)gpu);
		if (sd && sd->to_flip_ns != UINT64_MAX)
			kp_i64(f, F_FLIP, (int64_t)sd->to_flip_ns);
		if (sd)
			kp_cstr_static(f, F_BOUND, kr_fgpu_bound(sd->bound));
		row(q, KQ_FRAMES);
		if (sd)
			ring_rows(q, r, sd);
	}
}

static void event_rows(struct kq_run *q, const struct katra_event *e)
{
	char sb[KR_NAME_BUF];

	if (e->payload.type == KATRA_PAYLOAD_WAKEUP) {
		bool created;
		struct kq_waker *w = kr_xmap_get(&q->wakers, &e->payload.u.wakeup.target_tid,
						 &created);

		if (w)
			*w = (struct kq_waker){ e->seq, e->thread_id, e->process_id,
						e->ts_mono_ns };
	} else if (e->payload.type == KATRA_PAYLOAD_TASK_RENAME &&
		   e->resource.domain == KATRA_RES_THREAD) {
		/* on the renaming thread; the renamed one is its resource (as
		 * names/procnames.c reads it) */
		struct kp_file *f = &q->f[KQ_THREAD_NAMES];
		const struct katra_str *c = &e->payload.u.task_rename.comm;

		kp_i64(f, N_PID, (int64_t)e->process_id);
		kp_i64(f, N_TID, (int64_t)e->resource.id);
		kp_i64(f, N_TS, (int64_t)e->ts_mono_ns);
		kp_str(f, N_NAME, c->ptr, c->len);
		kp_i64(f, N_BY, (int64_t)e->thread_id);
		row(q, KQ_THREAD_NAMES);
	} else if (e->payload.type == KATRA_PAYLOAD_DROP) {
		struct kp_file *f = &q->f[KQ_DROPS];
		uint32_t src = e->payload.u.drop.source;

		kp_cstr(f, D_ORIGIN, "event");
		kp_cstr(f, D_SOURCE, kr_enum(katra_drop_source_name(src), src, sb));
		kp_i64(f, D_COUNT, (int64_t)e->payload.u.drop.count);
		kp_i64(f, D_TS, (int64_t)e->ts_mono_ns);
		kp_i64(f, D_PID, (int64_t)e->process_id);
		kp_i64(f, D_TID, (int64_t)e->thread_id);
		row(q, KQ_DROPS);
	}
}

void kq_rows_record(struct kq_run *q, const struct katra_record *rec)
{
	kr_stats_add(&q->s, rec);
	if (rec->type == KATRA_RECORD_EVENT) {
		kq_cpu_event(q, &rec->u.event);
		event_rows(q, &rec->u.event);
	}
	else if (rec->type == KATRA_RECORD_EPOCH_MARKER)
		frame_epoch(q, &rec->u.epoch);
	kr_views_add(&q->v, rec);
	kq_path_record(q->fpath, rec);
}

static int by_id(const void *a, const void *b)
{
	const struct kr_idmap_slot *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

static void task_rows(struct kq_run *q)
{
	const struct kr_procname *pn;
	struct kr_idmap_slot *v;
	size_t n;

	v = kr_idmap_sorted(&q->s.processes, &n, by_id);
	for (size_t i = 0; i < n; i++) {
		struct kp_file *f = &q->f[KQ_PROCESSES];

		kp_i64(f, P_PID, (int64_t)v[i].k1);
		pn = kr_procnames_get(&q->s.names, v[i].k1);
		if (pn)
			kp_str(f, P_NAME, pn->name, pn->len);
		kp_i64(f, P_THREADS, (int64_t)v[i].v2);
		kp_i64(f, P_EVENTS, (int64_t)v[i].v1);
		row(q, KQ_PROCESSES);
	}
	free(v);
	v = kr_idmap_sorted(&q->s.threads, &n, by_id);
	for (size_t i = 0; i < n; i++) {
		struct kp_file *f = &q->f[KQ_THREADS];

		kp_i64(f, T_PID, (int64_t)v[i].k1);
		kp_i64(f, T_TID, (int64_t)v[i].k2);
		pn = kr_procnames_thread_or_process(&q->s.names, v[i].k2, v[i].k1);
		if (pn)
			kp_str(f, T_NAME, pn->name, pn->len);
		kp_i64(f, T_EVENTS, (int64_t)v[i].v1);
		row(q, KQ_THREADS);
	}
	free(v);
}

/* "KEY=VALUE" lines (the labels) or the notes, one a line. */
static char *joined(const struct katra_header *h, bool labels_only)
{
	struct kr_label l;
	size_t len = 0;
	char *s, *p;

	for (uint64_t i = 0; i < h->notes.len; i++)
		len += h->notes.items[i].len + 1;
	s = p = malloc(len + 1);
	if (!s)
		return NULL;
	for (uint64_t i = 0; i < h->notes.len; i++) {
		const struct katra_str *n = &h->notes.items[i];

		if (labels_only) {
			if (!kr_label_parse(n, &l))
				continue;
			p += sprintf(p, "%s%s=%s", p == s ? "" : "\n", l.key, l.value);
		} else {
			if (p != s)
				*p++ = '\n';
			memcpy(p, n->ptr, n->len);
			p += n->len;
		}
	}
	*p = 0;
	return s;
}

void kq_rows_finish(struct kq_run *q, const struct katra_header *h, const char *error)
{
	struct kp_file *f = &q->f[KQ_RUNS];
	const struct kr_stats *s = &q->s;
	char *labels, *notes, sb[KR_NAME_BUF];
	uint64_t dropped = 0;

	kr_views_finish(&q->v);
	kq_path_finish(q->fpath);
	frame_rows(q);
	task_rows(q);
	for (unsigned i = 0; i <= KATRA_DROP_SOURCE_COUNT; i++) {
		if (!s->summary_drops[i])
			continue;
		kp_cstr(&q->f[KQ_DROPS], D_ORIGIN, "summary");
		kp_cstr(&q->f[KQ_DROPS], D_SOURCE, kr_enum(katra_drop_source_name(i), i, sb));
		kp_i64(&q->f[KQ_DROPS], D_COUNT, (int64_t)s->summary_drops[i]);
		row(q, KQ_DROPS);
	}
	for (unsigned i = 0; i <= KATRA_DROP_SOURCE_COUNT; i++)
		dropped += s->event_drops[i];
	labels = joined(h, true);
	notes = joined(h, false);
	if (!labels || !notes) {
		q->err = q->err ? q->err : -ENOMEM;
		free(labels);
		free(notes);
		return;
	}
	kp_cstr(f, R_TRACE, q->path);
	kp_str(f, R_WORKLOAD, h->workload.ptr, h->workload.len);
	kp_str(f, R_TOOL, h->tool_version.ptr, h->tool_version.len);
	kp_str(f, R_HOST, h->host.hostname.ptr, h->host.hostname.len);
	kp_str(f, R_OS, h->host.os.ptr, h->host.os.len);
	kp_str(f, R_KERNEL, h->host.kernel_release.ptr, h->host.kernel_release.len);
	kp_str(f, R_MACHINE, h->host.machine.ptr, h->host.machine.len);
	kp_i32(f, R_CPUS, (int32_t)h->host.cpu_count);
	kp_i64(f, R_START_WALL, (int64_t)h->start_wall_ns);
	kp_i64(f, R_DURATION, (int64_t)kr_stats_duration(s));
	kp_i64(f, R_RECORDS, (int64_t)s->records);
	kp_i64(f, R_EVENTS, (int64_t)s->events);
	kp_i64(f, R_SPANS, (int64_t)q->spans);
	kp_bool(f, R_COMPLETE, !error);
	kp_cstr(f, R_ERROR, error);
	kp_bool(f, R_SUMMARY, s->has_summary);
	if (s->has_summary)
		kp_i64(f, R_SUMMARY_DROPPED, (int64_t)s->summary_dropped);
	kp_i64(f, R_DROP_EVENTS, (int64_t)s->drop_events);
	kp_i64(f, R_EVENTS_DROPPED, (int64_t)dropped);
	kp_i64(f, R_UNMATCHED, (int64_t)s->unmatched_ends);
	kp_cstr(f, R_LABELS, labels);
	kp_cstr(f, R_NOTES, notes);
	kp_i32(f, R_SCHEMA, KQ_SCHEMA_VERSION);
	{
		const struct katra_capture_options *co = &h->capture_options;
		char pids[256] = "";
		size_t at = 0;

		for (uint64_t i = 0; i < co->target_pids.len && at + 24 < sizeof(pids); i++)
			at += (size_t)snprintf(pids + at, sizeof(pids) - at, "%s%llu", i ? "," : "",
					       (unsigned long long)co->target_pids.items[i]);
		kp_cstr(f, R_TARGETS, pids);
		kp_bool(f, R_FOLLOW, co->follow_children);
		kp_bool(f, R_PATHS, co->record_paths);
		kp_i64(f, R_BUFFER, (int64_t)co->buffer_size_bytes);
		if (co->duration_limit_ns.present)
			kp_i64(f, R_DURATION_LIMIT, (int64_t)co->duration_limit_ns.value);
	}
	row(q, KQ_RUNS);
	free(labels);
	free(notes);
}
