// SPDX-License-Identifier: GPL-2.0-only
/* Trace writer: framing, header, then u32-length-prefixed records encoded
 * straight into one preallocated buffer (no allocation per record).  Full
 * buffers are written by an output thread (out_worker.c) while the writer
 * fills a second one.  The file only ever holds whole records: a short
 * write is cut back to the last record boundary that reached the disk.
 * With KATRA_WRITER_GZIP the same bytes go through gzip_out.c on that
 * thread, one sync flush per buffer written: a failed write is cut back to
 * the last one, which holds whole records only; katra_writer_flush returns
 * once everything appended is in the file.
 *
 * A plain trace in a regular file that the writer opened goes to the disk
 * with O_DIRECT where the file system takes it: buffered, the write cost
 * the recorder about a third of its CPU per event on sys1 (page-cache pages,
 * buffer heads and delayed allocation for every 4 KiB, then the write-back
 * at fsync), directly the same MiB costs a quarter of that, and a capture no
 * longer leaves the page cache full of dirty pages.  Direct writes need an
 * aligned memory address, file offset and length, so each buffer starts at
 * the memory offset that matches its file offset modulo DIO_ALIGN: its
 * bytes up to the first aligned file offset and after the last one go
 * buffered (they share one page-cache page with the neighbouring buffers,
 * and the file ends on a whole record after every write), everything in
 * between directly.  A direct write waits for the disk, which is why it is
 * not done on the recorder's drain thread. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "katra/format.h"
#include "encode_int.h"
#include "gzip.h"
#include "out_worker.h"
#include "writer_int.h"

#define FLUSH_INTERVAL_NS 100000000ull /* at most 100 ms of capture not handed over */
/* zlib level 1: Katra records are repetitive enough that the fastest level
 * gets most of the gain, and the recorder compresses on its drain path */
#define GZIP_LEVEL 1
/* direct writes: buffer address, file offset and length aligned to this
 * (4 KiB covers 512-byte and 4 KiB logical blocks; a device that wants more
 * refuses with EINVAL, and the writer goes on buffered) */
#define DIO_ALIGN 4096u
/* A direct write of one buffer that takes longer than this a MiB (the disk
 * keeps less than ~50 MB/s: other writers, a slow device) sends the next
 * DIO_PAUSE_JOBS buffers (64 MiB) through the page cache, which takes them at memory
 * speed, rather than hold the drain thread until the rings overflow. */
#define DIO_SLOW_NS_PER_MIB 20000000ull
#define DIO_PAUSE_JOBS (64u * (1u << 20) / KATRA_WRITER_BUFFER_BYTES) /* 64 MiB */
/* a buffer on one transparent huge page where the kernel gives one
 * (iobuf.c: of 1 MiB of small pages a direct write pinned 256 pages and
 * went out as two requests); a plain trace's buffer fills the page, so
 * each write is twice as large: half the requests, notifications and
 * output-thread wakeups */
_Static_assert(KATRA_WRITER_BUFFER_BYTES + DIO_ALIGN <= KATRA_IOBUF_REGION &&
	       KATRA_WRITER_GZIP_BUFFER_BYTES <= KATRA_WRITER_BUFFER_BYTES,
	       "a buffer fits a huge page");


static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

/* Sets or clears O_DIRECT on the fd (a tail goes out buffered). */
static int set_direct(struct katra_writer *w, bool on)
{
	int fl;

	if (w->direct_now == on)
		return 0;
	fl = fcntl(w->fd, F_GETFL);
	if (fl < 0 || fcntl(w->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
		return -errno;
	w->direct_now = on;
	return 0;
}

/* No more direct writes: the file system or the device refused one. */
static void stop_direct(struct katra_writer *w)
{
	__atomic_store_n(&w->dio, false, __ATOMIC_RELAXED); /* read by katra_writer_direct */
	set_direct(w, false); /* best effort: the buffered write that follows says */
}

/* The plain sink, on the output thread: job->buf[0..n) in full at job->base;
 * its middle, from the first aligned file offset to the last, directly where
 * it can, the ends buffered.  On failure (a full disk) the file keeps every
 * whole record that reached it and nothing after. */
static int plain_sink(void *ctx, const struct katra_outjob *job, uint64_t *file_bytes)
{
	struct katra_writer *w = ctx;
	size_t done = 0, head = 0, direct = 0;
	uint64_t t0 = 0;
	int err;

	if (w->dio_pause) {
		w->dio_pause--;
	} else if (w->dio && !(((uintptr_t)job->buf - job->base) & (DIO_ALIGN - 1))) {
		head = (size_t)(-job->base & (DIO_ALIGN - 1));
		if (head < job->n)
			direct = (job->n - head) & ~(size_t)(DIO_ALIGN - 1);
		else
			head = job->n;
	}
	while (done < job->n) {
		bool d = done >= head && done < head + direct;
		size_t end = done < head ? head : d ? head + direct : job->n;
		ssize_t n;

		if (d && !w->direct_now && set_direct(w, true)) {
			stop_direct(w);
			direct = 0;
			continue;
		}
		if (!d && w->direct_now && (err = -set_direct(w, false)))
			goto fail;
		if (d && !t0)
			t0 = mono_ns();
		n = w->positioned ? pwrite(w->fd, job->buf + done, end - done, (off_t)(job->base + done))
				  : write(w->fd, job->buf + done, end - done);
		if (n < 0) {
			err = errno;
			if (err == EINTR)
				continue;
			if (d && err == EINVAL) { /* not for this file or device after all */
				stop_direct(w);
				direct = 0;
				continue;
			}
			goto fail;
		}
		done += (size_t)n;
		if (d)
			__atomic_fetch_add(&w->direct_bytes, (uint64_t)n, __ATOMIC_RELAXED);
		if (d && ((done - head) & (DIO_ALIGN - 1))) { /* a short direct write */
			stop_direct(w);
			direct = 0;
		}
	}
	*file_bytes = job->base + job->n;
	if (direct && (mono_ns() - t0) * (1u << 20) > DIO_SLOW_NS_PER_MIB * direct)
		w->dio_pause = DIO_PAUSE_JOBS;
	return 0;
fail: {
	/* *file_bytes (the end of the last job, whole) is job->base */
	uint64_t keep = *file_bytes + (*file_bytes ? whole_records(job->buf, done) : 0);

	if (ftruncate(w->fd, (off_t)keep) == 0 && !w->positioned)
		lseek(w->fd, (off_t)keep, SEEK_SET);
	*file_bytes = keep;
	return -err;
}
}

/* The gzip sink, on the output thread (gzip_out.c cuts a failed write back). */
static int gzip_sink(void *ctx, const struct katra_outjob *job, uint64_t *file_bytes)
{
	struct katra_writer *w = ctx;
	int rc = katra_gzout_write(w->z, w->fd, job->buf, job->n);

	*file_bytes = katra_gzout_file_bytes(w->z);
	return rc;
}

/* Where the next buffer's records start: at the memory offset that matches
 * their file offset modulo DIO_ALIGN, so that the plain sink can send the
 * aligned middle of the buffer directly. */
static void restart(struct katra_writer *w)
{
	w->buf = w->mem + (w->lead ? (size_t)(w->base & (DIO_ALIGN - 1)) : 0);
	w->used = 0;
}

/* Hands buf[0..used) to the output thread: a full buffer (sync false) is
 * written while the writer fills the spare one; a flush (sync) returns once
 * everything is in the file. */
static int write_out(struct katra_writer *w, bool sync)
{
	struct katra_outjob job = { w->buf, w->used, w->base };
	int rc;

	rc = sync ? katra_outworker_write(w->out, &job) : katra_outworker_post(w->out, &w->mem, &job);
	if (!rc)
		w->base += w->used;
	restart(w);
	return rc;
}

int katra_writer_flush(struct katra_writer *w)
{
	if (w->error)
		return w->error;
	w->last_flush_ns = mono_ns();
	w->since_clock = 0;
	if (!w->used) /* nothing new: a full buffer may still be on its way */
		w->error = katra_outworker_wait(w->out);
	else
		w->error = write_out(w, true);
	return w->error;
}

int katra_writer_kick(struct katra_writer *w)
{
	/* compressed, the kick stays a flush: the man page promises a killed
	 * capture loses at most 100 ms, and a buffer still being compressed
	 * would add its compression time (milliseconds per MiB) to that */
	if (w->z)
		return katra_writer_flush(w);
	if (w->error)
		return w->error;
	w->last_flush_ns = mono_ns();
	w->since_clock = 0;
	if (w->used)
		w->error = write_out(w, false);
	return w->error;
}

int katra_writer_open(struct katra_writer **out, const char *path,
		      const struct katra_header *h, unsigned flags)
{
	int oflags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	int fd;

	*out = NULL;
	oflags |= (flags & KATRA_WRITER_OVERWRITE) ? O_TRUNC : O_EXCL;
	/* "-" is standard output (a pipe: the reader on the other end streams) */
	fd = strcmp(path, "-") ? open(path, oflags, 0600) : fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	return katra_writer_open_fd(out, fd, !strcmp(path, "-"), h, flags);
}

int katra_writer_open_fd(struct katra_writer **out, int fd, bool shared,
			 const struct katra_header *h, unsigned flags)
{
	struct katra_writer *w = NULL;
	uint8_t *spare = NULL;
	int rc;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->cap = (flags & KATRA_WRITER_GZIP) ? KATRA_WRITER_GZIP_BUFFER_BYTES
					     : KATRA_WRITER_BUFFER_BYTES;
	/* both aligned for direct writes, with room for the lead */
	w->mem = katra_iobuf_alloc();
	spare = katra_iobuf_alloc();
	if (!w->mem || !spare) {
		rc = -ENOMEM;
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
		rc = katra_gzout_new(&w->z, GZIP_LEVEL);
		if (rc)
			goto cleanup;
	} else if (S_ISREG(st.st_mode) && !shared) {
		/* our own file: written at our offsets, and directly where the file
		 * system lets set_direct turn O_DIRECT on (not on a standard output
		 * that others may share, nor on tmpfs before Linux 6.6) */
		w->positioned = w->dio = w->lead = true;
	}
	rc = katra_outworker_new(&w->out, w->z ? gzip_sink : plain_sink, w, spare);
	if (rc)
		goto cleanup;
	spare = NULL; /* the worker's */
	restart(w);

	memcpy(w->buf, KATRA_MAGIC, KATRA_MAGIC_LEN);
	put_le32(w->buf + 8, h->format_version);
	long n = katra_encode_header(h, w->buf + 16, w->cap - 16);
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
	katra_outworker_free(w->out);
	katra_gzout_free(w->z);
	if (w->fd >= 0)
		close(w->fd);
	katra_iobuf_free(spare);
	katra_iobuf_free(w->mem);
	free(w);
	return rc;
}

/* A record that does not fit the buffer even when it is empty. */
static int append_large(struct katra_writer *w, const struct katra_record *r, size_t size)
{
	struct katra_outjob job = { .n = size + 4 };
	uint8_t *tmp = malloc(size + 4);
	int rc;

	if (!tmp)
		return -ENOMEM;
	put_le32(tmp, (uint32_t)size);
	katra_encode_record(r, tmp + 4, size);
	job.buf = tmp;
	job.base = w->base; /* the buffer was handed over: it is empty */
	/* not aligned in memory: the sink writes it buffered */
	rc = katra_outworker_write(w->out, &job);
	if (!rc)
		w->base += job.n;
	restart(w);
	free(tmp);
	return rc;
}

/* Every CLOCK_CHECK_EVERY records: the buffer is handed over when the last
 * hand-over is FLUSH_INTERVAL_NS old (out of line: a call on the per-record
 * path would have it save registers). */
__attribute__((noinline)) int clock_check(struct katra_writer *w)
{
	w->since_clock = 0;
	if (mono_ns() - w->last_flush_ns >= FLUSH_INTERVAL_NS)
		return katra_writer_kick(w);
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
	if (w->cap - w->used < 4 + 1) {
		w->error = write_out(w, false);
		if (w->error)
			return w->error;
	}
	n = katra_encode_record(r, w->buf + w->used + 4, w->cap - w->used - 4);
	if (n < 0) {
		size_t size = katra_encoded_record_size(r);
		if (size > KATRA_MAX_RECORD_LEN)
			return -E2BIG; /* a reader would reject it: refuse, keep the file whole */
		w->error = write_out(w, false);
		if (w->error)
			return w->error;
		if (size + 4 > w->cap) {
			w->error = append_large(w, r, size);
			if (!w->error)
				w->records++;
			return w->error;
		}
		n = katra_encode_record(r, w->buf + 4, w->cap - 4);
	}
	return commit_record(w, (size_t)n);
}

/* Buffer boundary, errors, huge events: the general path handles them (out
 * of line: its record on the stack would cost every event a larger frame). */
static __attribute__((noinline)) int append_event_record(struct katra_writer *w,
							 const struct katra_event *ev)
{
	struct katra_record r = { .type = KATRA_RECORD_EVENT };

	r.u.event = *ev;
	return katra_writer_append(w, &r);
}

/* An event with strings or many causes, near the buffer's end, or after an
 * error (out of line: see katra_writer_append_event). */
__attribute__((noinline)) int append_event_other(struct katra_writer *w,
						 const struct katra_event *ev)
{
	long n;

	if (w->error || w->finished || w->cap - w->used < 4 + 1)
		return append_event_record(w, ev);
	if (event_fits(ev, w->cap - w->used - 4))
		return commit_record(w, encode_event_unchecked(ev, w->buf + w->used + 4));
	n = katra_encode_event_record(ev, w->buf + w->used + 4, w->cap - w->used - 4);
	if (n < 0)
		return append_event_record(w, ev);
	return commit_record(w, (size_t)n);
}

int katra_writer_append_event(struct katra_writer *w, const struct katra_event *ev)
{
	/* the common case encoded here, inline, with no call on its way (the
	 * others are tail calls): no register saved and restored per record */
	if (!event_plain(ev) || w->error || w->finished ||
	    w->cap - w->used < 4 + PLAIN_EVENT_BOUND)
		return append_event_other(w, ev);
	return commit_record(w, encode_event_plain(ev, w->buf + w->used + 4));
}

/* The buffer's lines a few events ahead of out, for writing: a buffer
 * came back from the disk's DMA out of the cache, and each event's stores
 * otherwise waited for their lines (OUT_AHEAD_BYTES: about eight events;
 * lines: what one call writes, at most). */
#define OUT_AHEAD_BYTES 1024
static inline __attribute__((always_inline)) void out_ahead(const uint8_t *out, unsigned lines)
{
	for (unsigned i = 0; i < lines; i++)
		__builtin_prefetch(out + OUT_AHEAD_BYTES + 64 * i, 1);
}

/* A syscall's events take their fields as scalars (format.h): each goes
 * from a register or an 8-byte stack slot into the buffer.  The Events
 * built from them never leave these functions: the encoder (put_event, the
 * one writer of the bytes) folds their constant fields away. */

/* The Begin of a syscall span, its payload given to the encoder apart. */
static inline __attribute__((always_inline)) struct katra_event syscall_begin_event(
	uint64_t seq, uint64_t span, uint64_t tid, uint64_t pid, uint32_t kind, uint64_t ts,
	uint64_t wall_offset, uint32_t res_domain, uint64_t res_id)
{
	return (struct katra_event){
		.seq = seq, .ts_mono_ns = ts, .ts_wall_ns = wall_offset + ts,
		.thread_id = tid, .process_id = pid,
		.scope = KATRA_SCOPE_LINUX, .kind = kind, .phase = KATRA_PHASE_BEGIN,
		.span_id = { true, span }, .resource = { res_domain, res_id },
		.confidence = KATRA_CONFIDENCE_MEASURED,
	};
}

/* The End of a syscall span, its one cause at *cause. */
static inline __attribute__((always_inline)) struct katra_event syscall_end_event(
	uint64_t seq, uint64_t span, const uint64_t *cause, uint64_t tid, uint64_t pid,
	uint32_t kind, uint32_t nr, uint64_t ts, uint64_t wall_offset, uint32_t res_domain,
	uint64_t res_id, int64_t ret)
{
	return (struct katra_event){
		.seq = seq, .ts_mono_ns = ts, .ts_wall_ns = wall_offset + ts,
		.thread_id = tid, .process_id = pid,
		.scope = KATRA_SCOPE_LINUX, .kind = kind, .phase = KATRA_PHASE_END,
		.span_id = { true, span }, .causes = { (uint64_t *)cause, 1 },
		.resource = { res_domain, res_id },
		.payload = { .type = KATRA_PAYLOAD_SYSCALL_RETURN,
			     .u.syscall_return = { .nr = nr, .ret = ret } },
		.confidence = KATRA_CONFIDENCE_MEASURED,
	};
}

#define END_PARAMS                                                                           \
	struct katra_writer *w, uint64_t seq, uint64_t span, uint64_t cause, uint64_t tid,        \
		uint64_t pid, uint32_t kind, uint32_t nr, uint64_t ts, uint64_t wall_offset,      \
		uint32_t res_domain, uint64_t res_id, int64_t ret
#define END_EVENT                                                                            \
	syscall_end_event(seq, span, &cause, tid, pid, kind, nr, ts, wall_offset, res_domain,    \
			  res_id, ret)

/* Out of line (the same parameters: a tail call): the Event on the stack
 * only where the buffer's end or an error needs the general path. */
static __attribute__((noinline)) int append_syscall_end_other(END_PARAMS)
{
	struct katra_event ev = END_EVENT;

	return append_event_other(w, &ev);
}

int katra_writer_append_syscall_end(END_PARAMS)
{
	if (w->error || w->finished || w->cap - w->used < 4 + PLAIN_EVENT_BOUND)
		return append_syscall_end_other(w, seq, span, cause, tid, pid, kind, nr, ts,
						wall_offset, res_domain, res_id, ret);
	struct katra_event ev = END_EVENT;

	out_ahead(w->buf + w->used, 2);
	return commit_record(w, encode_event_plain(&ev, w->buf + w->used + 4));
}

#define BEGIN_PARAMS                                                                         \
	struct katra_writer *w, uint64_t seq, uint64_t span, uint64_t tid, uint64_t pid,         \
		uint32_t kind, uint64_t ts, uint64_t wall_offset, uint32_t res_domain,            \
		uint64_t res_id, const struct katra_payload *pl
#define BEGIN_EVENT                                                                          \
	syscall_begin_event(seq, span, tid, pid, kind, ts, wall_offset, res_domain, res_id)

static __attribute__((noinline)) int append_syscall_begin_other(BEGIN_PARAMS)
{
	struct katra_event ev = BEGIN_EVENT;

	ev.payload = *pl;
	return append_event_other(w, &ev);
}

int katra_writer_append_syscall_begin(BEGIN_PARAMS)
{
	if (!payload_without_strings(pl) || w->error || w->finished ||
	    w->cap - w->used < 4 + PLAIN_EVENT_BOUND)
		return append_syscall_begin_other(w, seq, span, tid, pid, kind, ts, wall_offset,
						  res_domain, res_id, pl);
	struct katra_event ev = BEGIN_EVENT;

	out_ahead(w->buf + w->used, 2);
	return commit_record(w, encode_event_plain_with(&ev, pl, w->buf + w->used + 4));
}

#define PAIR_PARAMS                                                                          \
	struct katra_writer *w, uint64_t seq, uint64_t span, uint64_t tid, uint64_t pid,         \
		uint32_t kind, uint32_t nr, uint64_t enter_ns, uint64_t exit_ns,                  \
		uint64_t wall_offset, uint32_t res_domain, uint64_t res_id, int64_t ret,          \
		const struct katra_payload *pl

/* Near the buffer's end, after an error, a payload with strings: one after
 * the other, each by its own path. */
static __attribute__((noinline)) int append_syscall_pair_other(PAIR_PARAMS)
{
	int rc = katra_writer_append_syscall_begin(w, seq, span, tid, pid, kind, enter_ns,
						   wall_offset, res_domain, res_id, pl);

	return rc ? rc : katra_writer_append_syscall_end(w, seq + 1, span, seq, tid, pid, kind,
							 nr, exit_ns, wall_offset, res_domain,
							 res_id, ret);
}

int katra_writer_append_syscall_pair(PAIR_PARAMS)
{
	if (!payload_without_strings(pl) || w->error || w->finished ||
	    w->cap - w->used < 2 * (4 + PLAIN_EVENT_BOUND))
		return append_syscall_pair_other(w, seq, span, tid, pid, kind, nr, enter_ns,
						 exit_ns, wall_offset, res_domain, res_id, ret, pl);
	/* the writer's fields read once: a byte stored through out could be
	 * any of them, so each use after one would load it again */
	uint8_t *out = w->buf + w->used;
	out_ahead(out, 4);
	struct katra_event b = syscall_begin_event(seq, span, tid, pid, kind, enter_ns,
						   wall_offset, res_domain, res_id);
	uint64_t cause = seq;
	size_t n = encode_event_plain_with(&b, pl, out + 4);

	put_le32(out, (uint32_t)n);
	out += 4 + n;
	struct katra_event x = syscall_end_event(seq + 1, span, &cause, tid, pid, kind, nr,
						 exit_ns, wall_offset, res_domain, res_id, ret);
	size_t m = encode_event_plain(&x, out + 4);

	put_le32(out, (uint32_t)m);
	w->used += 8 + n + m;
	w->records += 2;
	/* the clock after both: a hand-over between them would change no byte */
	w->since_clock += 2;
	if (w->since_clock >= CLOCK_CHECK_EVERY)
		return clock_check(w);
	return 0;
}

void katra_io_uring_payload(struct katra_payload *p, const struct katra_io_uring_req *r,
			    uint32_t kind)
{
	if (kind == KATRA_KIND_IO_URING_SUBMIT) {
		p->type = KATRA_PAYLOAD_IO_URING_SUBMIT;
		p->u.io_uring_submit.ctx = r->ctx;
		p->u.io_uring_submit.user_data = r->user_data;
		p->u.io_uring_submit.opcode = r->opcode;
		p->u.io_uring_submit.flags = r->flags;
		p->u.io_uring_submit.fd = -1;
	} else {
		p->type = KATRA_PAYLOAD_IO_URING_COMPLETE;
		p->u.io_uring_complete.ctx = r->ctx;
		p->u.io_uring_complete.user_data = r->user_data;
		p->u.io_uring_complete.res = r->res;
		p->u.io_uring_complete.cflags = r->cflags;
	}
}

/* The Event a katra_io_uring_req stands for. */
static inline __attribute__((always_inline)) struct katra_event io_uring_event(
	const struct katra_io_uring_req *r, uint32_t kind)
{
	struct katra_event ev = {
		.seq = r->seq, .ts_mono_ns = r->ts_mono_ns, .ts_wall_ns = r->ts_wall_ns,
		.thread_id = r->thread_id, .process_id = r->process_id,
		.scope = KATRA_SCOPE_LINUX, .kind = kind, .phase = KATRA_PHASE_INSTANT,
		.request_id = { true, r->user_data },
		.causes = { (uint64_t *)&r->cause, r->ncauses },
		.resource = { KATRA_RES_IO_URING, r->ctx },
		.confidence = KATRA_CONFIDENCE_MEASURED,
	};

	katra_io_uring_payload(&ev.payload, r, kind);
	return ev;
}

static __attribute__((noinline)) int append_io_uring_other(struct katra_writer *w,
							   const struct katra_io_uring_req *r)
{
	struct katra_event ev = io_uring_event(r, r->kind);

	return append_event_other(w, &ev);
}

/* r's field f through a register: the caller has just stored r field by
 * field, and a wide load of two of those stores (what the compiler makes of
 * two neighbouring copies) cannot take them from the store buffer: under
 * perf, one such load of ts_wall_ns and thread_id was three quarters of
 * this function's time. */
#define REQ_FIELD(r, f)                                   \
	({                                                \
		__typeof__(+(r)->f) v_ = (r)->f;          \
		__asm__("" : "+r"(v_));                   \
		v_;                                       \
	})
#define STORE_AT(out, at, v)                              \
	do {                                              \
		__typeof__(v) s_ = (v);                   \
		memcpy((out) + (at), &s_, sizeof(s_));    \
	} while (0)

/* The Event record of an io_uring submission or completion, stored field
 * by field where put_event_with() puts them (the same bytes; test_writer.c
 * compares them), each of r's fields read once into a register.  Its
 * size. */
static inline __attribute__((always_inline)) size_t encode_io_uring(
	const struct katra_io_uring_req *r, uint8_t *out)
{
	uint32_t kind = REQ_FIELD(r, kind), ncauses = REQ_FIELD(r, ncauses);
	uint64_t ctx = REQ_FIELD(r, ctx), user_data = REQ_FIELD(r, user_data);
	size_t n = 74;

	STORE_AT(out, 0, (uint32_t)KATRA_RECORD_EVENT);
	STORE_AT(out, 4, REQ_FIELD(r, seq));
	STORE_AT(out, 12, REQ_FIELD(r, ts_mono_ns));
	STORE_AT(out, 20, REQ_FIELD(r, ts_wall_ns));
	STORE_AT(out, 28, REQ_FIELD(r, thread_id));
	STORE_AT(out, 36, REQ_FIELD(r, process_id));
	STORE_AT(out, 44, (uint32_t)KATRA_SCOPE_LINUX);
	STORE_AT(out, 48, kind);
	STORE_AT(out, 52, (uint32_t)KATRA_PHASE_INSTANT);
	out[56] = 0; /* span_id: none */
	out[57] = 1; /* request_id: the user_data */
	STORE_AT(out, 58, user_data);
	STORE_AT(out, 66, (uint64_t)(ncauses ? 1 : 0));
	if (ncauses) {
		STORE_AT(out, n, REQ_FIELD(r, cause));
		n += 8;
	}
	STORE_AT(out, n, (uint32_t)KATRA_RES_IO_URING);
	STORE_AT(out, n + 4, ctx);
	STORE_AT(out, n + 16, ctx); /* both payloads start with ctx, user_data */
	STORE_AT(out, n + 24, user_data);
	if (kind == KATRA_KIND_IO_URING_SUBMIT) {
		STORE_AT(out, n + 12, (uint32_t)KATRA_PAYLOAD_IO_URING_SUBMIT);
		STORE_AT(out, n + 32, REQ_FIELD(r, opcode));
		STORE_AT(out, n + 36, REQ_FIELD(r, flags));
		STORE_AT(out, n + 40, (int32_t)-1); /* fd: not known here */
		n += 44;
	} else {
		STORE_AT(out, n + 12, (uint32_t)KATRA_PAYLOAD_IO_URING_COMPLETE);
		STORE_AT(out, n + 32, REQ_FIELD(r, res));
		STORE_AT(out, n + 36, REQ_FIELD(r, cflags));
		n += 40;
	}
	out[n] = 0; /* cost_estimate_ns: none */
	STORE_AT(out, n + 1, (uint32_t)KATRA_CONFIDENCE_MEASURED);
	return n + 5;
}

int katra_writer_append_io_uring(struct katra_writer *w, const struct katra_io_uring_req *r)
{
	if (w->error || w->finished || w->cap - w->used < 4 + PLAIN_EVENT_BOUND || r->ncauses > 1 ||
	    (r->kind != KATRA_KIND_IO_URING_SUBMIT && r->kind != KATRA_KIND_IO_URING_COMPLETE))
		return append_io_uring_other(w, r);
	return commit_record(w, encode_io_uring(r, w->buf + w->used + 4));
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
	if (w->z) { /* nothing in flight: the stream is this thread's to end */
		rc = katra_gzout_finish(w->z, w->fd);
		w->error = katra_outworker_idle_done(w->out, rc, katra_gzout_file_bytes(w->z));
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
	katra_outworker_free(w->out); /* waits: nothing in flight after this */
	/* a trace closed without its summary is still a complete gzip file */
	if (!rc && w->z && !katra_gzout_finished(w->z))
		rc = katra_gzout_finish(w->z, w->fd);
	katra_gzout_free(w->z);
	if (close(w->fd) < 0 && !rc)
		rc = -errno;
	katra_iobuf_free(w->mem);
	free(w);
	return rc;
}

uint64_t katra_writer_records(const struct katra_writer *w)
{
	return w->records;
}

uint64_t katra_writer_bytes(const struct katra_writer *w)
{
	return w->base + w->used;
}

uint64_t katra_writer_file_bytes(const struct katra_writer *w)
{
	return katra_outworker_file_bytes(w->out);
}

uint64_t katra_writer_direct_bytes(const struct katra_writer *w)
{
	return __atomic_load_n(&w->direct_bytes, __ATOMIC_RELAXED);
}

bool katra_writer_direct(const struct katra_writer *w)
{
	return __atomic_load_n(&w->dio, __ATOMIC_RELAXED);
}
