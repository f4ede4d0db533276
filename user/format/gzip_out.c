// SPDX-License-Identifier: GPL-2.0-only
/* The writer's gzip compressor: one deflate stream with gzip framing over
 * the whole Katra byte stream (preamble included), a Z_SYNC_FLUSH at every
 * writer flush.  A sync flush ends on a byte boundary with every input
 * byte decodable, so the file is always readable up to its last flush; and
 * because the writer flushes only whole records, so is the trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gzip.h"

#define OUT_BYTES (256u << 10)

struct katra_gzout {
	z_stream zs;
	uint8_t *out;
	uint64_t file_bytes; /* compressed bytes in the file, up to the last sync point */
	uint64_t raw_bytes;  /* uncompressed bytes those hold */
	uint32_t crc;        /* CRC-32 of those uncompressed bytes */
	bool finished;
};

int katra_gzout_new(struct katra_gzout **out, int level)
{
	struct katra_gzout *z = calloc(1, sizeof(*z));

	*out = NULL;
	if (!z)
		return -ENOMEM;
	z->out = malloc(OUT_BYTES);
	if (!z->out) {
		free(z);
		return -ENOMEM;
	}
	/* windowBits 15 + 16: gzip framing (RFC 1952) rather than zlib's */
	int ret = deflateInit2(&z->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (ret != Z_OK) {
		free(z->out);
		free(z);
		return ret == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	z->crc = (uint32_t)crc32(0, Z_NULL, 0);
	*out = z;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t got = write(fd, p, n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* After a failed write: back to the last sync point, then (best effort) an
 * empty final fixed-Huffman block (03 00: BFINAL=1, BTYPE=01, end-of-block)
 * and the trailer, CRC-32 and ISIZE of the bytes up to that point. */
static void cut_back(struct katra_gzout *z, int fd)
{
	uint8_t tail[10] = { 0x03, 0x00 };

	if (ftruncate(fd, (off_t)z->file_bytes) != 0 ||
	    lseek(fd, (off_t)z->file_bytes, SEEK_SET) < 0)
		return; /* not a regular file: nothing more to mend */
	z->finished = true; /* the deflate state is ahead of the file now */
	if (!z->file_bytes)
		return; /* not even the gzip header made it */
	put_le32(tail + 2, z->crc);
	put_le32(tail + 6, (uint32_t)z->raw_bytes);
	if (write_all(fd, tail, sizeof(tail)) == 0) {
		z->file_bytes += sizeof(tail);
		return;
	}
	if (ftruncate(fd, (off_t)z->file_bytes) == 0)
		lseek(fd, (off_t)z->file_bytes, SEEK_SET);
}

/* Runs deflate with flush over in[0..n) and writes everything it makes. */
static int pump(struct katra_gzout *z, int fd, const uint8_t *in, size_t n, int flush)
{
	uint64_t written = 0;
	int ret;

	if (z->finished)
		return -EINVAL;
	z->zs.next_in = (Bytef *)(uintptr_t)in;
	z->zs.avail_in = (uInt)n; /* n <= the writer's largest record, far below 4 GiB */
	do {
		z->zs.next_out = z->out;
		z->zs.avail_out = OUT_BYTES;
		ret = deflate(&z->zs, flush);
		if (ret == Z_STREAM_ERROR)
			return -EIO;
		size_t have = OUT_BYTES - z->zs.avail_out;
		int rc = write_all(fd, z->out, have);
		if (rc) {
			cut_back(z, fd);
			return rc;
		}
		written += have;
	} while (z->zs.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
	z->file_bytes += written;
	z->raw_bytes = z->zs.total_in;
	z->crc = (uint32_t)z->zs.adler; /* with gzip framing, adler holds the CRC-32 */
	if (flush == Z_FINISH)
		z->finished = true;
	return 0;
}

int katra_gzout_write(struct katra_gzout *z, int fd, const uint8_t *in, size_t n)
{
	return pump(z, fd, in, n, Z_SYNC_FLUSH);
}

int katra_gzout_finish(struct katra_gzout *z, int fd)
{
	return pump(z, fd, NULL, 0, Z_FINISH);
}

bool katra_gzout_finished(const struct katra_gzout *z)
{
	return z->finished;
}

uint64_t katra_gzout_file_bytes(const struct katra_gzout *z)
{
	return z->file_bytes;
}

uint64_t katra_gzout_raw_bytes(const struct katra_gzout *z)
{
	return z->raw_bytes;
}

void katra_gzout_free(struct katra_gzout *z)
{
	if (!z)
		return;
	deflateEnd(&z->zs);
	free(z->out);
	free(z);
}
