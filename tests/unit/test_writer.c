// SPDX-License-Identifier: GPL-2.0-only
/* The writer: file creation rules (0600, no clobber, no symlink) and the
 * exact bytes it puts on disk. */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "format_test_util.h"
#include "katra/writer_sched.h"

struct wfix {
	char dir[64];
	char path[128];
};

static void wfix_init(struct wfix *f)
{
	temp_dir(f->dir, sizeof(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/t.ktrc", f->dir);
}

/* Writes the sample records through the writer (the summary via finish). */
static int write_sample(const char *path, unsigned flags)
{
	struct katra_writer *w;
	size_t n = katra_sample_count();
	int rc = katra_writer_open(&w, path, katra_sample_header(), flags);

	if (rc)
		return rc;
	for (size_t i = 0; i + 1 < n; i++)
		cr_assert_eq(katra_writer_append(w, katra_sample_record(i)), 0, "record %zu", i);
	cr_assert_eq(katra_writer_records(w), n - 1);
	cr_assert_eq(katra_writer_finish(w, &katra_sample_record(n - 1)->u.summary), 0);
	cr_assert_eq(katra_writer_records(w), n);
	return katra_writer_close(w);
}

Test(writer, file_mode_is_0600_whatever_the_umask, .timeout = 30)
{
	struct wfix f;
	struct stat st;
	mode_t old = umask(0);

	wfix_init(&f);
	cr_assert_eq(write_sample(f.path, 0), 0);
	umask(old);
	cr_assert_eq(stat(f.path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	cr_assert(S_ISREG(st.st_mode));
	temp_dir_remove(f.dir);
}

Test(writer, overwrite_resets_mode_to_0600, .timeout = 30)
{
	struct wfix f;
	struct stat st;

	wfix_init(&f);
	write_file(f.path, "old", 3);
	cr_assert_eq(chmod(f.path, 0666), 0);
	cr_assert_eq(write_sample(f.path, KATRA_WRITER_OVERWRITE), 0);
	cr_assert_eq(stat(f.path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	temp_dir_remove(f.dir);
}

Test(writer, refuses_existing_file_unless_overwrite, .timeout = 30)
{
	struct wfix f;
	struct katra_writer *w = (struct katra_writer *)1;
	size_t len;
	uint8_t *p;

	wfix_init(&f);
	write_file(f.path, "precious", 8);
	cr_assert_eq(katra_writer_open(&w, f.path, katra_sample_header(), 0), -EEXIST);
	cr_assert_null(w);
	p = read_file(f.path, &len);
	cr_assert_eq(len, 8, "the existing file must be untouched");
	cr_assert_eq(memcmp(p, "precious", 8), 0);
	free(p);

	cr_assert_eq(write_sample(f.path, KATRA_WRITER_OVERWRITE), 0);
	p = read_file(f.path, &len);
	cr_assert_gt(len, 8);
	cr_assert_eq(memcmp(p, KATRA_MAGIC, 8), 0);
	free(p);
	temp_dir_remove(f.dir);
}

Test(writer, refuses_symlink_path, .timeout = 30)
{
	struct wfix f;
	struct katra_writer *w = (struct katra_writer *)1;
	char target[160], link_path[160];
	struct stat st;

	wfix_init(&f);
	snprintf(target, sizeof(target), "%s/target", f.dir);
	snprintf(link_path, sizeof(link_path), "%s/link.ktrc", f.dir);
	write_file(target, "keep", 4);
	cr_assert_eq(symlink(target, link_path), 0);

	cr_assert_eq(katra_writer_open(&w, link_path, katra_sample_header(),
				       KATRA_WRITER_OVERWRITE), -ELOOP);
	cr_assert_null(w);
	/* without OVERWRITE, O_EXCL refuses any existing name, a link included */
	cr_assert_eq(katra_writer_open(&w, link_path, katra_sample_header(), 0), -EEXIST);
	cr_assert_eq(stat(target, &st), 0);
	cr_assert_eq(st.st_size, 4, "the link's target must be untouched");

	/* a dangling link must not be followed to create its target either */
	cr_assert_eq(unlink(target), 0);
	cr_assert_eq(katra_writer_open(&w, link_path, katra_sample_header(),
				       KATRA_WRITER_OVERWRITE), -ELOOP);
	cr_assert_eq(katra_writer_open(&w, link_path, katra_sample_header(), 0), -EEXIST);
	cr_assert_neq(stat(target, &st), 0);
	temp_dir_remove(f.dir);
}

Test(writer, missing_directory_is_enoent, .timeout = 30)
{
	struct katra_writer *w;

	cr_assert_eq(katra_writer_open(&w, "/nonexistent-katra-dir/t.ktrc", katra_sample_header(),
				       0), -ENOENT);
}

Test(writer, bytes_equal_the_encoders, .timeout = 30)
{
	struct wfix f;
	struct tbuf want = { 0 };
	size_t len;
	uint8_t *got;

	wfix_init(&f);
	cr_assert_eq(write_sample(f.path, 0), 0);
	tbuf_sample_trace(&want, NULL);
	got = read_file(f.path, &len);
	cr_assert_eq(len, want.len, "file is %zu bytes, expected %zu", len, want.len);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(got[i], want.p[i], "byte %zu differs", i);
	free(got);
	tbuf_free(&want);
	temp_dir_remove(f.dir);
}

Test(writer, header_first_records_in_order_summary_last, .timeout = 30)
{
	struct wfix f;
	struct katra_reader *r;
	struct katra_record rec;
	char msg[300];
	size_t n = katra_sample_count(), i;
	uint32_t hlen;
	uint8_t *p;
	size_t len;

	wfix_init(&f);
	cr_assert_eq(write_sample(f.path, 0), 0);
	p = read_file(f.path, &len);
	cr_assert_eq(memcmp(p, "KATRATRC", 8), 0);
	cr_assert_eq(p[8], 1);
	cr_assert_eq(p[9] | p[10] | p[11], 0);
	memcpy(&hlen, p + 12, 4);
	{
		uint8_t h[4096];
		long hn = katra_encode_header(katra_sample_header(), h, sizeof(h));

		cr_assert_eq((long)hlen, hn);
		cr_assert_eq(memcmp(p + 16, h, (size_t)hn), 0);
	}
	free(p);

	cr_assert_eq(katra_reader_open(&r, f.path, msg, sizeof(msg)), 0, "%s", msg);
	for (i = 0; katra_reader_next(r, &rec) == KATRA_READ_RECORD; i++) {
		const struct katra_record *want = katra_sample_record(i);

		cr_assert_lt(i, n);
		cr_assert_eq(rec.type, want->type, "record %zu", i);
		if (rec.type == KATRA_RECORD_EVENT)
			cr_assert_eq(rec.u.event.seq, want->u.event.seq, "record %zu", i);
		cr_assert_eq(rec.type == KATRA_RECORD_SESSION_SUMMARY, i == n - 1,
			     "SessionSummary must be last, found at %zu", i);
	}
	cr_assert_eq(i, n);
	katra_reader_close(r);
	temp_dir_remove(f.dir);
}

Test(writer, bytes_count_and_flush, .timeout = 30)
{
	struct wfix f;
	struct katra_writer *w;
	struct katra_record e = mk_epoch(1, 1, "x");
	struct stat st;
	uint64_t before;

	wfix_init(&f);
	cr_assert_eq(katra_writer_open(&w, f.path, katra_sample_header(), 0), 0);
	before = katra_writer_bytes(w);
	cr_assert_eq(stat(f.path, &st), 0);
	cr_assert_eq((uint64_t)st.st_size, before, "the header is on disk after open");
	cr_assert_eq(katra_writer_append(w, &e), 0);
	cr_assert_eq(katra_writer_bytes(w), before + 4 + katra_encoded_record_size(&e));
	cr_assert_eq(katra_writer_flush(w), 0);
	cr_assert_eq(stat(f.path, &st), 0);
	cr_assert_eq((uint64_t)st.st_size, katra_writer_bytes(w));
	cr_assert_eq(katra_writer_close(w), 0);
	temp_dir_remove(f.dir);
}

Test(writer, append_after_finish_is_refused, .timeout = 30)
{
	struct wfix f;
	struct katra_writer *w;
	struct katra_record recs[1] = { mk_epoch(1, 1, "x") };
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_record sum = mk_summary(recs, 1, kinds);
	struct katra_record late = mk_epoch(2, 2, "late");
	size_t len;
	uint8_t *p;

	wfix_init(&f);
	cr_assert_eq(katra_writer_open(&w, f.path, katra_sample_header(), 0), 0);
	cr_assert_eq(katra_writer_append(w, &recs[0]), 0);
	cr_assert_eq(katra_writer_finish(w, &sum.u.summary), 0);
	cr_assert_eq(katra_writer_append(w, &late), -EINVAL);
	cr_assert_eq(katra_writer_close(w), 0);
	p = read_file(f.path, &len);
	{
		struct tbuf want = { 0 };
		struct katra_record both[2] = { recs[0], sum };

		tbuf_trace(&want, both, 2, NULL);
		cr_assert_eq(len, want.len);
		cr_assert_eq(memcmp(p, want.p, len), 0);
		tbuf_free(&want);
	}
	free(p);
	temp_dir_remove(f.dir);
}

/* Records larger than the writer's buffer still come out byte-exact. */
Test(writer, large_record_bytes_exact, .timeout = 30)
{
	struct wfix f;
	struct katra_writer *w;
	static uint64_t causes[200000];
	struct katra_record big = mk_event(300000, 1, 1, KATRA_PHASE_INSTANT, -1);
	struct katra_record small = mk_epoch(300001, 2, "after");
	struct tbuf want = { 0 };
	struct katra_record both[2];
	size_t len;
	uint8_t *p;

	for (size_t i = 0; i < 200000; i++)
		causes[i] = i + 1;
	big.u.event.causes = (struct katra_u64_vec){ causes, 200000 };
	wfix_init(&f);
	cr_assert_eq(katra_writer_open(&w, f.path, katra_sample_header(), 0), 0);
	cr_assert_eq(katra_writer_append(w, &small), 0);
	cr_assert_eq(katra_writer_append(w, &big), 0);
	cr_assert_eq(katra_writer_append(w, &small), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	both[0] = small;
	both[1] = big;
	tbuf_trace(&want, both, 2, NULL);
	tbuf_framed(&want, &small);
	p = read_file(f.path, &len);
	cr_assert_eq(len, want.len);
	cr_assert_eq(memcmp(p, want.p, len), 0);
	free(p);
	tbuf_free(&want);
	temp_dir_remove(f.dir);
}

Test(writer, sample_write_is_the_same_file, .timeout = 30)
{
	struct wfix f;
	struct tbuf want = { 0 };
	size_t len;
	uint8_t *p;

	wfix_init(&f);
	write_file(f.path, "stale", 5);
	cr_assert_eq(katra_sample_write(f.path), 0, "katra_sample_write overwrites");
	tbuf_sample_trace(&want, NULL);
	p = read_file(f.path, &len);
	cr_assert_eq(len, want.len);
	cr_assert_eq(memcmp(p, want.p, len), 0);
	free(p);
	tbuf_free(&want);
	temp_dir_remove(f.dir);
}

/* OVERWRITE must not chmod what is not a regular file: a device (think
 * `-o /dev/null` run as root) keeps its mode. */
Test(writer, overwrite_does_not_chmod_a_device, .timeout = 30)
{
	struct wfix f;
	struct katra_writer *w = (struct katra_writer *)1;
	struct stat st;
	int rc;

	wfix_init(&f);
	if (mknod(f.path, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		temp_dir_remove(f.dir);
		cr_skip_test("mknod needs root: %s", strerror(errno));
	}
	cr_assert_eq(chmod(f.path, 0666), 0);
	rc = katra_writer_open(&w, f.path, katra_sample_header(), KATRA_WRITER_OVERWRITE);
	if (rc == 0)
		katra_writer_close(w);
	cr_assert_eq(stat(f.path, &st), 0);
	/* refusing (-EINVAL) or writing without the chmod are both acceptable */
	cr_assert_eq(st.st_mode & 07777, 0666, "device mode changed to %o (rc %d)",
		     st.st_mode & 07777, rc);
	temp_dir_remove(f.dir);
}

/* Every record of the sample, the events with 0..6 causes too: through the
 * per-event path (katra_writer_append_event: the events without strings and
 * with at most 4 causes encoded without a call) when events, else the
 * record path. */
static void write_events(const char *path, bool per_event)
{
	uint64_t causes[6] = { 7, 0x0102030405060708ull, 9, UINT64_MAX, 11, 12 };
	struct katra_writer *w;

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (size_t i = 0; i + 1 < katra_sample_count(); i++) {
		struct katra_record r = *katra_sample_record(i);
		for (uint64_t nc = 0; nc <= 6; nc++) {
			if (r.type == KATRA_RECORD_EVENT)
				r.u.event.causes = (struct katra_u64_vec){ causes, nc };
			else if (nc)
				break;
			if (per_event && r.type == KATRA_RECORD_EVENT)
				cr_assert_eq(katra_writer_append_event(w, &r.u.event), 0);
			else
				cr_assert_eq(katra_writer_append(w, &r), 0);
		}
	}
	cr_assert_eq(katra_writer_close(w), 0);
}

/* The trace write(path, true) makes through the calls under test and the
 * one write(path, false) makes through the general path they stand for:
 * byte for byte the same, and at least min_bytes long. */
static void assert_same_traces(void (*write)(const char *, bool), size_t min_bytes)
{
	struct wfix a, b;
	size_t alen, blen;
	uint8_t *got, *want;

	wfix_init(&a);
	wfix_init(&b);
	write(a.path, true);
	write(b.path, false);
	got = read_file(a.path, &alen);
	want = read_file(b.path, &blen);
	cr_assert_geq(alen, min_bytes, "only %zu bytes, %zu expected", alen, min_bytes);
	cr_assert_eq(alen, blen, "through the calls %zu bytes, as events %zu", alen, blen);
	for (size_t i = 0; i < alen; i++)
		cr_assert_eq(got[i], want[i], "byte %zu differs", i);
	free(got);
	free(want);
	temp_dir_remove(a.dir);
	temp_dir_remove(b.dir);
}

Test(writer, the_per_event_path_writes_the_record_paths_bytes, .timeout = 30)
{
	assert_same_traces(write_events, 1);
}

/* The End of the syscall span whose Begin *ev was (ev becomes it): seq at
 * ts and wall, its cause *begin, a SyscallReturn of nr and ret, through
 * katra_writer_append_event. */
static void append_end_event(struct katra_writer *w, struct katra_event *ev, uint64_t seq,
			     uint64_t ts, uint64_t wall, const uint64_t *begin, uint32_t nr,
			     int64_t ret)
{
	ev->seq = seq;
	ev->ts_mono_ns = ts;
	ev->ts_wall_ns = wall;
	ev->phase = KATRA_PHASE_END;
	ev->causes = (struct katra_u64_vec){ (uint64_t *)begin, 1 };
	ev->payload = (struct katra_payload){ .type = KATRA_PAYLOAD_SYSCALL_RETURN };
	ev->payload.u.syscall_return.nr = nr;
	ev->payload.u.syscall_return.ret = ret;
	cr_assert_eq(katra_writer_append_event(w, ev), 0);
}

/* A syscall's Begin with each payload of the sample (those with strings
 * take the general path), then its End, through the calls for them
 * (katra_writer_append_syscall_begin/_end), else as the Events they stand
 * for through katra_writer_append_event.  Enough of them to cross the
 * writer's buffer several times. */
static void write_syscall_spans(const char *path, bool span_calls)
{
	struct katra_writer *w;
	uint64_t seq = 1;

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (unsigned round = 0; round < 400; round++)
		for (size_t i = 0; i < katra_sample_count(); i++) {
			const struct katra_record *r = katra_sample_record(i);
			uint64_t ts = 1000 * seq + round, span = 5 + seq, begin = seq;
			struct katra_resource res = { round % 3 ? KATRA_RES_FILE : KATRA_RES_NONE,
						      round % 3 ? 0x1234567890ull + i : 0 };

			if (r->type != KATRA_RECORD_EVENT)
				continue;
			uint64_t end = begin + 1;
			uint32_t kind = 3 + i % 5, nr = (uint32_t)(i * 7 + round);
			int64_t ret = round % 2 ? -11 : (int64_t)i << 33;
			const struct katra_payload *pl = &r->u.event.payload;

			seq += 2;
			if (span_calls) {
				cr_assert_eq(katra_writer_append_syscall_begin(
						     w, begin, span, 40 + round, 40, kind, ts, 7,
						     res.domain, res.id, pl),
					     0);
				cr_assert_eq(katra_writer_append_syscall_end(
						     w, end, span, begin, 40 + round, 40, kind, nr,
						     ts + 500, 7, res.domain, res.id, ret),
					     0);
				continue;
			}
			struct katra_event ev = {
				.seq = begin, .ts_mono_ns = ts, .ts_wall_ns = ts + 7,
				.thread_id = 40 + round, .process_id = 40, .scope = KATRA_SCOPE_LINUX,
				.kind = kind, .phase = KATRA_PHASE_BEGIN, .span_id = { true, span },
				.resource = res, .payload = *pl,
				.confidence = KATRA_CONFIDENCE_MEASURED,
			};
			cr_assert_eq(katra_writer_append_event(w, &ev), 0);
			append_end_event(w, &ev, end, ts + 500, ts + 507, &begin, nr, ret);
		}
	cr_assert_eq(katra_writer_close(w), 0);
}

Test(writer, the_syscall_span_calls_write_the_events_bytes, .timeout = 30)
{
	/* the buffer crossed three times */
	assert_same_traces(write_syscall_spans, 3 * (size_t)KATRA_WRITER_BUFFER_BYTES + 1);
}

/* io_uring submissions and completions, with and without their one cause,
 * through katra_writer_append_io_uring, else as the Events they stand for
 * through katra_writer_append_event: enough to cross the writer's buffer
 * several times. */
static void write_io_uring(const char *path, bool req_calls)
{
	struct katra_writer *w;

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (uint64_t i = 0; i < 120000; i++) {
		bool submit = i % 2 == 0;
		struct katra_io_uring_req r = {
			.seq = i + 1, .ts_mono_ns = 1000 * i + 3, .ts_wall_ns = 1000 * i + 99,
			.thread_id = i % 5 ? 700 + i % 3 : 0, .process_id = i % 5 ? 700 : 0,
			.kind = submit ? KATRA_KIND_IO_URING_SUBMIT : KATRA_KIND_IO_URING_COMPLETE,
			.ncauses = i % 3 ? 1 : 0, .cause = i % 3 ? i * 7 : 0,
			.ctx = 0xffff888000010000ull + (i % 4) * 0x1000, .user_data = i * 0x10001,
			.opcode = submit ? (uint32_t)(i % 57) : 0,
			.flags = submit ? (uint32_t)(i * 31) : 0,
			.res = submit ? 0 : (int32_t)(i % 200) - 100,
			.cflags = submit ? 0 : (uint32_t)(i % 9),
		};
		if (req_calls) {
			cr_assert_eq(katra_writer_append_io_uring(w, &r), 0);
			continue;
		}
		uint64_t cause = r.cause;
		struct katra_event ev = {
			.seq = r.seq, .ts_mono_ns = r.ts_mono_ns, .ts_wall_ns = r.ts_wall_ns,
			.thread_id = r.thread_id, .process_id = r.process_id,
			.scope = KATRA_SCOPE_LINUX, .kind = r.kind, .phase = KATRA_PHASE_INSTANT,
			.request_id = { true, r.user_data }, .causes = { &cause, r.ncauses },
			.resource = { KATRA_RES_IO_URING, r.ctx },
			.confidence = KATRA_CONFIDENCE_MEASURED,
		};
		if (submit) {
			ev.payload.type = KATRA_PAYLOAD_IO_URING_SUBMIT;
			ev.payload.u.io_uring_submit.ctx = r.ctx;
			ev.payload.u.io_uring_submit.user_data = r.user_data;
			ev.payload.u.io_uring_submit.opcode = r.opcode;
			ev.payload.u.io_uring_submit.flags = r.flags;
			ev.payload.u.io_uring_submit.fd = -1;
		} else {
			ev.payload.type = KATRA_PAYLOAD_IO_URING_COMPLETE;
			ev.payload.u.io_uring_complete.ctx = r.ctx;
			ev.payload.u.io_uring_complete.user_data = r.user_data;
			ev.payload.u.io_uring_complete.res = r.res;
			ev.payload.u.io_uring_complete.cflags = r.cflags;
		}
		cr_assert_eq(katra_writer_append_event(w, &ev), 0);
	}
	cr_assert_eq(katra_writer_close(w), 0);
}

Test(writer, the_io_uring_call_writes_the_events_bytes, .timeout = 30)
{
	assert_same_traces(write_io_uring, 1);
}

/* an i386 syscall's number as the recorder writes it (its high bit set) */
#define I386_NR (1u << 31)

/* The Begin's payload of pair i: each payload of the sample in turn (those
 * with strings take the general path), a FileIo with and without its
 * offset, and a plain Syscall one. */
static struct katra_payload pair_payload(size_t i, unsigned round)
{
	struct katra_payload pl = { .type = KATRA_PAYLOAD_SYSCALL };
	size_t n = katra_sample_count();

	if (i < n && katra_sample_record(i)->type == KATRA_RECORD_EVENT)
		return katra_sample_record(i)->u.event.payload;
	if (i == n) {
		pl.type = KATRA_PAYLOAD_FILE_IO;
		pl.u.file_io.fd = (int32_t)round - 7;
		pl.u.file_io.count = 4096ull << (round % 20);
		pl.u.file_io.offset = (struct katra_opt_u64){ round % 2, round * 512ull };
		pl.u.file_io.iov_count = round % 3;
	} else {
		pl.u.syscall.nr = (round % 4 ? 0 : I386_NR) | (uint32_t)(i + round);
	}
	return pl;
}

/* Syscall pairs through katra_writer_append_syscall_pair, else as the two
 * Events they stand for through katra_writer_append_event: every payload
 * of the sample, every resource domain, x86_64 and i386 numbers, negative
 * returns, times and ids up to 64 bits; enough to cross the writer's
 * buffer several times (a pair split by a buffer's end included). */
static void write_syscall_pairs(const char *path, bool pair_calls)
{
	struct katra_writer *w;
	uint64_t seq = 1;

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (unsigned round = 0; round < 700; round++)
		for (size_t i = 0; i < katra_sample_count() + 2; i++) {
			struct katra_payload pl = pair_payload(i, round);
			uint64_t enter = 1000 * seq + round, exit = enter + 300 + i;
			uint64_t wall = round % 5 ? 1700000000000000000ull : 0, span = 9 + seq;
			uint64_t tid = round % 7 ? 40 + round : UINT32_MAX, pid = 40 + round % 3;
			uint32_t kind = (uint32_t)(i + round) % KATRA_KIND_COUNT;
			uint32_t nr = (round % 4 ? 0 : I386_NR) | (uint32_t)(i * 7 + round);
			uint32_t domain = (uint32_t)(round % 6);
			uint64_t id = domain ? 0x123456789abcdef0ull + i * round : 0;
			int64_t ret = round % 2 ? -(int64_t)(i + 1) : (int64_t)i << 33;
			uint64_t begin = seq;

			if (pair_calls) {
				cr_assert_eq(katra_writer_append_syscall_pair(w, seq, span, tid, pid,
									      kind, nr, enter, exit,
									      wall, domain, id, ret,
									      &pl),
					     0);
				seq += 2;
				continue;
			}
			struct katra_event ev = {
				.seq = seq++, .ts_mono_ns = enter, .ts_wall_ns = wall + enter,
				.thread_id = tid, .process_id = pid, .scope = KATRA_SCOPE_LINUX,
				.kind = kind, .phase = KATRA_PHASE_BEGIN, .span_id = { true, span },
				.resource = { domain, id }, .payload = pl,
				.confidence = KATRA_CONFIDENCE_MEASURED,
			};
			cr_assert_eq(katra_writer_append_event(w, &ev), 0);
			append_end_event(w, &ev, seq++, exit, wall + exit, &begin, nr, ret);
		}
	cr_assert_eq(katra_writer_close(w), 0);
}

Test(writer, the_syscall_pair_call_writes_the_events_bytes, .timeout = 30)
{
	/* the buffer crossed three times */
	assert_same_traces(write_syscall_pairs, 3 * (size_t)KATRA_WRITER_BUFFER_BYTES + 1);
}

/* Page faults' Begins, Ends and instants, OffCpu Begins and Ends (one or two causes)
 * and wakeups through katra_writer_append_fault/_switch/_wakeup, else as
 * the Events they stand for through katra_writer_append_event: times, ids,
 * addresses and states up to 64 bits; enough to cross the writer's buffer
 * several times. */
static void write_sched_faults(const char *path, bool scalar_calls)
{
	struct katra_writer *w;

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (uint64_t i = 0; i < 150000; i++) {
		uint64_t ts = 1000 * i + i % 7, wall = i % 5 ? 1700000000000000000ull : 0;
		uint64_t tid = i % 11 ? 900 + i % 13 : UINT32_MAX, pid = 900 + i % 3;
		uint64_t span = 3 + i * 5, causes[2] = { i * 3, i % 4 ? i * 3 + 1 : UINT64_MAX };
		uint64_t address = 0x7f0000000000ull + (i << 12) + (i % 2 ? UINT64_MAX << 48 : 0);
		bool begin = i % 2 == 0;
		uint32_t phase = begin ? KATRA_PHASE_BEGIN : KATRA_PHASE_END;
		uint32_t ncauses = begin ? 0 : 1 + (uint32_t)(i / 6 % 2), cpu = (uint32_t)(i % 5) * 1000;
		struct katra_event ev = {
			.seq = i + 1, .ts_mono_ns = ts, .ts_wall_ns = wall + ts,
			.thread_id = tid, .process_id = pid, .scope = KATRA_SCOPE_LINUX,
			.confidence = KATRA_CONFIDENCE_MEASURED,
		};
		int rc;

		switch (i / 2 % 3) {
		case 0: /* a fault's Begin, then its End; at times an instant */
			if (i % 10 == 0)
				phase = KATRA_PHASE_INSTANT;
			ev.kind = KATRA_KIND_PAGE_FAULT;
			ev.phase = phase;
			ev.span_id = (struct katra_opt_u64){ phase != KATRA_PHASE_INSTANT, span };
			ev.causes = (struct katra_u64_vec){ causes, phase == KATRA_PHASE_END };
			ev.resource = (struct katra_resource){ KATRA_RES_MEMORY, address };
			ev.payload.type = KATRA_PAYLOAD_PAGE_FAULT;
			ev.payload.u.page_fault.address = address;
			ev.payload.u.page_fault.ip = 0x401000 + i;
			ev.payload.u.page_fault.error_code = i % 32;
			rc = scalar_calls ? katra_writer_append_fault(w, i + 1, span, causes[0], tid,
								       pid, phase, ts, wall, address,
								       0x401000 + i, i % 32)
					  : katra_writer_append_event(w, &ev);
			break;
		case 1: /* an OffCpu Begin, then its End */
			ev.kind = KATRA_KIND_OFF_CPU;
			ev.phase = phase;
			ev.span_id = (struct katra_opt_u64){ true, span };
			ev.causes = (struct katra_u64_vec){ causes, ncauses };
			ev.payload.type = KATRA_PAYLOAD_SWITCH;
			ev.payload.u.sched_switch.cpu = cpu;
			ev.payload.u.sched_switch.prev_state = begin ? i * 0x100000001ull : 0;
			rc = scalar_calls ? katra_writer_append_switch(
						    w, i + 1, span, ncauses, causes[0], causes[1], tid,
						    pid, phase, ts, wall, cpu,
						    begin ? i * 0x100000001ull : 0)
					  : katra_writer_append_event(w, &ev);
			break;
		default: /* a wakeup */
			ev.kind = KATRA_KIND_WAKEUP;
			ev.phase = KATRA_PHASE_INSTANT;
			ev.resource = (struct katra_resource){ KATRA_RES_THREAD, (uint32_t)(tid + 1) };
			ev.payload.type = KATRA_PAYLOAD_WAKEUP;
			ev.payload.u.wakeup.target_tid = (uint32_t)(tid + 1);
			ev.payload.u.wakeup.target_pid = (uint32_t)pid;
			ev.payload.u.wakeup.target_cpu = cpu;
			rc = scalar_calls ? katra_writer_append_wakeup(w, i + 1, tid, pid, ts, wall,
									(uint32_t)(tid + 1),
									(uint32_t)pid, cpu)
					  : katra_writer_append_event(w, &ev);
		}
		cr_assert_eq(rc, 0);
	}
	cr_assert_eq(katra_writer_close(w), 0);
}

Test(writer, the_sched_and_fault_calls_write_the_events_bytes, .timeout = 30)
{
	/* the buffer crossed three times */
	assert_same_traces(write_sched_faults, 3 * (size_t)KATRA_WRITER_BUFFER_BYTES + 1);
}
