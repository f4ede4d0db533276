// SPDX-License-Identifier: GPL-2.0-only
/* The reader's gzip decompressor: streaming inflate from a file descriptor
 * or from memory, one bounded input buffer, concatenated gzip members read
 * as one stream (as gzip(1) does).  Every failure is a return value with a
 * message: corrupt input never reaches the Katra decoder as anything but
 * bytes, and never crashes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gzip.h"

#define IN_BYTES (64u << 10)

struct katra_gzin {
	z_stream zs;
	int fd;               /* -1: input is mem */
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	uint8_t *in;          /* fd mode: compressed input buffer */
	bool input_end;       /* no more compressed bytes */
	bool stream_end;      /* the last member's trailer was read */
	long error;           /* sticky: returned once the bytes before it are out */
	uint64_t consumed;    /* compressed bytes handed to inflate and used */
	char message[160];
};

int katra_gzin_new(struct katra_gzin **out, int fd, const uint8_t *mem, size_t mem_len,
		   const uint8_t *prefix, size_t prefix_len)
{
	struct katra_gzin *z = calloc(1, sizeof(*z));

	*out = NULL;
	if (!z)
		return -ENOMEM;
	z->fd = fd;
	if (fd < 0) {
		z->mem = mem;
		z->mem_len = mem_len;
	} else {
		z->in = malloc(IN_BYTES);
		if (!z->in) {
			free(z);
			return -ENOMEM;
		}
		if (prefix_len > IN_BYTES)
			prefix_len = IN_BYTES;
		if (prefix_len)
			memcpy(z->in, prefix, prefix_len);
		z->zs.next_in = z->in;
		z->zs.avail_in = (uInt)prefix_len;
	}
	/* 15 + 16: gzip framing only (a zlib or raw deflate stream is an error) */
	if (inflateInit2(&z->zs, 15 + 16) != Z_OK) {
		free(z->in);
		free(z);
		return -ENOMEM;
	}
	*out = z;
	return 0;
}

/* Gives inflate more compressed input: 1 when some came, 0 at its end. */
static int refill(struct katra_gzin *z)
{
	if (z->input_end)
		return 0;
	if (z->fd < 0) {
		size_t n = z->mem_len - z->mem_pos;

		if (n > IN_BYTES)
			n = IN_BYTES; /* uInt-sized steps whatever the input size */
		if (!n) {
			z->input_end = true;
			return 0;
		}
		z->zs.next_in = (Bytef *)(uintptr_t)(z->mem + z->mem_pos);
		z->zs.avail_in = (uInt)n;
		z->mem_pos += n;
		return 1;
	}
	for (;;) {
		ssize_t got = read(z->fd, z->in, IN_BYTES);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0) {
			z->input_end = true;
			return 0;
		}
		z->zs.next_in = z->in;
		z->zs.avail_in = (uInt)got;
		return 1;
	}
}

static long corrupt(struct katra_gzin *z, const char *what)
{
	snprintf(z->message, sizeof(z->message), "corrupt gzip data at compressed byte %" PRIu64
		 ": %s", z->consumed, what);
	return -EBADMSG;
}

/* After a member's trailer: another member, the end, or trailing garbage. */
static long next_member(struct katra_gzin *z)
{
	if (!z->zs.avail_in) {
		int rc = refill(z);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			z->stream_end = true;
			return 0;
		}
	}
	if (z->zs.next_in[0] != KATRA_GZIP_MAGIC0)
		return corrupt(z, "bytes after the end of the gzip stream that start no new member");
	if (inflateReset(&z->zs) != Z_OK)
		return corrupt(z, "cannot restart inflate");
	return 1;
}

/* The bytes inflated before a failure go out first; the failure next call. */
static long fail(struct katra_gzin *z, size_t cap, long err)
{
	long got = (long)(cap - z->zs.avail_out);

	z->error = err;
	return got ? got : err;
}

long katra_gzin_read(struct katra_gzin *z, uint8_t *dst, size_t cap)
{
	if (z->error)
		return z->error;
	if (z->stream_end || !cap)
		return 0;
	if (cap > IN_BYTES * 16)
		cap = IN_BYTES * 16; /* uInt-sized output steps */
	z->zs.next_out = dst;
	z->zs.avail_out = (uInt)cap;
	while (z->zs.avail_out == cap) {
		if (!z->zs.avail_in) {
			int rc = refill(z);
			if (rc < 0) {
				snprintf(z->message, sizeof(z->message), "read error: %s",
					 strerror(-rc));
				return fail(z, cap, rc);
			}
			if (rc == 0) {
				snprintf(z->message, sizeof(z->message),
					 "the gzip stream ends early, at compressed byte %" PRIu64
					 " (no gzip trailer)", z->consumed);
				return fail(z, cap, -ENODATA);
			}
		}
		uInt before = z->zs.avail_in;
		int ret = inflate(&z->zs, Z_NO_FLUSH);
		z->consumed += before - z->zs.avail_in;
		if (ret == Z_STREAM_END) {
			long more = next_member(z);
			if (more < 0)
				return fail(z, cap, more);
			if (more == 0)
				return (long)(cap - z->zs.avail_out);
			continue;
		}
		if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT)
			return fail(z, cap, corrupt(z, z->zs.msg ? z->zs.msg : "invalid deflate data"));
		if (ret == Z_MEM_ERROR) {
			snprintf(z->message, sizeof(z->message), "out of memory in inflate");
			return fail(z, cap, -ENOMEM);
		}
		if (ret == Z_STREAM_ERROR)
			return fail(z, cap, corrupt(z, "inflate state error"));
		if (ret == Z_BUF_ERROR && z->zs.avail_in && z->zs.avail_in == before)
			return fail(z, cap, corrupt(z, "inflate makes no progress"));
		/* Z_OK or Z_BUF_ERROR (no progress possible): more input next turn */
	}
	return (long)(cap - z->zs.avail_out);
}

const char *katra_gzin_message(const struct katra_gzin *z)
{
	return z->message;
}

uint64_t katra_gzin_compressed_offset(const struct katra_gzin *z)
{
	return z->consumed;
}

void katra_gzin_free(struct katra_gzin *z)
{
	if (!z)
		return;
	inflateEnd(&z->zs);
	free(z->in);
	free(z);
}
