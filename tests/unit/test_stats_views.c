// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay stats views on a trace with known spans (user/replay/
 * stats_track.c, stats_syscalls.c, stats_files.c, stats_offcpu.c,
 * stats_top.c, stats_cmd.c): the exact strace -c rows overall and per
 * process, per-file reads and writes with the path an open named, off-CPU
 * time charged to the syscall and resource it blocked in, and the longest
 * spans; text and JSON. */
#include "replay_test_util.h"
#include "replay/util/xmap.h"

#define FILE_A 10106461514007918706ull
#define FILE_B 42ull
#define FUTEX_ADDR 0x7f0000001000ull
#define MS 1000000ull

static struct katra_event *io(struct tb *t, uint64_t ts, uint64_t pid, uint64_t tid,
			      uint32_t kind, uint32_t phase, int64_t span, uint64_t file)
{
	struct katra_event *e = tb_ev(t, ts, pid, tid, kind, phase, span);

	e->resource = (struct katra_resource){ KATRA_RES_FILE, file };
	e->payload.type = KATRA_PAYLOAD_FILE_IO;
	e->payload.u.file_io.fd = 3;
	e->payload.u.file_io.count = 4096;
	return e;
}

static struct katra_event *io_end(struct tb *t, uint64_t ts, uint64_t pid, uint64_t tid,
				  uint32_t kind, int64_t span, uint32_t nr, int64_t ret,
				  uint64_t file)
{
	struct katra_event *e = tb_syscall_end(t, ts, pid, tid, kind, span, nr, ret);

	if (file)
		e->resource = (struct katra_resource){ KATRA_RES_FILE, file };
	return e;
}

static void open_begin(struct tb *t, uint64_t ts, int64_t span, const char *path)
{
	struct katra_event *e = tb_ev(t, ts, 100, 101, KATRA_KIND_FILE_OPEN, KATRA_PHASE_BEGIN,
				      span);

	e->payload.type = KATRA_PAYLOAD_FILE_OPEN;
	e->payload.u.file_open.dirfd = -100;
	e->payload.u.file_open.path = (struct katra_opt_str){ true, katra_cstr(path) };
}

/* tb_write with the header's record_paths set as a capture made with (or
 * without) --paths has it. */
static void write_with_paths(struct tb *t, bool paths)
{
	struct katra_header h = *katra_sample_header();
	struct katra_writer *w;

	h.capture_options.record_paths = paths;
	cr_assert_eq(katra_writer_open(&w, t->path, &h, KATRA_WRITER_OVERWRITE), 0);
	for (size_t i = 0; i < t->n; i++)
		cr_assert_eq(katra_writer_append(w, &t->r[i]), 0, "record %zu", i);
	cr_assert_eq(katra_writer_close(w), 0);
}

/* Process 100 "game": thread 101 reads File A twice (2 ms; 6 ms of which 5
 * blocked in S), opens it by path (1 ms) and fails to open another (0.5 ms,
 * ENOENT); thread 102 waits 6.2 ms on a futex (6 ms off-CPU in S) and is
 * preempted for 0.3 ms.  Process 200 "tool": thread 201 writes File B twice
 * (0.4 ms, 4096 bytes; 0.1 ms, ENOSPC), exits (exit_group never returns: an
 * inferred End after 1 ms), has a read whose End was inferred (0.5 ms, no
 * number), blocks 0.7 ms in D outside any syscall, and had a read in
 * flight at capture start. */
static void views_trace(struct tb *t)
{
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, MS / 10, 100, "game", NULL);
	tb_pinfo(t, MS / 10, 200, "tool", NULL);
	e = tb_ev(t, MS / 2, 200, 201, KATRA_KIND_FILE_READ, KATRA_PHASE_INSTANT, -1);
	e->payload.type = KATRA_PAYLOAD_SYSCALL_RETURN;
	e->payload.u.syscall_return.ret = 10;
	io(t, 1 * MS, 100, 101, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1, FILE_A);
	e = tb_ev(t, 2 * MS, 100, 102, KATRA_KIND_FUTEX, KATRA_PHASE_BEGIN, 6);
	e->payload.type = KATRA_PAYLOAD_FUTEX;
	e->payload.u.futex.uaddr = FUTEX_ADDR;
	e->payload.u.futex.op = 128;
	tb_switch(t, 2 * MS + MS / 10, 100, 102, KATRA_PHASE_BEGIN, 7, 1);
	io_end(t, 3 * MS, 100, 101, KATRA_KIND_FILE_READ, 1, 0, 100, FILE_A);
	io(t, 4 * MS, 100, 101, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 2, FILE_A);
	tb_switch(t, 4 * MS + MS / 2, 100, 101, KATRA_PHASE_BEGIN, 3, 1);
	io(t, 5 * MS, 200, 201, KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, 9, FILE_B);
	io_end(t, 5 * MS + 4 * MS / 10, 200, 201, KATRA_KIND_FILE_WRITE, 9, 1, 4096, FILE_B);
	io(t, 6 * MS, 200, 201, KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, 10, FILE_B);
	io_end(t, 6 * MS + MS / 10, 200, 201, KATRA_KIND_FILE_WRITE, 10, 1, -28, FILE_B);
	tb_switch(t, 8 * MS + MS / 10, 100, 102, KATRA_PHASE_END, 7, 0);
	tb_syscall_end(t, 8 * MS + 2 * MS / 10, 100, 102, KATRA_KIND_FUTEX, 6, 202, 0);
	tb_switch(t, 9 * MS, 100, 102, KATRA_PHASE_BEGIN, 8, 0);
	tb_switch(t, 9 * MS + 3 * MS / 10, 100, 102, KATRA_PHASE_END, 8, 0);
	tb_switch(t, 9 * MS + MS / 2, 100, 101, KATRA_PHASE_END, 3, 0);
	io_end(t, 10 * MS, 100, 101, KATRA_KIND_FILE_READ, 2, 0, 50, FILE_A);
	open_begin(t, 11 * MS, 4, "/game/data.pak");
	io_end(t, 12 * MS, 100, 101, KATRA_KIND_FILE_OPEN, 4, 257, 3, FILE_A);
	open_begin(t, 13 * MS, 5, "/missing");
	io_end(t, 13 * MS + MS / 2, 100, 101, KATRA_KIND_FILE_OPEN, 5, 257, -2, 0);
	tb_syscall_begin(t, 20 * MS, 200, 201, KATRA_KIND_SYSCALL, 11, 231);
	e = tb_ev(t, 21 * MS, 200, 201, KATRA_KIND_SYSCALL, KATRA_PHASE_END, 11);
	e->confidence = KATRA_CONFIDENCE_INFERRED;
	io(t, 22 * MS, 200, 201, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 12, 0);
	t->r[t->n - 1].u.event.resource.domain = KATRA_RES_NONE;
	e = tb_ev(t, 22 * MS + MS / 2, 200, 201, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 12);
	e->confidence = KATRA_CONFIDENCE_INFERRED;
	tb_switch(t, 23 * MS, 200, 201, KATRA_PHASE_BEGIN, 13, 2);
	tb_switch(t, 23 * MS + 7 * MS / 10, 200, 201, KATRA_PHASE_END, 13, 0);
	tb_epoch(t, 24 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	write_with_paths(t, true);
}

/* stats with o on the views trace: the text after the four head lines
 * (JSON: the keys after the head keys) must equal want. */
static void expect_stats(const struct katra_stats_opts *o, const char *want)
{
	struct tb t;
	struct outcap out, err;
	const char *b;

	tb_init(&t);
	views_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, o, err.f), 0, "%s", oc_text(&err));
	b = oc_text(&out);
	if (o->json) {
		b = strstr(b, "\"error\":null");
		cr_assert_not_null(b, "%s", oc_text(&out));
		b += strlen("\"error\":null");
	} else {
		for (int i = 0; i < 4; i++)
			b = strchr(b, '\n') + 1;
	}
	cr_assert_str_eq(b, want);
	cr_assert_str_eq(oc_text(&err), "");
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

static const char sys_rule[] =
	"------ ----------- ----------- ----------- --------- --------- ----------------\n";
static const char sys_head[] =
	"% time     seconds  usecs/call   max usecs     calls    errors syscall\n";

Test(stats_views, syscall_table_like_strace_c)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_SYSCALLS };
	char want[2048];

	snprintf(want, sizeof(want),
		 "\nsyscalls (wall time from entry to return, blocking included: like strace -c -w)\n"
		 "%s%s"
		 " 45.20    0.008000        4000        6000         2           read\n"
		 " 35.03    0.006200        6200        6200         1           futex\n"
		 "  8.47    0.001500         750        1000         2         1 openat\n"
		 "  5.65    0.001000        1000        1000         1           exit_group\n"
		 "  2.82    0.000500         250         400         2         1 write\n"
		 "  2.82    0.000500         500         500         1           (FileRead)\n"
		 "%s"
		 "100.00    0.017700        1966        6200         9         2 total\n"
		 "  (1 syscall returns without a Begin are not timed: in flight at capture start,\n"
		 "   or a new child's return from fork)\n",
		 sys_head, sys_rule, sys_rule);
	expect_stats(&o, want);
}

Test(stats_views, syscall_table_per_process)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_SYSCALLS, .per_process = true };
	char want[2048];

	snprintf(want, sizeof(want),
		 "\nprocess 100(game): 5 syscalls, 0.015700 s (wall time from entry to return)\n"
		 "%s%s"
		 " 50.96    0.008000        4000        6000         2           read\n"
		 " 39.49    0.006200        6200        6200         1           futex\n"
		 "  9.55    0.001500         750        1000         2         1 openat\n"
		 "%s"
		 "100.00    0.015700        3140        6200         5         1 total\n"
		 "\nprocess 200(tool): 4 syscalls, 0.002000 s (wall time from entry to return)\n"
		 "%s%s"
		 " 50.00    0.001000        1000        1000         1           exit_group\n"
		 " 25.00    0.000500         250         400         2         1 write\n"
		 " 25.00    0.000500         500         500         1           (FileRead)\n"
		 "%s"
		 "100.00    0.002000         500        1000         4         1 total\n"
		 "  (1 syscall returns without a Begin are not timed: in flight at capture start,\n"
		 "   or a new child's return from fork)\n",
		 sys_head, sys_rule, sys_rule, sys_head, sys_rule, sys_rule);
	expect_stats(&o, want);
}

Test(stats_views, files_with_the_path_an_open_named)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_FILES };

	expect_stats(&o,
		"\nfiles (read/write syscall spans per file identity; bytes = what the calls "
		"returned)\n"
		"    I/O time    reads   bytes read   writes bytes written  opens  file\n"
		"    8.000 ms        2          150        0            0      1  "
		"\"/game/data.pak\" File:10106461514007918706\n"
		"  500.000 us        0            0        2         4096      0  File:42\n");
}

Test(stats_views, off_cpu_charged_to_the_syscall_and_resource)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_OFFCPU };

	expect_stats(&o,
		"\noff-CPU time by thread and reason (OffCpu spans; the letter is the task state "
		"the thread left the CPU in)\n"
		"       tid  process                       off-CPU    count          max  why\n"
		"       102  100(game)                    6.000 ms        1     6.000 ms  "
		"S sleeping in futex on Futex:0x7f0000001000\n"
		"       102  100(game)                  300.000 us        1   300.000 us  "
		"R preempted\n"
		"       101  100(game)                    5.000 ms        1     5.000 ms  "
		"S sleeping in read on \"/game/data.pak\" File:10106461514007918706\n"
		"       201  200(tool)                  700.000 us        1   700.000 us  "
		"D uninterruptible outside a syscall\n");
}

Test(stats_views, top_spans_longest_first)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_TOP, .top = 4 };

	expect_stats(&o,
		"\nlongest spans (4 of any kind, longest first; start = seconds since capture start)\n"
		"    duration        start  process                         tid  kind         what\n"
		"    6.200 ms  0.002000000  100(game)                       102  Futex        "
		"futex on Futex:0x7f0000001000\n"
		"    6.000 ms  0.002100000  100(game)                       102  OffCpu       "
		"S sleeping in futex on Futex:0x7f0000001000\n"
		"    6.000 ms  0.004000000  100(game)                       101  FileRead     "
		"read on \"/game/data.pak\" File:10106461514007918706\n"
		"    5.000 ms  0.004500000  100(game)                       101  OffCpu       "
		"S sleeping in read on \"/game/data.pak\" File:10106461514007918706\n");
}

Test(stats_views, json_views)
{
	struct katra_stats_opts o = { .json = true,
				      .views = KATRA_STATS_FILES | KATRA_STATS_OFFCPU |
					       KATRA_STATS_TOP,
				      .top = 2 };

	expect_stats(&o,
		",\"files\":[{\"domain\":\"File\",\"id\":\"10106461514007918706\","
		"\"name\":\"File:10106461514007918706\",\"path\":\"/game/data.pak\",\"opens\":1,\"reads\":2,\"read_bytes\":150,"
		"\"read_ns\":8000000,\"writes\":0,\"write_bytes\":0,\"write_ns\":0,"
		"\"io_ns\":8000000},{\"domain\":\"File\",\"id\":\"42\",\"name\":\"File:42\",\"path\":null,\"opens\":0,"
		"\"reads\":0,\"read_bytes\":0,\"read_ns\":0,\"writes\":2,\"write_bytes\":4096,"
		"\"write_ns\":500000,\"io_ns\":500000}],\"files_overflow\":0,"
		"\"off_cpu\":[{\"thread_id\":102,\"process_id\":100,\"process_name\":\"game\","
		"\"reason\":\"syscall\",\"state\":\"S\",\"syscall\":\"futex\",\"resource\":"
		"{\"domain\":\"Futex\",\"id\":\"139637976731648\",\"name\":\"Futex:0x7f0000001000\"},"
		"\"several_resources\":false,"
		"\"count\":1,\"total_ns\":6000000,\"max_ns\":6000000},"
		"{\"thread_id\":102,\"process_id\":100,\"process_name\":\"game\","
		"\"reason\":\"preempted\",\"state\":\"R\",\"syscall\":null,\"resource\":null,"
		"\"several_resources\":false,\"count\":1,\"total_ns\":300000,\"max_ns\":300000},"
		"{\"thread_id\":101,\"process_id\":100,\"process_name\":\"game\","
		"\"reason\":\"syscall\",\"state\":\"S\",\"syscall\":\"read\",\"resource\":"
		"{\"domain\":\"File\",\"id\":\"10106461514007918706\","
		"\"name\":\"File:10106461514007918706\",\"path\":\"/game/data.pak\"},"
		"\"several_resources\":false,\"count\":1,\"total_ns\":5000000,\"max_ns\":5000000},"
		"{\"thread_id\":201,\"process_id\":200,\"process_name\":\"tool\","
		"\"reason\":\"other\",\"state\":\"D\",\"syscall\":null,\"resource\":null,"
		"\"several_resources\":false,\"count\":1,\"total_ns\":700000,\"max_ns\":700000}],\"off_cpu_overflow\":0,"
		"\"off_cpu_inferred_left_out\":0,"
		"\"top\":[{\"dur_ns\":6200000,\"begin_ts_mono_ns\":2000000,\"thread_id\":102,"
		"\"process_id\":100,\"process_name\":\"game\",\"kind\":\"Futex\","
		"\"syscall\":\"futex\",\"state\":null,\"resource\":{\"domain\":\"Futex\","
		"\"id\":\"139637976731648\",\"name\":\"Futex:0x7f0000001000\"}},"
		"{\"dur_ns\":6000000,\"begin_ts_mono_ns\":2100000,\"thread_id\":102,"
		"\"process_id\":100,\"process_name\":\"game\",\"kind\":\"OffCpu\","
		"\"syscall\":\"futex\",\"state\":\"S\",\"resource\":{\"domain\":\"Futex\","
		"\"id\":\"139637976731648\",\"name\":\"Futex:0x7f0000001000\"}}]}\n");
}

Test(stats_views, json_syscalls_per_process)
{
	struct katra_stats_opts o = { .json = true, .views = KATRA_STATS_SYSCALLS,
				      .per_process = true };
	struct tb t;
	struct outcap out, err;
	const char *b;

	tb_init(&t);
	views_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0);
	b = oc_text(&out);
	cr_assert_not_null(strstr(b, ",\"syscalls\":{\"total_ns\":17700000,\"rows\":["
				  "{\"syscall\":\"read\",\"nr\":0,\"calls\":2,\"errors\":0,"
				  "\"total_ns\":8000000,\"avg_ns\":4000000,\"max_ns\":6000000,"
				  "\"percent_time\":45.20},"), "%s", b);
	cr_assert_not_null(strstr(b, "{\"syscall\":\"(FileRead)\",\"nr\":null,\"calls\":1,"
				  "\"errors\":0,\"total_ns\":500000,\"avg_ns\":500000,"
				  "\"max_ns\":500000,\"percent_time\":2.82}],\"untimed\":1,"
				  "\"overflow\":0}"), "%s", b);
	cr_assert_not_null(strstr(b, ",\"syscalls_by_process\":[{\"process_id\":100,"
				  "\"process_name\":\"game\",\"total_ns\":15700000,\"rows\":["
				  "{\"syscall\":\"read\","), "%s", b);
	cr_assert_not_null(strstr(b, "{\"process_id\":200,\"process_name\":\"tool\","
				  "\"total_ns\":2000000,\"rows\":[{\"syscall\":\"exit_group\","
				  "\"nr\":231,\"calls\":1,"), "%s", b);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* Frees the last run's outputs and runs stats again with o. */
static const char *rerun(struct tb *t, struct katra_stats_opts *o, struct outcap *out,
			 struct outcap *err)
{
	oc_free(out);
	oc_free(err);
	oc_open(out);
	oc_open(err);
	cr_assert_eq(katra_stats_with(t->path, out->f, o, err->f), 0);
	return oc_text(out);
}

/* The views trace's stats for the window 4 ms to 10 ms (t, out and err
 * opened: the caller frees them). */
static const char *stats_4_to_10_ms(struct tb *t, struct katra_stats_opts *o,
				    struct outcap *out, struct outcap *err)
{
	tb_init(t);
	views_trace(t);
	o->from = (struct katra_dump_when){ true, NULL, 4 * MS };
	o->to = (struct katra_dump_when){ true, NULL, 10 * MS };
	oc_open(out);
	oc_open(err);
	cr_assert_eq(katra_stats_with(t->path, out->f, o, err->f), 0);
	return oc_text(out);
}

Test(stats_views, window_in_seconds_and_missing_epoch)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_SYSCALLS };
	struct tb t;
	struct outcap out, err;
	const char *b;

	/* a window from 4 ms to 10 ms: only the second read and the writes are
	 * whole inside it (window by epoch name: the dump tests and below) */
	b = stats_4_to_10_ms(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, " 92.31    0.006000        6000        6000         1"
				  "           read\n"), "%s", b);
	cr_assert_not_null(strstr(b, "  7.69    0.000500         250         400         2"
				  "         1 write\n"), "%s", b);
	/* the spans the window cut: the first read's Begin and the futex's End */
	cr_assert_not_null(strstr(b, "(views: 2 Ends without a Begin"), "%s", b);
	cr_assert_null(strstr(b, "futex"), "%s", b);
	oc_free(&out);
	oc_free(&err);
	o.from = (struct katra_dump_when){ true, "no such mark", 0 };
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 1);
	cr_assert_not_null(strstr(oc_text(&err), "katra-replay: stats: '"));
	cr_assert_not_null(strstr(oc_text(&err), "has no EpochMarker named 'no such mark'"));
	cr_assert_str_eq(oc_text(&out), "", "no stats of an empty window after the error");
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* Without --paths a file is only an identity: the views say once how to get
 * its name; with --paths (the views trace) they do not. */
Test(stats_views, files_without_paths_say_how_to_get_names)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_FILES | KATRA_STATS_OFFCPU };
	struct tb t;
	struct outcap out, err;
	const char *b, *note = "\n(files show as File:N, an identity without a name: paths are "
			       "recorded only by katra-record --paths, and this capture was made "
			       "without it)\n";

	tb_init(&t);
	views_trace(&t);
	oc_open(&out);
	oc_open(&err);
	b = rerun(&t, &o, &out, &err);
	cr_assert_null(strstr(b, "--paths"), "%s", b);
	write_with_paths(&t, false);
	b = rerun(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, note), "%s", b);
	cr_assert_eq(strstr(b, note), strrchr(b, '(') - 1, "once, after the views: %s", b);
	o.views = KATRA_STATS_SYSCALLS;
	b = rerun(&t, &o, &out, &err);
	cr_assert_null(strstr(b, "--paths"), "no file listed, no note: %s", b);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* A view with nothing in a --from/--to window says "in this window" and
 * which; "in this trace" without one.  --top N says how many it lists. */
Test(stats_views, empty_views_name_the_window)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_CALLS | KATRA_STATS_OFFCPU |
					       KATRA_STATS_TOP, .top = 10 };
	struct tb t;
	struct outcap out, err;
	const char *b;

	b = stats_4_to_10_ms(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, "(no Wine or Vulkan calls in this window (--from "
				  "0.004000000 --to 0.010000000))\n"), "%s", b);
	cr_assert_null(strstr(b, "in this trace"), "%s", b);
	cr_assert_not_null(strstr(b, "\nlongest spans (5 of any kind, longest first;"), "%s", b);
	o.from = (struct katra_dump_when){ true, "capture start", 0 };
	o.to = (struct katra_dump_when){ 0 };
	b = rerun(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, "(no Wine or Vulkan calls in this window (--from "
				  "\"capture start\"))\n"), "%s", b);
	o.from = (struct katra_dump_when){ 0 };
	b = rerun(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, "(no Wine or Vulkan calls in this trace)\n"), "%s", b);
	cr_assert_not_null(strstr(b, "\nlongest spans (10 of any kind, longest first;"), "%s", b);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* ---- the bounded map under the views ---- */

Test(stats_xmap, matches_a_plain_array_and_refuses_beyond_its_bound)
{
	enum { KEYS = 3000 };
	static bool present[KEYS];
	struct kr_xmap m;
	unsigned seed = 777;
	size_t live = 0;
	bool created;

	memset(present, 0, sizeof(present));
	kr_xmap_init(&m, 16, 24, KEYS);
	for (unsigned step = 0; step < 100000; step++) {
		uint64_t k[2], *v;

		seed = seed * 1103515245u + 12345u;
		k[0] = (seed >> 8) % KEYS;
		k[1] = ~k[0];
		v = kr_xmap_find(&m, k);
		cr_assert_eq(v != NULL, present[k[0]], "step %u", step);
		if (v) {
			cr_assert_eq(v[0], k[0] * 5);
			cr_assert_eq(v[2], 9);
			cr_assert_eq(((const uint64_t *)kr_xmap_key(&m, v))[1], ~k[0]);
			kr_xmap_remove(&m, v);
			present[k[0]] = false;
			live--;
		} else {
			v = kr_xmap_get(&m, k, &created);
			cr_assert_not_null(v);
			cr_assert(created);
			cr_assert_eq(v[0] | v[1] | v[2], 0, "a new value is zeroed");
			v[0] = k[0] * 5;
			v[2] = 9;
			present[k[0]] = true;
			live++;
		}
		cr_assert_eq(m.len, live);
	}
	kr_xmap_free(&m);
	kr_xmap_init(&m, 8, 8, 2);
	for (uint64_t k = 0; k < 2; k++)
		cr_assert_not_null(kr_xmap_get(&m, &k, &created));
	{
		uint64_t k = 99;

		cr_assert_null(kr_xmap_get(&m, &k, &created));
		k = 1;
		cr_assert_not_null(kr_xmap_get(&m, &k, &created));
		cr_assert_not(created);
	}
	kr_xmap_free(&m);
}

/* Reads of two files, blocked 1 ms on File:7 then 3 ms on File:8: one row
 * for (thread, D, read) naming the resource of the longest span. */
Test(stats_views, off_cpu_row_over_several_resources_names_the_longest)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_OFFCPU };
	struct tb t;
	struct outcap out, err;
	const char *b;

	tb_init(&t);
	io(&t, 1 * MS, 5, 5, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1, 7);
	tb_switch(&t, 1 * MS, 5, 5, KATRA_PHASE_BEGIN, 2, 2);
	tb_switch(&t, 2 * MS, 5, 5, KATRA_PHASE_END, 2, 0);
	io_end(&t, 2 * MS, 5, 5, KATRA_KIND_FILE_READ, 1, 0, 1, 7);
	io(&t, 3 * MS, 5, 5, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 3, 8);
	tb_switch(&t, 3 * MS, 5, 5, KATRA_PHASE_BEGIN, 4, 2);
	tb_switch(&t, 6 * MS, 5, 5, KATRA_PHASE_END, 4, 0);
	io_end(&t, 6 * MS, 5, 5, KATRA_KIND_FILE_READ, 3, 0, 1, 8);
	tb_write(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0);
	b = oc_text(&out);
	cr_assert_not_null(strstr(b, "\n         5  5                            4.000 ms        2"
				  "     3.000 ms  D uninterruptible in read, longest on File:8\n"),
			   "%s", b);
	o.json = true;
	rerun(&t, &o, &out, &err);
	cr_assert_not_null(strstr(oc_text(&out), "\"resource\":{\"domain\":\"File\",\"id\":\"8\",\"name\":\"File:8\"},"
				  "\"several_resources\":true,\"count\":2,\"total_ns\":4000000,"
				  "\"max_ns\":3000000}"), "%s", oc_text(&out));
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* An OffCpu End the recorder inferred (switch-in not seen) measures nothing:
 * left out of off-CPU time and of the longest spans, and counted. */
Test(stats_views, inferred_off_cpu_end_is_left_out)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_OFFCPU | KATRA_STATS_TOP, .top = 5 };
	struct tb t;
	struct outcap out, err;
	const char *b;

	tb_init(&t);
	tb_switch(&t, 1 * MS, 5, 5, KATRA_PHASE_BEGIN, 1, 1);
	tb_switch(&t, 900 * MS, 5, 5, KATRA_PHASE_END, 1, 0)->confidence =
		KATRA_CONFIDENCE_INFERRED;
	tb_switch(&t, 901 * MS, 5, 5, KATRA_PHASE_BEGIN, 2, 1);
	tb_switch(&t, 903 * MS, 5, 5, KATRA_PHASE_END, 2, 0);
	tb_write(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0);
	b = oc_text(&out);
	cr_assert_not_null(strstr(b, "         5  5                            2.000 ms        1"
				  "     2.000 ms  S sleeping outside a syscall\n"
				  "  (1 OffCpu spans whose switch-in was not seen, with an inferred "
				  "End, are left out)\n"), "%s", b);
	cr_assert_null(strstr(b, "899.000 ms"), "%s", b);
	cr_assert_not_null(strstr(b, "    2.000 ms  0.901000000  5 "), "%s", b);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* A window keeps the names given before it (ProcessInfo at 0.1 ms)
 * and says its own length (4 ms to 10 ms: 6 ms) beside the capture's. */
Test(stats_views, window_keeps_process_names_and_says_its_own_length)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_OVERVIEW | KATRA_STATS_SYSCALLS,
				      .per_process = true };
	struct tb t;
	struct outcap out, err;
	const char *b;

	b = stats_4_to_10_ms(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, "\nduration   0.006000000 s (--from/--to: records from "
				  "4.000 ms to 10.000 ms), the whole capture 0.024000000 s\n"),
			   "%s", b);
	cr_assert_not_null(strstr(b, "\nprocess 100(game): "), "%s", b);
	cr_assert_not_null(strstr(b, "\nprocess 200(tool): "), "%s", b);
	o.json = true;
	b = rerun(&t, &o, &out, &err);
	cr_assert_not_null(strstr(b, "\"duration_ns\":6000000,\"windowed\":true,"
				  "\"capture_duration_ns\":24000000,"), "%s", b);
	cr_assert_not_null(strstr(b, "\"process_name\":\"game\""), "%s", b);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}
