// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is a whole trace file.  It is opened from
 * memory and run through the verifier, then read again record by record to
 * check that every record that decodes re-encodes to the bytes it came from
 * (bincode is canonical, so a mismatch is a codec bug).  Everything the
 * reader allocates is released before returning: LeakSanitizer sees leaks.
 * A gzip input (1f 8b) goes through the reader's decompressor as it is; for
 * the byte comparison, zlib inflates it here first (bounded). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "katra/format.h"

static void on_problem(void *ctx, const char *line)
{
	size_t *total = ctx;

	/* touch the whole line so ASan checks it is a valid string */
	*total += strlen(line);
}

static void verify(const uint8_t *data, size_t size)
{
	struct katra_reader *r = NULL;
	struct katra_verify_report rep;
	char msg[256];
	size_t total = 0;

	if (katra_reader_open_mem(&r, data, size, msg, sizeof(msg)) != 0) {
		if (strlen(msg) >= sizeof(msg))
			abort();
		return;
	}
	if (katra_verify_reader(r, on_problem, &total, 0, &rep) < 0)
		abort(); /* from memory there is no I/O error; -ENOMEM would be a bug here */
	if (rep.problems == 0 && (rep.truncated || !rep.has_summary))
		abort(); /* a damaged trace must never verify as valid */
	katra_reader_close(r);
}

static void roundtrip(const uint8_t *data, size_t size)
{
	static uint8_t out[KATRA_MAX_RECORD_LEN];
	struct katra_reader *r = NULL;
	struct katra_record rec;
	char msg[256];

	if (katra_reader_open_mem(&r, data, size, msg, sizeof(msg)) != 0)
		return;
	{
		uint32_t hlen;
		long n = katra_encode_header(katra_reader_header(r), out, sizeof(out));

		memcpy(&hlen, data + 12, 4);
		if (n < 0 || (uint64_t)n > hlen || memcmp(out, data + 16, (size_t)n) != 0)
			abort();
	}
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD) {
		uint64_t off = katra_reader_record_offset(r);
		uint32_t len;
		long n;

		memcpy(&len, data + off, 4);
		n = katra_encode_record(&rec, out, sizeof(out));
		/* trailing bytes inside a record are allowed, so compare the prefix */
		if (n < 0 || (uint64_t)n > len || (size_t)n != katra_encoded_record_size(&rec))
			abort();
		if (memcmp(out, data + off + 4, (size_t)n) != 0)
			abort();
	}
	katra_reader_close(r);
}

/* What zlib alone makes of a gzip input (at most cap bytes; a corrupt
 * tail just ends it): the reference bytes for the roundtrip check. */
static size_t gunzip(const uint8_t *data, size_t size, uint8_t *out, size_t cap)
{
	z_stream zs;
	size_t total = 0;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		abort();
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)size;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	while (zs.avail_out) {
		int ret = inflate(&zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END && zs.avail_in >= 2 && zs.next_in[0] == 0x1f) {
			total += zs.total_out; /* another member follows */
			inflateReset(&zs);
			continue;
		}
		if (ret != Z_OK)
			break;
	}
	total += zs.total_out;
	inflateEnd(&zs);
	return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t plain[8u << 20];

	verify(data, size);
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		size_t n = gunzip(data, size, plain, sizeof(plain));
		/* a stream longer than the buffer is compared on its prefix: the
		 * reader sees the truncation where zlib stopped, at most later */
		roundtrip(plain, n);
		return 0;
	}
	roundtrip(data, size);
	return 0;
}
