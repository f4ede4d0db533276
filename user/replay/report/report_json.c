// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay report --json`: one JSON object,
 *   {"trace":..., "capture": WINDOW, "epochs": [WINDOW, ...], "limits": {...}}
 * Times are integer nanoseconds (capture-relative, as ts_mono_ns), names
 * are the spec's; each reason and hop also carries a "text" for people.
 * A thread's alive_ns = on_cpu_ns + off_cpu_ns + unknown_ns; a window's
 * on_cpu_ns and unknown_ns add up all its threads' (at most duration_ns x
 * "cpus", the head's); a resource is {"domain","id" (decimal string),
 * "name" (as every command spells it),"pid" (futexes)}. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/names/procnames.h"
#include "replay/names/resnames.h"
#include "replay/util/out.h"
#include "report_render.h"

static void jstr(FILE *f, const char *s)
{
	katra_json_string(f, s, katra_cstr(s).len);
}

static void jkey(FILE *f, const char *k, uint64_t v, bool comma)
{
	fprintf(f, "%s\"%s\":%" PRIu64, comma ? "," : "", k, v);
}

/* A description built by one of the kr_*_text functions, as a JSON string. */
#define JTEXT(f, call)                                                   \
	do {                                                             \
		char *buf_ = NULL;                                       \
		size_t len_ = 0;                                         \
		FILE *m_ = open_memstream(&buf_, &len_);                 \
		if (m_) {                                                \
			FILE *f_ = m_;                                   \
			(void)f_;                                        \
			call;                                            \
			fclose(m_);                                      \
			katra_json_string(f, buf_, len_);                \
		} else {                                                 \
			fputs("null", f);                                \
		}                                                        \
		free(buf_);                                              \
	} while (0)

static void jresource(FILE *f, unsigned dom, uint64_t id, uint64_t pid)
{
	char b[KR_NAME_BUF], name[64];

	if (dom == KATRA_RES_NONE) {
		fputs("null", f);
		return;
	}
	/* the id as a decimal string (jq keeps it exact), the name as every
	 * command spells it */
	fputs("{\"domain\":", f);
	jstr(f, kr_enum(katra_resource_domain_name(dom), dom, b));
	fprintf(f, ",\"id\":\"%" PRIu64 "\",\"name\":", id);
	jstr(f, kr_res_label(dom, id, name, sizeof(name)));
	if (dom == KATRA_RES_FUTEX)
		jkey(f, "pid", pid, true);
	fputc('}', f);
}

static void jwaker(FILE *f, const struct kr_report *rp, const char *key, uint64_t waker)
{
	char comm[16];

	fprintf(f, ",\"%s\":", key);
	if (kr_waker_is_proc(waker)) {
		uint64_t pid = waker & ~KR_WAKER_PROC;

		fprintf(f, "{\"pid\":%" PRIu64 ",\"comm\":", pid);
		jstr(f, kr_report_outside_comm(rp, pid, comm));
		fputc('}', f);
	} else if (waker == KR_WAKER_IRQ)
		fputs("\"interrupt\"", f);
	else if (waker == KR_WAKER_OUTSIDE)
		fputs("\"outside\"", f);
	else if (waker == KR_WAKER_UNSEEN)
		fputs("\"unseen\"", f);
	else if (waker == KR_WAKER_PENDING)
		fputs("\"still-off-cpu\"", f);
	else if (waker == KR_WAKER_NONE)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu64, waker);
}

static void jkind(FILE *f, unsigned kind)
{
	fputs(",\"kind\":", f);
	if (kind == KR_KIND_NONE || !katra_kind_name(kind))
		fputs("null", f);
	else
		jstr(f, katra_kind_name(kind));
}

static void jthread(FILE *f, const struct kr_report *rp, const struct kr_window *w,
		    const struct kr_tsum *t)
{
	const struct kr_procname *name = kr_procnames_get(kr_report_names(rp), t->pid);

	fputc('{', f);
	jkey(f, "tid", t->tid, false);
	jkey(f, "pid", t->pid, true);
	fputs(",\"process_name\":", f); /* as dump names it */
	if (name)
		katra_json_string(f, name->name, name->len);
	else
		fputs("null", f);
	const struct kr_procname *tname = kr_procnames_thread(kr_report_names(rp), t->tid);
	fputs(",\"thread_name\":", f);
	if (tname)
		katra_json_string(f, tname->name, tname->len);
	else
		fputs("null", f);
	jkey(f, "alive_ns", t->alive_ns, true);
	jkey(f, "on_cpu_ns", t->on_cpu_ns, true);
	jkey(f, "off_cpu_ns", t->off_cpu_ns, true);
	jkey(f, "unknown_ns", t->unknown_ns, true);
	jkey(f, "blocked_ns", t->off_cpu_ns - t->class_ns[KR_OFF_PREEMPTED], true);
	jkey(f, "preempted_ns", t->class_ns[KR_OFF_PREEMPTED], true);
	jkey(f, "runq_ns", t->runq_ns, true);
	fputs(",\"off_cpu_by_class_ns\":{", f);
	for (unsigned c = 0; c < KR_OFF_CLASS_COUNT; c++)
		fprintf(f, "%s\"%s\":%" PRIu64, c ? "," : "", kr_off_class_name(c), t->class_ns[c]);
	fputc('}', f);
	jkey(f, "page_faults", t->faults, true);
	jkey(f, "page_fault_ns", t->fault_ns, true);
	fputs(",\"io_uring\":{", f);
	jkey(f, "requests", t->uring_requests, false);
	jkey(f, "total_latency_ns", t->uring_total_ns, true);
	jkey(f, "max_latency_ns", t->uring_max_ns, true);
	fputs("},\"off_cpu_reasons\":[", f);
	for (uint32_t k = 0; k < t->reason_n; k++) {
		const struct kr_reason *r = &w->reasons[t->reason_first + k];

		fputs(k ? ",{\"reason\":" : "{\"reason\":", f);
		jstr(f, kr_off_class_name(r->cls));
		jkind(f, r->kind);
		char nb[160];
		const char *nt = kr_report_ucall(rp, r->nt, nb, sizeof(nb));
		fputs(",\"nt_call\":", f);
		if (nt)
			jstr(f, nt);
		else
			fputs("null", f);
		fputs(",\"resource\":", f);
		jresource(f, r->res_domain, r->res_id, r->res_pid);
		jwaker(f, rp, "woken_by", r->waker);
		jkey(f, "ns", r->ns, true);
		jkey(f, "count", r->count, true);
		jkey(f, "runq_ns", r->runq_ns, true);
		jkey(f, "max_ns", r->max_ns, true);
		fputs(",\"text\":", f);
		JTEXT(f, kr_reason_text(f_, rp, r));
		fputc('}', f);
	}
	fputs("]}", f);
}

static void jresources(FILE *f, const struct kr_report *rp, const char *key,
		       const struct kr_resource *v, uint32_t n, uint32_t total)
{
	fprintf(f, ",\"%s\":[", key);
	for (uint32_t i = 0; i < n; i++) {
		const char *path = v[i].domain == KATRA_RES_FILE ?
			kr_report_file_path(rp, v[i].id) : NULL;

		fputs(i ? ",{\"resource\":" : "{\"resource\":", f);
		jresource(f, v[i].domain, v[i].id, v[i].pid);
		if (path) {
			fputs(",\"path\":", f);
			jstr(f, path);
		}
		jkey(f, "wait_ns", v[i].wait_ns, true);
		jkey(f, "waits", v[i].waits, true);
		jkey(f, "max_ns", v[i].max_ns, true);
		fputs(",\"waiters\":[", f);
		for (int k = 0; k < KR_RES_WAITERS && v[i].waiter_ns[k]; k++) {
			fputs(k ? ",{" : "{", f);
			jkey(f, "tid", v[i].waiter_tid[k], false);
			jkey(f, "ns", v[i].waiter_ns[k], true);
			fputc('}', f);
		}
		fputc(']', f);
		jkey(f, "other_waiters_ns", v[i].other_waiters_ns, true);
		fputc('}', f);
	}
	fprintf(f, "],\"%s_total\":%u", key, total);
}

/* ,"stack": all its frames (as many as fit in 16 KiB of names), innermost
 * first, down to the program's entry where the unwinding got there: a slow
 * frame's own functions often lie below more than the few frames of libc
 * and the driver the text shows; a running hop's "stack_samples" */
void kr_json_hop_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h)
{
	char buf[16384], *at = buf;
	unsigned samples, n;

	if (kr_defer_stack(f, rp, h, KR_DEFER_JSON))
		return;
	n = kr_hop_stack(rp, h, UINT_MAX, "\x1f", buf, sizeof(buf), &samples);
	if (!n)
		return;
	fputs(",\"stack\":[", f);
	for (unsigned i = 0; i < n; i++) {
		size_t len = strcspn(at, "\x1f");

		if (i)
			fputc(',', f);
		katra_json_string(f, at, len);
		at += len + (at[len] != 0);
	}
	fputc(']', f);
	if (h->type == KR_HOP_RUN)
		jkey(f, "stack_samples", samples, true);
}

static void jhop(FILE *f, const struct kr_report *rp, const struct kr_hop *h, bool comma)
{
	fputs(comma ? ",{\"type\":" : "{\"type\":", f);
	jstr(f, kr_hop_type_name(h->type));
	jkey(f, "tid", h->tid, true);
	jkey(f, "pid", h->pid, true);
	jkey(f, "from_ns", h->from_ns, true);
	jkey(f, "to_ns", h->to_ns, true);
	jkey(f, "ns", h->to_ns - h->from_ns, true);
	switch (h->type) {
	case KR_HOP_WAKE:
		jkey(f, "woken_by", h->other_tid, true);
		jkey(f, "wakeup_seq", h->seq, true);
		break;
	case KR_HOP_BLOCKED:
		jkind(f, h->kind);
		fputs(",\"resource\":", f);
		jresource(f, h->res_domain, h->res_id, h->res_pid);
		jwaker(f, rp, "woken_by", h->other_tid);
		jkey(f, "switch_in_seq", h->seq, true);
		break;
	case KR_HOP_URING:
		jkey(f, "completed_on", h->other_tid, true);
		jkey(f, "request_id", h->res_id, true);
		jkey(f, "submit_seq", h->seq, true);
		break;
	case KR_HOP_START:
		jkey(f, "parent", h->other_tid, true);
		jkey(f, "fork_seq", h->seq, true);
		break;
	case KR_HOP_MESSAGE:
		jkey(f, "read_by", h->other_tid, true);
		jkey(f, "write_seq", h->seq, true);
		break;
	}
	char buf[160];
	const char *in = kr_report_ucall(rp, h->ucall, buf, sizeof(buf));
	if (in) {
		fputs(",\"in\":", f);
		jstr(f, in);
	}
	kr_json_hop_stack(f, rp, h);
	fputs(",\"text\":", f);
	JTEXT(f, kr_hop_text(f_, rp, h));
	fputc('}', f);
}

void kr_json_path(FILE *f, const struct kr_report *rp, const struct kr_path *p)
{
	fputs(",\"critical_path\":", f);
	if (!p || !p->present) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	jkey(f, "end_seq", p->end_seq, false);
	jkey(f, "end_tid", p->end_tid, true);
	jkey(f, "start_ns", p->start_ns, true);
	jkey(f, "end_ns", p->end_ns, true);
	jkey(f, "length_ns", p->end_ns - p->start_ns, true);
	fprintf(f, ",\"truncated\":%s", p->truncated ? "true" : "false");
	jkey(f, "hops_total", p->hops_total, true);
	fputs(",\"by_type_ns\":{", f);
	for (unsigned k = 0; k < KR_HOP_TYPE_COUNT; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", kr_hop_type_name(k), p->by_type_ns[k]);
	fputs("},\"by_thread\":[", f);
	for (uint32_t i = 0; i < p->nthreads; i++) {
		fputs(i ? ",{" : "{", f);
		jkey(f, "tid", p->thread_tid[i], false);
		jkey(f, "ns", p->thread_ns[i], true);
		fputc('}', f);
	}
	fputc(']', f);
	jkey(f, "other_threads_ns", p->other_threads_ns, true);
	fprintf(f, ",\"hops_listed_from\":%" PRIu64, p->hops_total - p->nhops);
	fputs(",\"hops\":[", f);
	for (uint32_t i = 0; i < p->nhops; i++)
		jhop(f, rp, &p->hops[i], i > 0);
	fputs("]}", f);
}

void kr_json_window(FILE *f, const struct kr_report *rp, const struct kr_window *w)
{
	char b[KR_NAME_BUF];

	fputs("{\"window\":", f);
	jstr(f, w->is_epoch ? "epoch" : "capture");
	if (w->is_epoch) {
		jkey(f, "epoch", w->epoch, true);
		fputs(",\"name\":", f);
		jstr(f, w->name);
		fputs(",\"epoch_kind\":", f);
		jstr(f, kr_enum(katra_epoch_kind_name(w->epoch_kind), w->epoch_kind, b));
		jkey(f, "marker_seq", w->marker_seq, true);
	}
	jkey(f, "start_ns", w->start_ns, true);
	jkey(f, "end_ns", w->end_ns, true);
	jkey(f, "duration_ns", w->end_ns - w->start_ns, true);
	jkey(f, "events", w->events, true);
	jkey(f, "on_cpu_ns", w->on_cpu_total_ns, true);
	jkey(f, "unknown_ns", w->unknown_total_ns, true);
	fputs(",\"threads\":[", f);
	for (uint32_t i = 0; i < w->nthreads; i++) {
		if (i)
			fputc(',', f);
		jthread(f, rp, w, &w->threads[i]);
	}
	fprintf(f, "],\"threads_total\":%u", w->threads_total);
	jkey(f, "reasons_dropped_ns", w->reasons_dropped_ns, true);
	jresources(f, rp, "top_files", w->files, w->nfiles, w->files_total);
	jresources(f, rp, "top_futexes", w->futexes, w->nfutexes, w->futexes_total);
	kr_json_path(f, rp, w->path);
	fputc('}', f);
}

void kr_json_head(FILE *f, const struct kr_report *rp, const struct kr_render *r)
{
	struct kr_report_facts x;
	const struct katra_header *h = r->h;

	kr_report_get_facts(rp, &x);
	fputs("{\"report\":\"katra-replay report\",\"trace\":", f);
	jstr(f, r->path);
	fprintf(f, ",\"compressed\":%s,\"tool_version\":", r->compressed ? "true" : "false");
	katra_json_string(f, h->tool_version.ptr, h->tool_version.len);
	fputs(",\"workload\":", f);
	katra_json_string(f, h->workload.ptr, h->workload.len);
	fputs(",\"host\":{\"hostname\":", f);
	katra_json_string(f, h->host.hostname.ptr, h->host.hostname.len);
	fprintf(f, ",\"cpu_count\":%u}", h->host.cpu_count);
	jkey(f, "start_ns", x.start_ns, true);
	jkey(f, "end_ns", x.end_ns, true);
	jkey(f, "duration_ns", x.end_ns - x.start_ns, true);
	jkey(f, "cpus", x.cpus, true); /* the header's, else the most seen on the CPU at once */
	jkey(f, "events", x.events, true);
	jkey(f, "threads", x.threads, true);
	jkey(f, "processes", x.processes, true);
	jkey(f, "epoch_count", x.epochs, true);
	jkey(f, "epochs_not_itemized", x.epochs_not_itemized, true);
	jkey(f, "epochs_empty", x.epochs_empty, true);
	fprintf(f, ",\"complete\":%s,\"error\":", r->error ? "false" : "true");
	if (r->error)
		jstr(f, r->error);
	else
		fputs("null", f);
	fputs(",\"limits\":{", f);
	jkey(f, "index_cap", x.index_cap, false);
	jkey(f, "index_nodes", x.index_nodes, true);
	jkey(f, "index_evicted", x.index_evicted, true);
	jkey(f, "threads_dropped_events", x.threads_dropped, true);
	jkey(f, "rows_dropped", x.rows_dropped, true);
	jkey(f, "uring_unmatched", x.uring_unmatched, true);
	fputc('}', f);
}
