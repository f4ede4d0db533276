// SPDX-License-Identifier: GPL-2.0-only
/* Compressed traces (SPEC section 11): the writer's gzip mode and the
 * reader's transparent decompression, including what a killed capture, a
 * full disk and corrupt gzip data leave behind. */
#include <inttypes.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "format_test_util.h"

struct gfix {
	char dir[64];
	char plain[128];
	char gz[128];
};

static void gfix_init(struct gfix *f)
{
	temp_dir(f->dir, sizeof(f->dir));
	snprintf(f->plain, sizeof(f->plain), "%s/t.ktrc", f->dir);
	snprintf(f->gz, sizeof(f->gz), "%s/t.ktrc.gz", f->dir);
}

static void write_sample(const char *path, unsigned flags)
{
	struct katra_writer *w;
	size_t n = katra_sample_count();

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), flags), 0);
	for (size_t i = 0; i + 1 < n; i++)
		cr_assert_eq(katra_writer_append(w, katra_sample_record(i)), 0, "record %zu", i);
	cr_assert_eq(katra_writer_finish(w, &katra_sample_record(n - 1)->u.summary), 0);
	cr_assert_eq(katra_writer_close(w), 0);
}

/* The whole gzip file inflated with zlib alone; *complete: it had its trailer. */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len, bool *complete)
{
	struct tbuf out = { 0 };
	uint8_t chunk[65536];
	z_stream zs = { 0 };
	int ret = Z_OK;

	cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	while (ret == Z_OK) {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		ret = inflate(&zs, Z_NO_FLUSH);
		cr_assert(ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR,
			  "inflate: %d %s", ret, zs.msg ? zs.msg : "");
		tbuf_put(&out, chunk, sizeof(chunk) - zs.avail_out);
	}
	*complete = ret == Z_STREAM_END;
	inflateEnd(&zs);
	*out_len = out.len;
	return out.p;
}

/* Reads path to the end: the number of records, and the final status. */
static uint64_t read_all(const char *path, enum katra_read_status *end, char *why, size_t cap)
{
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];
	uint64_t n = 0;

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert(katra_reader_compressed(r));
	while ((*end = katra_reader_next(r, &rec)) == KATRA_READ_RECORD)
		n++;
	snprintf(why, cap, "%s", katra_reader_message(r));
	katra_reader_close(r);
	return n;
}

Test(gzip, writer_output_is_gzip_of_the_plain_trace_and_reads_back)
{
	struct gfix f;
	size_t plen, glen, ulen;
	bool complete;

	gfix_init(&f);
	write_sample(f.plain, 0);
	write_sample(f.gz, KATRA_WRITER_GZIP);
	uint8_t *plain = read_file(f.plain, &plen);
	uint8_t *gz = read_file(f.gz, &glen);
	cr_assert_eq(gz[0], 0x1f);
	cr_assert_eq(gz[1], 0x8b);
	uint8_t *un = gunzip(gz, glen, &ulen, &complete);
	cr_assert(complete, "a finished trace is a complete gzip file");
	cr_assert_eq(ulen, plen, "the whole stream, preamble included, is compressed");
	cr_assert_eq(memcmp(un, plain, plen), 0);

	/* the reader: same records, by magic and not by name (read it as .ktrc) */
	char renamed[160];
	snprintf(renamed, sizeof(renamed), "%s/looks-plain.ktrc", f.dir);
	cr_assert_eq(rename(f.gz, renamed), 0);
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];
	cr_assert_eq(katra_reader_open(&r, renamed, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(katra_reader_header(r)->schema_hash, katra_schema_hash);
	for (size_t i = 0; i < katra_sample_count(); i++) {
		uint8_t a[4096], b[4096];
		cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_RECORD, "record %zu: %s", i,
			     katra_reader_message(r));
		long na = katra_encode_record(&rec, a, sizeof(a));
		long nb = katra_encode_record(katra_sample_record(i), b, sizeof(b));
		cr_assert(na > 0 && na == nb && !memcmp(a, b, (size_t)na), "record %zu", i);
	}
	cr_assert_eq(katra_reader_next(r, &rec), KATRA_READ_EOF, "%s", katra_reader_message(r));
	katra_reader_close(r);

	/* and from memory */
	cr_assert_eq(katra_reader_open_mem(&r, gz, glen, msg, sizeof(msg)), 0, "%s", msg);
	size_t n = 0;
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD)
		n++;
	cr_assert_eq(n, katra_sample_count());
	katra_reader_close(r);
	free(plain);
	free(gz);
	free(un);
	temp_dir_remove(f.dir);
}

Test(gzip, writer_counts_stream_and_file_bytes)
{
	struct gfix f;
	struct katra_writer *w;
	struct stat st;

	gfix_init(&f);
	cr_assert_eq(katra_writer_open(&w, f.gz, katra_sample_header(), KATRA_WRITER_GZIP), 0);
	for (uint64_t i = 0; i < 20000; i++) {
		struct katra_record r = mk_event(i, i * 100, 7, KATRA_PHASE_INSTANT, -1);
		cr_assert_eq(katra_writer_append(w, &r), 0);
	}
	cr_assert_eq(katra_writer_flush(w), 0);
	cr_assert_eq(stat(f.gz, &st), 0);
	cr_assert_eq(katra_writer_file_bytes(w), (uint64_t)st.st_size);
	cr_assert_lt(katra_writer_file_bytes(w) * 4, katra_writer_bytes(w),
		     "repetitive events compress more than 4x: %" PRIu64 " of %" PRIu64,
		     katra_writer_file_bytes(w), katra_writer_bytes(w));
	cr_assert_eq(katra_writer_close(w), 0);

	/* ~2.5 MB of records: full buffers went to the compression thread
	 * while the next filled; all of them come back, in order */
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];
	uint64_t n = 0;
	cr_assert_eq(katra_reader_open(&r, f.gz, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD)
		cr_assert_eq(rec.u.event.seq, n++);
	cr_assert_eq(n, 20000);
	katra_reader_close(r);
	temp_dir_remove(f.dir);
}

/* A capture killed (SIGKILL) after a flush: everything up to that flush
 * decompresses and reads back as whole records; the rest is gone, and the
 * reader says the gzip stream was cut short. */
Test(gzip, a_killed_capture_decompresses_up_to_its_last_flush)
{
	struct gfix f;
	int status;

	gfix_init(&f);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct katra_writer *w;

		if (katra_writer_open(&w, f.gz, katra_sample_header(), KATRA_WRITER_GZIP))
			_exit(3);
		for (uint64_t i = 0; i < 1000; i++) {
			struct katra_record r = mk_epoch(i, i, "flushed");
			if (katra_writer_append(w, &r))
				_exit(4);
		}
		if (katra_writer_flush(w))
			_exit(5);
		for (uint64_t i = 1000; i < 1500; i++) {
			struct katra_record r = mk_epoch(i, i, "still buffered");
			if (katra_writer_append(w, &r))
				_exit(6);
		}
		kill(getpid(), SIGKILL);
		_exit(7);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);

	size_t glen, ulen;
	bool complete;
	uint8_t *gz = read_file(f.gz, &glen);
	uint8_t *un = gunzip(gz, glen, &ulen, &complete);
	cr_assert_not(complete, "no trailer: the writer never finished");
	cr_assert_gt(ulen, 1000u * 16);

	enum katra_read_status end;
	char why[256];
	uint64_t n = read_all(f.gz, &end, why, sizeof(why));
	cr_assert_eq(n, 1000, "exactly the flushed records");
	cr_assert_eq(end, KATRA_READ_TRUNCATED);
	cr_assert(strstr(why, "gzip stream ends early"), "%s", why);
	cr_assert(strstr(why, "after 1000 complete records; no SessionSummary"), "%s", why);
	free(gz);
	free(un);
	temp_dir_remove(f.dir);
}

/* A full disk (RLIMIT_FSIZE): the file is cut back to the last flush and
 * closed with a gzip trailer, so it is a complete gzip file of whole records.
 * flush_every: explicit flushes (waited for), or 0: only full buffers,
 * handed to the compression thread (its error comes back later). */
static void full_disk(uint64_t flush_every, rlim_t limit)
{
	struct gfix f;
	struct katra_writer *w;
	struct rlimit lim = { limit, limit };
	int rc = 0;
	uint64_t appended = 0;
	char name[64];

	signal(SIGXFSZ, SIG_IGN);
	gfix_init(&f);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(katra_writer_open(&w, f.gz, katra_sample_header(), KATRA_WRITER_GZIP), 0);
	for (uint64_t i = 0; i < 2000000 && !rc; i++) {
		/* a little entropy per record, so the disk fills in reasonable time */
		snprintf(name, sizeof(name), "%016" PRIx64, (uint64_t)(i * 0x9e3779b97f4a7c15ull) >> 7);
		struct katra_record r = mk_epoch(i, i, name);
		rc = katra_writer_append(w, &r);
		if (!rc)
			appended++;
		if (!rc && flush_every && i % flush_every == flush_every - 1)
			rc = katra_writer_flush(w);
	}
	cr_assert_eq(rc, -EFBIG);
	cr_assert_eq(katra_writer_close(w), -EFBIG, "the error stays");

	size_t glen, ulen;
	bool complete;
	uint8_t *gz = read_file(f.gz, &glen);
	cr_assert_leq(glen, limit);
	uint8_t *un = gunzip(gz, glen, &ulen, &complete);
	cr_assert(complete, "closed with its trailer (CRC and length checked by zlib)");

	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];
	uint64_t n = 0;
	enum katra_read_status s;
	cr_assert_eq(katra_reader_open(&r, f.gz, msg, sizeof(msg)), 0, "%s", msg);
	while ((s = katra_reader_next(r, &rec)) == KATRA_READ_RECORD)
		cr_assert_eq(rec.u.epoch.seq, n++);
	cr_assert_eq(s, KATRA_READ_EOF, "whole records only: %s", katra_reader_message(r));
	cr_assert_gt(n, 0);
	cr_assert_lt(n, appended);
	katra_reader_close(r);
	free(gz);
	free(un);
	temp_dir_remove(f.dir);
}

Test(gzip, a_full_disk_leaves_a_complete_gzip_file_of_whole_records)
{
	full_disk(5000, 200000);
}

Test(gzip, a_full_disk_under_the_compression_thread_too)
{
	full_disk(0, 1000000); /* a full 1 MiB buffer compresses to ~1/3 */
}

/* Reads a whole in-memory gzip trace; returns the final status and message. */
static enum katra_read_status read_mem(const uint8_t *p, size_t len, int *open_rc, char *why,
				       size_t cap)
{
	struct katra_reader *r;
	struct katra_record rec;
	enum katra_read_status s;

	*open_rc = katra_reader_open_mem(&r, p, len, why, cap);
	if (*open_rc)
		return KATRA_READ_CORRUPT;
	while ((s = katra_reader_next(r, &rec)) == KATRA_READ_RECORD)
		;
	snprintf(why, cap, "%s", katra_reader_message(r));
	katra_reader_close(r);
	return s;
}

Test(gzip, corrupt_gzip_is_a_clear_error)
{
	struct gfix f;
	size_t glen;
	int orc;
	char why[256];

	gfix_init(&f);
	/* many records, so damage in the middle hits record data */
	struct katra_writer *w;
	cr_assert_eq(katra_writer_open(&w, f.gz, katra_sample_header(), KATRA_WRITER_GZIP), 0);
	for (uint64_t i = 0; i < 30000; i++) {
		struct katra_record r = mk_event(i, i * 37, i % 5, KATRA_PHASE_INSTANT, -1);
		cr_assert_eq(katra_writer_append(w, &r), 0);
	}
	cr_assert_eq(katra_writer_close(w), 0);
	uint8_t *gz = read_file(f.gz, &glen);

	/* damage in the deflate data */
	uint8_t *bad = malloc(glen);
	memcpy(bad, gz, glen);
	for (size_t i = glen / 2; i < glen / 2 + 16; i++)
		bad[i] ^= 0x5a;
	enum katra_read_status s = read_mem(bad, glen, &orc, why, sizeof(why));
	cr_assert_eq(orc, 0, "%s", why);
	cr_assert_eq(s, KATRA_READ_CORRUPT, "%s", why);
	/* inflate may still make bytes of it (the CRC would catch that at the
	 * end), so the Katra decoder can be the first to object */
	cr_assert(strstr(why, "corrupt gzip data at compressed byte") ||
		  strstr(why, "corrupt record at byte"), "%s", why);

	/* a wrong CRC in the trailer */
	memcpy(bad, gz, glen);
	bad[glen - 8] ^= 1;
	s = read_mem(bad, glen, &orc, why, sizeof(why));
	cr_assert_eq(s, KATRA_READ_CORRUPT, "%s", why);
	cr_assert(strstr(why, "incorrect data check"), "%s", why);

	/* garbage after the end of the gzip stream */
	uint8_t *longer = malloc(glen + 3);
	memcpy(longer, gz, glen);
	memcpy(longer + glen, "xyz", 3);
	s = read_mem(longer, glen + 3, &orc, why, sizeof(why));
	cr_assert_eq(s, KATRA_READ_CORRUPT, "%s", why);
	cr_assert(strstr(why, "start no new member"), "%s", why);

	/* a broken gzip header: open fails with the reason */
	memcpy(bad, gz, glen);
	bad[2] = 7; /* compression method: not deflate */
	s = read_mem(bad, glen, &orc, why, sizeof(why));
	cr_assert_eq(orc, -EINVAL);
	cr_assert(strstr(why, "corrupt gzip data"), "%s", why);

	/* a gzip file that holds something else */
	uLongf clen = 128;
	uint8_t other[128];
	z_stream zs = { 0 };
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)"hello, world, not a trace";
	zs.avail_in = 25;
	zs.next_out = other;
	zs.avail_out = sizeof(other);
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	clen = sizeof(other) - zs.avail_out;
	deflateEnd(&zs);
	s = read_mem(other, clen, &orc, why, sizeof(why));
	cr_assert_eq(orc, -EINVAL);
	cr_assert(strstr(why, "wrong magic") && strstr(why, "inside the gzip stream"), "%s", why);

	/* every prefix and every single-byte damage of a small trace: an error
	 * or a read, never a crash (ASan runs this too) */
	struct tbuf small = { 0 };
	tbuf_sample_trace(&small, NULL);
	uLongf slen = compressBound(small.len) + 32;
	uint8_t *sgz = malloc(slen);
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = small.p;
	zs.avail_in = (uInt)small.len;
	zs.next_out = sgz;
	zs.avail_out = (uInt)slen;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	slen = slen - zs.avail_out;
	deflateEnd(&zs);
	for (size_t cut = 0; cut < slen; cut += 7) {
		s = read_mem(sgz, cut, &orc, why, sizeof(why));
		cr_assert(orc != 0 || s == KATRA_READ_TRUNCATED, "prefix %zu: %d %s", cut, s, why);
	}
	for (size_t i = 0; i < slen; i += 3) {
		sgz[i] ^= 0xff;
		(void)read_mem(sgz, slen, &orc, why, sizeof(why));
		cr_assert_lt(strlen(why), sizeof(why));
		sgz[i] ^= 0xff;
	}
	tbuf_free(&small);
	free(sgz);
	free(bad);
	free(longer);
	free(gz);
	temp_dir_remove(f.dir);
}

Test(gzip, concatenated_members_read_as_one_stream)
{
	struct tbuf plain = { 0 };
	uint8_t *gz;
	size_t cut, total = 0;
	z_stream zs;
	int orc;
	char why[256];

	tbuf_sample_trace(&plain, NULL);
	cut = plain.len / 3;
	gz = malloc(2 * compressBound(plain.len) + 64);
	/* two members: the first third, then the rest (as `cat a.gz b.gz`) */
	for (int part = 0; part < 2; part++) {
		memset(&zs, 0, sizeof(zs));
		cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
		zs.next_in = plain.p + (part ? cut : 0);
		zs.avail_in = (uInt)(part ? plain.len - cut : cut);
		zs.next_out = gz + total;
		zs.avail_out = (uInt)(2 * compressBound(plain.len) + 64 - total);
		cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
		total += zs.total_out;
		deflateEnd(&zs);
	}
	enum katra_read_status s = read_mem(gz, total, &orc, why, sizeof(why));
	cr_assert_eq(orc, 0, "%s", why);
	cr_assert_eq(s, KATRA_READ_EOF, "%s", why);
	free(gz);
	tbuf_free(&plain);
}
