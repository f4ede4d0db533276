// SPDX-License-Identifier: GPL-2.0-only
/* The streaming reader: framing checks with their exact one-line reasons,
 * truncated and corrupt tails, clean EOF, and memory that does not grow with
 * the file. */
#include <inttypes.h>
#include <malloc.h>

#include "format_test_util.h"

static int open_mem(struct tbuf *b, struct katra_reader **r, char *msg, size_t cap)
{
	msg[0] = '\0';
	return katra_reader_open_mem(r, b->p, b->len, msg, cap);
}

static void put_le32_at(struct tbuf *b, size_t at, uint32_t v)
{
	memcpy(b->p + at, &v, 4);
}

static void put_le64_at(struct tbuf *b, size_t at, uint64_t v)
{
	memcpy(b->p + at, &v, 8);
}

static void assert_open_fails(struct tbuf *b, const char *want)
{
	struct katra_reader *r = (struct katra_reader *)1;
	char msg[300];

	cr_assert_eq(open_mem(b, &r, msg, sizeof(msg)), -EINVAL);
	cr_assert_null(r);
	cr_assert_str_eq(msg, want);
}

Test(reader, wrong_magic_names_expected_and_found)
{
	struct tbuf b = { 0 };

	tbuf_sample_trace(&b, NULL);
	memcpy(b.p, "KATRATRX", 8);
	assert_open_fails(&b, "not a Katra trace: wrong magic: expected \"KATRATRC\" "
			      "(4b41545241545243), found 4b41545241545258");
	tbuf_free(&b);
}

Test(reader, wrong_version_names_expected_and_found)
{
	struct tbuf b = { 0 };

	tbuf_sample_trace(&b, NULL);
	put_le32_at(&b, 8, 2);
	assert_open_fails(&b, "unsupported format version: expected 1, found 2");
	tbuf_free(&b);
}

Test(reader, wrong_schema_hash_names_expected_and_found)
{
	struct tbuf b = { 0 };
	char want[200];

	tbuf_sample_trace(&b, NULL);
	/* header: format_version u32 then schema_hash u64, from byte 16 */
	put_le64_at(&b, 20, 0x0123456789abcdefull);
	snprintf(want, sizeof(want), "schema hash mismatch: expected 0x%016" PRIx64
		 ", found 0x0123456789abcdef", katra_schema_hash);
	assert_open_fails(&b, want);
	tbuf_free(&b);
}

Test(reader, header_version_disagreeing_with_preamble)
{
	struct tbuf b = { 0 };

	tbuf_sample_trace(&b, NULL);
	put_le32_at(&b, 16, 7);
	assert_open_fails(&b, "header format_version 7 disagrees with the preamble's 1");
	tbuf_free(&b);
}

Test(reader, huge_header_len_is_error_without_allocation)
{
	struct tbuf b = { 0 };

	tbuf_sample_trace(&b, NULL);
	put_le32_at(&b, 12, 0xffffffffu);
	assert_open_fails(&b, "corrupt header length: 4294967295 bytes at byte 12, over the "
			      "1048576-byte limit");
	put_le32_at(&b, 12, KATRA_MAX_HEADER_LEN);
	b.len = 16 + 100;
	assert_open_fails(&b, "truncated header: it ends at byte 116 but header_len says "
			      "1048576 bytes from byte 16");
	tbuf_free(&b);
}

Test(reader, corrupt_header_names_the_byte)
{
	struct tbuf b = { 0 };
	uint32_t hlen;

	tbuf_sample_trace(&b, NULL);
	memcpy(&hlen, b.p + 12, 4);
	/* a tool_version length far past the header: byte 16 + 4 + 8 = 28 */
	put_le64_at(&b, 28, 1ull << 40);
	{
		struct katra_reader *r;
		char msg[300];

		cr_assert_eq(open_mem(&b, &r, msg, sizeof(msg)), -EINVAL);
		cr_assert_eq(strncmp(msg, "corrupt header at byte 28: ", 27), 0, "msg: %s", msg);
	}
	tbuf_free(&b);
}

Test(reader, empty_and_short_files)
{
	struct tbuf b = { 0 };

	tbuf_put(&b, "", 0);
	assert_open_fails(&b, "not a Katra trace: file is 0 bytes, shorter than the 16-byte "
			      "preamble");
	tbuf_put(&b, "KATRA", 5);
	assert_open_fails(&b, "not a Katra trace: file is 5 bytes, shorter than the 16-byte "
			      "preamble");
	tbuf_put(&b, "TRC\1\0", 5);
	assert_open_fails(&b, "truncated preamble: file is 10 bytes, shorter than the 16-byte "
			      "preamble");
	b.len = 0;
	tbuf_put(&b, "PK\3\4", 4);
	assert_open_fails(&b, "not a Katra trace: wrong magic: expected \"KATRATRC\" "
			      "(4b41545241545243), found 504b0304");
	tbuf_free(&b);
}

Test(reader, empty_file_on_disk)
{
	char dir[64], path[128], msg[300];
	struct katra_reader *r;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/empty.ktrc", dir);
	write_file(path, "", 0);
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), -EINVAL);
	cr_assert_str_eq(msg, "not a Katra trace: file is 0 bytes, shorter than the 16-byte "
			      "preamble");
	snprintf(path, sizeof(path), "%s/missing.ktrc", dir);
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), -ENOENT);
	cr_assert(strstr(msg, "cannot open trace file '") == msg, "msg: %s", msg);
	cr_assert_not_null(strstr(msg, "missing.ktrc': No such file or directory"), "msg: %s",
			   msg);
	temp_dir_remove(dir);
}

/* Reads every record, checking offsets and bytes against the encoder. */
static void read_all_and_check(struct katra_reader *r, size_t *offsets)
{
	struct katra_record rec;
	size_t n = katra_sample_count();

	for (size_t i = 0; i < n; i++) {
		const struct katra_record *want = katra_sample_record(i);
		size_t sz = katra_encoded_record_size(want);
		uint8_t *a = malloc(sz), *b = malloc(sz);

		cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD, "record %zu: %s", i,
			     katra_reader_message(r));
		cr_assert_eq(katra_reader_record_offset(r), offsets[i], "record %zu", i);
		cr_assert_eq(katra_encoded_record_size(&rec), sz, "record %zu", i);
		katra_encode_record(want, a, sz);
		katra_encode_record(&rec, b, sz);
		cr_assert_eq(memcmp(a, b, sz), 0, "record %zu differs", i);
		free(a);
		free(b);
	}
	cr_assert_eq(katra_reader_records_read(r), n);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_EOF);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_EOF, "EOF is sticky");
}

Test(reader, clean_eof_from_memory)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	struct katra_reader *r;
	char msg[300];

	tbuf_sample_trace(&b, offsets);
	cr_assert_eq(open_mem(&b, &r, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(katra_reader_header(r)->schema_hash, katra_schema_hash);
	cr_assert_eq(katra_reader_header(r)->process_id, katra_sample_header()->process_id);
	read_all_and_check(r, offsets);
	katra_reader_close(r);
	tbuf_free(&b);
}

Test(reader, clean_eof_from_file_and_pipe)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	struct katra_reader *r;
	char dir[64], path[128], msg[300];
	int fds[2];

	tbuf_sample_trace(&b, offsets);
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	write_file(path, b.p, b.len);
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	read_all_and_check(r, offsets);
	katra_reader_close(r);

	/* a pipe has no size: the reader must find the end by reading */
	cr_assert_lt(b.len, 65536, "the sample must fit a pipe buffer");
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], b.p, b.len), (ssize_t)b.len);
	close(fds[1]);
	cr_assert_eq(katra_reader_open_fd(&r, fds[0], msg, sizeof(msg)), 0, "%s", msg);
	read_all_and_check(r, offsets);
	katra_reader_close(r);
	close(fds[0]);
	temp_dir_remove(dir);
	tbuf_free(&b);
}

/* Every cut inside the record stream: TRUNCATED, with the exact wording. */
static void check_truncations(bool use_pipe)
{
	struct tbuf b = { 0 };
	size_t offsets[256], n = katra_sample_count();
	char want[200], msg[300];

	tbuf_sample_trace(&b, offsets);
	for (size_t i = 0; i < n; i++) {
		size_t end = i + 1 < n ? offsets[i + 1] : b.len;

		for (size_t cut = offsets[i] + 1; cut < end; cut += use_pipe ? 7 : 1) {
			struct katra_reader *r;
			struct katra_record rec;
			int fds[2] = { -1, -1 };

			if (use_pipe) {
				cr_assert_eq(pipe(fds), 0);
				cr_assert_eq(write(fds[1], b.p, cut), (ssize_t)cut);
				close(fds[1]);
				cr_assert_eq(katra_reader_open_fd(&r, fds[0], msg, sizeof(msg)), 0);
			} else {
				cr_assert_eq(katra_reader_open_mem(&r, b.p, cut, msg, sizeof(msg)),
					     0);
			}
			for (size_t k = 0; k < i; k++)
				cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD);
			cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_TRUNCATED,
				     "cut at %zu", cut);
			snprintf(want, sizeof(want), "ends mid-record at byte %zu after %zu "
				 "complete records; no SessionSummary", offsets[i], i);
			cr_assert_str_eq(katra_reader_message(r), want);
			cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_TRUNCATED, "sticky");
			katra_reader_close(r);
			if (use_pipe)
				close(fds[0]);
		}
	}
	tbuf_free(&b);
}

Test(reader, truncated_at_every_byte_reports_offset_and_count)
{
	check_truncations(false);
}

Test(reader, truncated_pipe_reports_offset_and_count)
{
	check_truncations(true);
}

Test(reader, truncated_file_on_disk)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	char dir[64], path[128], want[200], msg[300];
	struct katra_reader *r;
	struct katra_record rec;

	tbuf_sample_trace(&b, offsets);
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	write_file(path, b.p, offsets[10] + 9);
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_TRUNCATED);
	snprintf(want, sizeof(want), "ends mid-record at byte %zu after 10 complete records; "
		 "no SessionSummary", offsets[10]);
	cr_assert_str_eq(katra_reader_message(r), want);
	katra_reader_close(r);
	temp_dir_remove(dir);
	tbuf_free(&b);
}

Test(reader, record_length_ffffffff_is_corrupt)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	char want[200], msg[300];
	struct katra_reader *r;
	struct katra_record rec;

	tbuf_sample_trace(&b, offsets);
	put_le32_at(&b, offsets[3], 0xffffffffu);
	cr_assert_eq(open_mem(&b, &r, msg, sizeof(msg)), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_CORRUPT);
	snprintf(want, sizeof(want), "corrupt record length 4294967295 at byte %zu after 3 "
		 "complete records (limit 16777216)", offsets[3]);
	cr_assert_str_eq(katra_reader_message(r), want);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_CORRUPT, "sticky");
	katra_reader_close(r);
	tbuf_free(&b);
}

/* A plausible length (under the limit) past the end of a regular file is a
 * truncation, found without reading or reserving 16 MiB. */
Test(reader, record_length_past_file_end_is_truncation)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	char dir[64], path[128], want[200], msg[300];
	struct katra_reader *r;
	struct katra_record rec;

	tbuf_sample_trace(&b, offsets);
	put_le32_at(&b, offsets[5], KATRA_MAX_RECORD_LEN);
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	write_file(path, b.p, b.len);
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_TRUNCATED);
	snprintf(want, sizeof(want), "ends mid-record at byte %zu after 5 complete records; "
		 "no SessionSummary", offsets[5]);
	cr_assert_str_eq(katra_reader_message(r), want);
	katra_reader_close(r);
	temp_dir_remove(dir);
	tbuf_free(&b);
}

Test(reader, undecodable_record_is_corrupt_with_position)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	char msg[300], want[200];
	struct katra_reader *r;
	struct katra_record rec;
	uint32_t len;

	tbuf_sample_trace(&b, offsets);
	memcpy(&len, b.p + offsets[2], 4);
	put_le32_at(&b, offsets[2] + 4, 9); /* TraceRecord variant 9 */
	cr_assert_eq(open_mem(&b, &r, msg, sizeof(msg)), 0);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_CORRUPT);
	snprintf(want, sizeof(want), "corrupt record at byte %zu (record 2, %u bytes): ",
		 offsets[2], len);
	cr_assert_eq(strncmp(katra_reader_message(r), want, strlen(want)), 0, "msg: %s",
		     katra_reader_message(r));
	katra_reader_close(r);
	tbuf_free(&b);
}

Test(reader, zero_length_record_is_corrupt)
{
	struct tbuf b = { 0 };
	size_t offsets[256];
	char msg[300];
	struct katra_reader *r;
	struct katra_record rec;

	tbuf_preamble(&b, katra_sample_header());
	tbuf_u32(&b, 0);
	cr_assert_eq(open_mem(&b, &r, msg, sizeof(msg)), 0);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_CORRUPT);
	(void)offsets;
	katra_reader_close(r);
	tbuf_free(&b);
}

Test(reader, header_only_is_clean_eof)
{
	struct tbuf b = { 0 };
	char msg[300];
	struct katra_reader *r;
	struct katra_record rec;

	tbuf_preamble(&b, katra_sample_header());
	cr_assert_eq(open_mem(&b, &r, msg, sizeof(msg)), 0);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_EOF);
	cr_assert_eq(katra_reader_records_read(r), 0);
	katra_reader_close(r);
	tbuf_free(&b);
}

/* A trace much larger than the read-ahead: the heap in use while streaming
 * stays under a fixed bound (glibc accounting; ASan's allocator reports 0,
 * where the check is vacuous and the leak checker takes over). */
Test(reader, memory_bounded_on_large_file)
{
	char dir[64], path[128], msg[300];
	struct katra_writer *w;
	struct katra_reader *r;
	struct katra_record rec;
	const size_t n = 200000;
	size_t base, peak = 0, i = 0;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/big.ktrc", dir);
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (i = 0; i < n; i++) {
		struct katra_record e = mk_epoch(i + 1, i, "epoch name, forty-odd bytes of text");

		cr_assert_eq(katra_writer_append(w, &e), 0);
	}
	cr_assert_eq(katra_writer_close(w), 0);

	base = mallinfo2().uordblks;
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	for (i = 0; katra_reader_next(r, &rec) == KATRA_READ_RECORD; i++) {
		size_t used = mallinfo2().uordblks;

		cr_assert_eq(rec.u.epoch.seq, i + 1);
		if (used > peak)
			peak = used;
	}
	cr_assert_eq(i, n);
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_EOF);
	katra_reader_close(r);
	/* about 15 MB of file; the reader may hold its window and arenas */
	cr_assert_leq(peak > base ? peak - base : 0, (size_t)2 << 20,
		      "reader heap grew by %zu bytes", peak - base);
	temp_dir_remove(dir);
}
