// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay report --html OUT.html`: one self-contained page (inline
 * CSS and SVG, no script, nothing fetched): the facts, the timeline, then
 * the tables of the whole capture and of each epoch. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "katra/plural.h"
#include "replay/util/out.h"
#include "report_render.h"

void kr_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (c >= 0x20 && c != 0x7f)
				fputc(c, f);
		}
	}
}

/* Runs a kr_*_text call into a buffer and writes it escaped. */
#define HTEXT(f, call)                                                   \
	do {                                                             \
		char *buf_ = NULL;                                       \
		size_t len_ = 0;                                         \
		FILE *f_ = open_memstream(&buf_, &len_);                 \
		if (f_) {                                                \
			call;                                            \
			fclose(f_);                                      \
			kr_html_escape(f, buf_);                         \
		}                                                        \
		free(buf_);                                              \
	} while (0)

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void str(FILE *f, struct katra_str s)
{
	char buf[256];
	size_t n = s.len < sizeof(buf) - 1 ? (size_t)s.len : sizeof(buf) - 1;

	for (size_t i = 0; i < n; i++)
		buf[i] = s.ptr[i] ? s.ptr[i] : ' ';
	buf[n] = 0;
	kr_html_escape(f, buf);
}

void kr_html_head(FILE *f, const struct kr_report *rp, const struct kr_render *r)
{
	struct kr_report_facts x;

	kr_report_get_facts(rp, &x);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>katra "
	      "report: ", f);
	kr_html_escape(f, r->path);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:16px;color:#222}\n"
	      "h1{font-size:20px} h2{font-size:17px;margin-top:28px} h3{font-size:15px}\n"
	      "table{border-collapse:collapse;margin:6px 0 14px;font-size:13px}\n"
	      "th,td{border:1px solid #ccc;padding:2px 7px;text-align:right}\n"
	      "th{background:#eee} td.l,th.l{text-align:left}\n"
	      "tr.path td{background:#fff0f0} tr.big td{font-weight:bold;background:#ffd8d8}\n"
	      ".facts td{text-align:left} .note{color:#a33}\n"
	      ".legend span{display:inline-block;margin-right:14px;font-size:13px}\n"
	      ".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;"
	      "vertical-align:middle;border:1px solid #999}\n"
	      "svg.timeline{font-family:sans-serif;border:1px solid #ccc;background:#fff}\n"
	      "svg .tick{font-size:10px;fill:#555;text-anchor:middle}\n"
	      "svg .lane{font-size:11px;fill:#222;text-anchor:end}\n"
	      "svg .epoch{stroke:#333;stroke-dasharray:4 3}\n"
	      "svg .epochname{font-size:10px;fill:#333}\n"
	      "svg .epochtick{stroke:#333}\n"
	      "svg.bars{font-family:sans-serif;border:1px solid #ccc;background:#fff}\n"
	      "svg .ytick{font-size:10px;fill:#555;text-anchor:end}\n"
	      "svg .median{stroke:#222;stroke-dasharray:5 4}\n"
	      "svg .medianname{font-size:11px;fill:#222}\n"
	      "svg .first{font-size:10px;fill:#555} svg .last{font-size:10px;fill:#555;"
	      "text-anchor:end}\n"
	      "svg a rect:hover{fill:#800000}\n"
	      "nav a{margin-right:12px}\n"
	      "details{margin:10px 0} summary{font-weight:bold;cursor:pointer}\n"
	      ".stack{font-family:monospace;font-size:12px;font-weight:normal;color:#444}\n"
	      "</style></head><body>\n<h1 id=\"top\">katra-replay report</h1>\n<table class=\"facts\">\n"
	      "<tr><th class=\"l\">trace</th><td>", f);
	kr_html_escape(f, r->path);
	fprintf(f, "%s</td></tr>\n<tr><th class=\"l\">tool</th><td>", r->compressed ? " (gzip)" : "");
	str(f, r->h->tool_version);
	fputs("</td></tr>\n<tr><th class=\"l\">workload</th><td>", f);
	str(f, r->h->workload);
	fputs("</td></tr>\n<tr><th class=\"l\">host</th><td>", f);
	str(f, r->h->host.hostname);
	fputs(" (", f);
	str(f, r->h->host.kernel_release);
	fprintf(f, ", %u CPU%s)</td></tr>\n<tr><th class=\"l\">capture</th><td>%.3f ms, %" PRIu64
		" %s, %" PRIu64 " %s in %" PRIu64 " %s, %" PRIu64 " %s", r->h->host.cpu_count,
		katra_plural(r->h->host.cpu_count, "", "s"), ms(x.end_ns - x.start_ns), x.events,
		katra_plural(x.events, "event", "events"), x.threads,
		katra_plural(x.threads, "thread", "threads"), x.processes,
		katra_plural(x.processes, "process", "processes"), x.epochs,
		katra_plural(x.epochs, "epoch", "epochs"));
	if (x.epochs_empty)
		fprintf(f, " (%" PRIu64 " empty, not listed: CaptureEnd's)", x.epochs_empty);
	fputs("</td></tr>\n</table>\n", f);
	if (r->error) {
		fputs("<p class=\"note\">The trace stops early: ", f);
		kr_html_escape(f, r->error);
		fputs(". This is the report of what precedes.</p>\n", f);
	}
	if (x.epochs_not_itemized)
		fprintf(f, "<p class=\"note\">%" PRIu64 " later epochs are not itemized "
			"(--max-epochs); the whole capture includes them.</p>\n", x.epochs_not_itemized);
	if (x.index_evicted)
		fprintf(f, "<p class=\"note\">The causal index cap (%" PRIu64 " nodes) was reached: "
			"paths may be cut.</p>\n", x.index_cap);
}

void kr_html_timeline_legend(FILE *f)
{
	fputs("<h2 id=\"timeline\">Timeline</h2>\n<p class=\"legend\">", f);
	for (unsigned c = 0; c < KR_TL_CAT_COUNT; c++)
		fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", kr_tl_cat_color(c),
			kr_tl_cat_name(c));
	fputs("<span><i style=\"background:#d00000\"></i>critical path (whole capture)"
	      "</span></p>\n<p class=\"legend\">One lane per thread; each pixel column shows what "
	      "the thread mostly did then (time on the CPU counts 8 times); the red strip under a "
	      "lane is the critical path; the epochs are dashed lines (ticks on the axis when "
	      "there are many: the epoch table lists them).</p>\n", f);
}

static void thread_cell(FILE *f, const struct kr_report *rp, uint64_t tid, uint64_t pid)
{
	fputs("<td class=\"l\">", f);
	HTEXT(f, kr_thread_text(f_, rp, tid, pid));
	fputs("</td>", f);
}

static void threads_table(FILE *f, const struct kr_report *rp, const struct kr_window *w,
			  unsigned top)
{
	fputs("<h3>Threads: where the time went (ms)</h3>\n<table><tr><th class=\"l\">thread</th>"
	      "<th>alive</th><th>on-CPU</th><th>off-CPU</th><th>unknown</th><th>blocked</th>"
	      "<th>preempted</th>"
	      "<th>runq</th><th>faults</th><th>fault ms</th><th>io_uring</th><th>avg us</th>"
	      "<th>max us</th></tr>\n", f);
	for (uint32_t i = 0; i < w->nthreads && i < top; i++) {
		const struct kr_tsum *t = &w->threads[i];

		fputs("<tr>", f);
		thread_cell(f, rp, t->tid, t->pid);
		fprintf(f, "<td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
			"<td>%.3f</td><td>%.3f</td><td>%" PRIu64 "</td><td>%.3f</td><td>%" PRIu64
			"</td><td>%.1f</td><td>%.1f</td></tr>\n", ms(t->alive_ns), ms(t->on_cpu_ns),
			ms(t->off_cpu_ns), ms(t->unknown_ns), ms(t->off_cpu_ns - t->class_ns[KR_OFF_PREEMPTED]),
			ms(t->class_ns[KR_OFF_PREEMPTED]), ms(t->runq_ns), t->faults, ms(t->fault_ns),
			t->uring_requests,
			t->uring_requests ? (double)t->uring_total_ns / t->uring_requests / 1e3 : 0.0,
			(double)t->uring_max_ns / 1e3);
	}
	fputs("</table>\n", f);
	if (w->threads_total > top)
		fprintf(f, "<p>%u more threads (--top N).</p>\n", w->threads_total - top);
	fputs("<h3>Off-CPU by reason</h3>\n<table><tr><th class=\"l\">thread</th><th>ms</th>"
	      "<th>times</th><th>runq ms</th><th class=\"l\">reason</th></tr>\n", f);
	for (uint32_t i = 0; i < w->nthreads && i < top; i++) {
		const struct kr_tsum *t = &w->threads[i];

		for (uint32_t k = 0; k < t->reason_n; k++) {
			const struct kr_reason *r = &w->reasons[t->reason_first + k];

			fputs("<tr>", f);
			thread_cell(f, rp, t->tid, t->pid);
			fprintf(f, "<td>%.3f</td><td>%" PRIu64 "</td><td>%.3f</td><td class=\"l\">",
				ms(r->ns), r->count, ms(r->runq_ns));
			HTEXT(f, kr_reason_text(f_, rp, r));
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

static void resources(FILE *f, const struct kr_report *rp, const char *title,
		      const struct kr_resource *v, uint32_t n, unsigned top)
{
	fprintf(f, "<h3>%s</h3>\n", title);
	if (!n) {
		fputs("<p>none</p>\n", f);
		return;
	}
	fputs("<table><tr><th class=\"l\">what</th><th>wait ms</th><th>waits</th><th>max ms</th>"
	      "<th class=\"l\">who waited (ms)</th></tr>\n", f);
	for (uint32_t i = 0; i < n && i < top; i++) {
		fputs("<tr><td class=\"l\">", f);
		HTEXT(f, kr_resource_text(f_, rp, v[i].domain, v[i].id, v[i].pid));
		fprintf(f, "</td><td>%.3f</td><td>%" PRIu64 "</td><td>%.3f</td><td class=\"l\">",
			ms(v[i].wait_ns), v[i].waits, ms(v[i].max_ns));
		for (int k = 0; k < KR_RES_WAITERS && v[i].waiter_ns[k]; k++) {
			if (k)
				fputs(", ", f);
			HTEXT(f, kr_thread_text(f_, rp, v[i].waiter_tid[k], 0));
			fprintf(f, " %.3f", ms(v[i].waiter_ns[k]));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

void kr_html_path(FILE *f, const struct kr_report *rp, const struct kr_path *p,
		       unsigned top)
{
	unsigned shown = top < 25 ? 50 : 2 * top;

	fputs("<h3>Critical path</h3>\n", f);
	if (!p || !p->present) {
		fputs("<p>none (no event in this window)</p>\n", f);
		return;
	}
	uint64_t len = p->end_ns - p->start_ns;
	fprintf(f, "<p>%.3f ms over %" PRIu64 " hops, ending at seq %" PRIu64 " on ",
		ms(len), p->hops_total, p->end_seq);
	HTEXT(f, kr_thread_text(f_, rp, p->end_tid, 0));
	fputs(p->truncated ? " (cut at the causal index cap)" : "", f);
	fputs(". By kind:", f);
	for (unsigned k = 0; k < KR_HOP_TYPE_COUNT; k++)
		if (p->by_type_ns[k])
			fprintf(f, " %s %.3f ms (%.1f%%)", kr_hop_type_name(k), ms(p->by_type_ns[k]),
				len ? 100.0 * p->by_type_ns[k] / len : 0.0);
	fputs(". By thread:", f);
	for (uint32_t k = 0; k < p->nthreads; k++) {
		fputs(k ? ", " : " ", f);
		HTEXT(f, kr_thread_text(f_, rp, p->thread_tid[k], 0));
		fprintf(f, " %.3f ms (%.1f%%)", ms(p->thread_ns[k]),
			len ? 100.0 * p->thread_ns[k] / len : 0.0);
	}
	if (p->other_threads_ns)
		fprintf(f, ", others %.3f ms", ms(p->other_threads_ns));
	fputs(".</p>\n<table><tr><th>from s</th><th>ms</th><th class=\"l\">thread</th>"
	      "<th class=\"l\">what</th></tr>\n", f);
	uint32_t first = p->nhops > shown ? p->nhops - shown : 0;
	if (first || p->hops_total > p->nhops)
		fprintf(f, "<tr><td colspan=\"4\" class=\"l\">%" PRIu64 " earlier hops</td></tr>\n",
			p->hops_total - (p->nhops - first));
	for (uint32_t i = first; i < p->nhops; i++) {
		const struct kr_hop *h = &p->hops[i];

		/* a hop of a tenth of the path or more stands out */
		fprintf(f, "<tr class=\"%s\"><td>%.9f</td><td>%.3f</td>",
			(h->to_ns - h->from_ns) * 10 >= len && len ? "path big" : "path",
			h->from_ns / 1e9, ms(h->to_ns - h->from_ns));
		thread_cell(f, rp, h->tid, h->pid);
		fputs("<td class=\"l\">", f);
		HTEXT(f, kr_hop_text(f_, rp, h));
		kr_html_hop_stack(f, rp, h);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Under a hop's words: its stack's innermost frames, as the text says them */
void kr_html_hop_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h)
{
	char buf[512];
	unsigned samples;

	if (kr_defer_stack(f, rp, h, KR_DEFER_HTML))
		return;
	if (!kr_hop_stack(rp, h, KR_HOP_STACK_SHOWN, " <- ", buf, sizeof(buf), &samples))
		return;
	fputs("<div class=\"stack\">at ", f);
	kr_html_escape(f, buf);
	if (h->type == KR_HOP_RUN)
		fprintf(f, " (%u sample%s)", samples, samples == 1 ? "" : "s");
	fputs("</div>", f);
}

void kr_html_window(FILE *f, const struct kr_report *rp, const struct kr_window *w,
		    const struct kr_render *r)
{
	char kb[KR_NAME_BUF];

	if (w->is_epoch) {
		fprintf(f, "<section id=\"epoch-%" PRIu64 "\"><h3>Epoch %" PRIu64 " &ldquo;", w->epoch,
			w->epoch);
		kr_html_escape(f, w->name);
		fprintf(f, "&rdquo; (%s): %.6f s .. %.6f s, %.3f ms, %" PRIu64 " events</h3>\n",
			kr_enum(katra_epoch_kind_name(w->epoch_kind), w->epoch_kind, kb),
			w->start_ns / 1e9, w->end_ns / 1e9, ms(w->end_ns - w->start_ns), w->events);
	} else {
		fprintf(f, "<h2 id=\"whole\">Whole capture: %.6f s .. %.6f s (%.3f ms, %" PRIu64 " events)</h2>\n",
			w->start_ns / 1e9, w->end_ns / 1e9, ms(w->end_ns - w->start_ns), w->events);
	}
	threads_table(f, rp, w, r->top);
	resources(f, rp, "Top files by wait time", w->files, w->nfiles, r->top);
	resources(f, rp, "Top futexes by wait time", w->futexes, w->nfutexes, r->top);
	kr_html_path(f, rp, w->path, r->top);
	if (w->is_epoch)
		fputs("<p><a href=\"#top\">back to the top</a></p></section>\n", f);
}

void kr_html_tail(FILE *f)
{
	fputs("<p class=\"legend\">Written by katra-replay report. Times are from the capture's "
	      "start (CLOCK_MONOTONIC).</p>\n</body></html>\n", f);
}
