// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay report with call stacks (names/stackidx.c): a blocked hop of
 * the critical path shows its off-CPU interval's stack, a running hop the
 * stack most of its timer samples show, innermost frames first. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/names/stackidx.h"
#include "replay/report/report.h"
#include "replay/report/report_render.h"
#include "replay_test_util.h"

#define A 201

static uint64_t causes[8][2];

static struct katra_event *ev(struct tb *b, uint64_t ts, uint64_t tid, uint32_t kind,
			      uint32_t phase, int64_t span)
{
	return tb_ev(b, ts, tid ? 100 : 0, tid, kind, phase, span);
}

/* A blocked off-CPU interval of A from `from` to `to`, woken from outside */
static void blocked(struct tb *b, uint64_t from, uint64_t to, int64_t span)
{
	struct katra_event *off = ev(b, from, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_BEGIN, span);
	uint64_t off_seq = off->seq;

	off->payload.type = KATRA_PAYLOAD_SWITCH;
	off->payload.u.sched_switch.prev_state = 1;
	struct katra_event *w = ev(b, to - 100, 0, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	uint64_t w_seq = w->seq;
	w->payload.type = KATRA_PAYLOAD_WAKEUP;
	w->payload.u.wakeup.target_tid = A;
	w->payload.u.wakeup.target_pid = 100;
	w->resource = (struct katra_resource){ KATRA_RES_THREAD, A };
	struct katra_event *end = ev(b, to, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, span);
	causes[0][0] = off_seq;
	causes[0][1] = w_seq;
	end->causes = (struct katra_u64_vec){ causes[0], 2 };
}

/* innermost first: stack 1 blocked in wait_leaf, 2 and 3 running */
static const struct katra_stack_frame f1[] = { { 1, 0x10 }, { 1, 0x20 }, { 1, 0x30 } };
static const struct katra_stack_frame f2[] = { { 1, 0x40 }, { 1, 0x30 } };
static const struct katra_stack_frame f3[] = { { 0, 0x7000 } };

static void stack(struct tb *b, uint64_t id, const struct katra_stack_frame *f, uint64_t n)
{
	tb_add(b, KATRA_RECORD_STACK)->u.stack = (struct katra_stack){ id, f, n, { NULL, 0 }, false };
}

static void cite(struct tb *b, uint64_t id, uint64_t begin, uint64_t dur, uint32_t site)
{
	tb_add(b, KATRA_RECORD_STACK_OF)->u.stack_of =
		(struct katra_stack_of){ id, A, 100, begin, dur, site };
}

static char text[8192], json[8192];

static void on_window(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	(void)ctx;
	if (w->is_epoch)
		return;
	FILE *f = fmemopen(text, sizeof(text) - 1, "w");
	kr_text_path(f, rp, w->path, 10);
	fclose(f);
	f = fmemopen(json, sizeof(json) - 1, "w");
	kr_json_path(f, rp, w->path);
	fclose(f);
}

static void build(struct tb *b)
{
	ev(b, 100, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	blocked(b, 200, 1000, 1);
	ev(b, 2000, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	/* after the events, as katra-record writes them */
	tb_add(b, KATRA_RECORD_MODULE)->u.module =
		(struct katra_module){ .id = 1, .name = katra_cstr("game"),
				       .build_id = katra_cstr("ab12") };
	stack(b, 1, f1, 3);
	stack(b, 2, f2, 2);
	stack(b, 3, f3, 1);
	cite(b, 1, 200, 800, KATRA_SITE_OFF_CPU);
	/* taken before the first running hop (100-200): its period reaches
	 * 70 ns into it, more than the next one's 50, but it is not that hop's */
	cite(b, 2, 70, 100, KATRA_SITE_SAMPLE);
	cite(b, 3, 120, 50, KATRA_SITE_SAMPLE);  /* the first running hop's */
	cite(b, 2, 1200, 100, KATRA_SITE_SAMPLE); /* the last one's: 2 of stack 2 */
	cite(b, 3, 1400, 100, KATRA_SITE_SAMPLE);
	cite(b, 2, 1600, 100, KATRA_SITE_SAMPLE);
	cite(b, 2, 3000, 100, KATRA_SITE_SAMPLE); /* after the path: not counted */
}

static void run(struct tb *b, struct kr_stackidx *ix)
{
	struct kr_report_opts o = { .on_window = on_window, .stacks = ix };
	struct kr_report *rp;

	text[0] = 0;
	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < b->n; i++)
		cr_assert_eq(kr_report_add(rp, &b->r[i]), 0, "record %zu", i);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_free(rp);
}

Test(report_stacks, hops_show_their_interval_s_and_their_samples_stacks)
{
	struct tb b;
	struct kr_stackidx *ix = kr_stackidx_new(NULL);

	cr_assert_not_null(ix);
	tb_init(&b);
	build(&b);
	run(&b, ix);
	fprintf(stderr, "%s", text);
	const char *blk = strstr(text, "blocked outside any traced syscall");
	cr_assert_not_null(blk, "%s", text);
	cr_assert_not_null(strstr(blk, "\n                                               at "
				       "game+0x10 <- game+0x20 <- game+0x30\n"), "%s", text);
	cr_assert_not_null(strstr(text, "running\n                                               at "
				       "0x7000 (1 sample)\n"), "%s", text);
	cr_assert_not_null(strstr(text, "running\n                                               at "
				       "game+0x40 <- game+0x30 (2 samples)\n"), "%s", text);
	/* JSON: the frames as an array, a running hop's sample count */
	cr_assert_not_null(strstr(json, ",\"stack\":[\"game+0x10\",\"game+0x20\",\"game+0x30\"],"),
			   "%s", json);
	cr_assert_not_null(strstr(json, ",\"stack\":[\"game+0x40\",\"game+0x30\"],"
					"\"stack_samples\":2,"), "%s", json);
	kr_stackidx_free(ix);
	tb_cleanup(&b);
}

/* A stack deeper than the text shows: the text line has its 5 innermost
 * frames, the JSON all 7 (a slow frame's own functions often lie below the
 * few frames of libc and the driver) */
Test(report_stacks, json_has_the_whole_stack_text_its_innermost_frames)
{
	static const struct katra_stack_frame f7[] = { { 1, 0x10 }, { 1, 0x20 }, { 1, 0x30 },
						       { 1, 0x40 }, { 1, 0x50 }, { 1, 0x60 },
						       { 1, 0x70 } };
	struct kr_stackidx *ix = kr_stackidx_new(NULL);
	struct tb b;

	cr_assert_not_null(ix);
	tb_init(&b);
	ev(&b, 100, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	blocked(&b, 200, 1000, 1);
	ev(&b, 2000, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_add(&b, KATRA_RECORD_MODULE)->u.module =
		(struct katra_module){ .id = 1, .name = katra_cstr("game"),
				       .build_id = katra_cstr("ab12") };
	stack(&b, 1, f7, 7);
	cite(&b, 1, 200, 800, KATRA_SITE_OFF_CPU);
	run(&b, ix);
	cr_assert_not_null(strstr(text, " at game+0x10 <- game+0x20 <- game+0x30 <- game+0x40 <- "
				       "game+0x50\n"), "%s", text);
	cr_assert_not_null(strstr(json, ",\"stack\":[\"game+0x10\",\"game+0x20\",\"game+0x30\","
				       "\"game+0x40\",\"game+0x50\",\"game+0x60\",\"game+0x70\"],"),
			   "%s", json);
	kr_stackidx_free(ix);
	tb_cleanup(&b);
}

Test(report_stacks, without_an_index_no_stack_lines)
{
	struct tb b;

	tb_init(&b);
	build(&b);
	run(&b, NULL);
	cr_assert_null(strstr(text, "                                               at "), "%s",
		       text);
	cr_assert_not_null(strstr(text, "critical path: 0.002 ms, 0.000000100 .. 0.000002000, 3 hops"), "%s", text);
	tb_cleanup(&b);
}

/* How many times needle occurs in hay */
static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static char *slurp_path(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t len = 0;

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(getdelim(&s, &len, 0, f) > 0, true);
	fclose(f);
	return s;
}

/* The whole command on a trace with epochs: an epoch's window is rendered
 * when its next marker comes, before the stacks (written after the last
 * event) are read; its hops show their stacks all the same, in text, JSON
 * and the HTML page (which shows them for the whole capture too). */
Test(report_stacks, epoch_windows_and_the_html_page_show_the_stacks)
{
	struct katra_report_opts o = { 0 };
	struct outcap out, err;
	char html[160];
	struct tb b;

	tb_init(&b);
	tb_epoch(&b, 50, KATRA_EPOCH_CAPTURE_START, "capture start");
	ev(&b, 100, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	blocked(&b, 200, 1000, 1);
	ev(&b, 2000, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_epoch(&b, 2500, KATRA_EPOCH_SIGNAL, "mark 1");
	ev(&b, 3000, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_epoch(&b, 3500, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_add(&b, KATRA_RECORD_MODULE)->u.module =
		(struct katra_module){ .id = 1, .name = katra_cstr("game"),
				       .build_id = katra_cstr("ab12") };
	stack(&b, 1, f1, 3);
	cite(&b, 1, 200, 800, KATRA_SITE_OFF_CPU);
	tb_write(&b);

	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_report(b.path, &o, out.f, err.f), 0, "%s", oc_text(&err));
	const char *text = oc_text(&out);
	const char *ep = strstr(text, "== epoch ");
	cr_assert_not_null(ep, "%s", text);
	cr_assert_eq(count(text, "at game+0x10 <- game+0x20 <- game+0x30\n"), 2,
		     "the whole capture's and epoch 1's blocked hop: %s", text);
	cr_assert_not_null(strstr(ep, "at game+0x10 <- game+0x20 <- game+0x30\n"), "%s", ep);
	cr_assert_null(strchr(text, 0x1e), "a marker left: %s", text);
	oc_free(&out);

	o.json = true;
	oc_open(&out);
	cr_assert_eq(katra_report(b.path, &o, out.f, err.f), 0);
	text = oc_text(&out);
	const char *eps = strstr(text, ",\"epochs\":[");
	cr_assert_not_null(eps, "%s", text);
	cr_assert_not_null(strstr(eps, ",\"stack\":[\"game+0x10\",\"game+0x20\",\"game+0x30\"],"),
			   "%s", text);
	cr_assert_null(strchr(text, 0x1e), "a marker left: %s", text);
	oc_free(&out);

	o.json = false;
	snprintf(html, sizeof(html), "%s/r.html", b.dir);
	o.html_path = html;
	oc_open(&out);
	cr_assert_eq(katra_report(b.path, &o, out.f, err.f), 0);
	oc_free(&out);
	char *page = slurp_path(html);
	cr_assert_eq(count(page, "<div class=\"stack\">at game+0x10 &lt;- game+0x20 &lt;- "
				 "game+0x30</div>"), 2,
		     "the whole capture's and epoch 1's blocked hop: %s", page);
	cr_assert_null(strchr(page, 0x1e), "a marker left");
	free(page);
	oc_free(&err);
	tb_cleanup(&b);
}
