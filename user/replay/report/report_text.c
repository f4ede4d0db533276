// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay report`, plain text: one block per window (the whole
 * capture first, then each epoch when there is more than one). */
#include <inttypes.h>
#include <stdio.h>

#include "katra/replay.h"
#include "katra/plural.h"
#include "replay/names/stackidx.h"
#include "replay/util/out.h"
#include "report_render.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void kr_text_head(FILE *f, const struct kr_report *rp, const struct kr_render *r)
{
	struct kr_report_facts x;

	kr_report_get_facts(rp, &x);
	fprintf(f, "katra-replay report: %s%s\n", r->path, r->compressed ? " (gzip)" : "");
	fputs("tool ", f);
	katra_json_string(f, r->h->tool_version.ptr, r->h->tool_version.len);
	fputs("  workload ", f);
	katra_json_string(f, r->h->workload.ptr, r->h->workload.len);
	fprintf(f, "  host ");
	katra_json_string(f, r->h->host.hostname.ptr, r->h->host.hostname.len);
	fprintf(f, " (%u CPUs)\n", r->h->host.cpu_count);
	fprintf(f, "capture %.3f ms, %" PRIu64 " %s, %" PRIu64 " %s in %" PRIu64 " %s, %" PRIu64
		" %s", ms(x.end_ns - x.start_ns), x.events, katra_plural(x.events, "event", "events"),
		x.threads, katra_plural(x.threads, "thread", "threads"), x.processes,
		katra_plural(x.processes, "process", "processes"), x.epochs,
		katra_plural(x.epochs, "epoch", "epochs"));
	if (x.epochs_empty)
		fprintf(f, " (%" PRIu64 " empty, not listed: CaptureEnd's)", x.epochs_empty);
	fputc('\n', f);
	if (r->error)
		fprintf(f, "NOTE: the trace stops early (%s): this is the report of what precedes\n",
			r->error);
	if (x.epochs_not_itemized)
		fprintf(f, "NOTE: %" PRIu64 " later epochs are not itemized (--max-epochs); the whole "
			"capture includes them\n", x.epochs_not_itemized);
	if (x.index_evicted)
		fprintf(f, "NOTE: causal index cap %" PRIu64 " nodes reached (%" PRIu64
			" older nodes dropped): paths may be cut (--index-cap)\n", x.index_cap,
			x.index_evicted);
	if (x.threads_dropped || x.rows_dropped || x.uring_unmatched)
		fprintf(f, "NOTE: %" PRIu64 " events of threads beyond %u, %" PRIu64
			" reason rows beyond the table, %" PRIu64 " io_uring completions without "
			"their submit\n", x.threads_dropped, KR_REPORT_MAX_THREADS, x.rows_dropped,
			x.uring_unmatched);
}

static void threads_table(FILE *f, const struct kr_report *rp, const struct kr_window *w,
			  unsigned top)
{
	fprintf(f, "\n  %-28s %10s %10s %10s %10s %10s %10s %9s %7s %9s %8s %8s %9s\n",
		"thread (times in ms)", "alive", "on-CPU", "off-CPU", "unknown", "blocked", "preempted",
		"runq", "faults", "fault-ms", "io_uring", "avg-us", "max-us");
	for (uint32_t i = 0; i < w->nthreads && i < top; i++) {
		const struct kr_tsum *t = &w->threads[i];
		char name[64];
		FILE *m = fmemopen(name, sizeof(name), "w");

		if (m) {
			kr_thread_text(m, rp, t->tid, t->pid);
			fputc(0, m);
			fclose(m);
		}
		name[sizeof(name) - 1] = 0;
		uint64_t blocked = t->off_cpu_ns - t->class_ns[KR_OFF_PREEMPTED];
		fprintf(f, "  %-28s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %9.3f %7" PRIu64
			" %9.3f %8" PRIu64 " %8.1f %9.1f\n", name, ms(t->alive_ns), ms(t->on_cpu_ns),
			ms(t->off_cpu_ns), ms(t->unknown_ns), ms(blocked), ms(t->class_ns[KR_OFF_PREEMPTED]),
			ms(t->runq_ns), t->faults, ms(t->fault_ns), t->uring_requests,
			t->uring_requests ? (double)t->uring_total_ns / t->uring_requests / 1e3 : 0.0,
			(double)t->uring_max_ns / 1e3);
	}
	if (w->threads_total > top)
		fprintf(f, "  ... %u more threads (--top N)\n", w->threads_total - top);
}

static void reasons_table(FILE *f, const struct kr_report *rp, const struct kr_window *w,
			  unsigned top)
{
	bool any = false;

	for (uint32_t i = 0; i < w->nthreads && i < top; i++) {
		const struct kr_tsum *t = &w->threads[i];

		if (!t->reason_n)
			continue;
		if (!any)
			fputs("\noff-CPU by reason (ms; the biggest per thread)\n", f);
		any = true;
		fputs("  ", f);
		kr_thread_text(f, rp, t->tid, t->pid);
		fputc('\n', f);
		for (uint32_t k = 0; k < t->reason_n && k < 5; k++) {
			const struct kr_reason *r = &w->reasons[t->reason_first + k];

			fprintf(f, "    %10.3f %6" PRIu64 "x  ", ms(r->ns), r->count);
			kr_reason_text(f, rp, r);
			fputc('\n', f);
		}
	}
	if (w->reasons_dropped_ns)
		fprintf(f, "  %.3f ms of off-CPU time had no room for its reason row\n",
			ms(w->reasons_dropped_ns));
}

static void resource_table(FILE *f, const struct kr_report *rp, const char *title,
			   const struct kr_resource *v, uint32_t n, uint32_t total, unsigned top)
{
	if (!n)
		return;
	fprintf(f, "\n%s\n      wait-ms  waits    max-ms  what (and who waited, ms)\n", title);
	for (uint32_t i = 0; i < n && i < top; i++) {
		fprintf(f, "  %11.3f %6" PRIu64 " %9.3f  ", ms(v[i].wait_ns), v[i].waits,
			ms(v[i].max_ns));
		kr_resource_text(f, rp, v[i].domain, v[i].id, v[i].pid);
		for (int k = 0; k < KR_RES_WAITERS && v[i].waiter_ns[k]; k++) {
			fputs(k ? ", " : "  by ", f);
			kr_thread_text(f, rp, v[i].waiter_tid[k], 0);
			fprintf(f, " %.3f", ms(v[i].waiter_ns[k]));
		}
		if (v[i].other_waiters_ns)
			fprintf(f, ", others %.3f", ms(v[i].other_waiters_ns));
		fputc('\n', f);
	}
	if (total > top)
		fprintf(f, "  ... %u more\n", total - top);
}

/* The call stack a hop's time has (katra-record --stacks): a blocked hop's
 * off-CPU interval's, a running hop's timer samples' (the stack most of them
 * show), its innermost frames on a line of its own */
unsigned kr_hop_stack(const struct kr_report *rp, const struct kr_hop *h, unsigned n,
		      const char *sep, char *buf, size_t cap, unsigned *samples)
{
	struct kr_stackidx *ix = kr_report_stacks(rp);

	*samples = 0;
	if (cap)
		buf[0] = 0;
	if (!kr_stackidx_any(ix) || (h->type != KR_HOP_BLOCKED && h->type != KR_HOP_RUN))
		return 0;
	return kr_stackidx_top(ix, h->tid, h->from_ns, h->to_ns,
			       h->type == KR_HOP_RUN ? KATRA_SITE_SAMPLE : KATRA_SITE_OFF_CPU, n, sep,
			       buf, cap, samples);
}

void kr_text_hop_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h)
{
	char buf[512];
	unsigned samples;

	if (kr_defer_stack(f, rp, h, KR_DEFER_TEXT))
		return;
	if (!kr_hop_stack(rp, h, KR_HOP_STACK_SHOWN, " <- ", buf, sizeof(buf), &samples))
		return;
	fprintf(f, "%46s at %s", "", buf);
	if (h->type == KR_HOP_RUN)
		fprintf(f, " (%u sample%s)", samples, samples == 1 ? "" : "s");
	fputc('\n', f);
}

void kr_text_path(FILE *f, const struct kr_report *rp, const struct kr_path *p, unsigned top)
{
	uint64_t len;
	unsigned shown = top < 10 ? 20 : 2 * top;

	if (!p || !p->present) {
		struct kr_report_facts x;

		kr_report_get_facts(rp, &x);
		if (x.path_tid)
			fprintf(f, "\ncritical path: none (no event of thread %" PRIu64
				" in this window)\n", x.path_tid);
		else if (x.path_pid)
			fprintf(f, "\ncritical path: none (no event of process %" PRIu64
				" in this window)\n", x.path_pid);
		else
			fputs("\ncritical path: none (no event in this window)\n", f);
		return;
	}
	len = p->end_ns - p->start_ns;
	fprintf(f, "\ncritical path: %.3f ms, ", ms(len));
	kr_ts(f, p->start_ns);
	fputs(" .. ", f);
	kr_ts(f, p->end_ns);
	fprintf(f, ", %" PRIu64 " hops, ends at seq %" PRIu64 " on ", p->hops_total, p->end_seq);
	kr_thread_text(f, rp, p->end_tid, 0);
	fputc('\n', f);
	if (p->truncated)
		fputs("  (cut: older causal nodes were dropped at the index cap)\n", f);
	fputs("  by kind:", f);
	for (unsigned k = 0; k < KR_HOP_TYPE_COUNT; k++)
		if (p->by_type_ns[k])
			fprintf(f, " %s %.3f ms (%.1f%%)", kr_hop_type_name(k), ms(p->by_type_ns[k]),
				pct(p->by_type_ns[k], len));
	fputs("\n  by thread:", f);
	for (uint32_t i = 0; i < p->nthreads; i++) {
		fputc(' ', f);
		kr_thread_text(f, rp, p->thread_tid[i], 0);
		fprintf(f, " %.3f ms (%.1f%%)%s", ms(p->thread_ns[i]), pct(p->thread_ns[i], len),
			i + 1 < p->nthreads ? "," : "");
	}
	if (p->other_threads_ns)
		fprintf(f, ", others %.3f ms", ms(p->other_threads_ns));
	fputs("\n         from s      length-ms  thread                        what\n", f);
	/* the newest hops matter most: show the last ones */
	uint32_t first = p->nhops > shown ? p->nhops - shown : 0;
	if (first || p->hops_total > p->nhops)
		fprintf(f, "  ... %" PRIu64 " earlier hops\n", p->hops_total - (p->nhops - first));
	for (uint32_t i = first; i < p->nhops; i++) {
		const struct kr_hop *h = &p->hops[i];
		char name[64];
		FILE *m = fmemopen(name, sizeof(name), "w");

		if (m) {
			kr_thread_text(m, rp, h->tid, h->pid);
			fputc(0, m);
			fclose(m);
		}
		name[sizeof(name) - 1] = 0;
		fputs("  ", f);
		kr_ts(f, h->from_ns);
		fprintf(f, " %12.3f  %-28s  ", ms(h->to_ns - h->from_ns), name);
		kr_hop_text(f, rp, h);
		fputc('\n', f);
		kr_text_hop_stack(f, rp, h);
	}
}

/* What the threads' times add up to, against what the CPUs allow. */
static void cpu_line(FILE *f, const struct kr_report *rp, const struct kr_window *w)
{
	struct kr_report_facts x;
	uint64_t cap;

	kr_report_get_facts(rp, &x);
	cap = (w->end_ns - w->start_ns) * x.cpus;
	fprintf(f, "on-CPU known %.3f ms of the %.3f ms %u CPUs allow; unknown %.3f ms (before a "
		"thread's first event, or never seen switching)\n", ms(w->on_cpu_total_ns), ms(cap),
		x.cpus, ms(w->unknown_total_ns));
	if (w->on_cpu_total_ns > cap)
		fputs("NOTE: more on-CPU time than the CPUs allow: the trace lost switches\n", f);
}

void kr_text_window(FILE *f, const struct kr_report *rp, const struct kr_window *w,
		    const struct kr_render *r)
{
	char kb[KR_NAME_BUF];

	if (w->is_epoch)
		fprintf(f, "\n== epoch %" PRIu64 " \"%s\" (%s, seq %" PRIu64 "): ", w->epoch, w->name,
			kr_enum(katra_epoch_kind_name(w->epoch_kind), w->epoch_kind, kb),
			w->marker_seq);
	else
		fputs("\n== whole capture: ", f);
	kr_ts(f, w->start_ns);
	fputs(" .. ", f);
	kr_ts(f, w->end_ns);
	fprintf(f, " (%.3f ms, %" PRIu64 " events)\n", ms(w->end_ns - w->start_ns), w->events);
	cpu_line(f, rp, w);
	threads_table(f, rp, w, r->top);
	reasons_table(f, rp, w, r->top);
	resource_table(f, rp, "top files by wait time", w->files, w->nfiles, w->files_total,
		       r->top);
	resource_table(f, rp, "top futexes by wait time", w->futexes, w->nfutexes,
		       w->futexes_total, r->top);
	kr_text_path(f, rp, w->path, r->top);
}
