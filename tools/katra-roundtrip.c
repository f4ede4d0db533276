// SPDX-License-Identifier: GPL-2.0-only
/* katra-roundtrip FILE: the C half of the C<->Rust compatibility test.
 * Decodes the header and every record with the format reader, re-encodes
 * each with katra_encode_*, and compares with the file's own bytes (read
 * separately, raw).  Exit 0 when every byte matches and the file ends
 * cleanly, 1 naming the first mismatch, 2 on usage errors. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/format.h"

#define PROG "katra-roundtrip"
#define PREAMBLE_LEN 16u

struct buf {
	uint8_t *p;
	size_t cap;
};

static int buf_reserve(struct buf *b, size_t n)
{
	uint8_t *p;

	if (n <= b->cap)
		return 0;
	p = realloc(b->p, n);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = n;
	return 0;
}

/* Reads exactly n bytes at off from the raw file into b. */
static int read_at(FILE *f, uint64_t off, size_t n, struct buf *b)
{
	if (buf_reserve(b, n ? n : 1))
		return -ENOMEM;
	if (fseeko(f, (off_t)off, SEEK_SET))
		return -errno;
	if (fread(b->p, 1, n, f) != n)
		return ferror(f) ? -EIO : -ENODATA;
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Compares the file's bytes of one value with the re-encoding; prints the
 * first difference.  val_off is the file offset of the value's first byte. */
static int compare(const char *path, const char *what, uint64_t frame_off, uint64_t val_off,
		   const uint8_t *file, size_t file_len, const uint8_t *enc, long enc_len)
{
	size_t n = file_len < (size_t)enc_len ? file_len : (size_t)enc_len;
	size_t i = 0;

	while (i < n && file[i] == enc[i])
		i++;
	if (i == n && file_len == (size_t)enc_len)
		return 0;
	fprintf(stderr, "%s: %s: %s at byte %" PRIu64 ": re-encoded bytes differ at byte %zu of "
		"the value (file byte %" PRIu64 "): file has %zu bytes", PROG, path, what,
		frame_off, i, val_off + i, file_len);
	if (i < file_len)
		fprintf(stderr, " (0x%02x there)", file[i]);
	fprintf(stderr, ", katra_encode gave %ld bytes", enc_len);
	if (i < (size_t)enc_len)
		fprintf(stderr, " (0x%02x there)", enc[i]);
	fputc('\n', stderr);
	return 1;
}

static int check_header(const char *path, struct katra_reader *r, FILE *raw, struct buf *file,
			struct buf *enc)
{
	const struct katra_header *h = katra_reader_header(r);
	uint32_t hlen;
	long n;
	int rc;

	rc = read_at(raw, 0, PREAMBLE_LEN, file);
	if (rc)
		goto fail;
	hlen = le32(file->p + 12);
	rc = read_at(raw, PREAMBLE_LEN, hlen, file);
	if (rc)
		goto fail;
	/* no size function for headers: grow until the encoder fits */
	n = -ENOSPC;
	for (size_t cap = (size_t)hlen + 64; n == -ENOSPC && cap <= 4 * KATRA_MAX_HEADER_LEN;
	     cap *= 2) {
		if (buf_reserve(enc, cap))
			return -ENOMEM;
		n = katra_encode_header(h, enc->p, enc->cap);
	}
	if (n < 0) {
		fprintf(stderr, "%s: %s: header: cannot encode: %s\n", PROG, path, strerror((int)-n));
		return 1;
	}
	return compare(path, "header", 12, PREAMBLE_LEN, file->p, hlen, enc->p, n);
fail:
	fprintf(stderr, "%s: %s: cannot read the header bytes: %s\n", PROG, path, strerror(-rc));
	return 1;
}

static int check_record(const char *path, struct katra_reader *r, const struct katra_record *rec,
			FILE *raw, struct buf *file, struct buf *enc)
{
	uint64_t off = katra_reader_record_offset(r);
	uint64_t index = katra_reader_records_read(r) - 1;
	size_t size = katra_encoded_record_size(rec);
	char what[96];
	uint32_t len;
	long n;
	int rc;

	rc = read_at(raw, off, 4, file);
	if (rc)
		goto fail;
	len = le32(file->p);
	rc = read_at(raw, off + 4, len, file);
	if (rc)
		goto fail;
	if (buf_reserve(enc, size ? size : 1))
		return -ENOMEM;
	n = katra_encode_record(rec, enc->p, enc->cap);
	snprintf(what, sizeof(what), "record %" PRIu64 " (%s)", index,
		 katra_record_type_name(rec->type));
	if (n < 0) {
		fprintf(stderr, "%s: %s: %s at byte %" PRIu64 ": cannot encode: %s\n", PROG, path,
			what, off, strerror((int)-n));
		return 1;
	}
	if ((size_t)n != size) {
		fprintf(stderr, "%s: %s: %s at byte %" PRIu64 ": katra_encoded_record_size says %zu "
			"but katra_encode_record wrote %ld\n", PROG, path, what, off, size, n);
		return 1;
	}
	return compare(path, what, off, off + 4, file->p, len, enc->p, n);
fail:
	fprintf(stderr, "%s: %s: cannot read record bytes at byte %" PRIu64 ": %s\n", PROG, path,
		off, strerror(-rc));
	return 1;
}

int main(int argc, char **argv)
{
	struct katra_reader *r = NULL;
	struct buf file = { 0 }, enc = { 0 };
	struct katra_record rec;
	enum katra_read_status st;
	uint64_t types[KATRA_RECORD_COUNT] = { 0 };
	const char *path;
	FILE *raw = NULL;
	char msg[300];
	int rc, ret = 1;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s FILE\n", PROG);
		return 2;
	}
	path = argv[1];
	rc = katra_reader_open(&r, path, msg, sizeof(msg));
	if (rc) {
		fprintf(stderr, "%s: %s\n", PROG, msg);
		goto cleanup;
	}
	raw = fopen(path, "rb");
	if (!raw) {
		fprintf(stderr, "%s: cannot open trace file '%s': %s\n", PROG, path, strerror(errno));
		goto cleanup;
	}
	rc = check_header(path, r, raw, &file, &enc);
	if (rc)
		goto report;
	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		rc = check_record(path, r, &rec, raw, &file, &enc);
		if (rc)
			goto report;
		if (rec.type < KATRA_RECORD_COUNT)
			types[rec.type]++;
	}
	if (st != KATRA_READ_EOF) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, katra_reader_message(r));
		goto cleanup;
	}
	printf("%s: header and %" PRIu64 " records re-encoded identically (%" PRIu64 " Event, %"
	       PRIu64 " EpochMarker, %" PRIu64 " Counter, %" PRIu64 " SessionSummary)\n", path,
	       katra_reader_records_read(r), types[KATRA_RECORD_EVENT],
	       types[KATRA_RECORD_EPOCH_MARKER], types[KATRA_RECORD_COUNTER],
	       types[KATRA_RECORD_SESSION_SUMMARY]);
	ret = 0;
	goto cleanup;
report:
	if (rc < 0)
		fprintf(stderr, "%s: %s: %s\n", PROG, path, strerror(-rc));
cleanup:
	if (raw)
		fclose(raw);
	katra_reader_close(r);
	free(file.p);
	free(enc.p);
	return ret;
}
