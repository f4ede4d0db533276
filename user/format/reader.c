// SPDX-License-Identifier: GPL-2.0-only
/* Streaming trace reader.  It holds at most one record (<= 16 MiB) plus a
 * read-ahead chunk whatever the file size, checks the framing before it
 * trusts any length, and says precisely where a damaged file stops being a
 * trace.  A gzip-compressed trace (magic 1f 8b, whatever its name) is
 * decompressed on the fly (gzip_in.c): offsets are then those of the
 * decompressed Katra stream. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "katra/format.h"
#include "gzip.h"

#define READ_CHUNK (256u << 10)
#define PREAMBLE_LEN 16

struct katra_reader {
	int fd;            /* -1 when reading from memory */
	bool own_fd;
	const uint8_t *mem;
	uint8_t *buf;      /* owned window (fd mode) */
	size_t cap;
	size_t have;       /* valid bytes in the window */
	size_t pos;        /* consumed bytes in the window */
	uint64_t base;     /* file offset of window[0] */
	bool eof;
	uint64_t file_size; /* 0 when unknown (pipe, memory, compressed) */
	struct katra_gzin *gz; /* non-NULL: the input is gzip-compressed */
	bool gz_cut;       /* the gzip stream ended before its trailer */
	struct katra_header header;
	struct katra_arena header_arena;
	struct katra_arena record_arena;
	uint64_t records;
	uint64_t record_offset;
	bool summary_seen;
	int status;        /* sticky terminal status, 0 while records flow */
	char message[256];
};

static void set_msg(struct katra_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_msg(struct katra_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

static const uint8_t *window(const struct katra_reader *r)
{
	return r->mem ? r->mem : r->buf;
}

/* Reads input bytes: > 0, 0 at the end, -ENODATA when a gzip stream is cut
 * short, -EBADMSG when it is corrupt, or -errno. */
static long fill(struct katra_reader *r, uint8_t *dst, size_t cap)
{
	if (r->gz)
		return katra_gzin_read(r->gz, dst, cap);
	for (;;) {
		ssize_t got = read(r->fd, dst, cap);
		if (got >= 0)
			return (long)got;
		if (errno != EINTR)
			return -errno;
	}
}

/* Makes n bytes available at window()+pos.  Returns 0, -ENODATA when the
 * input ends first (what there is stays available), or -errno. */
static int ensure(struct katra_reader *r, size_t n)
{
	if (r->have - r->pos >= n)
		return 0;
	if (r->mem || r->eof)
		return -ENODATA;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->have - r->pos);
		r->base += r->pos;
		r->have -= r->pos;
		r->pos = 0;
	}
	if (r->cap < n + READ_CHUNK) {
		size_t cap = n + READ_CHUNK;
		uint8_t *p = realloc(r->buf, cap);
		if (!p)
			return -ENOMEM;
		r->buf = p;
		r->cap = cap;
	}
	while (r->have < n) {
		long got = fill(r, r->buf + r->have, r->cap - r->have);
		if (got == -ENODATA && r->gz)
			r->gz_cut = true; /* a stream without its trailer: its end */
		if (got == 0 || got == -ENODATA) {
			r->eof = true;
			return -ENODATA;
		}
		if (got < 0)
			return (int)got;
		r->have += (size_t)got;
	}
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void describe_magic(char *out, size_t cap, const uint8_t *p, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%02x", p[i]);
	if (!n)
		snprintf(out, cap, "(empty)");
}

static void read_failed(struct katra_reader *r, int rc)
{
	if (rc == -EBADMSG && r->gz)
		set_msg(r, "%s", katra_gzin_message(r->gz));
	else
		set_msg(r, "cannot read: %s", strerror(-rc));
}

/* Where the Katra bytes come from: the file itself, or the gzip stream it
 * holds (told by the two magic bytes 1f 8b, never by the name). */
static int detect_gzip(struct katra_reader *r)
{
	uint8_t magic[2];
	size_t n = 0;

	if (r->mem) {
		if (r->have < 2 || r->mem[0] != KATRA_GZIP_MAGIC0 || r->mem[1] != KATRA_GZIP_MAGIC1)
			return 0;
		int rc = katra_gzin_new(&r->gz, -1, r->mem, r->have, NULL, 0);
		if (rc)
			return rc;
		r->mem = NULL; /* from now on the window is an owned buffer */
		r->have = 0;
		return 0;
	}
	while (n < 2) { /* a pipe gives no peeking: read them, then hand them on */
		ssize_t got = read(r->fd, magic + n, 2 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n == 2 && magic[0] == KATRA_GZIP_MAGIC0 && magic[1] == KATRA_GZIP_MAGIC1) {
		r->file_size = 0; /* the Katra stream's length is unknown */
		return katra_gzin_new(&r->gz, r->fd, NULL, 0, magic, n);
	}
	r->buf = malloc(READ_CHUNK);
	if (!r->buf)
		return -ENOMEM;
	r->cap = READ_CHUNK;
	memcpy(r->buf, magic, n);
	r->have = n;
	if (n < 2)
		r->eof = true;
	return 0;
}

static int read_preamble(struct katra_reader *r)
{
	struct katra_decode_error derr = { 0, "" };
	int rc = ensure(r, PREAMBLE_LEN);
	size_t avail = r->have - r->pos;
	const uint8_t *p = window(r) + r->pos;
	char hex[40];

	if (rc && rc != -ENODATA) {
		read_failed(r, rc);
		return rc == -EBADMSG ? -EINVAL : rc;
	}
	size_t magic_n = avail < KATRA_MAGIC_LEN ? avail : KATRA_MAGIC_LEN;
	if (memcmp(p, KATRA_MAGIC, magic_n) != 0 || avail < KATRA_MAGIC_LEN) {
		describe_magic(hex, sizeof(hex), p, magic_n);
		if (memcmp(p, KATRA_MAGIC, magic_n) == 0)
			set_msg(r, "not a Katra trace: %s is %zu bytes, shorter than the %d-byte "
				"preamble", r->gz ? "its decompressed stream" : "file", avail,
				PREAMBLE_LEN);
		else
			set_msg(r, "not a Katra trace: wrong magic: expected \"KATRATRC\" "
				"(4b41545241545243), found %s%s", hex,
				r->gz ? " (inside the gzip stream)" : "");
		if (r->gz_cut && avail < PREAMBLE_LEN)
			set_msg(r, "truncated gzip stream: %s", katra_gzin_message(r->gz));
		return -EINVAL;
	}
	if (avail < PREAMBLE_LEN) {
		set_msg(r, "truncated preamble: file is %zu bytes, shorter than the %d-byte "
			"preamble", avail, PREAMBLE_LEN);
		return -EINVAL;
	}
	uint32_t version = le32(p + 8);
	uint32_t header_len = le32(p + 12);
	if (version != KATRA_FORMAT_VERSION) {
		set_msg(r, "unsupported format version: expected %u, found %u", KATRA_FORMAT_VERSION,
			version);
		return -EINVAL;
	}
	if (header_len > KATRA_MAX_HEADER_LEN) {
		set_msg(r, "corrupt header length: %u bytes at byte 12, over the %u-byte limit",
			header_len, KATRA_MAX_HEADER_LEN);
		return -EINVAL;
	}
	r->pos += PREAMBLE_LEN;
	rc = ensure(r, header_len);
	if (rc == -ENODATA) {
		set_msg(r, "truncated header: it ends at byte %" PRIu64 " but header_len says %u "
			"bytes from byte 16", r->base + r->have, header_len);
		return -EINVAL;
	}
	if (rc) {
		read_failed(r, rc);
		return rc == -EBADMSG ? -EINVAL : rc;
	}
	rc = katra_decode_header(window(r) + r->pos, header_len, &r->header, &r->header_arena,
				 &derr);
	if (rc == -ENOMEM) {
		set_msg(r, "out of memory decoding the header");
		return rc;
	}
	if (rc) {
		set_msg(r, "corrupt header at byte %zu: %s", PREAMBLE_LEN + derr.offset,
			derr.message);
		return -EINVAL;
	}
	if (r->header.format_version != version) {
		set_msg(r, "header format_version %u disagrees with the preamble's %u",
			r->header.format_version, version);
		return -EINVAL;
	}
	if (r->header.schema_hash != katra_schema_hash) {
		set_msg(r, "schema hash mismatch: expected 0x%016" PRIx64 ", found 0x%016" PRIx64,
			katra_schema_hash, r->header.schema_hash);
		return -EINVAL;
	}
	r->pos += header_len;
	return 0;
}

static int finish_open(struct katra_reader *r, struct katra_reader **out, char *msg,
		       size_t msg_cap)
{
	int rc = detect_gzip(r);

	if (rc)
		set_msg(r, "cannot read: %s", strerror(-rc));
	else
		rc = read_preamble(r);

	if (rc) {
		if (msg && msg_cap)
			snprintf(msg, msg_cap, "%s", r->message);
		katra_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int katra_reader_open_fd(struct katra_reader **out, int fd, char *msg, size_t msg_cap)
{
	struct katra_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->fd = fd;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
	return finish_open(r, out, msg, msg_cap);
}

int katra_reader_open(struct katra_reader **out, const char *path, char *msg, size_t msg_cap)
{
	/* "-" is standard input (a pipe is fine: the reader only streams) */
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				   : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	int rc;

	*out = NULL;
	if (fd < 0) {
		rc = -errno;
		if (msg && msg_cap)
			snprintf(msg, msg_cap, "cannot open trace file '%s': %s", path,
				 strerror(-rc));
		return rc;
	}
	rc = katra_reader_open_fd(out, fd, msg, msg_cap);
	if (rc)
		close(fd);
	else
		(*out)->own_fd = true;
	return rc;
}

int katra_reader_open_mem(struct katra_reader **out, const uint8_t *buf, size_t len, char *msg,
			  size_t msg_cap)
{
	static const uint8_t empty[1];
	struct katra_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->mem = buf ? buf : empty;
	r->have = buf ? len : 0;
	return finish_open(r, out, msg, msg_cap);
}

const struct katra_header *katra_reader_header(const struct katra_reader *r)
{
	return &r->header;
}

static enum katra_read_status truncated(struct katra_reader *r)
{
	set_msg(r, "ends mid-record at byte %" PRIu64 "%s after %" PRIu64 " complete records%s%s",
		r->record_offset, r->gz ? " of the decompressed stream" : "", r->records,
		r->summary_seen ? "" : "; no SessionSummary",
		r->gz_cut ? "; the gzip stream is cut short too" : "");
	r->status = KATRA_READ_TRUNCATED;
	return KATRA_READ_TRUNCATED;
}

/* A gzip stream cut at a record boundary: every record before is whole
 * (what a killed compressed capture leaves), but the file is not. */
static enum katra_read_status gzip_cut(struct katra_reader *r)
{
	set_msg(r, "%s after %" PRIu64 " complete records%s", katra_gzin_message(r->gz),
		r->records, r->summary_seen ? "" : "; no SessionSummary");
	r->status = KATRA_READ_TRUNCATED;
	return KATRA_READ_TRUNCATED;
}

enum katra_read_status katra_reader_next(struct katra_reader *r, struct katra_record *rec)
{
	struct katra_decode_error derr = { 0, "" };
	int rc;

	if (r->status)
		return (enum katra_read_status)r->status;
	r->record_offset = r->base + r->pos;
	rc = ensure(r, 4);
	if (rc == -ENODATA) {
		if (r->have == r->pos && r->gz_cut)
			return gzip_cut(r);
		if (r->have == r->pos) {
			r->status = KATRA_READ_EOF;
			return KATRA_READ_EOF;
		}
		return truncated(r);
	}
	if (rc)
		goto read_error;
	uint32_t len = le32(window(r) + r->pos);
	if (len > KATRA_MAX_RECORD_LEN) {
		set_msg(r, "corrupt record length %u at byte %" PRIu64 " after %" PRIu64
			" complete records (limit %u)", len, r->record_offset, r->records,
			KATRA_MAX_RECORD_LEN);
		r->status = KATRA_READ_CORRUPT;
		return KATRA_READ_CORRUPT;
	}
	/* a length past the end of a regular file is a truncation: say so
	 * without reserving a window for bytes that are not there */
	uint64_t end = r->mem ? r->have : r->file_size;
	if (end && r->record_offset + 4 + len > end && !r->mem && !r->gz) {
		struct stat st; /* the file may have grown since open */
		if (fstat(r->fd, &st) == 0)
			end = r->file_size = (uint64_t)st.st_size;
	}
	if (end && r->record_offset + 4 + len > end)
		return truncated(r);
	rc = ensure(r, 4 + (size_t)len);
	if (rc == -ENODATA)
		return truncated(r);
	if (rc)
		goto read_error;
	rc = katra_decode_record(window(r) + r->pos + 4, len, rec, &r->record_arena, &derr);
	if (rc) {
		if (rc == -ENOMEM)
			set_msg(r, "out of memory decoding record %" PRIu64, r->records);
		else
			set_msg(r, "corrupt record at byte %" PRIu64 " (record %" PRIu64
				", %u bytes): %s", r->record_offset, r->records, len, derr.message);
		r->status = KATRA_READ_CORRUPT;
		return KATRA_READ_CORRUPT;
	}
	r->pos += 4 + (size_t)len;
	r->records++;
	if (rec->type == KATRA_RECORD_SESSION_SUMMARY)
		r->summary_seen = true;
	return KATRA_READ_RECORD;
read_error:
	if (rc == -EBADMSG && r->gz) {
		set_msg(r, "%s (record %" PRIu64 " at byte %" PRIu64 " of the decompressed "
			"stream)", katra_gzin_message(r->gz), r->records, r->record_offset);
		r->status = KATRA_READ_CORRUPT;
		return KATRA_READ_CORRUPT;
	}
	set_msg(r, "read error at byte %" PRIu64 ": %s", r->record_offset, strerror(-rc));
	r->status = KATRA_READ_IO_ERROR;
	return KATRA_READ_IO_ERROR;
}

uint64_t katra_reader_record_offset(const struct katra_reader *r)
{
	return r->record_offset;
}

uint64_t katra_reader_records_read(const struct katra_reader *r)
{
	return r->records;
}

bool katra_reader_compressed(const struct katra_reader *r)
{
	return r->gz != NULL;
}

const char *katra_reader_message(const struct katra_reader *r)
{
	return r->message;
}

void katra_reader_close(struct katra_reader *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	free(r->buf);
	katra_gzin_free(r->gz);
	katra_arena_free(&r->header_arena);
	katra_arena_free(&r->record_arena);
	free(r);
}
