/* SPDX-License-Identifier: GPL-2.0-only */
/* The format library's zlib layer (format/SPEC.md section 11): a gzip
 * compressor for the writer and a streaming gzip decompressor for the
 * reader.  Internal to user/format/: the public switches are
 * KATRA_WRITER_GZIP and the reader's magic detection. */
#ifndef KATRA_FORMAT_GZIP_H
#define KATRA_FORMAT_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KATRA_GZIP_MAGIC0 0x1f
#define KATRA_GZIP_MAGIC1 0x8b

/* ---- compressor (gzip_out.c) ---- */
struct katra_gzout;

/* level: zlib's 1..9.  Returns 0, -ENOMEM or -EINVAL. */
int katra_gzout_new(struct katra_gzout **out, int level);
/* Compresses in[0..n), ends it with a Z_SYNC_FLUSH (so everything given so
 * far decompresses from the file alone) and writes all of it to fd.
 * Returns 0 or -errno.  On a failed write the file is cut back to the last
 * sync point, then closed with an empty final block and a gzip trailer
 * (CRC-32 and length of what it holds) when that still fits: the file is a
 * complete gzip file holding every earlier flush, or, if even the 10
 * trailer bytes do not fit, a gzip stream cut at that sync point. */
int katra_gzout_write(struct katra_gzout *z, int fd, const uint8_t *in, size_t n);
/* Ends the gzip stream (final block + trailer) and writes it: 0 or -errno. */
int katra_gzout_finish(struct katra_gzout *z, int fd);
bool katra_gzout_finished(const struct katra_gzout *z);
/* Compressed bytes in the file up to the last sync point (or the end). */
uint64_t katra_gzout_file_bytes(const struct katra_gzout *z);
/* Uncompressed bytes that those compressed bytes hold. */
uint64_t katra_gzout_raw_bytes(const struct katra_gzout *z);
void katra_gzout_free(struct katra_gzout *z);

/* ---- decompressor (gzip_in.c) ---- */
struct katra_gzin;

/* Reads gzip data from fd (fd >= 0) or from mem[0..mem_len) (fd < 0; not
 * copied, keep it alive).  prefix[0..prefix_len) are bytes already read
 * from fd (the magic), decompressed before anything else is read.
 * Returns 0 or -ENOMEM. */
int katra_gzin_new(struct katra_gzin **out, int fd, const uint8_t *mem, size_t mem_len,
		   const uint8_t *prefix, size_t prefix_len);
/* Up to cap decompressed bytes into dst.  Returns the number of bytes
 * (> 0); 0 at the clean end of the gzip data (after the trailer of the last
 * member; concatenated members are read as one stream); -ENODATA when the
 * compressed input ends before its gzip stream does (a capture killed
 * before it finished: everything up to its last flush was returned);
 * -EBADMSG when the compressed data is corrupt (katra_gzin_message says
 * what); -ENOMEM; or -errno from read(2). */
long katra_gzin_read(struct katra_gzin *z, uint8_t *dst, size_t cap);
/* Why the last read failed (one line, no trailing newline). */
const char *katra_gzin_message(const struct katra_gzin *z);
/* Compressed bytes consumed so far. */
uint64_t katra_gzin_compressed_offset(const struct katra_gzin *z);
void katra_gzin_free(struct katra_gzin *z);

#endif
