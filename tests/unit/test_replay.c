// SPDX-License-Identifier: GPL-2.0-only
/* The analysis library (include/katra/replay.h): JSON string escaping, the
 * text and JSON-lines forms of known records byte for byte, whole-file dump
 * and its truncated-tail behaviour, jq accepting every JSON line, stats
 * numbers for a hand-built trace, the histogram and the bounded id map. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "katra/format.h"
#include "katra/replay.h"
#include "../../tools/sample_records.h"
#include "replay/util/histo.h"
#include "replay/util/idmap.h"

/* ---- capture helpers ---- */

struct cap {
	FILE *f;
	char *buf;
	size_t len;
};

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	cr_assert_not_null(c->f);
}

/* Closes the stream; the text stays in c->buf (free with cap_free). */
static const char *cap_text(struct cap *c)
{
	if (c->f) {
		cr_assert_eq(fclose(c->f), 0);
		c->f = NULL;
	}
	return c->buf;
}

static void cap_free(struct cap *c)
{
	cap_text(c);
	free(c->buf);
}

static const char *json_of(struct cap *c, const char *s, size_t n)
{
	cap_open(c);
	katra_json_string(c->f, s, n);
	return cap_text(c);
}

struct tdir {
	char dir[64];
	char path[128];
};

static void tdir_init(struct tdir *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/katra-replay-XXXXXX");
	cr_assert_not_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/t.ktrc", t->dir);
}

static void tdir_remove(struct tdir *t)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	cr_assert_eq(system(cmd), 0);
}

/* ---- known records ---- */

static const uint64_t test_causes[] = { 3, 18446744073709551615ull };
static const uint64_t test_pids[] = { 7, 8 };
static const struct katra_str test_notes[] = { { "a\"b", 3 }, { "", 0 } };

static struct katra_header test_header(void)
{
	struct katra_header h;

	memset(&h, 0, sizeof(h));
	h.format_version = KATRA_FORMAT_VERSION;
	h.schema_hash = katra_schema_hash;
	h.tool_version = katra_cstr("katra-test 1");
	h.capture_options.target_pids = (struct katra_u64_vec){ test_pids, 2 };
	h.capture_options.follow_children = true;
	h.capture_options.buffer_size_bytes = 4096;
	h.capture_options.counter_interval_ns = 100;
	h.capture_options.reorder_window_ns = 5;
	h.start_wall_ns = 1700000000000000000ull;
	h.start_mono_ns = 42;
	h.process_id = 7;
	h.workload = katra_cstr("w");
	h.host.hostname = katra_cstr("h");
	h.host.os = katra_cstr("Linux");
	h.host.kernel_release = katra_cstr("6.18");
	h.host.machine = katra_cstr("x86_64");
	h.host.cpu_count = 2;
	h.host.page_size = 4096;
	h.notes = (struct katra_str_vec){ test_notes, 2 };
	return h;
}

static struct katra_record ev(uint64_t seq, uint64_t ts, uint64_t pid, uint64_t tid,
			      uint32_t kind, uint32_t phase, int64_t span)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_EVENT;
	r.u.event.seq = seq;
	r.u.event.ts_mono_ns = ts;
	r.u.event.ts_wall_ns = 1700000000000000000ull + ts;
	r.u.event.process_id = pid;
	r.u.event.thread_id = tid;
	r.u.event.scope = KATRA_SCOPE_LINUX;
	r.u.event.kind = kind;
	r.u.event.phase = phase;
	if (span >= 0)
		r.u.event.span_id = (struct katra_opt_u64){ true, (uint64_t)span };
	return r;
}

static struct katra_record file_read_event(void)
{
	struct katra_record r = ev(12, 1000000500, 100, 101, KATRA_KIND_FILE_READ,
				   KATRA_PHASE_BEGIN, 3);

	r.u.event.causes = (struct katra_u64_vec){ test_causes, 2 };
	r.u.event.resource = (struct katra_resource){ KATRA_RES_FILE, 3 };
	r.u.event.payload.type = KATRA_PAYLOAD_FILE_IO;
	r.u.event.payload.u.file_io.fd = -3;
	r.u.event.payload.u.file_io.count = 4096;
	r.u.event.payload.u.file_io.iov_count = 1;
	r.u.event.cost_estimate_ns = (struct katra_opt_u64){ true, 0 };
	r.u.event.confidence = KATRA_CONFIDENCE_INFERRED;
	return r;
}

static struct katra_record file_open_event(void)
{
	static const char path[] = "/t\"\n\xff\xc3\xa9";
	struct katra_record r = ev(13, 7, 1, 2, KATRA_KIND_FILE_OPEN, KATRA_PHASE_INSTANT, -1);

	r.u.event.scope = KATRA_SCOPE_WINE_PROTON;
	r.u.event.request_id = (struct katra_opt_u64){ true, 9 };
	r.u.event.payload.type = KATRA_PAYLOAD_FILE_OPEN;
	r.u.event.payload.u.file_open.dirfd = -100;
	r.u.event.payload.u.file_open.flags = 2;
	r.u.event.payload.u.file_open.path =
		(struct katra_opt_str){ true, { path, sizeof(path) - 1 } };
	return r;
}

static struct katra_record drop_event(uint64_t seq, uint64_t ts, uint32_t src, uint32_t inst,
				      uint64_t count)
{
	struct katra_record r = ev(seq, ts, 100, 100, KATRA_KIND_DROP, KATRA_PHASE_INSTANT, -1);

	r.u.event.scope = KATRA_SCOPE_KATRA;
	r.u.event.resource = (struct katra_resource){ KATRA_RES_RING, inst };
	r.u.event.payload.type = KATRA_PAYLOAD_DROP;
	r.u.event.payload.u.drop.source = src;
	r.u.event.payload.u.drop.instance = inst;
	r.u.event.payload.u.drop.count = count;
	return r;
}

static struct katra_record epoch_rec(uint64_t seq, uint64_t ts, uint32_t kind, const char *name)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_EPOCH_MARKER;
	r.u.epoch.seq = seq;
	r.u.epoch.ts_mono_ns = ts;
	r.u.epoch.ts_wall_ns = 1700000000000000000ull + ts;
	r.u.epoch.epoch = seq;
	r.u.epoch.kind = kind;
	r.u.epoch.name = katra_cstr(name);
	return r;
}

static struct katra_record counter_rec(uint64_t seq, uint64_t ts, uint32_t kind, uint64_t value)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_COUNTER;
	r.u.counter.seq = seq;
	r.u.counter.ts_mono_ns = ts;
	r.u.counter.ts_wall_ns = 1700000000000000000ull + ts;
	r.u.counter.kind = kind;
	r.u.counter.instance = 1;
	r.u.counter.value = value;
	return r;
}

static const struct katra_kind_count test_kinds[] = {
	{ KATRA_KIND_FILE_READ, 8 }, { KATRA_KIND_DROP, 2 },
};
static const struct katra_drop_count test_drops[] = {
	{ KATRA_DROP_RING_RESERVE, 0, 5 }, { KATRA_DROP_REORDER, 1, 2 },
};
static const struct katra_str test_probes[] = { { "tp:a", 4 } };

static struct katra_record summary_rec(void)
{
	struct katra_record r;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_SESSION_SUMMARY;
	r.u.summary.event_count = 18;
	r.u.summary.epoch_count = 2;
	r.u.summary.counter_count = 2;
	r.u.summary.duration_ns = 2500;
	r.u.summary.events_by_kind = test_kinds;
	r.u.summary.events_by_kind_len = 2;
	r.u.summary.dropped_events = 7;
	r.u.summary.drops = test_drops;
	r.u.summary.drops_len = 2;
	r.u.summary.probes_attached = (struct katra_str_vec){ test_probes, 1 };
	r.u.summary.processes_seen = 2;
	r.u.summary.threads_seen = 3;
	return r;
}

/* ---- JSON strings ---- */

Test(replay_json, plain_ascii_and_the_two_escapes)
{
	struct cap c;

	cr_assert_str_eq(json_of(&c, "a b/c~", 6), "\"a b/c~\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "q\"b\\", 4), "\"q\\\"b\\\\\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "", 0), "\"\"");
	cap_free(&c);
}

Test(replay_json, control_bytes_nul_and_del_as_u00xx)
{
	struct cap c;

	cr_assert_str_eq(json_of(&c, "\n\t\x01\x1f\x7f", 5),
			 "\"\\u000a\\u0009\\u0001\\u001f\\u007f\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "a\0b", 3), "\"a\\u0000b\"");
	cap_free(&c);
}

Test(replay_json, valid_utf8_passes_through)
{
	static const char s[] = "\xc3\xa9 \xe3\x83\x95 \xf0\x9f\x8e\xae \xf4\x8f\xbf\xbf";
	struct cap c;
	char want[64];

	snprintf(want, sizeof(want), "\"%s\"", s);
	cr_assert_str_eq(json_of(&c, s, sizeof(s) - 1), want);
	cap_free(&c);
}

Test(replay_json, invalid_utf8_bytes_escaped_one_by_one)
{
	struct cap c;

	/* lone continuation, overlong '/', surrogate U+D800, above U+10FFFF */
	cr_assert_str_eq(json_of(&c, "\x80", 1), "\"\\u0080\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "\xc0\xaf", 2), "\"\\u00c0\\u00af\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "\xed\xa0\x80", 3), "\"\\u00ed\\u00a0\\u0080\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "\xf4\x90\x80\x80", 4),
			 "\"\\u00f4\\u0090\\u0080\\u0080\"");
	cap_free(&c);
	/* a sequence cut by the end of the string, then a good one after a bad lead */
	cr_assert_str_eq(json_of(&c, "x\xe3\x81", 3), "\"x\\u00e3\\u0081\"");
	cap_free(&c);
	cr_assert_str_eq(json_of(&c, "\xff\xc3\xa9", 3), "\"\\u00ff\xc3\xa9\"");
	cap_free(&c);
}

/* ---- JSON lines, byte for byte ---- */

Test(replay_jsonl, header_line)
{
	struct katra_header h = test_header();
	struct cap c;
	char want[1024];

	snprintf(want, sizeof(want),
		 "{\"record\":\"Header\",\"format_version\":1,\"schema_hash\":\"%llu\","
		 "\"tool_version\":\"katra-test 1\",\"capture_options\":{\"target_pids\":[7,8],"
		 "\"follow_children\":true,\"record_paths\":false,\"buffer_size_bytes\":4096,"
		 "\"duration_limit_ns\":null,\"counter_interval_ns\":100,"
		 "\"reorder_window_ns\":5},\"start_wall_ns\":\"1700000000000000000\","
		 "\"start_mono_ns\":\"42\",\"process_id\":7,\"workload\":\"w\",\"host\":{"
		 "\"hostname\":\"h\",\"os\":\"Linux\",\"kernel_release\":\"6.18\","
		 "\"machine\":\"x86_64\",\"cpu_count\":2,\"page_size\":4096},"
		 "\"notes\":[\"a\\\"b\",\"\"]}\n",
		 (unsigned long long)katra_schema_hash);
	cap_open(&c);
	katra_jsonl_header(c.f, &h);
	cr_assert_str_eq(cap_text(&c), want);
	cap_free(&c);
}

Test(replay_jsonl, event_with_every_option_shape)
{
	struct katra_record a = file_read_event(), b = file_open_event();
	struct cap c;

	cap_open(&c);
	katra_jsonl_record(c.f, &a);
	katra_jsonl_record(c.f, &b);
	cr_assert_str_eq(cap_text(&c),
		"{\"record\":\"Event\",\"seq\":12,\"ts_mono_ns\":1000000500,"
		"\"ts_wall_ns\":\"1700000001000000500\",\"thread_id\":101,\"process_id\":100,"
		"\"scope\":\"Linux\",\"kind\":\"FileRead\",\"phase\":\"Begin\",\"span_id\":\"3\","
		"\"request_id\":null,\"causes\":[3,18446744073709551615],"
		"\"resource\":{\"domain\":\"File\",\"id\":\"3\"},\"resource_name\":\"File:3\","
		"\"payload\":{\"type\":\"FileIo\","
		"\"fd\":-3,\"count\":4096,\"offset\":null,\"iov_count\":1},"
		"\"cost_estimate_ns\":0,\"confidence\":\"Inferred\"}\n"
		"{\"record\":\"Event\",\"seq\":13,\"ts_mono_ns\":7,"
		"\"ts_wall_ns\":\"1700000000000000007\",\"thread_id\":2,\"process_id\":1,"
		"\"scope\":\"WineProton\",\"kind\":\"FileOpen\",\"phase\":\"Instant\","
		"\"span_id\":null,\"request_id\":\"9\",\"causes\":[],"
		"\"resource\":{\"domain\":\"None\",\"id\":\"0\"},\"payload\":{\"type\":\"FileOpen\","
		"\"dirfd\":-100,\"flags\":2,\"mode\":0,"
		"\"path\":\"/t\\\"\\u000a\\u00ff\xc3\xa9\"},"
		"\"cost_estimate_ns\":null,\"confidence\":\"Measured\"}\n");
	cap_free(&c);
}

Test(replay_jsonl, none_and_drop_payloads)
{
	struct katra_record a = ev(1, 2, 3, 4, KATRA_KIND_WIN_TO_UNIX, KATRA_PHASE_END, 5);
	struct katra_record b = drop_event(2, 3, KATRA_DROP_WAKEUP_TABLE, 4, 6);
	struct cap c;

	cap_open(&c);
	katra_jsonl_record(c.f, &a);
	katra_jsonl_record(c.f, &b);
	cr_assert_str_eq(cap_text(&c),
		"{\"record\":\"Event\",\"seq\":1,\"ts_mono_ns\":2,"
		"\"ts_wall_ns\":\"1700000000000000002\",\"thread_id\":4,\"process_id\":3,"
		"\"scope\":\"Linux\",\"kind\":\"WinToUnix\",\"phase\":\"End\",\"span_id\":\"5\","
		"\"dur_ns\":null,\"request_id\":null,\"causes\":[],"
		"\"resource\":{\"domain\":\"None\",\"id\":\"0\"},"
		"\"payload\":{\"type\":\"None\"},\"cost_estimate_ns\":null,"
		"\"confidence\":\"Measured\"}\n"
		"{\"record\":\"Event\",\"seq\":2,\"ts_mono_ns\":3,"
		"\"ts_wall_ns\":\"1700000000000000003\",\"thread_id\":100,\"process_id\":100,"
		"\"scope\":\"Katra\",\"kind\":\"Drop\",\"phase\":\"Instant\",\"span_id\":null,"
		"\"request_id\":null,\"causes\":[],\"resource\":{\"domain\":\"Ring\",\"id\":\"4\"},"
		"\"resource_name\":\"Ring:4\",\"payload\":{\"type\":\"Drop\",\"source\":\"WakeupTable\",\"instance\":4,"
		"\"count\":6},\"cost_estimate_ns\":null,\"confidence\":\"Measured\"}\n");
	cap_free(&c);
}

Test(replay_jsonl, epoch_counter_and_summary)
{
	struct katra_record e = epoch_rec(1, 0, KATRA_EPOCH_FIFO, "frame \"1\"");
	struct katra_record k = counter_rec(2, 5, KATRA_COUNTER_BYTES_WRITTEN, UINT64_MAX);
	struct katra_record s = summary_rec();
	struct cap c;

	cap_open(&c);
	katra_jsonl_record(c.f, &e);
	katra_jsonl_record(c.f, &k);
	katra_jsonl_record(c.f, &s);
	cr_assert_str_eq(cap_text(&c),
		"{\"record\":\"EpochMarker\",\"seq\":1,\"ts_mono_ns\":0,"
		"\"ts_wall_ns\":\"1700000000000000000\",\"epoch\":1,\"kind\":\"Fifo\","
		"\"name\":\"frame \\\"1\\\"\"}\n"
		"{\"record\":\"Counter\",\"seq\":2,\"ts_mono_ns\":5,"
		"\"ts_wall_ns\":\"1700000000000000005\",\"kind\":\"BytesWritten\",\"instance\":1,"
		"\"value\":18446744073709551615}\n"
		"{\"record\":\"SessionSummary\",\"event_count\":18,\"epoch_count\":2,"
		"\"counter_count\":2,\"duration_ns\":2500,\"events_by_kind\":["
		"{\"kind\":\"FileRead\",\"count\":8},{\"kind\":\"Drop\",\"count\":2}],"
		"\"dropped_events\":7,\"drops\":[{\"source\":\"RingReserve\",\"instance\":0,"
		"\"count\":5},{\"source\":\"Reorder\",\"instance\":1,\"count\":2}],"
		"\"inferred_events\":0,\"probes_attached\":[\"tp:a\"],\"probes_failed\":[],"
		"\"processes_seen\":2,\"threads_seen\":3}\n");
	cap_free(&c);
}

/* ---- text dump, byte for byte ---- */

Test(replay_text, header_lines)
{
	struct katra_header h = test_header();
	struct cap c;
	char want[1024];

	snprintf(want, sizeof(want),
		 "# KATRATRC format_version=1 schema_hash=0x%016llx tool_version=\"katra-test 1\"\n"
		 "# workload=\"w\" process_id=7 start_wall_ns=1700000000000000000 "
		 "start_mono_ns=42\n"
		 "# host hostname=\"h\" os=\"Linux\" kernel_release=\"6.18\" machine=\"x86_64\" "
		 "cpu_count=2 page_size=4096\n"
		 "# capture_options target_pids=[7,8] follow_children=true record_paths=false "
		 "buffer_size_bytes=4096 duration_limit_ns=- counter_interval_ns=100 "
		 "reorder_window_ns=5\n"
		 "# note \"a\\\"b\"\n"
		 "# note \"\"\n",
		 (unsigned long long)katra_schema_hash);
	cap_open(&c);
	katra_dump_header_text(c.f, &h);
	cr_assert_str_eq(cap_text(&c), want);
	cap_free(&c);
}

Test(replay_text, one_line_per_record)
{
	struct katra_record r[] = {
		file_read_event(), file_open_event(),
		ev(1, 2, 3, 4, KATRA_KIND_WIN_TO_UNIX, KATRA_PHASE_END, 5),
		drop_event(2, 3, KATRA_DROP_WAKEUP_TABLE, 4, 6),
		epoch_rec(1, 0, KATRA_EPOCH_FIFO, "frame 1"),
		counter_rec(2, 5, KATRA_COUNTER_BYTES_WRITTEN, UINT64_MAX),
		summary_rec(),
	};
	struct cap c;

	cap_open(&c);
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		katra_dump_record_text(c.f, &r[i]);
	cr_assert_str_eq(cap_text(&c),
		"seq=12 ts=1.000000500 pid=100 tid=101 Linux FileRead Begin span=3 "
		"causes=[3,18446744073709551615] res=File:3 "
		"FileIo{fd=-3 count=4096 iov_count=1} cost=0 conf=Inferred\n"
		"seq=13 ts=0.000000007 pid=1 tid=2 WineProton FileOpen Instant req=9 "
		"FileOpen{dirfd=AT_FDCWD flags=O_RDWR mode=0 "
		"path=\"/t\\\"\\u000a\\u00ff\xc3\xa9\"}\n"
		"seq=1 ts=0.000000002 pid=3 tid=4 Linux WinToUnix End span=5\n"
		"seq=2 ts=0.000000003 pid=100 tid=100 Katra Drop Instant "
		"res=Ring:4 Drop{source=WakeupTable instance=4 count=6}\n"
		"seq=1 ts=0.000000000 EpochMarker epoch=1 kind=Fifo name=\"frame 1\"\n"
		"seq=2 ts=0.000000005 Counter kind=BytesWritten instance=1 "
		"value=18446744073709551615\n"
		"SessionSummary event_count=18 epoch_count=2 counter_count=2 duration_ns=2500 "
		"events_by_kind={FileRead:8 Drop:2} dropped_events=7 "
		"drops={RingReserve/0:5 Reorder/1:2} inferred_events=0 "
		"probes_attached=[\"tp:a\"] probes_failed=[] processes_seen=2 threads_seen=3\n");
	cap_free(&c);
}

/* ---- whole files ---- */

static void write_trace(const char *path, const struct katra_record *recs, size_t n,
			const struct katra_summary *sum)
{
	struct katra_header h = test_header();
	struct katra_writer *w;

	cr_assert_eq(katra_writer_open(&w, path, &h, KATRA_WRITER_OVERWRITE), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(katra_writer_append(w, &recs[i]), 0, "record %zu", i);
	if (sum)
		cr_assert_eq(katra_writer_finish(w, sum), 0);
	cr_assert_eq(katra_writer_close(w), 0);
}

Test(replay_dump, file_is_header_then_records)
{
	struct katra_record r[] = {
		epoch_rec(1, 0, KATRA_EPOCH_CAPTURE_START, "s"),
		ev(2, 10, 5, 6, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1),
	};
	struct katra_header h = test_header();
	struct tdir t;
	struct cap out, err, want;

	tdir_init(&t);
	write_trace(t.path, r, 2, NULL);
	cap_open(&out);
	cap_open(&err);
	cap_open(&want);
	katra_jsonl_header(want.f, &h);
	katra_jsonl_record(want.f, &r[0]);
	katra_jsonl_record(want.f, &r[1]);
	cr_assert_eq(katra_dump(t.path, out.f, true, err.f), 0);
	cr_assert_str_eq(cap_text(&out), cap_text(&want));
	cr_assert_str_eq(cap_text(&err), "");
	cap_free(&out);
	cap_free(&err);
	cap_free(&want);

	cap_open(&out);
	cap_open(&err);
	cap_open(&want);
	katra_dump_header_text(want.f, &h);
	fputs("seq=1 ts=0.000000000 EpochMarker epoch=1 kind=CaptureStart name=\"s\"\n"
	      "seq=2 ts=0.000000010 pid=5 tid=6 Linux Syscall Instant\n", want.f);
	cr_assert_eq(katra_dump(t.path, out.f, false, err.f), 0);
	cr_assert_str_eq(cap_text(&out), cap_text(&want));
	cr_assert_str_eq(cap_text(&err), "");
	cap_free(&out);
	cap_free(&err);
	cap_free(&want);
	tdir_remove(&t);
}

Test(replay_dump, truncated_tail_prints_prefix_then_fails)
{
	struct katra_record r[] = {
		ev(1, 10, 5, 6, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1),
		ev(2, 20, 5, 6, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1),
	};
	struct tdir t;
	struct cap out, err;
	struct stat st;
	const char *e;

	tdir_init(&t);
	write_trace(t.path, r, 2, NULL);
	cr_assert_eq(stat(t.path, &st), 0);
	cr_assert_eq(truncate(t.path, st.st_size - 3), 0);
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_dump(t.path, out.f, false, err.f), 1);
	/* six header lines (two notes), then only the first record */
	cr_assert_not_null(strstr(cap_text(&out), "# note \"\"\nseq=1 ts=0.000000010 pid=5 "));
	cr_assert_null(strstr(cap_text(&out), "seq=2"));
	e = cap_text(&err);
	cr_assert(strncmp(e, "katra-replay: bad trace file '", 30) == 0, "err: %s", e);
	cr_assert_not_null(strstr(e, "after 1 complete records"), "err: %s", e);
	cr_assert_eq(strchr(e, '\n'), e + strlen(e) - 1, "one line: %s", e);
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

Test(replay_dump, missing_file_is_an_errno_with_one_line)
{
	struct cap out, err;

	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_dump("/nonexistent/x.ktrc", out.f, true, err.f), -ENOENT);
	cr_assert_str_eq(cap_text(&err), "katra-replay: cannot open trace file "
			 "'/nonexistent/x.ktrc': No such file or directory\n");
	cr_assert_str_eq(cap_text(&out), "");
	cap_free(&out);
	cap_free(&err);
}

Test(replay_dump, not_a_trace_is_invalid)
{
	struct tdir t;
	struct cap out, err;
	FILE *f;

	tdir_init(&t);
	f = fopen(t.path, "w");
	cr_assert_not_null(f);
	fputs("this is not a trace at all", f);
	fclose(f);
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_dump(t.path, out.f, false, err.f), 1);
	cr_assert(strncmp(cap_text(&err), "katra-replay: invalid trace file '", 34) == 0);
	cr_assert_not_null(strstr(cap_text(&err), "magic"));
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

Test(replay_dump, jq_parses_every_line_of_the_sample)
{
	struct tdir t;
	char jsonl[160], cmd[512];
	FILE *out;
	size_t lines = 0;
	int c;

	tdir_init(&t);
	cr_assert_eq(katra_sample_write(t.path), 0);
	snprintf(jsonl, sizeof(jsonl), "%s/t.jsonl", t.dir);
	out = fopen(jsonl, "w");
	cr_assert_not_null(out);
	cr_assert_eq(katra_dump(t.path, out, true, stderr), 0);
	fclose(out);
	out = fopen(jsonl, "r");
	while ((c = getc(out)) != EOF)
		lines += c == '\n';
	fclose(out);
	cr_assert_eq(lines, katra_sample_count() + 1);
	/* jq -e fails on any parse error and on any line lacking "record" */
	snprintf(cmd, sizeof(cmd), "jq -e 'has(\"record\")' '%s' | grep -c true", jsonl);
	out = popen(cmd, "r");
	cr_assert_not_null(out);
	cr_assert_eq(fscanf(out, "%zu", &lines), 1, "jq missing or failed");
	cr_assert_eq(pclose(out), 0);
	cr_assert_eq(lines, katra_sample_count() + 1);
	tdir_remove(&t);
}

/* ---- verify ---- */

Test(replay_verify, valid_sample_one_line)
{
	struct tdir t;
	struct cap out, err;
	char want[256];

	tdir_init(&t);
	cr_assert_eq(katra_sample_write(t.path), 0);
	snprintf(want, sizeof(want), "%s: valid (%zu records, ", t.path, katra_sample_count());
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_replay_verify(t.path, out.f, 100, false, err.f), 0);
	cr_assert(strncmp(cap_text(&out), want, strlen(want)) == 0, "%s", cap_text(&out));
	cr_assert_eq(strchr(cap_text(&out), '\n'), cap_text(&out) + strlen(cap_text(&out)) - 1);
	cr_assert_str_eq(cap_text(&err), "");
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

Test(replay_verify, problems_capped_but_all_counted)
{
	struct katra_record r[6];
	struct tdir t;
	struct cap out, err;
	char want[256];
	const char *o;
	size_t lines = 0;

	/* five Ends that have no Begin */
	for (unsigned i = 0; i < 5; i++)
		r[i] = ev(i + 1, 10 * (i + 1), 5, 6, KATRA_KIND_SYSCALL, KATRA_PHASE_END, i);
	tdir_init(&t);
	write_trace(t.path, r, 5, NULL);
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_replay_verify(t.path, out.f, 2, false, err.f), 1);
	o = cap_text(&out);
	for (const char *p = o; *p; p++)
		lines += *p == '\n';
	snprintf(want, sizeof(want), "%s: invalid: ", t.path);
	cr_assert_not_null(strstr(o, want), "%s", o);
	cr_assert_not_null(strstr(o, " more problems not shown\n"), "%s", o);
	/* 2 printed problems + the "more" line + the count line */
	cr_assert_eq(lines, 4, "%s", o);
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

/* ---- stats ---- */

/* Known ground truth: FileRead spans of 10, 20, 30, 40 ns; one Futex span of
 * 1000 ns; an End with no Begin; a span begun twice; a Begin never ended; a
 * Begin without span_id; two Drop events; two counters; two epochs. */
static size_t stats_trace(struct katra_record *r)
{
	size_t n = 0;

	r[n++] = epoch_rec(1, 0, KATRA_EPOCH_CAPTURE_START, "start");
	r[n++] = ev(2, 100, 100, 100, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1);
	r[n++] = ev(3, 110, 100, 100, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 1);
	r[n++] = ev(4, 120, 100, 101, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1);
	r[n++] = ev(5, 140, 100, 101, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 1);
	r[n++] = ev(6, 200, 100, 100, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 2);
	r[n++] = ev(7, 230, 100, 100, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 2);
	r[n++] = ev(8, 300, 200, 200, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 5);
	r[n++] = ev(9, 340, 200, 200, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 5);
	r[n++] = ev(10, 400, 100, 101, KATRA_KIND_FUTEX, KATRA_PHASE_BEGIN, 9);
	r[n++] = ev(11, 1400, 100, 101, KATRA_KIND_FUTEX, KATRA_PHASE_END, 9);
	r[n++] = ev(12, 1500, 100, 100, KATRA_KIND_SYSCALL, KATRA_PHASE_END, 77);
	r[n++] = ev(13, 1600, 100, 100, KATRA_KIND_SYSCALL, KATRA_PHASE_BEGIN, 3);
	r[n++] = ev(14, 1700, 100, 100, KATRA_KIND_SYSCALL, KATRA_PHASE_BEGIN, 3);
	r[n++] = ev(15, 1800, 200, 200, KATRA_KIND_SLEEP, KATRA_PHASE_BEGIN, 8);
	r[n] = ev(16, 1900, 100, 100, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	r[n++].u.event.scope = KATRA_SCOPE_WINE_PROTON;
	r[n++] = drop_event(17, 2000, KATRA_DROP_RING_RESERVE, 0, 5);
	r[n++] = drop_event(18, 2100, KATRA_DROP_REORDER, 1, 2);
	r[n++] = counter_rec(19, 2200, KATRA_COUNTER_EVENTS_DROPPED, 7);
	r[n++] = counter_rec(20, 2300, KATRA_COUNTER_EVENTS_DROPPED, 3);
	r[n++] = ev(21, 2400, 200, 200, KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, -1);
	r[n++] = epoch_rec(22, 2500, KATRA_EPOCH_CAPTURE_END, "end");
	return n;
}

Test(replay_stats, json_numbers_for_a_known_trace)
{
	struct katra_record r[32];
	struct katra_record sum = summary_rec();
	size_t n = stats_trace(r);
	struct tdir t;
	struct cap out, err;
	char want[8192];

	tdir_init(&t);
	write_trace(t.path, r, n, &sum.u.summary);
	snprintf(want, sizeof(want),
		"{\"file\":\"%s\",\"workload\":\"w\",\"tool_version\":\"katra-test 1\","
		"\"labels\":{},\"complete\":true,\"error\":null,\"records\":23,\"events\":18,"
		"\"epoch_markers\":2,\"counters\":2,\"session_summary\":true,"
		"\"first_ts_mono_ns\":0,\"last_ts_mono_ns\":2500,\"duration_ns\":2500,"
		"\"windowed\":false,\"capture_duration_ns\":2500,"
		"\"summary_duration_ns\":2500,"
		"\"by_scope\":{\"WineProton\":1,\"Linux\":15,\"Katra\":2},"
		"\"by_kind\":{\"Syscall\":4,\"FileRead\":8,\"FileWrite\":1,\"Futex\":2,"
		"\"Sleep\":1,\"Drop\":2},"
		"\"by_phase\":{\"Instant\":3,\"Begin\":9,\"End\":6},"
		"\"processes\":[{\"process_id\":100,\"name\":null,\"threads\":2,\"events\":14},"
		"{\"process_id\":200,\"name\":null,\"threads\":1,\"events\":4}],"
		"\"threads\":[{\"process_id\":100,\"thread_id\":100,\"name\":null,\"events\":10},"
		"{\"process_id\":100,\"thread_id\":101,\"name\":null,\"events\":4},"
		"{\"process_id\":200,\"thread_id\":200,\"name\":null,\"events\":4}],"
		"\"untracked_thread_events\":0,"
		"\"spans\":{\"by_kind\":{"
		"\"FileRead\":{\"count\":4,\"total_ns\":100,\"min_ns\":10,\"p50_ns\":20,"
		"\"p99_ns\":40,\"max_ns\":40},"
		"\"Futex\":{\"count\":1,\"total_ns\":1000,\"min_ns\":1000,\"p50_ns\":1000,"
		"\"p99_ns\":1000,\"max_ns\":1000}},"
		"\"begins_by_kind\":{\"Syscall\":2,\"FileRead\":4,\"Futex\":1,\"Sleep\":1},"
		"\"unmatched_ends\":1,\"never_ended\":2,\"begun_twice\":1,"
		"\"without_span_id\":1,\"table_overflow\":0,\"percentiles\":\"p50_ns and p99_ns: "
		"histogram bucket midpoints, within 1/32 (exact below 64 ns)\"},"
		"\"drops\":{\"summary_dropped_events\":7,"
		"\"summary_by_source\":{\"RingReserve\":5,\"Reorder\":2},\"drop_events\":2,"
		"\"events_by_source\":{\"RingReserve\":5,\"Reorder\":2}},"
		"\"epochs\":{\"by_kind\":{\"CaptureStart\":1,\"CaptureEnd\":1},\"markers\":["
		"{\"seq\":1,\"ts_mono_ns\":0,\"epoch\":1,\"kind\":\"CaptureStart\","
		"\"name\":\"start\"},"
		"{\"seq\":22,\"ts_mono_ns\":2500,\"epoch\":22,\"kind\":\"CaptureEnd\","
		"\"name\":\"end\"}],\"markers_not_listed\":0},"
		"\"counters_by_kind\":{\"EventsDropped\":{\"records\":2,\"max\":7}},"
		/* the syscall spans: FileRead and Futex kinds without a number */
		"\"syscalls\":{\"total_ns\":1100,\"rows\":["
		"{\"syscall\":\"(Futex)\",\"nr\":null,\"calls\":1,\"errors\":0,\"total_ns\":1000,"
		"\"avg_ns\":1000,\"max_ns\":1000,\"percent_time\":90.91},"
		"{\"syscall\":\"(FileRead)\",\"nr\":null,\"calls\":4,\"errors\":0,\"total_ns\":100,"
		"\"avg_ns\":25,\"max_ns\":40,\"percent_time\":9.09}],\"untimed\":0,\"overflow\":0}}\n",
		t.path);
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_stats(t.path, out.f, true, err.f), 0);
	cr_assert_str_eq(cap_text(&out), want);
	cr_assert_str_eq(cap_text(&err), "");
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

Test(replay_stats, text_for_a_known_trace)
{
	struct katra_record r[32];
	struct katra_record sum = summary_rec();
	size_t n = stats_trace(r);
	struct tdir t;
	struct cap out, err;
	char want[8192];

	tdir_init(&t);
	write_trace(t.path, r, n, &sum.u.summary);
	snprintf(want, sizeof(want),
		"trace      %s\n"
		"workload   \"w\"  tool \"katra-test 1\"\n"
		"records    23 (events 18, epoch markers 2, counters 2, session summary yes)\n"
		"duration   0.000002500 s (records from 0 ns to 2.500 us), "
		"SessionSummary says 0.000002500 s\n"
		"\n"
		"events by scope                  events\n"
		"  WineProton                          1\n"
		"  Linux                              15\n"
		"  Katra                               2\n"
		"\n"
		"events by kind                   events\n"
		"  Syscall                             4\n"
		"  FileRead                            8\n"
		"  FileWrite                           1\n"
		"  Futex                               2\n"
		"  Sleep                               1\n"
		"  Drop                                2\n"
		"\n"
		"events by phase                  events\n"
		"  Instant                             3\n"
		"  Begin                               9\n"
		"  End                                 6\n"
		"\n"
		"process                         threads       events\n"
		"  100                                 2           14\n"
		"  200                                 1            4\n"
		"\n"
		"thread                     process                        events\n"
		"  100                      100                                10\n"
		"  101                      100                                 4\n"
		"  200                      200                                 4\n"
		"\n"
		"spans by kind                     count        total          min         p50~"
		"         p99~          max\n"
		"  FileRead                            4       100 ns        10 ns        20 ns"
		"        40 ns        40 ns\n"
		"  Futex                               1     1.000 us     1.000 us     1.000 us"
		"     1.000 us     1.000 us\n"
		"  p50~ p99~: nearest-rank percentiles from histogram buckets, within 1/32 "
		"(exact below 64 ns)\n"
		"  unmatched End 1, never ended 2, begun twice 1, without span_id 1, "
		"table overflow 0\n"
		"\n"
		"drops by source                 summary       events\n"
		"  RingReserve                         5            5\n"
		"  Reorder                             2            2\n"
		"  total                               7            7\n"
		"  SessionSummary dropped_events 7\n"
		"  Drop events 2\n"
		"\n"
		"epochs by kind                  markers\n"
		"  CaptureStart                        1\n"
		"  CaptureEnd                          1\n"
		"  seq=1 ts=0.000000000 epoch=1 CaptureStart name=\"start\"\n"
		"  seq=22 ts=0.000002500 epoch=22 CaptureEnd name=\"end\"\n"
		"\n"
		"counters by kind                records                  max\n"
		"  EventsDropped                       2                    7\n"
		"\n"
		"syscalls (wall time from entry to return, blocking included: like strace -c -w)\n"
		"%% time     seconds  usecs/call   max usecs     calls    errors syscall\n"
		"------ ----------- ----------- ----------- --------- --------- ----------------\n"
		" 90.91    0.000001           1           1         1           (Futex)\n"
		"  9.09    0.000000           0           0         4           (FileRead)\n"
		"------ ----------- ----------- ----------- --------- --------- ----------------\n"
		"100.00    0.000001           0           1         5           total\n"
		"\n"
		"(views: 1 End without a Begin, 0 Begins beyond the open-span table, "
		"0 events beyond the thread table)\n",
		t.path);
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_stats(t.path, out.f, false, err.f), 0);
	cr_assert_str_eq(cap_text(&out), want);
	cr_assert_str_eq(cap_text(&err), "");
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

Test(replay_stats, truncated_trace_reports_prefix_and_fails)
{
	struct katra_record r[32];
	size_t n = stats_trace(r);
	struct tdir t;
	struct cap out, err;
	struct stat st;

	tdir_init(&t);
	write_trace(t.path, r, n, NULL);
	cr_assert_eq(stat(t.path, &st), 0);
	cr_assert_eq(truncate(t.path, st.st_size - 1), 0);
	cap_open(&out);
	cap_open(&err);
	cr_assert_eq(katra_stats(t.path, out.f, true, err.f), 1);
	/* everything but the last epoch marker was counted */
	cr_assert_not_null(strstr(cap_text(&out),
				  "\"complete\":false,\"error\":\"ends mid-record"));
	cr_assert_not_null(strstr(cap_text(&out), "\"records\":21,\"events\":18,"));
	cr_assert_not_null(strstr(cap_text(&out), "\"session_summary\":false,"));
	cr_assert(strncmp(cap_text(&err), "katra-replay: bad trace file '", 30) == 0);
	cap_free(&out);
	cap_free(&err);
	tdir_remove(&t);
}

/* ---- building blocks ---- */

Test(replay_histo, exact_below_64_and_within_1_32_above)
{
	struct kr_histo *h = calloc(1, sizeof(*h));

	cr_assert_not_null(h);
	for (uint64_t v = 1; v <= 63; v++)
		kr_histo_add(h, v);
	cr_assert_eq(kr_histo_percentile(h, 500), 32);
	cr_assert_eq(kr_histo_percentile(h, 990), 63);
	memset(h, 0, sizeof(*h));
	for (uint64_t v = 1; v <= 100000; v++)
		kr_histo_add(h, v);
	cr_assert_eq(h->count, 100000);
	cr_assert_eq(h->total, 5000050000ull);
	cr_assert_eq(h->min, 1);
	cr_assert_eq(h->max, 100000);
	for (unsigned p = 10; p <= 1000; p += 10) {
		uint64_t want = 100 * p, got = kr_histo_percentile(h, p);
		uint64_t diff = got > want ? got - want : want - got;

		cr_assert_leq(diff * 32, want, "p%u: got %llu want %llu", p,
			      (unsigned long long)got, (unsigned long long)want);
	}
	memset(h, 0, sizeof(*h));
	kr_histo_add(h, UINT64_MAX);
	kr_histo_add(h, 0);
	cr_assert_eq(kr_histo_percentile(h, 500), 0);
	cr_assert_eq(kr_histo_percentile(h, 990), UINT64_MAX);
	cr_assert_eq(h->total, UINT64_MAX);
	free(h);
}

Test(replay_idmap, matches_a_plain_array_under_inserts_and_removes)
{
	enum { KEYS = 5000 };
	static bool present[KEYS];
	struct kr_idmap m;
	unsigned seed = 12345;
	size_t live = 0;

	memset(present, 0, sizeof(present));
	kr_idmap_init(&m, KEYS);
	for (unsigned step = 0; step < 200000; step++) {
		uint64_t k;
		struct kr_idmap_slot *s;
		bool created;

		seed = seed * 1103515245u + 12345u;
		k = (seed >> 8) % KEYS;
		s = kr_idmap_find(&m, k, k ^ 7);
		cr_assert_eq(s != NULL, present[k], "step %u key %llu", step,
			     (unsigned long long)k);
		if (s) {
			cr_assert_eq(s->v1, k * 3);
			kr_idmap_remove(&m, s);
			present[k] = false;
			live--;
		} else {
			s = kr_idmap_get(&m, k, k ^ 7, &created);
			cr_assert_not_null(s);
			cr_assert(created);
			s->v1 = k * 3;
			present[k] = true;
			live++;
		}
		cr_assert_eq(m.len, live);
	}
	kr_idmap_free(&m);
}

Test(replay_idmap, refuses_beyond_its_bound)
{
	struct kr_idmap m;
	bool created;

	kr_idmap_init(&m, 3);
	for (uint64_t k = 0; k < 3; k++)
		cr_assert_not_null(kr_idmap_get(&m, k, 0, &created));
	cr_assert_null(kr_idmap_get(&m, 99, 0, &created));
	cr_assert_not_null(kr_idmap_get(&m, 1, 0, &created));
	cr_assert_not(created);
	kr_idmap_free(&m);
}
