// SPDX-License-Identifier: GPL-2.0-only
/* Trace writer: framing, header, then u32-length-prefixed records encoded
 * straight into one preallocated buffer (no allocation per record).  The
 * file only ever holds whole records: a short write is cut back to the last
 * record boundary that reached the disk.  With KATRA_WRITER_GZIP the same
 * bytes go through gzip_out.c on a compression thread (gzip_worker.c), one
 * sync flush per buffer written: a failed write is cut back to the last
 * one, which holds whole records only; katra_writer_flush returns once
 * everything appended is in the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "katra/format.h"
#include "gzip.h"

#define WRITER_BUF_BYTES KATRA_WRITER_BUFFER_BYTES
#define FLUSH_INTERVAL_NS 100000000ull /* at most 100 ms of capture unflushed */
#define CLOCK_CHECK_EVERY 64           /* records between clock reads */
/* zlib level 1: Katra records are repetitive enough that the fastest level
 * gets most of the gain, and the recorder compresses on its drain path */
#define GZIP_LEVEL 1

struct katra_writer {
	int fd;
	int error;         /* first error, sticky */
	bool finished;
	uint8_t *buf;
	size_t used;
	uint64_t file_bytes; /* stream bytes known to be whole in the file */
	struct katra_gzworker *gz; /* non-NULL: KATRA_WRITER_GZIP (gzip_worker.c) */
	uint64_t records;
	uint64_t last_flush_ns;
	unsigned since_clock;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Bytes of buf[0..done) that hold whole framed records (buf starts at a
 * record boundary: the preamble and header are flushed on their own). */
static size_t whole_records(const uint8_t *buf, size_t done)
{
	size_t pos = 0;
	uint32_t len;

	while (pos + 4 <= done) {
		memcpy(&len, buf + pos, 4);
		if (len > done - pos - 4)
			break;
		pos += 4 + (size_t)len;
	}
	return pos;
}

/* Writes buf[0..used) in full; on failure (a full disk) the file keeps every
 * whole record that reached it and nothing after.  Compressed, a full buffer
 * (sync false) goes to the compression thread while the writer fills the
 * other; a flush (sync) returns once everything is in the file. */
static int write_out(struct katra_writer *w, bool sync)
{
	size_t done = 0;

	if (w->gz) {
		int rc = sync ? katra_gzworker_write(w->gz, w->buf, w->used) :
			 katra_gzworker_post(w->gz, &w->buf, w->used);

		if (!rc)
			w->file_bytes += w->used;
		w->used = 0;
		return rc;
	}

	while (done < w->used) {
		ssize_t n = write(w->fd, w->buf + done, w->used - done);
		if (n < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			uint64_t keep = w->file_bytes + (w->file_bytes ? whole_records(w->buf, done) : 0);
			if (ftruncate(w->fd, (off_t)keep) == 0)
				lseek(w->fd, (off_t)keep, SEEK_SET);
			w->file_bytes = keep;
			w->used = 0;
			return -err;
		}
		done += (size_t)n;
	}
	w->file_bytes += w->used;
	w->used = 0;
	return 0;
}

int katra_writer_flush(struct katra_writer *w)
{
	if (w->error)
		return w->error;
	w->last_flush_ns = mono_ns();
	w->since_clock = 0;
	if (!w->used) {
		if (w->gz) /* a full buffer may still be on its way to the file */
			w->error = katra_gzworker_wait(w->gz);
		return w->error;
	}
	w->error = write_out(w, true);
	return w->error;
}

int katra_writer_open(struct katra_writer **out, const char *path,
		      const struct katra_header *h, unsigned flags)
{
	struct katra_writer *w = NULL;
	int oflags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	int rc;

	*out = NULL;
	oflags |= (flags & KATRA_WRITER_OVERWRITE) ? O_TRUNC : O_EXCL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->buf = malloc(WRITER_BUF_BYTES);
	if (!w->buf) {
		rc = -ENOMEM;
		goto cleanup;
	}

	/* "-" is standard output (a pipe: the reader on the other end streams) */
	w->fd = strcmp(path, "-") ? open(path, oflags, 0600)
				  : fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	if (w->fd < 0) {
		rc = -errno;
		goto cleanup;
	}
	/* O_TRUNC on an existing file keeps its mode: the trace is still 0600
	 * (a device such as /dev/null is written to, never re-moded) */
	struct stat st;
	if (fstat(w->fd, &st) < 0) {
		rc = -errno;
		goto cleanup;
	}
	if (S_ISREG(st.st_mode) && (st.st_mode & 07777) != 0600 && fchmod(w->fd, 0600) < 0) {
		rc = -errno;
		goto cleanup;
	}
	if (flags & KATRA_WRITER_GZIP) {
		rc = katra_gzworker_new(&w->gz, w->fd, GZIP_LEVEL, WRITER_BUF_BYTES);
		if (rc)
			goto cleanup;
	}

	memcpy(w->buf, KATRA_MAGIC, KATRA_MAGIC_LEN);
	put_le32(w->buf + 8, h->format_version);
	long n = katra_encode_header(h, w->buf + 16, WRITER_BUF_BYTES - 16);
	if (n < 0 || (uint64_t)n > KATRA_MAX_HEADER_LEN) {
		rc = -E2BIG;
		goto cleanup;
	}
	put_le32(w->buf + 12, (uint32_t)n);
	w->used = 16 + (size_t)n;
	rc = katra_writer_flush(w);
	if (rc)
		goto cleanup;
	*out = w;
	return 0;
cleanup:
	katra_gzworker_free(w->gz);
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	free(w);
	return rc;
}

/* A record that does not fit the buffer even when it is empty. */
static int append_large(struct katra_writer *w, const struct katra_record *r, size_t size)
{
	uint8_t *tmp = malloc(size + 4);
	int rc;

	if (!tmp)
		return -ENOMEM;
	put_le32(tmp, (uint32_t)size);
	katra_encode_record(r, tmp + 4, size);
	uint8_t *saved = w->buf;
	w->buf = tmp;
	w->used = size + 4;
	rc = write_out(w, true);
	w->buf = saved;
	free(tmp);
	return rc;
}

/* The record just encoded at used + 4 is n bytes: frame it, and flush when
 * the last flush is FLUSH_INTERVAL_NS old (the clock is read every
 * CLOCK_CHECK_EVERY records, not per record). */
static int commit_record(struct katra_writer *w, size_t n)
{
	put_le32(w->buf + w->used, (uint32_t)n);
	w->used += 4 + n;
	w->records++;
	if (++w->since_clock >= CLOCK_CHECK_EVERY) {
		w->since_clock = 0;
		if (mono_ns() - w->last_flush_ns >= FLUSH_INTERVAL_NS)
			return katra_writer_flush(w);
	}
	return 0;
}

int katra_writer_append(struct katra_writer *w, const struct katra_record *r)
{
	long n;

	if (w->error)
		return w->error;
	if (w->finished)
		return -EINVAL;
	/* room for the length prefix first: the cap below must not wrap */
	if (WRITER_BUF_BYTES - w->used < 4 + 1) {
		w->error = write_out(w, false);
		if (w->error)
			return w->error;
	}
	n = katra_encode_record(r, w->buf + w->used + 4, WRITER_BUF_BYTES - w->used - 4);
	if (n < 0) {
		size_t size = katra_encoded_record_size(r);
		if (size > KATRA_MAX_RECORD_LEN)
			return -E2BIG; /* a reader would reject it: refuse, keep the file whole */
		w->error = write_out(w, false);
		if (w->error)
			return w->error;
		if (size + 4 > WRITER_BUF_BYTES) {
			w->error = append_large(w, r, size);
			if (!w->error)
				w->records++;
			return w->error;
		}
		n = katra_encode_record(r, w->buf + 4, WRITER_BUF_BYTES - 4);
	}
	return commit_record(w, (size_t)n);
}

int katra_writer_append_event(struct katra_writer *w, const struct katra_event *ev)
{
	long n;

	if (w->error || w->finished || WRITER_BUF_BYTES - w->used < 4 + 1)
		goto slow;
	n = katra_encode_event_record(ev, w->buf + w->used + 4, WRITER_BUF_BYTES - w->used - 4);
	if (n < 0)
		goto slow;
	return commit_record(w, (size_t)n);
slow: {
	/* buffer boundary, errors, huge events: the general path handles them */
	struct katra_record r = { .type = KATRA_RECORD_EVENT };

	r.u.event = *ev;
	return katra_writer_append(w, &r);
}
}

int katra_writer_finish(struct katra_writer *w, const struct katra_summary *s)
{
	struct katra_record r = { .type = KATRA_RECORD_SESSION_SUMMARY };
	int rc;

	r.u.summary = *s;
	rc = katra_writer_append(w, &r);
	if (rc)
		return rc;
	w->finished = true;
	rc = katra_writer_flush(w);
	if (rc)
		return rc;
	if (w->gz) {
		w->error = katra_gzworker_finish(w->gz);
		if (w->error)
			return w->error;
	}
	if (fsync(w->fd) < 0 && errno != EINVAL && errno != EROFS)
		w->error = -errno;
	return w->error;
}

int katra_writer_close(struct katra_writer *w)
{
	int rc;

	if (!w)
		return 0;
	rc = katra_writer_flush(w);
	/* a trace closed without its summary is still a complete gzip file */
	if (!rc && w->gz && !katra_gzworker_finished(w->gz))
		rc = katra_gzworker_finish(w->gz);
	katra_gzworker_free(w->gz); /* nothing in flight after this */
	if (close(w->fd) < 0 && !rc)
		rc = -errno;
	free(w->buf);
	free(w);
	return rc;
}

uint64_t katra_writer_records(const struct katra_writer *w)
{
	return w->records;
}

uint64_t katra_writer_bytes(const struct katra_writer *w)
{
	return w->file_bytes + w->used;
}

uint64_t katra_writer_file_bytes(const struct katra_writer *w)
{
	return w->gz ? katra_gzworker_file_bytes(w->gz) : w->file_bytes;
}
