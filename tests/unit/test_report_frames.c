// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay report --frames on a hand-built trace: frames are the windows
 * between one track's Frame epochs (another process's, and a FIFO epoch in
 * the middle of a frame, change nothing), the frame-time distribution to the
 * nanosecond, the slowest frames first, and a frame's critical path across
 * threads ending at the present that ended it. */
#include "replay_test_util.h"
#include "katra/replay_cli.h"
#include "katra/report.h"

#define GAME 100
#define WORKER 101
#define OTHER 200

/* A present span on tid (its process pid) ending at end, then its Frame
 * epoch; returns the End's seq. */
static uint64_t present(struct tb *t, uint64_t pid, uint64_t begin, uint64_t end, int64_t span,
			uint64_t swapchain, uint64_t n)
{
	static char names[16][64]; /* alive until the trace is written */
	static unsigned nnames;
	char *name = names[nnames++ % 16];
	struct katra_event *e;

	snprintf(name, 64, "frame %llu (pid %llu, swapchain 0x%llx)", (unsigned long long)n,
		 (unsigned long long)pid, (unsigned long long)swapchain);
	e = tb_ev(t, begin, pid, pid, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PHASE_BEGIN, span);
	e->scope = KATRA_SCOPE_VULKAN;
	e = tb_ev(t, end, pid, pid, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PHASE_END, span);
	e->scope = KATRA_SCOPE_VULKAN;
	tb_epoch(t, end, KATRA_EPOCH_FRAME, name);
	return e->seq;
}

/* Game frames end at 1000 (frame 1), 3000, 8000, 9000, 13000: 2000, 5000,
 * 1000, 4000 ns.  In frame 3 the game's main thread blocks at 4000 until
 * its worker wakes it at 6000 (on the CPU at 6500).  The other process's
 * frames end at 2000 and 5000; a FIFO epoch comes at 4500. */
static uint64_t build(struct tb *t)
{
	uint64_t frame3_end;
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_switch(t, 0, GAME, GAME, KATRA_PHASE_INSTANT, -1, 0);
	tb_switch(t, 0, GAME, WORKER, KATRA_PHASE_INSTANT, -1, 0);
	present(t, GAME, 900, 1000, 1, 0xa, 1);
	present(t, OTHER, 1900, 2000, 2, 0xb, 1);
	present(t, GAME, 2900, 3000, 3, 0xa, 2);
	uint64_t off = tb_switch(t, 4000, GAME, GAME, KATRA_PHASE_BEGIN, 4, 1)->seq;
	tb_epoch(t, 4500, KATRA_EPOCH_FIFO, "loading");
	present(t, OTHER, 4900, 5000, 5, 0xb, 2);
	e = tb_ev(t, 6000, GAME, WORKER, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	e->payload.type = KATRA_PAYLOAD_WAKEUP;
	e->payload.u.wakeup.target_tid = GAME;
	e->payload.u.wakeup.target_pid = GAME;
	e->resource = (struct katra_resource){ KATRA_RES_THREAD, GAME };
	static uint64_t off_causes[2];
	off_causes[0] = off;
	off_causes[1] = e->seq;
	e = tb_switch(t, 6500, GAME, GAME, KATRA_PHASE_END, 4, 0);
	e->causes = (struct katra_u64_vec){ off_causes, 2 };
	frame3_end = present(t, GAME, 7500, 8000, 6, 0xa, 3);
	present(t, GAME, 8900, 9000, 7, 0xa, 4);
	present(t, GAME, 12900, 13000, 8, 0xa, 5);
	tb_epoch(t, 14000, KATRA_EPOCH_CAPTURE_END, "capture end");
	return frame3_end;
}

static char *frames_report(struct tb *t, bool json, unsigned top, uint64_t pid)
{
	struct katra_report_opts o = { .frames = true, .json = json, .top = top, .path_pid = pid };
	struct outcap out;

	tb_write(t);
	oc_open(&out);
	cr_assert_eq(katra_report(t->path, &o, out.f, stderr), 0);
	oc_text(&out);
	return out.buf;
}

Test(report_frames, distribution_and_slowest_first_with_the_path_across_threads)
{
	struct tb t;
	char want[256];

	tb_init(&t);
	uint64_t frame3_end = build(&t);
	char *out = frames_report(&t, true, 2, 0);

	cr_assert_not_null(strstr(out, ",\"frames\":{\"track\":{\"pid\":100,\"swapchain\":\"0xa\"},"
				       "\"presents\":5,\"frames\":4,\"frame_time_ns\":{\"p50\":2000,"
				       "\"p90\":5000,\"p99\":5000,\"max\":5000},\"other_tracks\":1,"
				       "\"other_presents\":2,\"unreadable_names\":0,\"slowest\":[{"
				       "\"frame\":3,\"name\":\"frame 3 (pid 100, swapchain 0xa)\","
				       "\"start_ns\":3000,\"end_ns\":8000,\"length_ns\":5000,"
				       "\"critical_path\":{"), "%s", out);
	snprintf(want, sizeof(want), "\"critical_path\":{\"end_seq\":%llu,\"end_tid\":100,"
		 "\"start_ns\":3000,\"end_ns\":8000,\"length_ns\":5000,",
		 (unsigned long long)frame3_end);
	cr_assert_not_null(strstr(out, want), "frame 3's path ends at its present: %s", out);
	cr_assert_not_null(strstr(out, "\"by_thread\":[{\"tid\":100,\"ns\":2000},{\"tid\":101,"
				       "\"ns\":3000}]"), "the worker's time, then the wait: %s", out);
	cr_assert_not_null(strstr(out, "{\"frame\":5,\"name\":\"frame 5 (pid 100, swapchain 0xa)\","
				       "\"start_ns\":9000,\"end_ns\":13000,\"length_ns\":4000,"),
			   "%s", out);
	cr_assert_null(strstr(out, "{\"frame\":2,"), "--top 2: %s", out);
	free(out);
	tb_cleanup(&t);
}

Test(report_frames, text_names_the_track_the_times_and_the_slowest_frame)
{
	struct tb t;

	tb_init(&t);
	build(&t);
	char *out = frames_report(&t, false, 1, 0);

	cr_assert_not_null(strstr(out, "\nframes of process 100, swapchain 0xa: 5 presents, 4 "
				       "frames (present to present)\nframe time: p50 0.002 ms  p90 "
				       "0.005 ms  p99 0.005 ms  max 0.005 ms\nother tracks: 1 (2 "
				       "presents; --pid PID for another process's)\n\nslowest frames "
				       "(1 of 4, longest first):\n\n#1 frame 3: 0.005 ms, "
				       "0.000003000 .. 0.000008000\n\ncritical path: 0.005 ms,"),
			   "%s", out);
	free(out);
	tb_cleanup(&t);
}

Test(report_frames, pid_chooses_the_track)
{
	struct tb t;

	tb_init(&t);
	build(&t);
	char *out = frames_report(&t, true, 10, OTHER);

	cr_assert_not_null(strstr(out, ",\"frames\":{\"track\":{\"pid\":200,\"swapchain\":\"0xb\"},"
				       "\"presents\":2,\"frames\":1,\"frame_time_ns\":{\"p50\":3000,"
				       "\"p90\":3000,\"p99\":3000,\"max\":3000},\"other_tracks\":1,"
				       "\"other_presents\":5,"), "%s", out);
	free(out);
	tb_cleanup(&t);
}

Test(report_frames, no_frames_says_so)
{
	struct tb t;

	tb_init(&t);
	tb_epoch(&t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_switch(&t, 0, GAME, GAME, KATRA_PHASE_INSTANT, -1, 0);
	tb_epoch(&t, 100, KATRA_EPOCH_CAPTURE_END, "capture end");
	char *out = frames_report(&t, false, 10, 0);

	cr_assert_not_null(strstr(out, "\nframes: none (no Frame epoch in the trace: katra-record "
				       "writes one per present on a swapchain)\n"), "%s", out);
	free(out);
	tb_cleanup(&t);
}

Test(report_frames, tid_with_frames_is_a_usage_error)
{
	char *b[] = { "report", "--frames", "--tid", "7", "t.ktrc", NULL };

	cr_assert_eq(katra_cmd_report(5, b), 2);
}

/* --frames --html: the frame-time chart, one bar a frame in order, the
 * slowest (--top) red and each a link to its section with its critical
 * path; nothing fetched, no script. */
Test(report_frames, html_page_charts_the_frames_and_links_the_slowest)
{
	struct tb t;
	char html[300];
	struct katra_report_opts o = { .frames = true, .top = 2 };

	tb_init(&t);
	build(&t);
	tb_write(&t);
	snprintf(html, sizeof(html), "%s.html", t.path);
	o.html_path = html;
	cr_assert_eq(katra_report(t.path, &o, stdout, stderr), 0);
	FILE *f = fopen(html, "r");
	cr_assert_not_null(f);
	char *page = calloc(1, 1 << 20);
	size_t n = fread(page, 1, (1 << 20) - 1, f);
	fclose(f);
	unlink(html);
	cr_assert_gt(n, 0);
	cr_assert_not_null(strstr(page, "<svg width=\"1174\" height=\"228\" class=\"bars\""), "%s",
			   page);
	/* 4 frames: 2, 3, 4, 5; the slowest two (3: 5000 ns, 5: 4000 ns) red links */
	cr_assert_not_null(strstr(page, "<a href=\"#frame-3\"><rect "), "%s", page);
	cr_assert_not_null(strstr(page, "<a href=\"#frame-5\"><rect "), "%s", page);
	cr_assert_null(strstr(page, "href=\"#frame-2\""), "frame 2 is not among the slowest");
	cr_assert_not_null(strstr(page, "<title>frame 2: 0.002 ms</title>"), "%s", page);
	cr_assert_not_null(strstr(page, "<section id=\"frame-3\"><h2>#1 frame 3: 0.005 ms"), "%s",
			   page);
	cr_assert_not_null(strstr(page, "<section id=\"frame-5\"><h2>#2 frame 5: 0.004 ms"), "%s",
			   page);
	cr_assert_not_null(strstr(page, "<h3>Critical path</h3>"), "%s", page);
	cr_assert_null(strstr(page, "<script"));
	cr_assert_null(strstr(page, "http"));
	free(page);
	tb_cleanup(&t);
}
