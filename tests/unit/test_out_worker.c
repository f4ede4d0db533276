// SPDX-License-Identifier: GPL-2.0-only
/* The writer's output thread (user/format/out_worker.c): every buffer handed
 * over is written, in order, by the time the next hand-over returns (which
 * waits for it), and a flush returns with everything in the file.  A lost
 * wakeup (the output thread not woken for a hand-over, or the writer not
 * woken when it is done) leaves a wait that never ends: the timeout makes
 * that a failure.  Nothing here depends on how long anything takes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "format/out_worker.h"

#define HANDOVERS 20000u
#define FILE_CAP (HANDOVERS * 512u + 4096u)

/* The file the sink writes: memory, its bytes and jobs counted.  Written on
 * the output thread, read by the test only after a flush returned (which
 * took the worker's mutex after the sink ran). */
struct mem_file {
	uint8_t *bytes;
	uint64_t len, jobs;
	uint64_t bad_base; /* jobs that did not start where the file ended */
};

static int mem_sink(void *ctx, const struct katra_outjob *job, uint64_t *file_bytes)
{
	struct mem_file *f = ctx;

	if (job->base != f->len || f->len + job->n > FILE_CAP) {
		f->bad_base++;
		return -EIO;
	}
	memcpy(f->bytes + f->len, job->buf, job->n);
	f->len += job->n;
	f->jobs++;
	*file_bytes = f->len;
	return 0;
}

/* The byte at stream offset at. */
static uint8_t pattern(uint64_t at)
{
	return (uint8_t)(at * 131 + (at >> 9));
}

/* The offset of the file's first byte that is not the pattern's (its
 * length if none). */
static uint64_t first_wrong(const struct mem_file *f)
{
	uint64_t at = 0;

	while (at < f->len && f->bytes[at] == pattern(at))
		at++;
	return at;
}

/* Hand-over i's size: 1 to 512 bytes. */
static size_t job_size(unsigned i)
{
	return 1 + (i * 7919u) % 512u;
}

/* A worker writing to a memory file, and the buffer the caller fills. */
struct rig {
	struct mem_file f;
	struct katra_outworker *g;
	uint8_t *buf;
	uint64_t base; /* the bytes handed over so far */
};

static void rig_open(struct rig *r)
{
	uint8_t *spare = katra_iobuf_alloc();

	*r = (struct rig){ .f.bytes = malloc(FILE_CAP), .buf = katra_iobuf_alloc() };
	cr_assert(r->f.bytes && spare && r->buf);
	cr_assert_eq(katra_outworker_new(&r->g, mem_sink, &r->f, spare), 0);
}

/* The next n bytes of the pattern in the caller's buffer, as a job. */
static struct katra_outjob rig_fill(struct rig *r, size_t n)
{
	for (size_t k = 0; k < n; k++)
		r->buf[k] = pattern(r->base + k);
	return (struct katra_outjob){ .buf = r->buf, .n = n, .base = r->base };
}

/* Every job started where the file ended, every byte the pattern's, and
 * all of it there; then the worker freed. */
static void rig_close(struct rig *r)
{
	uint64_t wrong = first_wrong(&r->f);

	cr_assert_eq(r->f.bad_base, 0);
	cr_assert_eq(r->f.len, r->base);
	cr_assert_eq(wrong, r->base, "byte %llu differs", (unsigned long long)wrong);
	katra_outworker_free(r->g);
	katra_iobuf_free(r->buf);
	free(r->f.bytes);
}

Test(out_worker, every_buffer_handed_over_is_written_before_the_next_hand_over_returns,
     .timeout = 20)
{
	struct rig r;

	rig_open(&r);
	for (unsigned i = 0; i < HANDOVERS; i++) {
		struct katra_outjob job = rig_fill(&r, job_size(i));

		cr_assert_eq(katra_outworker_post(r.g, &r.buf, &job), 0, "hand-over %u", i);
		/* it waited for the one before: that one, and all before it, in
		 * the file; this one in flight, or written already */
		uint64_t in_file = katra_outworker_file_bytes(r.g);
		cr_assert(in_file == r.base || in_file == r.base + job.n,
			  "hand-over %u: %llu bytes in the file, %llu handed over before", i,
			  (unsigned long long)in_file, (unsigned long long)r.base);
		cr_assert_neq(r.buf, job.buf, "hand-over %u: the spare buffer given back", i);
		r.base += job.n;
	}
	/* a flush: everything handed over is in the file when it returns */
	cr_assert_eq(katra_outworker_wait(r.g), 0);
	cr_assert_eq(r.f.jobs, HANDOVERS);
	cr_assert_eq(r.f.len, r.base);
	/* a direct write after it: in the file when it returns */
	struct katra_outjob last = rig_fill(&r, 100);

	cr_assert_eq(katra_outworker_write(r.g, &last), 0);
	r.base += last.n;
	cr_assert_eq(r.f.jobs, HANDOVERS + 1u);
	cr_assert_eq(katra_outworker_file_bytes(r.g), r.base);
	rig_close(&r);
}

/* Hand-overs and flushes alternating (the recorder's kick every 100 ms
 * hands over a partly filled buffer; finish flushes): each flush returns
 * with every byte so far in the file. */
Test(out_worker, a_flush_after_each_hand_over_finds_it_written, .timeout = 20)
{
	struct rig r;

	rig_open(&r);
	for (unsigned i = 0; i < HANDOVERS / 4; i++) {
		struct katra_outjob job = rig_fill(&r, job_size(i));

		cr_assert_eq(katra_outworker_post(r.g, &r.buf, &job), 0, "hand-over %u", i);
		r.base += job.n;
		cr_assert_eq(katra_outworker_wait(r.g), 0, "flush %u", i);
		cr_assert_eq(r.f.jobs, i + 1u, "flush %u: %llu jobs written", i,
			     (unsigned long long)r.f.jobs);
		cr_assert_eq(r.f.len, r.base, "flush %u", i);
	}
	rig_close(&r);
}
