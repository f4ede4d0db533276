// SPDX-License-Identifier: GPL-2.0-only
/* The views' span pairing and per-thread state: which syscall is open on a
 * thread (for charging off-CPU time to it), which path a FileOpen named,
 * and the Begin of every open span.  Dispatches each completed span to the
 * tables (see views.h). */
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "replay/names/sysnames.h"
#include "perframe.h"
#include "views.h"

struct kr_open_span {
	uint64_t begin_ts, begin_seq, pid, res_domain, res_id, prev_state;
	uint32_t kind, scope, nr, pad;
};

struct kr_thread {
	uint64_t pid;
	/* the syscall open on this thread */
	uint64_t sc_span, sc_res_domain, sc_res_id;
	uint32_t sc_kind, sc_nr;
	bool sc_open, sc_in_top, pf_open;
	uint64_t pf_span;
	/* off-CPU time while blocked in that syscall, by state */
	uint64_t blk_count[KR_NSTATES], blk_total[KR_NSTATES], blk_max[KR_NSTATES];
	/* the path of the FileOpen in flight */
	char *open_path;
	uint64_t open_len, open_span;
};

static const char states[] = "RSDTtXZPI";

static unsigned state_index(char s)
{
	const char *p = strchr(states, s);

	return p && s ? (unsigned)(p - states) : 0;
}

void kr_views_init(struct kr_views *v, const struct kr_procnames *names, unsigned top_n)
{
	memset(v, 0, sizeof(*v));
	v->names = names;
	kr_xmap_init(&v->open, 16, sizeof(struct kr_open_span), KR_MAX_OPEN_SPANS);
	kr_xmap_init(&v->threads, 8, sizeof(struct kr_thread), KR_MAX_THREADS);
	kr_xmap_init(&v->sys, 8, sizeof(struct kr_sysagg), KR_MAX_SYSCALL_ROWS);
	kr_xmap_init(&v->sys_by_pid, 16, sizeof(struct kr_sysagg), KR_MAX_SYSCALL_ROWS);
	kr_xmap_init(&v->files, sizeof(struct kr_file_key), sizeof(struct kr_fileagg),
		     KR_MAX_FILES);
	kr_xmap_init(&v->offcpu, sizeof(struct kr_off_key), sizeof(struct kr_offagg),
		     KR_MAX_OFFCPU_ROWS);
	kr_xmap_init(&v->calls, 16, sizeof(struct kr_callagg), KR_MAX_CALL_ROWS);
	kr_xmap_init(&v->nt_names, 8, sizeof(struct kr_callname), KR_MAX_CALL_NAMES);
	v->top_cap = top_n > KR_MAX_TOP ? KR_MAX_TOP : top_n;
	if (v->top_cap) {
		v->top = calloc(v->top_cap, sizeof(*v->top));
		if (!v->top)
			v->oom = true;
	}
}

void kr_views_per_frame(struct kr_views *v, bool calls, bool syscalls)
{
	v->pf = kr_pf_new(calls, syscalls);
	if (!v->pf)
		v->oom = true;
}

void kr_views_free(struct kr_views *v)
{
	struct kr_fileagg *fa;
	struct kr_thread *t;
	size_t it = 0;

	kr_gpu_free(v->gpu);
	v->gpu = NULL;
	while ((fa = kr_xmap_next(&v->files, &it)))
		free(fa->path);
	it = 0;
	while ((t = kr_xmap_next(&v->threads, &it)))
		free(t->open_path);
	kr_xmap_free(&v->open);
	kr_xmap_free(&v->threads);
	kr_xmap_free(&v->sys);
	kr_xmap_free(&v->sys_by_pid);
	kr_xmap_free(&v->files);
	kr_xmap_free(&v->offcpu);
	kr_xmap_free(&v->calls);
	kr_xmap_free(&v->nt_names);
	kr_pf_free(v->pf);
	free(v->top);
}

static bool syscall_kind(uint32_t kind, uint32_t scope)
{
	return kind <= KATRA_KIND_CLONE && scope == KATRA_SCOPE_LINUX;
}

static struct kr_thread *thread(struct kr_views *v, uint64_t tid, uint64_t pid)
{
	bool created;
	struct kr_thread *t = kr_xmap_get(&v->threads, &tid, &created);

	if (!t) {
		v->thread_overflow++;
		return NULL;
	}
	t->pid = pid;
	return t;
}

/* Charges the off-CPU time a thread spent blocked in its open syscall. */
static void flush_blocked(struct kr_views *v, uint64_t tid, struct kr_thread *t,
			  uint64_t syskey)
{
	for (unsigned i = 0; i < KR_NSTATES; i++) {
		if (!t->blk_count[i])
			continue;
		kr_off_add(v, tid, t->pid, KR_OFF_SYSCALL, states[i], syskey, t->sc_res_domain,
			   t->sc_res_id, t->blk_count[i], t->blk_total[i], t->blk_max[i]);
		t->blk_count[i] = t->blk_total[i] = t->blk_max[i] = 0;
	}
	if (t->sc_in_top)
		kr_top_fix(v, tid, t->sc_span, syskey);
	t->sc_in_top = false;
	t->sc_open = false;
}

static uint64_t kind_key(uint32_t kind)
{
	return KR_SYSKEY_KIND | kind;
}

static void begin(struct kr_views *v, const struct katra_event *e)
{
	uint64_t key[2] = { e->thread_id, e->span_id.value };
	struct kr_open_span *o;
	struct kr_thread *t;
	bool created;

	o = kr_xmap_get(&v->open, key, &created);
	if (!o) {
		v->open_overflow++;
		return;
	}
	memset(o, 0, sizeof(*o));
	o->begin_ts = e->ts_mono_ns;
	o->begin_seq = e->seq;
	o->pid = e->process_id;
	o->kind = e->kind;
	o->scope = e->scope;
	o->res_domain = e->resource.domain;
	o->res_id = e->resource.id;
	o->nr = KR_NR_NONE;
	if (e->payload.type == KATRA_PAYLOAD_SYSCALL)
		o->nr = e->payload.u.syscall.nr;
	else if (kr_call_kind(e->kind))
		o->nr = kr_call_number(v, e);
	if (e->payload.type == KATRA_PAYLOAD_NT_SYSCALL && e->payload.u.nt_syscall.name.present)
		kr_call_named(v, e->payload.u.nt_syscall.number,
			      &e->payload.u.nt_syscall.name.value);
	else if (e->payload.type == KATRA_PAYLOAD_SWITCH)
		o->prev_state = e->payload.u.sched_switch.prev_state;
	/* a futex syscall's resource is its address */
	if (e->payload.type == KATRA_PAYLOAD_FUTEX && o->res_domain == KATRA_RES_NONE) {
		o->res_domain = KATRA_RES_FUTEX;
		o->res_id = e->payload.u.futex.uaddr;
	}
	if (syscall_kind(e->kind, e->scope)) {
		t = thread(v, e->thread_id, e->process_id);
		if (!t)
			return;
		if (t->sc_open) /* its End never came */
			flush_blocked(v, e->thread_id, t,
				      t->sc_nr != KR_NR_NONE ? t->sc_nr : kind_key(t->sc_kind));
		t->sc_open = true;
		t->sc_span = e->span_id.value;
		t->sc_kind = e->kind;
		t->sc_nr = o->nr;
		t->sc_res_domain = o->res_domain;
		t->sc_res_id = o->res_id;
		if (e->payload.type == KATRA_PAYLOAD_FILE_OPEN &&
		    e->payload.u.file_open.path.present) {
			const struct katra_str *p = &e->payload.u.file_open.path.value;

			free(t->open_path);
			t->open_path = NULL;
			if (v->path_bytes + p->len + 1 <= KR_PATH_BUDGET &&
			    (t->open_path = malloc(p->len + 1))) {
				memcpy(t->open_path, p->ptr, p->len);
				t->open_path[p->len] = 0;
				t->open_len = p->len;
				t->open_span = e->span_id.value;
			} else {
				v->paths_dropped++;
			}
		}
	} else if (e->kind == KATRA_KIND_PAGE_FAULT) {
		t = thread(v, e->thread_id, e->process_id);
		if (t) {
			t->pf_open = true;
			t->pf_span = e->span_id.value;
		}
	}
}

/* A syscall's key at its End: the End's number, else the Begin's, else
 * its kind. */
static uint64_t end_syskey(const struct katra_event *e, const struct kr_open_span *o)
{
	if (e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN)
		return e->payload.u.syscall_return.nr;
	return o->nr != KR_NR_NONE ? o->nr : kind_key(o->kind);
}

static void syscall_end(struct kr_views *v, const struct katra_event *e,
			const struct kr_open_span *o, uint64_t dur)
{
	const struct katra_payload *p = &e->payload;
	struct katra_resource res = e->resource;
	bool has_ret = p->type == KATRA_PAYLOAD_SYSCALL_RETURN;
	int64_t ret = has_ret ? p->u.syscall_return.ret : 0;
	uint64_t syskey;
	struct kr_thread *t;
	struct kr_top_entry te;

	syskey = end_syskey(e, o);
	kr_sys_add(v, o->pid, syskey, dur, has_ret && ret < 0 && ret > -4096);
	if (v->pf)
		kr_pf_add(v->pf, o->pid, o->begin_seq, KR_PF_SYSCALL, syskey, dur);
	if (res.domain == KATRA_RES_NONE)
		res = (struct katra_resource){ (uint32_t)o->res_domain, o->res_id };
	if (has_ret && (o->kind == KATRA_KIND_FILE_READ || o->kind == KATRA_KIND_FILE_WRITE))
		kr_file_io(v, &res, o->kind, dur, ret);
	t = kr_xmap_find(&v->threads, &e->thread_id);
	if (t && o->kind == KATRA_KIND_FILE_OPEN && has_ret && ret >= 0 && t->open_path &&
	    t->open_span == e->span_id.value)
		kr_file_opened(v, &res, t->open_path, t->open_len);
	else if (o->kind == KATRA_KIND_FILE_OPEN && has_ret && ret >= 0)
		kr_file_opened(v, &res, NULL, 0);
	if (t && t->open_path && t->open_span == e->span_id.value) {
		free(t->open_path);
		t->open_path = NULL;
	}
	if (t && t->sc_open && t->sc_span == e->span_id.value) {
		if (t->sc_res_domain == KATRA_RES_NONE) {
			t->sc_res_domain = res.domain;
			t->sc_res_id = res.id;
		}
		flush_blocked(v, e->thread_id, t, syskey);
	}
	if (kr_top_wants(v, dur)) {
		memset(&te, 0, sizeof(te));
		te.syskey = KR_SYSKEY_NONE;
		te.dur_ns = dur;
		te.begin_ts = o->begin_ts;
		te.tid = e->thread_id;
		te.pid = o->pid;
		te.kind = o->kind;
		te.syskey = syskey;
		te.res_domain = res.domain;
		te.res_id = res.id;
		kr_top_push(v, &te);
	}
}

static void offcpu_end(struct kr_views *v, const struct katra_event *e,
		       const struct kr_open_span *o, uint64_t dur)
{
	char st = kr_task_state(o->prev_state);
	struct kr_thread *t = kr_xmap_find(&v->threads, &e->thread_id);
	struct kr_top_entry te;
	unsigned i = state_index(st);

	memset(&te, 0, sizeof(te));
	te.syskey = KR_SYSKEY_NONE;
	te.dur_ns = dur;
	te.begin_ts = o->begin_ts;
	te.tid = e->thread_id;
	te.pid = o->pid;
	te.kind = o->kind;
	te.state = st;
	if (st == 'R') {
		kr_off_add(v, e->thread_id, o->pid, KR_OFF_PREEMPTED, st, 0, 0, 0, 1, dur, dur);
	} else if (t && t->sc_open) {
		t->blk_count[i]++;
		t->blk_total[i] += dur;
		if (dur > t->blk_max[i])
			t->blk_max[i] = dur;
		te.syskey = t->sc_nr != KR_NR_NONE ? t->sc_nr : kind_key(t->sc_kind);
		te.res_domain = t->sc_res_domain;
		te.res_id = t->sc_res_id;
		te.sc_span = t->sc_span;
		te.in_syscall = true;
		if (kr_top_wants(v, dur))
			t->sc_in_top = true;
	} else {
		kr_off_add(v, e->thread_id, o->pid, t && t->pf_open ? KR_OFF_FAULT : KR_OFF_OTHER,
			   st, 0, 0, 0, 1, dur, dur);
	}
	if (kr_top_wants(v, dur))
		kr_top_push(v, &te);
}

/* Tells v->on_span about the span o ended by e. */
static void span_done(struct kr_views *v, const struct katra_event *e,
		      const struct kr_open_span *o, uint64_t dur)
{
	struct kr_span_done d;
	struct kr_thread *t;

	memset(&d, 0, sizeof(d));
	d.end = e;
	d.begin_ts = o->begin_ts;
	d.begin_seq = o->begin_seq;
	d.pid = o->pid;
	d.dur = dur;
	d.kind = o->kind;
	d.scope = o->scope;
	d.res_domain = e->resource.domain != KATRA_RES_NONE ? e->resource.domain : o->res_domain;
	d.res_id = e->resource.domain != KATRA_RES_NONE ? e->resource.id : o->res_id;
	d.syskey = syscall_kind(o->kind, o->scope) ? end_syskey(e, o) : KR_SYSKEY_NONE;
	if (kr_call_kind(o->kind)) {
		d.call = (uint64_t)o->kind << 32 | o->nr;
		d.call_failed = kr_call_failed(e);
	}
	if (o->kind == KATRA_KIND_OFF_CPU && e->confidence != KATRA_CONFIDENCE_INFERRED) {
		/* the reason offcpu_end charges it to */
		d.offcpu = true;
		d.off_state = kr_task_state(o->prev_state);
		t = kr_xmap_find(&v->threads, &e->thread_id);
		if (d.off_state == 'R') {
			d.off_reason = KR_OFF_PREEMPTED;
		} else if (t && t->sc_open) {
			d.off_reason = KR_OFF_SYSCALL;
			d.off_syscall_span = t->sc_span;
		} else {
			d.off_reason = t && t->pf_open ? KR_OFF_FAULT : KR_OFF_OTHER;
		}
	}
	v->on_span(v->span_ctx, &d);
}

static void end(struct kr_views *v, const struct katra_event *e)
{
	uint64_t key[2] = { e->thread_id, e->span_id.value };
	struct kr_open_span *op = kr_xmap_find(&v->open, key), o;
	struct kr_top_entry te;
	uint64_t dur;

	if (!op) {
		v->unmatched_ends++;
		return;
	}
	o = *op;
	kr_xmap_remove(&v->open, op);
	dur = e->ts_mono_ns >= o.begin_ts ? e->ts_mono_ns - o.begin_ts : 0;
	if (v->on_span)
		span_done(v, e, &o, dur);
	if (syscall_kind(o.kind, o.scope)) {
		syscall_end(v, e, &o, dur);
		return;
	}
	if (kr_call_kind(o.kind)) {
		kr_call_add(v, o.pid, o.kind, o.nr, dur, kr_call_failed(e));
		if (v->pf)
			kr_pf_add(v->pf, o.pid, o.begin_seq, KR_PF_CALL,
				  (uint64_t)o.kind << 32 | o.nr, dur);
	}
	if (o.kind == KATRA_KIND_OFF_CPU) {
		if (e->confidence == KATRA_CONFIDENCE_INFERRED)
			v->offcpu_inferred++;
		else
			offcpu_end(v, e, &o, dur);
		return;
	}
	if (o.kind == KATRA_KIND_PAGE_FAULT) {
		struct kr_thread *t = kr_xmap_find(&v->threads, &e->thread_id);

		if (t && t->pf_open && t->pf_span == e->span_id.value)
			t->pf_open = false;
	}
	if (kr_top_wants(v, dur)) {
		memset(&te, 0, sizeof(te));
		te.syskey = KR_SYSKEY_NONE;
		te.dur_ns = dur;
		te.begin_ts = o.begin_ts;
		te.tid = e->thread_id;
		te.pid = o.pid;
		te.kind = o.kind;
		te.res_domain = o.res_domain;
		te.res_id = o.res_id;
		kr_top_push(v, &te);
	}
}

void kr_views_add(struct kr_views *v, const struct katra_record *rec)
{
	const struct katra_event *e = &rec->u.event;

	if (rec->type == KATRA_RECORD_EPOCH_MARKER && v->pf)
		kr_pf_epoch(v->pf, &rec->u.epoch);
	if (rec->type == KATRA_RECORD_COUNTER && v->gpu)
		kr_gpu_counter(v->gpu, &rec->u.counter, true);
	if (rec->type != KATRA_RECORD_EVENT)
		return;
	if (v->gpu && e->scope == KATRA_SCOPE_GPU)
		kr_gpu_add(v->gpu, e);
	if (v->pf && e->scope == KATRA_SCOPE_GPU)
		kr_pf_gpu(v->pf, e);
	if (!e->span_id.present) {
		if (e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN)
			v->untimed_syscalls++; /* in flight at capture start */
		return;
	}
	if (e->phase == KATRA_PHASE_BEGIN)
		begin(v, e);
	else if (e->phase == KATRA_PHASE_END)
		end(v, e);
}

void kr_views_finish(struct kr_views *v)
{
	struct kr_thread *t;
	size_t it = 0;

	if (v->pf) {
		kr_pf_finish(v->pf);
		if (v->pf->oom)
			v->oom = true;
	}
	while ((t = kr_xmap_next(&v->threads, &it))) {
		uint64_t tid = *(const uint64_t *)kr_xmap_key(&v->threads, t);

		if (t->sc_open)
			flush_blocked(v, tid, t,
				      t->sc_nr != KR_NR_NONE ? t->sc_nr : kind_key(t->sc_kind));
	}
}
