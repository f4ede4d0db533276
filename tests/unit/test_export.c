// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay export: the Chrome JSON writer's number format, the exact
 * output for a tiny trace built with the format library (names, a syscall
 * span, off-CPU with its reason and the wakeup's flow arrow, an instant, a
 * counter, epochs), and the filters (--pid, --from/--to with cut spans,
 * epoch names). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format_test_util.h"
#include "replay/export/chrome.h"
#include "replay/export/export.h"

static char *us(uint64_t ns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kr_chrome_us(f, ns);
	fclose(f);
	return buf;
}

/* Microseconds in 1/1024 us steps (binary fractions, exact in a viewer's
 * doubles), within 0.49 ns of the time: round(us * 1000) is the ns again. */
Test(export_chrome, microseconds_in_binary_fractions)
{
	const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "0" }, { 7, "0.0068359375" }, { 500, "0.5" }, { 999, "0.9990234375" },
		{ 1000, "1" }, { 1234567, "1234.5673828125" }, { 1999, "1.9990234375" },
		{ 18446744073709551615ull, "18446744073709551.615234375" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = us(cases[i].ns);

		cr_assert_str_eq(s, cases[i].s);
		free(s);
	}
}

/* The dur of a slice, as written. */
static double dur_of(uint64_t start, uint64_t end)
{
	struct kr_chrome w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double d;

	w.f = f;
	w.comma = false;
	kr_chrome_dur(&w, start, end);
	fclose(f);
	cr_assert_eq(strncmp(buf, "\"dur\":", 6), 0, "%s", buf);
	d = strtod(buf + 6, NULL);
	free(buf);
	return d;
}

/* Seen in speedscope (t_export_viewer, once under load): an off-CPU slice
 * inferred to end where the sleep around it ends; with decimal ns fractions
 * the viewer's ts + dur of the two differed by a rounding, it closed the
 * sleep first and left it open.  Every slice ending at a time ends there bit
 * for bit, however it started. */
Test(export_chrome, slices_that_end_together_end_at_the_same_double)
{
	const uint64_t ends[] = { 123456789, 4000000007, 9876543210987 };

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		char *e = us(ends[i]);
		double end = strtod(e, NULL);

		free(e);
		for (uint64_t start = ends[i] - 100000; start < ends[i]; start += 37) {
			char *b = us(start);
			double sum = strtod(b, NULL) + dur_of(start, ends[i]);

			free(b);
			cr_assert(sum == end, "start %llu end %llu: %.17g != %.17g",
				  (unsigned long long)start, (unsigned long long)ends[i], sum, end);
		}
	}
}

Test(export_chrome, empty_trace_is_valid_json)
{
	struct kr_chrome w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kr_chrome_begin(&w, f);
	kr_chrome_other_data(&w);
	kr_chrome_u64(&w, "spans", 0);
	kr_chrome_finish(&w);
	fclose(f);
	cr_assert_str_eq(buf, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
			      "],\"otherData\":{\"spans\":0}}\n");
	free(buf);
}

/* ---- a tiny trace ---- */

#define PID 100
#define MAIN 100
#define WORKER 101

static struct katra_record e(uint64_t seq, uint64_t ts, uint64_t pid, uint64_t tid,
			     uint32_t kind, uint32_t phase, int64_t span)
{
	struct katra_record r = mk_event(seq, ts, tid, phase, span);

	r.u.event.process_id = pid;
	r.u.event.kind = kind;
	return r;
}

/* seq: 0 epoch start; 1 ProcessInfo; 2-3 getppid span on MAIN; 4 OffCpu
 * Begin on MAIN (blocked); 5 Wakeup of MAIN by WORKER; 6 OffCpu End (causes
 * Begin, Wakeup); 7 a PageFault instant; 8 counter; 9 a Futex Begin on
 * WORKER never ended; 10 epoch "mark 1"; 11 FileRead span on another
 * process; 12 capture end. */
static size_t tiny(struct katra_record *r)
{
	static const uint64_t c_end[] = { 2 }, c_off[] = { 4, 5 };
	size_t n = 0;

	r[n++] = mk_epoch(0, 0, "capture start");
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_START;
	r[n++] = e(1, 1000, PID, MAIN, KATRA_KIND_PROCESS_INFO, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_KATRA;
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_PROCESS_INFO;
	r[n - 1].u.event.payload.u.process_info.comm = katra_cstr("tiny");
	r[n - 1].u.event.payload.u.process_info.exe_path =
		(struct katra_opt_str){ true, katra_cstr("/bin/tiny") };
	r[n - 1].u.event.payload.u.process_info.origin = KATRA_ORIGIN_COMMAND;
	r[n++] = e(2, 2000, PID, MAIN, KATRA_KIND_SYSCALL, KATRA_PHASE_BEGIN, 1);
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_SYSCALL;
	r[n - 1].u.event.payload.u.syscall.nr = 110;
	r[n++] = e(3, 2500, PID, MAIN, KATRA_KIND_SYSCALL, KATRA_PHASE_END, 1);
	r[n - 1].u.event.causes = (struct katra_u64_vec){ c_end, 1 };
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_SYSCALL_RETURN;
	r[n - 1].u.event.payload.u.syscall_return.nr = 110;
	r[n - 1].u.event.payload.u.syscall_return.ret = 1;
	r[n++] = e(4, 3000, PID, MAIN, KATRA_KIND_OFF_CPU, KATRA_PHASE_BEGIN, 2);
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_SWITCH;
	r[n - 1].u.event.payload.u.sched_switch.prev_state = 1;
	r[n++] = e(5, 4000, PID, WORKER, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.resource = (struct katra_resource){ KATRA_RES_THREAD, MAIN };
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_WAKEUP;
	r[n - 1].u.event.payload.u.wakeup.target_tid = MAIN;
	r[n - 1].u.event.payload.u.wakeup.target_pid = PID;
	r[n++] = e(6, 4200, PID, MAIN, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 2);
	r[n - 1].u.event.causes = (struct katra_u64_vec){ c_off, 2 };
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_SWITCH;
	r[n - 1].u.event.payload.u.sched_switch.cpu = 1;
	r[n++] = e(7, 4300, PID, MAIN, KATRA_KIND_PAGE_FAULT, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.resource = (struct katra_resource){ KATRA_RES_MEMORY, 0x1000 };
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_PAGE_FAULT;
	r[n - 1].u.event.payload.u.page_fault.address = 0x1000;
	r[n++] = mk_counter(8, 5000);
	r[n - 1].u.counter.value = 7;
	r[n++] = e(9, 6000, PID, WORKER, KATRA_KIND_FUTEX, KATRA_PHASE_BEGIN, 3);
	r[n++] = mk_epoch(10, 7000, "mark 1");
	r[n - 1].u.epoch.epoch = 1;
	r[n - 1].u.epoch.kind = KATRA_EPOCH_SIGNAL;
	r[n++] = e(11, 8000, 200, 200, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 4);
	r[n++] = e(12, 9000, 200, 200, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 4);
	r[n++] = mk_epoch(13, 10000, "capture end");
	r[n - 1].u.epoch.epoch = 2;
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_END;
	return n;
}

/* Exports the trace build() makes from a file named tiny.ktrc in a fresh
 * directory (so the path in otherData is always the same). */
static char *export_built(size_t (*build)(struct katra_record *), const struct kx_options *opt,
			  int *ret, char **err)
{
	struct katra_record r[32];
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct tbuf b = { 0 };
	char dir[64], cwd[512], *out = NULL, *ebuf = NULL;
	size_t n = build(r), len = 0, elen = 0;
	FILE *f, *ef;

	r[n] = mk_summary(r, n, kinds);
	tbuf_trace(&b, r, n + 1, NULL);
	temp_dir(dir, sizeof(dir));
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	write_file("tiny.ktrc", b.p, b.len);
	f = open_memstream(&out, &len);
	ef = open_memstream(&ebuf, &elen);
	*ret = katra_export_chrome("tiny.ktrc", opt, f, ef);
	fclose(f);
	fclose(ef);
	cr_assert_eq(chdir(cwd), 0);
	temp_dir_remove(dir);
	tbuf_free(&b);
	if (err)
		*err = ebuf;
	else
		free(ebuf);
	return out;
}

static char *export_tiny(const struct kx_options *opt, int *ret, char **err)
{
	return export_built(tiny, opt, ret, err);
}

static const char tiny_expected[] =
"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
"{\"ph\":\"M\",\"pid\":4242,\"tid\":4242,\"name\":\"process_name\",\"args\":{\"name\":\"katra-record\"}},\n"
"{\"ph\":\"i\",\"pid\":4242,\"tid\":4242,\"ts\":0,\"s\":\"g\",\"name\":\"capture start\",\"cat\":\"epoch\",\"args\":{\"seq\":0,\"epoch\":0,\"kind\":\"CaptureStart\"}},\n"
"{\"ph\":\"M\",\"pid\":100,\"tid\":100,\"name\":\"process_name\",\"args\":{\"name\":\"tiny\"}},\n"
"{\"ph\":\"M\",\"pid\":100,\"tid\":100,\"name\":\"thread_name\",\"args\":{\"name\":\"tiny\"}},\n"
"{\"ph\":\"i\",\"pid\":100,\"tid\":100,\"ts\":1,\"s\":\"t\",\"name\":\"ProcessInfo\",\"cat\":\"Katra\",\"args\":{\"seq\":1,\"comm\":\"tiny\",\"exe_path\":\"/bin/tiny\",\"windows_image\":null,\"origin\":\"Command\"}},\n"
"{\"ph\":\"X\",\"pid\":100,\"tid\":100,\"ts\":2,\"dur\":0.5,\"name\":\"getppid\",\"cat\":\"Linux\",\"args\":{\"seq\":2,\"end_seq\":3,\"span\":1,\"nr\":110,\"ret\":1}},\n"
"{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"ts\":4,\"dur\":0,\"bind_id\":5,\"flow_out\":true,\"name\":\"Wakeup\",\"cat\":\"Linux\",\"args\":{\"seq\":5,\"resource\":\"Thread:100\",\"target_tid\":100,\"target_pid\":100,\"target_cpu\":0}},\n"
"{\"ph\":\"X\",\"pid\":100,\"tid\":100,\"ts\":3,\"dur\":1.2001953125,\"name\":\"off-CPU: blocked\",\"cat\":\"Linux\",\"args\":{\"seq\":4,\"end_seq\":6,\"span\":2,\"reason\":\"blocked\",\"cpu\":0,\"prev_state\":1,\"cpu_in\":1}},\n"
"{\"ph\":\"X\",\"pid\":100,\"tid\":100,\"ts\":4.2001953125,\"dur\":0,\"bind_id\":5,\"flow_in\":true,\"name\":\"Wakeup -> OffCpu\",\"cat\":\"flow\",\"args\":{\"from_seq\":5,\"to_seq\":6}},\n"
"{\"ph\":\"i\",\"pid\":100,\"tid\":100,\"ts\":4.2998046875,\"s\":\"t\",\"name\":\"PageFault\",\"cat\":\"Linux\",\"args\":{\"seq\":7,\"resource\":\"Memory:0x1000\",\"address\":\"4096\",\"ip\":\"0\",\"error_code\":0}},\n"
"{\"ph\":\"C\",\"pid\":4242,\"tid\":4242,\"ts\":5,\"name\":\"EventsRecorded\",\"cat\":\"katra\",\"args\":{\"value\":7}},\n"
"{\"ph\":\"i\",\"pid\":4242,\"tid\":4242,\"ts\":7,\"s\":\"g\",\"name\":\"mark 1\",\"cat\":\"epoch\",\"args\":{\"seq\":10,\"epoch\":1,\"kind\":\"Signal\"}},\n"
"{\"ph\":\"M\",\"pid\":200,\"tid\":200,\"name\":\"process_name\",\"args\":{\"name\":\"pid 200\"}},\n"
"{\"ph\":\"X\",\"pid\":200,\"tid\":200,\"ts\":8,\"dur\":1,\"name\":\"FileRead\",\"cat\":\"Linux\",\"args\":{\"seq\":11,\"end_seq\":12,\"span\":4}},\n"
"{\"ph\":\"i\",\"pid\":4242,\"tid\":4242,\"ts\":10,\"s\":\"g\",\"name\":\"capture end\",\"cat\":\"epoch\",\"args\":{\"seq\":13,\"epoch\":2,\"kind\":\"CaptureEnd\"}},\n"
"{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"ts\":6,\"dur\":4,\"name\":\"Futex\",\"cat\":\"Linux\",\"args\":{\"seq\":9,\"span\":3,\"unfinished\":true}}\n"
"],\"otherData\":{\"source\":\"katra-replay export\",\"trace\":\"tiny.ktrc\",\"workload\":\"sample\","
"\"tool_version\":\"katra-sample 0.1.0\",\"start_wall_ns\":\"1700000000000000000\",\"spans\":4,"
"\"instants\":3,\"flows\":1,\"flows_lost\":0,\"counters\":1,\"epochs\":3,\"frames\":0,\"fences\":0,\"vblanks\":0,\"spans_unfinished\":1,"
"\"span_table_full\":0,\"unmatched_ends\":0,\"events_after_exit\":0}}\n";

Test(export_tiny, exact_output)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_tiny(&opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_str_eq(out, tiny_expected);
	free(out);
}

Test(export_tiny, output_is_json_for_python)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_tiny(&opt, &ret, NULL);
	FILE *p = popen("python3 -c 'import json,sys; d=json.load(sys.stdin); "
			"sys.exit(0 if len(d[\"traceEvents\"]) == 16 else 3)'", "w");

	cr_assert_not_null(p);
	fputs(out, p);
	cr_assert_eq(pclose(p), 0, "python3 json.load refused the export");
	free(out);
}

Test(export_tiny, pid_filter_keeps_one_process)
{
	struct kx_options opt = { .npids = 1, .pids = { 200 } };
	int ret;
	char *out = export_tiny(&opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_null(strstr(out, "\"pid\":100,"), "%s", out);
	cr_assert_not_null(strstr(out, "\"name\":\"FileRead\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"name\":\"capture start\""), "epochs stay: %s", out);
	free(out);
}

Test(export_tiny, time_window_cuts_spans_at_its_bounds)
{
	struct kx_options opt = { .from = { .set = true, .ns = 3500 },
				  .to = { .set = true, .ns = 8500 } };
	int ret;
	char *out = export_tiny(&opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_null(strstr(out, "getppid"), "before the window: %s", out);
	cr_assert_not_null(strstr(out, "\"ts\":3.5,\"dur\":0.7001953125,\"name\":\"off-CPU: blocked\""),
			   "%s", out);
	cr_assert_not_null(strstr(out, "\"ts\":8,\"dur\":0.5,\"name\":\"FileRead\""), "%s",
			   out);
	cr_assert_not_null(strstr(out, "\"ts\":6,\"dur\":2.5,\"name\":\"Futex\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"clipped\":true"), "%s", out);
	cr_assert_null(strstr(out, "capture end"), "%s", out);
	free(out);
}

Test(export_tiny, epoch_names_as_bounds)
{
	struct kx_options opt = { .from = { .set = true, .by_epoch = true, .epoch = "mark 1" } };
	int ret;
	char *out = export_tiny(&opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_null(strstr(out, "getppid"), "%s", out);
	cr_assert_not_null(strstr(out, "\"name\":\"mark 1\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"ts\":7,\"dur\":3,\"name\":\"Futex\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"from_ns\":7000"), "%s", out);
	free(out);
}

Test(export_tiny, unknown_epoch_is_an_error_with_valid_json)
{
	struct kx_options opt = { .to = { .set = true, .by_epoch = true, .epoch = "nope" } };
	int ret;
	char *err;
	char *out = export_tiny(&opt, &ret, &err);

	cr_assert_eq(ret, 1);
	cr_assert_str_eq(err, "katra-replay: export: --to: no epoch named 'nope' in 'tiny.ktrc'\n");
	cr_assert_not_null(strstr(out, "\"otherData\""), "%s", out);
	free(out);
	free(err);
}

Test(export_tiny, no_args_leaves_details_out)
{
	struct kx_options opt = { .no_args = true };
	int ret;
	char *out = export_tiny(&opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":100,\"ts\":2,"
					"\"dur\":0.5,\"name\":\"getppid\",\"cat\":\"Linux\"}"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "\"bind_id\":5,\"flow_in\":true"), "flows stay: %s", out);
	free(out);
}

/* The tiny trace and one event outside the traced set (pid 0). */
/* tiny with the stacks of MAIN's off-CPU interval (3000, 1200 ns) and of
 * its getppid (2000, 500 ns), after the events as katra-record writes them */
static size_t tiny_stacks(struct katra_record *r)
{
	static const struct katra_stack_frame f1[] = { { 1, 0x10 }, { 1, 0x20 } };
	static const struct katra_stack_frame f2[] = { { 0, 0x7000 } };
	size_t n = tiny(r);

	r[n].type = KATRA_RECORD_MODULE;
	r[n++].u.module = (struct katra_module){ .id = 1, .name = katra_cstr("game"),
						 .build_id = katra_cstr("ab12") };
	r[n].type = KATRA_RECORD_STACK;
	r[n++].u.stack = (struct katra_stack){ 1, f1, 2, { NULL, 0 }, false };
	r[n].type = KATRA_RECORD_STACK;
	r[n++].u.stack = (struct katra_stack){ 2, f2, 1, { NULL, 0 }, false };
	r[n].type = KATRA_RECORD_STACK_OF;
	r[n++].u.stack_of = (struct katra_stack_of){ 1, MAIN, PID, 3000, 1200, KATRA_SITE_OFF_CPU };
	r[n].type = KATRA_RECORD_STACK_OF;
	r[n++].u.stack_of = (struct katra_stack_of){ 2, MAIN, PID, 2000, 500, KATRA_SITE_SYSCALL };
	return n;
}

Test(export_tiny, stacks_on_the_off_cpu_and_syscall_slices)
{
	struct kx_options opt = { .stacks = true };
	int ret;
	char *out = export_built(tiny_stacks, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "\"name\":\"off-CPU: blocked\",\"cat\":\"Linux\",\"args\":"
				       "{\"seq\":4,\"end_seq\":6,\"span\":2,\"reason\":\"blocked\","
				       "\"cpu\":0,\"prev_state\":1,\"cpu_in\":1,"
				       "\"stack\":\"game+0x10;game+0x20\"}}"), "%s", out);
	cr_assert_not_null(strstr(out, "\"name\":\"getppid\",\"cat\":\"Linux\",\"args\":{"
				       "\"seq\":2,\"end_seq\":3,\"span\":1,\"nr\":110,\"ret\":1,"
				       "\"stack\":\"0x7000\"}}"), "%s", out);
	/* the other process's FileRead and the Futex have none */
	cr_assert_eq(strstr(strstr(out, "\"stack\":\"0x7000\"") + 1, "\"stack\""),
		     strstr(out, "\"stack\":\"game"), "%s", out);
	free(out);
	opt.stacks = false; /* without --stacks: none */
	out = export_built(tiny_stacks, &opt, &ret, NULL);
	cr_assert_null(strstr(out, "\"stack\""), "%s", out);
	free(out);
}

static size_t tiny_outside(struct katra_record *r)
{
	size_t n = tiny(r);

	r[n++] = e(14, 10000, 0, 0, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	return n;
}

/* speedscope opens the first profile of pids and tids sorted: the lane
 * outside the traced set is never first; --speedscope numbers the threads
 * busiest first by time in spans (tiny's MAIN 1.7 us, process 200's 1 us), the
 * real ids in the names, and leaves args out (its labels are name + args);
 * a syscall slice is named by the syscall. */
Test(export_tiny, busiest_thread_first_for_speedscope)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_built(tiny_outside, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":4294967296,\"tid\":0,"
				  "\"name\":\"process_name\",\"args\":{\"name\":"
				  "\"outside the traced set\"}}"), "%s", out);
	cr_assert_null(strstr(out, "\"pid\":0,"), "%s", out);
	free(out);
	opt.speedscope = true;
	out = export_built(tiny_outside, &opt, &ret, NULL);
	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,"
				  "\"dur\":0.5,\"name\":\"getppid\",\"cat\":\"Linux\"}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":"
				  "\"thread_name\",\"args\":{\"name\":\"tid 101\"}}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":"
				  "\"process_name\",\"args\":{\"name\":\"tiny 100\"}}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":8,"), "%s",
			   out);
	cr_assert_not_null(strstr(out, "\"pid\":2,\"tid\":1,\"name\":\"process_name\","
				  "\"args\":{\"name\":\"pid 200\"}}"), "%s", out);
	cr_assert_null(strstr(out, "\"args\":{\"seq\""), "no args: %s", out);
	cr_assert_null(strstr(out, "\"pid\":100,"), "%s", out);
	cr_assert_null(strstr(out, "\"pid\":0,"), "%s", out);
	free(out);
}

/* Frames of two processes (two tracks): Frame epochs at 1000 (100's
 * frame 1), 1500 (200's frame 1), 3000 (100's 2), 4000 (200's 2), 6000
 * (100's 3). */
static size_t two_tracks(struct katra_record *r)
{
	static const struct {
		uint64_t ts;
		const char *name;
	} f[] = {
		{ 1000, "frame 1 (pid 100, swapchain 0xa)" },
		{ 1500, "frame 1 (pid 200, swapchain 0xb)" },
		{ 3000, "frame 2 (pid 100, swapchain 0xa)" },
		{ 4000, "frame 2 (pid 200, swapchain 0xb)" },
		{ 6000, "frame 3 (pid 100, swapchain 0xa)" },
	};
	size_t n = 0;

	r[n++] = mk_epoch(0, 0, "capture start");
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_START;
	for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++) {
		r[n] = mk_epoch(n, f[i].ts, f[i].name);
		r[n].u.epoch.epoch = n;
		r[n++].u.epoch.kind = KATRA_EPOCH_FRAME;
	}
	r[n] = mk_epoch(n, 7000, "capture end");
	r[n].u.epoch.epoch = n;
	r[n++].u.epoch.kind = KATRA_EPOCH_CAPTURE_END;
	return n;
}

Test(export_frames, a_slice_per_frame_on_a_frames_thread_per_track)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_built(two_tracks, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":100,\"tid\":1073741824,"
				       "\"name\":\"thread_name\",\"args\":{\"name\":\"frames (swapchain 0xa)\"}}"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":200,\"tid\":1073741825,"
				       "\"name\":\"thread_name\",\"args\":{\"name\":\"frames (swapchain 0xb)\"}}"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":1073741824,\"ts\":1,"
				       "\"dur\":2,\"name\":\"frame 2\",\"cat\":\"frame\",\"args\":{\"seq\":3,"
				       "\"epoch\":3}}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":1073741824,\"ts\":3,"
				       "\"dur\":3,\"name\":\"frame 3\""), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":200,\"tid\":1073741825,\"ts\":1.5,"
				       "\"dur\":2.5,\"name\":\"frame 2\""), "%s", out);
	cr_assert_null(strstr(out, "\"name\":\"frame 1\""), "the first present ends no frame: %s",
		       out);
	cr_assert_not_null(strstr(out, "\"frames\":3,"), "%s", out);
	free(out);
}

Test(export_frames, the_pid_filter_keeps_its_frames_only)
{
	struct kx_options opt = { .npids = 1, .pids = { 200 } };
	int ret;
	char *out = export_built(two_tracks, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_null(strstr(out, "\"pid\":100,\"tid\":1073741824"), "%s", out);
	cr_assert_not_null(strstr(out, "\"pid\":200,\"tid\":1073741825,\"ts\":1.5,"
				       "\"dur\":2.5,\"name\":\"frame 2\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"frames\":1,"), "%s", out);
	free(out);
}

/* Process 100's ioctl (thread 100) makes fence 1 of context 5 (vgem
 * "unbound"); an interrupt signals it (thread 0, process 100).  The signal's
 * cause draws the first flow (bind id 1 << 52), the track's the second. */
static size_t one_fence(struct katra_record *r)
{
	static const uint64_t c_init[] = { 2 };
	size_t n = 0;

	r[n++] = mk_epoch(0, 0, "capture start");
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_START;
	r[n++] = e(1, 1000, PID, MAIN, KATRA_KIND_GPU_TIMELINE, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_GPU_TIMELINE;
	r[n - 1].u.event.payload.u.gpu_timeline.context = 5;
	r[n - 1].u.event.payload.u.gpu_timeline.driver = katra_cstr("vgem");
	r[n - 1].u.event.payload.u.gpu_timeline.timeline = katra_cstr("unbound");
	r[n++] = e(2, 1000, PID, MAIN, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_GPU_FENCE;
	r[n - 1].u.event.payload.u.gpu_fence.context = 5;
	r[n - 1].u.event.payload.u.gpu_fence.seqno = 1;
	r[n++] = e(3, 3000, PID, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.causes = (struct katra_u64_vec){ c_init, 1 };
	r[n - 1].u.event.payload = r[n - 2].u.event.payload;
	r[n++] = mk_epoch(4, 4000, "capture end");
	r[n - 1].u.epoch.epoch = 1;
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_END;
	return n;
}

Test(export_gpu, a_fence_is_a_slice_on_its_timeline_with_a_flow_from_its_maker)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_built(one_fence, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":100,\"tid\":1073807360,"
				       "\"name\":\"thread_name\",\"args\":{\"name\":"
				       "\"GPU vgem unbound (context 5)\"}}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":1073807360,\"ts\":1,"
				       "\"dur\":2,\"name\":\"fence 1\",\"cat\":\"gpu\",\"args\":"
				       "{\"context\":5,\"seqno\":1,\"init_seq\":2,\"signal_seq\":3}}"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":100,\"ts\":1,\"dur\":0,"
				       "\"bind_id\":4503599627370497,\"flow_out\":true,\"name\":"
				       "\"GpuFenceInit -> fence\""), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":1073807360,\"ts\":1,"
				       "\"dur\":0,\"bind_id\":4503599627370497,\"flow_in\":true"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "\"fences\":1,"), "%s", out);
	free(out);
}

/* Context 5 (vgem "unbound") named, then the kernel's counts of other
 * processes' work there: 3 fences, busy 1500 ns. */
static size_t gpu_counts(struct katra_record *r)
{
	size_t n = 0;

	r[n++] = mk_epoch(0, 0, "capture start");
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_START;
	r[n++] = e(1, 1000, PID, 0, KATRA_KIND_GPU_TIMELINE, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_GPU_TIMELINE;
	r[n - 1].u.event.payload.u.gpu_timeline.context = 5;
	r[n - 1].u.event.payload.u.gpu_timeline.driver = katra_cstr("vgem");
	r[n - 1].u.event.payload.u.gpu_timeline.timeline = katra_cstr("unbound");
	r[n++] = mk_epoch(2, 4000, "capture end");
	r[n - 1].u.epoch.epoch = 1;
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_END;
	r[n++] = mk_counter(3, 4000);
	r[n - 1].u.counter.kind = KATRA_COUNTER_GPU_OTHER_FENCES;
	r[n - 1].u.counter.instance = 5;
	r[n - 1].u.counter.value = 3;
	r[n++] = mk_counter(4, 4000);
	r[n - 1].u.counter.kind = KATRA_COUNTER_GPU_OTHER_BUSY_NS;
	r[n - 1].u.counter.instance = 5;
	r[n - 1].u.counter.value = 1500;
	return n;
}

Test(export_gpu, other_processes_counts_are_a_counter_track_per_context)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_built(gpu_counts, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "\"name\":\"GPU vgem unbound (context 5) counts\",\"cat\":"
				       "\"katra\",\"args\":{\"others_fences\":3}}"), "%s", out);
	cr_assert_not_null(strstr(out, "\"name\":\"GPU vgem unbound (context 5) counts\",\"cat\":"
				       "\"katra\",\"args\":{\"others_busy_ns\":1500}}"), "%s", out);
	free(out);
}

/* Process 100's ioctl (thread 100) asks for a vblank event on CRTC 0
 * (GpuVblankQueued, sequence 7); the vblank and the delivery come from the
 * interrupt (thread 0, process 100), the delivery caused by the queueing and
 * the vblank. */
static size_t one_vblank(struct katra_record *r)
{
	static const uint64_t c_deliver[] = { 2, 3 };
	size_t n = 0;

	r[n++] = mk_epoch(0, 0, "capture start");
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_START;
	r[n++] = e(2, 1000, PID, MAIN, KATRA_KIND_GPU_VBLANK_QUEUED, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.resource = (struct katra_resource){ KATRA_RES_DISPLAY_CRTC, 0 };
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_GPU_VBLANK;
	r[n - 1].u.event.payload.u.gpu_vblank.crtc = 0;
	r[n - 1].u.event.payload.u.gpu_vblank.sequence = 7;
	r[n++] = e(3, 2000, PID, 0, KATRA_KIND_GPU_VBLANK, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.resource = r[n - 2].u.event.resource;
	r[n - 1].u.event.payload = r[n - 2].u.event.payload;
	r[n++] = e(4, 2500, PID, 0, KATRA_KIND_GPU_VBLANK_DELIVERED, KATRA_PHASE_INSTANT, -1);
	r[n - 1].u.event.scope = KATRA_SCOPE_GPU;
	r[n - 1].u.event.resource = r[n - 2].u.event.resource;
	r[n - 1].u.event.payload = r[n - 2].u.event.payload;
	r[n - 1].u.event.causes = (struct katra_u64_vec){ c_deliver, 2 };
	r[n++] = mk_epoch(5, 4000, "capture end");
	r[n - 1].u.epoch.epoch = 1;
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_END;
	return n;
}

Test(export_gpu, a_crtc_is_a_track_with_its_vblanks_and_a_flow_from_the_ioctl_that_asked)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_built(one_vblank, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"M\",\"pid\":100,\"tid\":1073807360,"
				       "\"name\":\"thread_name\",\"args\":{\"name\":"
				       "\"Display CRTC 0\"}}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"i\",\"pid\":100,\"tid\":1073807360,\"ts\":2,"
				       "\"s\":\"t\",\"name\":\"vblank 7\",\"cat\":\"display\"}"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"i\",\"pid\":100,\"tid\":1073807360,\"ts\":2.5,"
				       "\"s\":\"t\",\"name\":\"event delivered 7\",\"cat\":"
				       "\"display\"}"), "%s", out);
	cr_assert_not_null(strstr(out, "\"pid\":100,\"tid\":100,\"ts\":1,\"dur\":0,\"bind_id\":"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "\"name\":\"GpuVblankQueued -> delivered\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"vblanks\":2,"), "%s", out);
	free(out);
}

/* r[*n]: an Instant of scope Gpu of process 100 on (domain, id). */
static struct katra_event *gpu_instant(struct katra_record *r, size_t *n, uint64_t seq,
				       uint64_t ts, uint64_t tid, uint32_t kind, uint32_t domain)
{
	struct katra_event *ev;

	r[*n] = e(seq, ts, PID, tid, kind, KATRA_PHASE_INSTANT, -1);
	ev = &r[(*n)++].u.event;
	ev->scope = KATRA_SCOPE_GPU;
	ev->resource = (struct katra_resource){ domain, domain == KATRA_RES_GPU_TIMELINE ? 5 : 0 };
	ev->payload.type = domain == KATRA_RES_GPU_TIMELINE ? KATRA_PAYLOAD_GPU_FENCE :
							     KATRA_PAYLOAD_GPU_VBLANK;
	return ev;
}

/* Process 100's commit ioctl (thread 100) makes an out-fence on a CRTC
 * timeline (GpuFenceInit, seq 2, fence 5 #1); the commit's event is
 * delivered from a worker (thread 0, process 100) on CRTC 0, caused by that
 * init, then the fence signals. */
static size_t one_commit(struct katra_record *r)
{
	static const uint64_t c_init[] = { 2 };
	struct katra_event *ev;
	size_t n = 0;

	r[n++] = mk_epoch(0, 0, "capture start");
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_START;
	ev = gpu_instant(r, &n, 2, 1000, MAIN, KATRA_KIND_GPU_FENCE_INIT, KATRA_RES_GPU_TIMELINE);
	ev->payload.u.gpu_fence.context = 5;
	ev->payload.u.gpu_fence.seqno = 1;
	ev = gpu_instant(r, &n, 3, 2500, 0, KATRA_KIND_GPU_VBLANK_DELIVERED, KATRA_RES_DISPLAY_CRTC);
	ev->causes = (struct katra_u64_vec){ c_init, 1 };
	ev = gpu_instant(r, &n, 4, 2501, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_RES_GPU_TIMELINE);
	ev->payload = r[1].u.event.payload;
	ev->causes = (struct katra_u64_vec){ c_init, 1 };
	r[n++] = mk_epoch(5, 4000, "capture end");
	r[n - 1].u.epoch.epoch = 1;
	r[n - 1].u.epoch.kind = KATRA_EPOCH_CAPTURE_END;
	return n;
}

Test(export_gpu, a_commits_flip_has_a_flow_from_the_commit_ioctl)
{
	struct kx_options opt = { 0 };
	int ret;
	char *out = export_built(one_commit, &opt, &ret, NULL);

	cr_assert_eq(ret, 0);
	cr_assert_not_null(strstr(out, "{\"ph\":\"i\",\"pid\":100,\"tid\":1073807360,\"ts\":2.5,"
				       "\"s\":\"t\",\"name\":\"event delivered 0\",\"cat\":"
				       "\"display\"}"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":100,\"ts\":1,\"dur\":0,"
				       "\"bind_id\":4503599627370497,\"flow_out\":true,\"name\":"
				       "\"commit -> flip\""), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":1073807360,\"ts\":2.5,"
				       "\"dur\":0,\"bind_id\":4503599627370497,\"flow_in\":true"),
			   "%s", out);
	free(out);
}
