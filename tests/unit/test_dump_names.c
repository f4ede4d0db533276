// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay dump with names and filters (user/replay/dump.c,
 * dump_text.c, payload_text.c, procnames.c, dump_filter.c, window.c): the
 * compact text line, process names as they become known, dur_ns on Ends,
 * decoded payloads, and --pid / --tid / --kind / --from / --to. */
#include "replay_test_util.h"
#include "replay/dump/dump_filter.h"
#include "replay/names/sysnames.h"
#include "replay/dump/dump_ctx.h"
#include "replay/names/payload_fields.h"

#define BIG_FILE 10106461514007918706ull /* above 2^53: jq 1.6 would round it */

/* Two processes: 100 ("game", thread 101) and 200 (a Wine process named by
 * its Windows image, thread 201); names arrive mid-trace; a load between two
 * FIFO epochs. */
static void names_trace(struct tb *t)
{
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");		/* seq 1 */
	tb_syscall_begin(t, 1000, 100, 101, KATRA_KIND_SYSCALL, 1, 61);		/* 2 */
	tb_pinfo(t, 1500, 100, "game", NULL);					/* 3 */
	tb_syscall_end(t, 4000, 100, 101, KATRA_KIND_SYSCALL, 1, 61, -10);	/* 4 */
	tb_epoch(t, 5000, KATRA_EPOCH_FIFO, "load start");			/* 5 */
	e = tb_ev(t, 6000, 200, 201, KATRA_KIND_FILE_OPEN, KATRA_PHASE_BEGIN, 2); /* 6 */
	e->payload.type = KATRA_PAYLOAD_FILE_OPEN;
	e->payload.u.file_open.dirfd = -100;
	e->payload.u.file_open.flags = 02000000;
	e->payload.u.file_open.path = (struct katra_opt_str){ true, katra_cstr("/data/l1.pak") };
	tb_pinfo(t, 6500, 200, "wine64-preload", "Game Launcher.exe");		/* 7 */
	e = tb_syscall_end(t, 7000, 200, 201, KATRA_KIND_FILE_OPEN, 2, 257, 3);	/* 8 */
	e->resource = (struct katra_resource){ KATRA_RES_FILE, BIG_FILE };
	e = tb_ev(t, 8000, 200, 201, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 3); /* 9 */
	e->resource = (struct katra_resource){ KATRA_RES_FILE, BIG_FILE };
	e->payload.type = KATRA_PAYLOAD_FILE_IO;
	e->payload.u.file_io.fd = 3;
	e->payload.u.file_io.count = 4096;
	tb_switch(t, 8500, 200, 201, KATRA_PHASE_BEGIN, 4, 0x102);		/* 10 */
	tb_switch(t, 10500, 200, 201, KATRA_PHASE_END, 4, 0);			/* 11 */
	e = tb_syscall_end(t, 11000, 200, 201, KATRA_KIND_FILE_READ, 3, 0, 4096); /* 12 */
	e->resource = (struct katra_resource){ KATRA_RES_FILE, BIG_FILE };
	tb_epoch(t, 12000, KATRA_EPOCH_FIFO, "load end");			/* 13 */
	tb_syscall_begin(t, 13000, 100, 101, KATRA_KIND_SYSCALL, 5, KR_NR_I386 | 3); /* 14 */
	tb_syscall_end(t, 13500, 100, 101, KATRA_KIND_SYSCALL, 5, KR_NR_I386 | 3, 0); /* 15 */
	tb_counter(t, 14000, 15);						/* 16 */
	tb_epoch(t, 15000, KATRA_EPOCH_CAPTURE_END, "capture end");		/* 17 */
	tb_write(t);
}

static const char *const names_lines[] = {
	"seq=1 ts=0.000000000 EpochMarker epoch=1 kind=CaptureStart name=\"capture start\"\n",
	/* before the ProcessInfo: a bare pid */
	"seq=2 ts=0.000001000 pid=100 tid=101 Linux Syscall Begin span=1 Syscall{nr=61(wait4)}\n",
	"seq=3 ts=0.000001500 pid=100(game) tid=100 Katra ProcessInfo Instant res=Process:100(game) "
	"ProcessInfo{comm=\"game\" origin=Command}\n",
	"seq=4 ts=0.000004000 pid=100(game) tid=101 Linux Syscall End span=1 dur_ns=3000 "
	"SyscallReturn{nr=61(wait4) ret=-10(ECHILD)}\n",
	"seq=5 ts=0.000005000 EpochMarker epoch=5 kind=Fifo name=\"load start\"\n",
	"seq=6 ts=0.000006000 pid=200 tid=201 Linux FileOpen Begin span=2 "
	"FileOpen{dirfd=AT_FDCWD flags=O_RDONLY|O_CLOEXEC mode=0 path=\"/data/l1.pak\"}\n",
	"seq=7 ts=0.000006500 pid=200(\"Game Launcher.exe\") tid=200 Katra ProcessInfo Instant "
	"res=Process:200(\"Game Launcher.exe\") ProcessInfo{comm=\"wine64-preload\" "
	"windows_image=\"Game Launcher.exe\" origin=WineSession}\n",
	"seq=8 ts=0.000007000 pid=200(\"Game Launcher.exe\") tid=201 Linux FileOpen End span=2 "
	"dur_ns=1000 res=File:10106461514007918706 SyscallReturn{nr=257(openat) ret=3}\n",
	"seq=9 ts=0.000008000 pid=200(\"Game Launcher.exe\") tid=201 Linux FileRead Begin span=3 "
	"res=File:10106461514007918706 FileIo{fd=3 count=4096 iov_count=0}\n",
	"seq=10 ts=0.000008500 pid=200(\"Game Launcher.exe\") tid=201 Linux OffCpu Begin span=4 "
	"Switch{cpu=1 prev_state=0x102(D)}\n",
	"seq=11 ts=0.000010500 pid=200(\"Game Launcher.exe\") tid=201 Linux OffCpu End span=4 "
	"dur_ns=2000 Switch{cpu=1 prev_state=0x0}\n",
	"seq=12 ts=0.000011000 pid=200(\"Game Launcher.exe\") tid=201 Linux FileRead End span=3 "
	"dur_ns=3000 res=File:10106461514007918706 SyscallReturn{nr=0(read) ret=4096}\n",
	"seq=13 ts=0.000012000 EpochMarker epoch=13 kind=Fifo name=\"load end\"\n",
	"seq=14 ts=0.000013000 pid=100(game) tid=101 Linux Syscall Begin span=5 "
	"Syscall{nr=2147483651(i386:read)}\n",
	"seq=15 ts=0.000013500 pid=100(game) tid=101 Linux Syscall End span=5 dur_ns=500 "
	"SyscallReturn{nr=2147483651(i386:read) ret=0}\n",
	"seq=16 ts=0.000014000 Counter kind=EventsRecorded instance=0 value=15\n",
	"seq=17 ts=0.000015000 EpochMarker epoch=17 kind=CaptureEnd name=\"capture end\"\n",
};

/* The lines of names_lines whose seq is listed (0-terminated), joined. */
static char *lines_of(const unsigned *seqs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	for (; *seqs; seqs++)
		fputs(names_lines[*seqs - 1], f);
	fclose(f);
	return buf;
}

/* Runs dump with o on the names trace; expects rc and exactly the lines. */
static void expect_dump(const struct katra_dump_opts *o, int rc, const unsigned *seqs,
			const char *err_want)
{
	struct tb t;
	struct outcap out, err;
	char *want = lines_of(seqs);

	tb_init(&t);
	names_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_dump_filtered(t.path, out.f, o, err.f), rc, "%s", oc_text(&err));
	cr_assert_str_eq(oc_body(&out, false), want);
	if (err_want)
		cr_assert_not_null(strstr(oc_text(&err), err_want), "%s", oc_text(&err));
	else
		cr_assert_str_eq(oc_text(&err), "");
	oc_free(&out);
	oc_free(&err);
	free(want);
	tb_cleanup(&t);
}

static struct katra_dump_opts no_filter(void)
{
	struct katra_dump_opts o;

	memset(&o, 0, sizeof(o));
	return o;
}

Test(dump_names, every_line_compact_named_and_timed)
{
	static const unsigned all[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
					17, 0 };
	struct katra_dump_opts o = no_filter();

	expect_dump(&o, 0, all, NULL);
}

Test(dump_filters, pid_keeps_epoch_marks_and_drops_counters)
{
	static const unsigned want[] = { 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 0 };
	struct katra_dump_opts o = no_filter();

	cr_assert_eq(kr_parse_id_list("200", o.pids, &o.npids), 0);
	expect_dump(&o, 0, want, NULL);
}

Test(dump_filters, tid_and_kind_together)
{
	static const unsigned want[] = { 2, 4, 14, 15, 0 };
	struct katra_dump_opts o = no_filter();

	cr_assert_eq(kr_parse_id_list("101,999", o.tids, &o.ntids), 0);
	o.kinds_set = true;
	cr_assert_eq(kr_parse_kinds("syscall", &o.event_kinds, &o.record_types), 0);
	expect_dump(&o, 0, want, NULL);
}

Test(dump_filters, kind_selects_record_variants_too)
{
	static const unsigned want[] = { 1, 5, 10, 11, 13, 16, 17, 0 };
	struct katra_dump_opts o = no_filter();

	o.kinds_set = true;
	cr_assert_eq(kr_parse_kinds("EpochMarker,counter,OFFCPU", &o.event_kinds,
				    &o.record_types), 0);
	expect_dump(&o, 0, want, NULL);
}

Test(dump_filters, from_to_epoch_names)
{
	static const unsigned want[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 0 };
	struct katra_dump_opts o = no_filter();

	kr_parse_when("load start", &o.from);
	kr_parse_when("load end", &o.to);
	expect_dump(&o, 0, want, NULL);
}

Test(dump_filters, from_to_seconds_inclusive)
{
	/* names and durations still come from records outside the window */
	static const unsigned want[] = { 8, 9, 10, 11, 12, 0 };
	struct katra_dump_opts o = no_filter();

	kr_parse_when("0.000007", &o.from);
	kr_parse_when("0.000011s", &o.to);
	expect_dump(&o, 0, want, NULL);
}

Test(dump_filters, missing_epoch_is_an_error_after_the_dump)
{
	static const unsigned none[] = { 0 };
	static const unsigned to_end[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 0 };
	struct katra_dump_opts o = no_filter();

	kr_parse_when("no such mark", &o.from);
	expect_dump(&o, 1, none, "has no EpochMarker named 'no such mark' (--from)");
	o = no_filter();
	kr_parse_when("load start", &o.from);
	kr_parse_when("never", &o.to);
	expect_dump(&o, 1, to_end, "has no EpochMarker named 'never' after the --from point");
}

Test(dump_filters, jsonl_carries_names_durations_and_derived_keys)
{
	struct katra_dump_opts o = no_filter();
	struct tb t;
	struct outcap out, err;
	const char *b;

	o.jsonl = true;
	cr_assert_eq(kr_parse_id_list("100", o.pids, &o.npids), 0);
	o.kinds_set = true;
	cr_assert_eq(kr_parse_kinds("Syscall", &o.event_kinds, &o.record_types), 0);
	tb_init(&t);
	names_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_dump_filtered(t.path, out.f, &o, err.f), 0);
	b = oc_body(&out, true);
	cr_assert_str_eq(b,
		"{\"record\":\"Event\",\"seq\":2,\"ts_mono_ns\":1000,\"ts_wall_ns\":\"1700000000000001000\","
		"\"thread_id\":101,\"process_id\":100,\"scope\":\"Linux\",\"kind\":\"Syscall\","
		"\"phase\":\"Begin\",\"span_id\":\"1\",\"request_id\":null,\"causes\":[],"
		"\"resource\":{\"domain\":\"None\",\"id\":\"0\"},\"payload\":{\"type\":\"Syscall\","
		"\"nr\":61},\"syscall\":\"wait4\",\"cost_estimate_ns\":null,\"confidence\":\"Measured\"}\n"
		"{\"record\":\"Event\",\"seq\":4,\"ts_mono_ns\":4000,\"ts_wall_ns\":\"1700000000000004000\","
		"\"thread_id\":101,\"process_id\":100,\"process_name\":\"game\",\"scope\":\"Linux\","
		"\"kind\":\"Syscall\",\"phase\":\"End\",\"span_id\":\"1\",\"dur_ns\":3000,"
		"\"request_id\":null,\"causes\":[],\"resource\":{\"domain\":\"None\",\"id\":\"0\"},"
		"\"payload\":{\"type\":\"SyscallReturn\",\"nr\":61,\"ret\":-10},\"syscall\":\"wait4\","
		"\"cost_estimate_ns\":null,\"confidence\":\"Measured\"}\n"
		"{\"record\":\"Event\",\"seq\":14,\"ts_mono_ns\":13000,\"ts_wall_ns\":\"1700000000000013000\","
		"\"thread_id\":101,\"process_id\":100,\"process_name\":\"game\",\"scope\":\"Linux\","
		"\"kind\":\"Syscall\",\"phase\":\"Begin\",\"span_id\":\"5\",\"request_id\":null,"
		"\"causes\":[],\"resource\":{\"domain\":\"None\",\"id\":\"0\"},\"payload\":{"
		"\"type\":\"Syscall\",\"nr\":2147483651},\"syscall\":\"i386:read\","
		"\"cost_estimate_ns\":null,\"confidence\":\"Measured\"}\n"
		"{\"record\":\"Event\",\"seq\":15,\"ts_mono_ns\":13500,\"ts_wall_ns\":\"1700000000000013500\","
		"\"thread_id\":101,\"process_id\":100,\"process_name\":\"game\",\"scope\":\"Linux\","
		"\"kind\":\"Syscall\",\"phase\":\"End\",\"span_id\":\"5\",\"dur_ns\":500,"
		"\"request_id\":null,\"causes\":[],\"resource\":{\"domain\":\"None\",\"id\":\"0\"},"
		"\"payload\":{\"type\":\"SyscallReturn\",\"nr\":2147483651,\"ret\":0},"
		"\"syscall\":\"i386:read\",\"cost_estimate_ns\":null,\"confidence\":\"Measured\"}\n");
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

Test(dump_filters, jsonl_switch_gets_its_task_state)
{
	struct katra_dump_opts o = no_filter();
	struct tb t;
	struct outcap out, err;
	const char *b;

	o.jsonl = true;
	o.kinds_set = true;
	cr_assert_eq(kr_parse_kinds("OffCpu", &o.event_kinds, &o.record_types), 0);
	tb_init(&t);
	names_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_dump_filtered(t.path, out.f, &o, err.f), 0);
	b = oc_body(&out, true);
	cr_assert_not_null(strstr(b, "\"payload\":{\"type\":\"Switch\",\"cpu\":1,"
				  "\"prev_state\":258},\"task_state\":\"D\","), "%s", b);
	cr_assert_not_null(strstr(b, "\"phase\":\"End\",\"span_id\":\"4\",\"dur_ns\":2000,"), "%s", b);
	/* a switch-in has no state of its own */
	cr_assert_not_null(strstr(b, "\"prev_state\":0},\"cost_estimate_ns\""), "%s", b);
	cr_assert_null(strstr(b, "\"task_state\":\"R\""), "%s", b);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* ---- the option parsers ---- */

Test(dump_parse, id_lists)
{
	uint64_t v[KATRA_DUMP_MAX_IDS];
	unsigned n = 0;

	cr_assert_eq(kr_parse_id_list("7", v, &n), 0);
	cr_assert_eq(kr_parse_id_list("8,18446744073709551615", v, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(v[0], 7);
	cr_assert_eq(v[1], 8);
	cr_assert_eq(v[2], UINT64_MAX);
	cr_assert_eq(kr_parse_id_list("", v, &n), -EINVAL);
	cr_assert_eq(kr_parse_id_list("1,", v, &n), -EINVAL);
	cr_assert_eq(kr_parse_id_list("-1", v, &n), -EINVAL);
	cr_assert_eq(kr_parse_id_list("1x", v, &n), -EINVAL);
	cr_assert_eq(kr_parse_id_list("18446744073709551616", v, &n), -EINVAL);
	n = KATRA_DUMP_MAX_IDS;
	cr_assert_eq(kr_parse_id_list("1", v, &n), -E2BIG);
}

Test(dump_parse, kinds)
{
	uint64_t k = 0;
	unsigned r = 0;

	cr_assert_eq(kr_parse_kinds("FileRead,fileWRITE,ProcessInfo", &k, &r), 0);
	cr_assert_eq(k, (1ull << KATRA_KIND_FILE_READ) | (1ull << KATRA_KIND_FILE_WRITE) |
				(1ull << KATRA_KIND_PROCESS_INFO));
	cr_assert_eq(r, 0);
	cr_assert_eq(kr_parse_kinds("SessionSummary", &k, &r), 0);
	cr_assert_eq(r, 1u << KATRA_RECORD_SESSION_SUMMARY);
	k = 0;
	r = 0;
	/* Counter is an EventKind and a record variant: both */
	cr_assert_eq(kr_parse_kinds("counter", &k, &r), 0);
	cr_assert_eq(k, 1ull << KATRA_KIND_COUNTER);
	cr_assert_eq(r, 1u << KATRA_RECORD_COUNTER);
	cr_assert_eq(kr_parse_kinds("FileReed", &k, &r), -EINVAL);
	cr_assert_eq(kr_parse_kinds("FileRead,", &k, &r), -EINVAL);
	cr_assert_eq(kr_parse_kinds("Event", &k, &r), -EINVAL);
}

Test(dump_parse, when_is_seconds_or_an_epoch_name)
{
	struct katra_dump_when w;

	cr_assert_eq(kr_parse_when("1.5", &w), 0);
	cr_assert(w.set);
	cr_assert_null(w.epoch);
	cr_assert_eq(w.ns, 1500000000ull);
	cr_assert_eq(kr_parse_when("2s", &w), 0);
	cr_assert_eq(w.ns, 2000000000ull);
	cr_assert_eq(kr_parse_when(".000000001", &w), 0);
	cr_assert_eq(w.ns, 1);
	cr_assert_eq(kr_parse_when("0", &w), 0);
	cr_assert_eq(w.ns, 0);
	cr_assert_null(w.epoch);
	cr_assert_eq(kr_parse_when("mark 1", &w), 0);
	cr_assert_str_eq(w.epoch, "mark 1");
	cr_assert_eq(kr_parse_when("1.5x", &w), 0);
	cr_assert_str_eq(w.epoch, "1.5x");
	cr_assert_eq(kr_parse_when("0.0000000001", &w), 0); /* 10 decimals: a name */
	cr_assert_str_eq(w.epoch, "0.0000000001");
	cr_assert_eq(kr_parse_when("", &w), -EINVAL);
}

/* ---- the pid -> name table ---- */

#include "replay/names/procnames.h"

static struct katra_event pinfo(uint64_t pid, const char *comm, const char *image)
{
	struct katra_event e;

	memset(&e, 0, sizeof(e));
	e.process_id = pid;
	e.kind = KATRA_KIND_PROCESS_INFO;
	e.payload.type = KATRA_PAYLOAD_PROCESS_INFO;
	e.payload.u.process_info.comm = katra_cstr(comm);
	if (image)
		e.payload.u.process_info.windows_image =
			(struct katra_opt_str){ true, katra_cstr(image) };
	return e;
}

Test(procnames, latest_name_wins_image_first_and_labels_quote_when_needed)
{
	struct kr_procnames p;
	struct katra_event e;
	char label[96];
	static const char long_name[] =
		"a-name-longer-than-sixty-four-bytes-is-cut-to-its-first-64-bytes-here";

	kr_procnames_init(&p);
	cr_assert_null(kr_procnames_get(&p, 7));
	cr_assert_str_eq(kr_pid_label(&p, 7, label, sizeof(label)), "7");
	e = pinfo(7, "bash", NULL);
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_pid_label(&p, 7, label, sizeof(label)), "7(bash)");
	e = pinfo(7, "wine64-preload", "Game Launcher.exe"); /* after exec */
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_pid_label(&p, 7, label, sizeof(label)), "7(\"Game Launcher.exe\")");
	e = pinfo(8, "kworker/0:1", NULL);
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_pid_label(&p, 8, label, sizeof(label)), "8(kworker/0:1)");
	e = pinfo(9, long_name, NULL);
	kr_procnames_see(&p, &e);
	cr_assert_eq(kr_procnames_get(&p, 9)->len, KR_PROCNAME_MAX);
	cr_assert(!memcmp(kr_procnames_get(&p, 9)->name, long_name, KR_PROCNAME_MAX));
	e = pinfo(10, "", NULL); /* an empty name is quoted, never blank */
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_pid_label(&p, 10, label, sizeof(label)), "10(\"\")");
	/* a label cut to the buffer stays a C string */
	cr_assert_str_eq(kr_pid_label(&p, 7, label, 8), "7(\"Game"); /* 7 bytes + NUL */
	/* other events name nothing */
	e = pinfo(11, "x", NULL);
	e.payload.type = KATRA_PAYLOAD_NONE;
	kr_procnames_see(&p, &e);
	cr_assert_null(kr_procnames_get(&p, 11));
	kr_procnames_free(&p);
}

/* WineServerRequests (EventKind 45): the latest table names each
 * WineServerCall's request in the text dump; WinToUnix (same payload, a
 * function index) is never named. */
Test(procnames, wineserver_request_names_from_the_latest_table)
{
	static const struct katra_str t1[] = { { "new_process", 11 }, { "", 0 },
					       { "create_event", 12 } };
	static const struct katra_str t2[] = { { "other", 5 } };
	struct kr_procnames p;
	struct katra_event e;
	const struct kr_payload_desc *d = kr_payload_desc(KATRA_PAYLOAD_WINE_SERVER_CALL);
	char buf[128];
	FILE *f;

	kr_procnames_init(&p);
	cr_assert_null(kr_procnames_request(&p, 0));
	memset(&e, 0, sizeof(e));
	e.kind = KATRA_KIND_WINE_SERVER_REQUESTS;
	e.payload.type = KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
	e.payload.u.wine_server_requests.names = (struct katra_str_vec){ t1, 3 };
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_procnames_request(&p, 0), "new_process");
	cr_assert_null(kr_procnames_request(&p, 1)); /* "" is no name */
	cr_assert_str_eq(kr_procnames_request(&p, 2), "create_event");
	cr_assert_null(kr_procnames_request(&p, 3));
	cr_assert_null(kr_procnames_request(NULL, 0));

	memset(&e, 0, sizeof(e));
	e.kind = KATRA_KIND_WINE_SERVER_CALL;
	e.payload.type = KATRA_PAYLOAD_WINE_SERVER_CALL;
	e.payload.u.wine_server_call.request = 2;
	f = fmemopen(buf, sizeof(buf), "w");
	kr_payload_text_value(f, &e, &d->fields[0], &p);
	fclose(f);
	cr_assert_str_eq(buf, "2(create_event)");
	e.kind = KATRA_KIND_WIN_TO_UNIX;
	f = fmemopen(buf, sizeof(buf), "w");
	kr_payload_text_value(f, &e, &d->fields[0], &p);
	fclose(f);
	cr_assert_str_eq(buf, "2");

	/* a later table replaces it */
	memset(&e, 0, sizeof(e));
	e.payload.type = KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
	e.payload.u.wine_server_requests.names = (struct katra_str_vec){ t2, 1 };
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_procnames_request(&p, 0), "other");
	cr_assert_null(kr_procnames_request(&p, 2));
	kr_procnames_free(&p);
}

static struct katra_event rename_ev(uint64_t by, uint64_t tid, const char *comm)
{
	struct katra_event e;

	memset(&e, 0, sizeof(e));
	e.thread_id = by;
	e.process_id = 10;
	e.kind = KATRA_KIND_TASK_RENAME;
	e.resource = (struct katra_resource){ KATRA_RES_THREAD, tid };
	e.payload.type = KATRA_PAYLOAD_TASK_RENAME;
	e.payload.u.task_rename.comm = katra_cstr(comm);
	return e;
}

/* TaskRename (EventKind 46) names its resource's thread, not the thread that
 * made the change nor the process; the latest name wins. */
Test(procnames, a_rename_names_the_renamed_thread_latest_first)
{
	struct kr_procnames p;
	struct katra_event e;
	char buf[64];

	kr_procnames_init(&p);
	cr_assert_str_eq(kr_tid_label(&p, 12, buf, sizeof(buf)), "12");
	e = rename_ev(10, 12, "worker 3");
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_tid_label(&p, 12, buf, sizeof(buf)), "12(\"worker 3\")");
	cr_assert_str_eq(kr_tid_label(&p, 10, buf, sizeof(buf)), "10");
	cr_assert_null(kr_procnames_get(&p, 10), "a thread's name is not its process's");
	e = rename_ev(12, 12, "render");
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_tid_label(&p, 12, buf, sizeof(buf)), "12(render)");
	cr_assert_str_eq(kr_procnames_thread(&p, 12)->name, "render");
	e = pinfo(10, "game", NULL);
	kr_procnames_see(&p, &e);
	cr_assert_str_eq(kr_procnames_thread_or_process(&p, 11, 10)->name, "game");
	cr_assert_str_eq(kr_procnames_thread_or_process(&p, 12, 10)->name, "render");
	cr_assert_null(kr_procnames_thread(NULL, 12));
	kr_procnames_free(&p);
}
