// SPDX-License-Identifier: GPL-2.0-only
/* The writer's buffer edge: a record that starts with fewer bytes left in the
 * buffer than its own length prefix (this once wrapped the remaining capacity
 * and wrote past the buffer), records larger than the buffer, and the
 * direct writes of a plain trace, byte for byte. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "format_test_util.h"

/* An EpochMarker with an n-byte name takes 4 (length) + 4 (tag) + 4 * 8 +
 * 4 (kind) + 8 (string length) + n = 52 + n bytes in the file. */
#define EPOCH_FRAMED(n) (52u + (n))

static void write_epochs(const char *path, const size_t *name_lens, size_t count)
{
	static char name[KATRA_WRITER_BUFFER_BYTES + 64];
	struct katra_writer *w;

	memset(name, 'x', sizeof(name));
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (size_t i = 0; i < count; i++) {
		struct katra_record r = mk_epoch(i, i, "");
		r.u.epoch.name = (struct katra_str){ name, name_lens[i] };
		cr_assert_eq(katra_writer_append(w, &r), 0, "record %zu", i);
	}
	cr_assert_eq(katra_writer_close(w), 0);
}

static void expect_epochs(const char *path, const size_t *name_lens, size_t count)
{
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	for (size_t i = 0; i < count; i++) {
		cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD, "record %zu: %s", i,
			     katra_reader_message(r));
		cr_assert_eq(rec.type, KATRA_RECORD_EPOCH_MARKER);
		cr_assert_eq(rec.u.epoch.seq, i);
		cr_assert_eq(rec.u.epoch.name.len, name_lens[i], "record %zu", i);
	}
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_EOF);
	katra_reader_close(r);
}

Test(writer_buffer, records_ending_within_a_length_prefix_of_the_buffer_end, .timeout = 30)
{
	/* fill the buffer to exactly (size - gap) for gap 0..5, then one more */
	for (size_t gap = 0; gap <= 5; gap++) {
		char dir[64], path[128];
		size_t lens[KATRA_WRITER_BUFFER_BYTES / 200 + 8], n = 0, used = 0;

		temp_dir(dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/t.ktrc", dir);
		while (KATRA_WRITER_BUFFER_BYTES - gap - used >= 2 * EPOCH_FRAMED(200)) {
			lens[n++] = 200;
			used += EPOCH_FRAMED(200);
		}
		size_t last = KATRA_WRITER_BUFFER_BYTES - gap - used - EPOCH_FRAMED(0);
		lens[n++] = last;
		used += EPOCH_FRAMED(last);
		cr_assert_eq(used, KATRA_WRITER_BUFFER_BYTES - gap);
		lens[n++] = 10;
		write_epochs(path, lens, n);
		expect_epochs(path, lens, n);
		temp_dir_remove(dir);
	}
}

Test(writer_buffer, a_record_larger_than_the_buffer, .timeout = 30)
{
	char dir[64], path[128];
	size_t lens[3] = { 5, KATRA_WRITER_BUFFER_BYTES + 10, 7 };

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	write_epochs(path, lens, 3);
	expect_epochs(path, lens, 3);
	temp_dir_remove(dir);
}

/* A full disk, played by RLIMIT_FSIZE: the write that crosses the limit is
 * partial, the next fails.  The file must keep every whole record that got
 * through, and nothing after. */
Test(writer_buffer, a_failed_write_keeps_every_whole_record_before_it, .timeout = 30)
{
	char dir[64], path[128];
	struct katra_writer *w;
	struct rlimit lim = { 300000, 300000 };
	int rc = 0;
	size_t appended = 0;

	signal(SIGXFSZ, SIG_IGN);
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	for (uint64_t i = 0; i < 100000 && !rc; i++) {
		struct katra_record r = mk_epoch(i, i, "a name long enough to fill the disk quickly");
		rc = katra_writer_append(w, &r);
		if (!rc)
			appended++;
	}
	cr_assert_eq(rc, -EFBIG);
	cr_assert_eq(katra_writer_close(w), -EFBIG, "the error stays");

	struct katra_reader *r;
	struct katra_record rec;
	struct stat st;
	char msg[256];
	uint64_t n = 0;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_gt(st.st_size, 300000 - 200, "what fitted was kept: %lld bytes",
		     (long long)st.st_size);
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	enum katra_read_status s;
	while ((s = katra_reader_next(r, &rec)) == KATRA_READ_RECORD)
		cr_assert_eq(rec.u.epoch.seq, n++);
	cr_assert_eq(s, KATRA_READ_EOF, "whole records only: %s", katra_reader_message(r));
	cr_assert_gt(n, 0);
	cr_assert_lt(n, appended);
	katra_reader_close(r);
	temp_dir_remove(dir);
}

/* The plain writer sends the aligned middle of each buffer with O_DIRECT
 * and the ends buffered (on /tmp's file system, where it takes O_DIRECT):
 * whatever the record sizes, flushes and records larger than the buffer,
 * the file holds exactly the framed records, byte for byte, and it did
 * write directly (a silent fall back to buffered writes fails it). */
Test(writer_buffer, direct_writes_keep_every_byte, .timeout = 30)
{
	static char name[KATRA_WRITER_BUFFER_BYTES + 5000];
	char dir[64], path[128];
	struct katra_writer *w;
	const struct katra_header *h = katra_sample_header();
	size_t cap = 64u << 20, len = 16;
	uint8_t *want = malloc(cap), *got = malloc(cap);
	long n;

	cr_assert(want && got);
	for (size_t i = 0; i < sizeof(name); i++)
		name[i] = (char)('a' + i % 26);
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/probe", dir);
	int pfd = open(path, O_WRONLY | O_CREAT | O_DIRECT, 0600);
	if (pfd < 0) {
		temp_dir_remove(dir);
		cr_skip("%s takes no O_DIRECT here (%s)", dir, strerror(errno));
	}
	close(pfd);
	unlink(path);
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	memcpy(want, KATRA_MAGIC, KATRA_MAGIC_LEN);
	memcpy(want + 8, &h->format_version, 4);
	n = katra_encode_header(h, want + 16, cap - 16);
	cr_assert_gt(n, 0);
	memcpy(want + 12, &(uint32_t){ (uint32_t)n }, 4);
	len += (size_t)n;
	cr_assert_eq(katra_writer_open(&w, path, h, 0), 0);
	for (uint64_t i = 0; i < 60000; i++) {
		struct katra_record r = mk_epoch(i, i, "");
		/* mostly small, a few near and over the buffer size */
		size_t nl = i >= 60000 - 4 ? 0
			    : i % 9973 == 17 ? KATRA_WRITER_BUFFER_BYTES + i % 4000
			    : i % 7919 == 3 ? KATRA_WRITER_BUFFER_BYTES - 100 - i % 3000
			    : (i * 37) % 700;
		r.u.epoch.name = (struct katra_str){ name, nl };
		n = katra_encode_record(&r, want + len + 4, cap - len - 4);
		cr_assert_gt(n, 0);
		memcpy(want + len, &(uint32_t){ (uint32_t)n }, 4);
		len += 4 + (size_t)n;
		cr_assert_eq(katra_writer_append(w, &r), 0, "record %" PRIu64, i);
		/* the last ones flushed one by one: writes shorter than the
		 * distance to the next aligned offset */
		if (i % 5003 == 0 || i >= 60000 - 4)
			cr_assert_eq(katra_writer_flush(w), 0);
	}
	cr_assert_eq(katra_writer_flush(w), 0);
	cr_assert(katra_writer_direct(w), "the writer fell back to buffered writes");
	/* in whole 4 KiB blocks; how many depends on the disk (a slow direct
	 * write sends the next buffers through the page cache), but the first
	 * buffer's aligned middle always goes directly */
	uint64_t direct = katra_writer_direct_bytes(w);
	cr_assert_gt(direct, 0, "no byte of %zu written directly", len);
	cr_assert_eq(direct % 4096, 0);
	cr_assert_eq(katra_writer_close(w), 0);

	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	size_t have = fread(got, 1, cap, f);
	fclose(f);
	cr_assert_eq(have, len, "file %zu bytes, framed records %zu", have, len);
	cr_assert(!memcmp(got, want, len), "the file differs from the framed records");
	free(want);
	free(got);
	temp_dir_remove(dir);
}
