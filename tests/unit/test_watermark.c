// SPDX-License-Identifier: GPL-2.0-only
/* A CPU's watermark (user/record/kernel/watermark.c) against a fake CPU slot
 * whose probes run between the check's reads, as they do on another CPU:
 * whatever the interleaving, no record the CPU commits after the check may
 * sort below what the check returns (the drain would release younger
 * records before it). */
#include <criterion/criterion.h>

#include "katra/wire.h"
#include "record/kernel/watermark.h"

#define MS 1000000ull
#define NOW (1000 * MS)
#define PREV (990 * MS)

struct fake_cpu {
	uint64_t busy_seq, state, enter, fault, staged;
	/* a probe's steps, each run just before the n-th read of a field */
	struct step {
		enum katra_wm_field before;
		unsigned nth; /* 1: its first read */
		void (*run)(struct fake_cpu *c);
	} steps[4];
	unsigned nsteps, reads[KATRA_WM_STAGED + 1];
	unsigned storm; /* a whole probe before each of the first `storm` state reads */
	/* the oldest key the CPU will still commit to its ring after the check */
	uint64_t to_commit;
};

static uint64_t fake_read(void *ctx, unsigned cpu, enum katra_wm_field f)
{
	struct fake_cpu *c = ctx;

	(void)cpu;
	c->reads[f]++;
	if (f == KATRA_WM_STATE && c->reads[f] <= c->storm) {
		c->busy_seq += (1ull << 32) | 1; /* a probe enters and leaves */
		c->busy_seq -= 1;
	}
	for (unsigned i = 0; i < c->nsteps; i++)
		if (c->steps[i].before == f && c->steps[i].nth == c->reads[f])
			c->steps[i].run(c);
	switch (f) {
	case KATRA_WM_BUSY_SEQ:
		return c->busy_seq;
	case KATRA_WM_STATE:
		return c->state;
	case KATRA_WM_ENTER:
		return c->enter;
	case KATRA_WM_FAULT:
		return c->fault;
	case KATRA_WM_STAGED:
		return c->staged;
	}
	return 0;
}

static uint64_t check(struct fake_cpu *c)
{
	const struct katra_wm_reader r = { fake_read, c };

	return katra_wm_of_slot(&r, 0, NOW, PREV);
}

/* katra_busy() and katra_idle() (bpf/common.bpf.h) */
static void probe_enters(struct fake_cpu *c)
{
	c->busy_seq += (1ull << 32) | 1;
}

static void probe_leaves(struct fake_cpu *c)
{
	c->busy_seq -= 1;
}

/* A thread 5 ms into a syscall on this CPU (longer than the clock margin)
 * is switched out: the switch's probe clears the slot, then stages the
 * syscall's Begin at its entry time (katra_flush_slot), the staging area
 * reaching the ring only later.  The probe starts after the check's first
 * read and ends before its last: the slot is read cleared, the staging area
 * still empty. */
static void switch_out_clears_slot(struct fake_cpu *c)
{
	probe_enters(c);
	c->state = 0;
}

static void switch_out_stages_begin(struct fake_cpu *c)
{
	c->staged = c->enter;
	c->to_commit = c->enter;
	probe_leaves(c);
}

Test(watermark, a_switch_out_between_two_reads_holds_the_staged_begin)
{
	struct fake_cpu c = {
		.state = KATRA_SLOT_ACTIVE, .enter = NOW - 5 * MS, .to_commit = NOW - 5 * MS,
		.steps = { { KATRA_WM_STATE, 1, switch_out_clears_slot },
			   { KATRA_WM_BUSY_SEQ, 2, switch_out_stages_begin } },
		.nsteps = 2,
	};
	uint64_t w = check(&c);

	cr_expect_leq(w, c.to_commit, "watermark %llu passes a Begin staged at %llu",
		      (unsigned long long)w, (unsigned long long)c.to_commit);
	cr_expect_geq(w, PREV);
}

/* katra_busy_tp() and katra_idle_tp() (bpf/common.bpf.h): a tracepoint's
 * probe, nothing preempting it, with plain loads and stores of the two
 * halves: busy + 1 at the entry; seq + 1, then busy - 1 at the exit. */
#define FAKE_BUSY(c) ((uint32_t)(c)->busy_seq)
#define FAKE_SEQ(c)  ((uint32_t)((c)->busy_seq >> 32))

static void set_halves(struct fake_cpu *c, uint32_t busy, uint32_t seq)
{
	c->busy_seq = (uint64_t)seq << 32 | busy;
}

static void tp_probe_enters(struct fake_cpu *c)
{
	set_halves(c, FAKE_BUSY(c) + 1, FAKE_SEQ(c));
}

static void tp_probe_leaves(struct fake_cpu *c)
{
	set_halves(c, FAKE_BUSY(c), FAKE_SEQ(c) + 1);
	set_halves(c, FAKE_BUSY(c) - 1, FAKE_SEQ(c));
}

/* The switch-out of a_switch_out_between_two_reads_... by such a probe,
 * with an interrupt's probe nested in its exit between the load of seq and
 * its store: the nested probe's increment is lost. */
static void tp_switch_out_clears_slot(struct fake_cpu *c)
{
	tp_probe_enters(c);
	c->state = 0;
}

static void tp_switch_out_stages_begin_nested(struct fake_cpu *c)
{
	uint32_t seq;

	c->staged = c->enter;
	c->to_commit = c->enter;
	seq = FAKE_SEQ(c); /* the exit's load */
	tp_probe_enters(c); /* the nested probe, whole */
	tp_probe_leaves(c);
	set_halves(c, FAKE_BUSY(c), seq + 1); /* the exit's store */
	set_halves(c, FAKE_BUSY(c) - 1, FAKE_SEQ(c));
}

Test(watermark, a_tracepoint_probe_losing_a_nested_seq_still_moves_seq)
{
	struct fake_cpu c = {
		.state = KATRA_SLOT_ACTIVE, .enter = NOW - 5 * MS, .to_commit = NOW - 5 * MS,
		.busy_seq = 9ull << 32,
		.steps = { { KATRA_WM_STATE, 1, tp_switch_out_clears_slot },
			   { KATRA_WM_BUSY_SEQ, 2, tp_switch_out_stages_begin_nested } },
		.nsteps = 2,
	};
	uint64_t w = check(&c);

	cr_expect_leq(w, c.to_commit, "watermark %llu passes a Begin staged at %llu",
		      (unsigned long long)w, (unsigned long long)c.to_commit);
	cr_expect_eq(FAKE_BUSY(&c), 0);
	cr_expect_eq(FAKE_SEQ(&c), 10, "one increment of the two stands: %u", FAKE_SEQ(&c));
}

/* An interrupt's probe nested in the entry, between the load of busy and
 * its store: it found busy as the outer one did and put it back, so the
 * outer store is right and the nested exit's seq stands. */
Test(watermark, a_tracepoint_probe_nested_in_an_entry_keeps_busy_right)
{
	struct fake_cpu c = { .busy_seq = 4ull << 32 };
	uint32_t busy = FAKE_BUSY(&c); /* the outer entry's load */

	tp_probe_enters(&c);
	tp_probe_leaves(&c);
	set_halves(&c, busy + 1, FAKE_SEQ(&c)); /* its store */
	cr_expect_eq(FAKE_BUSY(&c), 1);
	cr_expect_eq(FAKE_SEQ(&c), 5);
	tp_probe_leaves(&c);
	cr_expect_eq(c.busy_seq, 6ull << 32);
}

/* A page fault started 5 ms ago on this CPU; its end's probe stages the
 * measured fault at its start and clears the slot's fault time
 * (katra_emit_fault) after the staging area was read, before the fault
 * time is. */
static void fault_ends(struct fake_cpu *c)
{
	probe_enters(c);
	c->staged = c->fault;
	c->to_commit = c->fault;
	c->fault = 0;
	c->state &= ~(uint64_t)KATRA_SLOT_FAULT;
	probe_leaves(c);
}

Test(watermark, a_fault_ending_after_the_staging_read_holds_its_record)
{
	struct fake_cpu c = {
		.state = KATRA_SLOT_FAULT, .fault = NOW - 5 * MS, .to_commit = NOW - 5 * MS,
		.steps = { { KATRA_WM_FAULT, 1, fault_ends } },
		.nsteps = 1,
	};
	uint64_t w = check(&c);

	cr_expect_leq(w, c.to_commit, "watermark %llu passes a fault staged at %llu",
		      (unsigned long long)w, (unsigned long long)c.to_commit);
}

/* Nothing changes while the slot is read: the oldest of what it holds. */
Test(watermark, a_quiet_cpu_gives_the_oldest_it_holds)
{
	struct fake_cpu c = { .state = KATRA_SLOT_ACTIVE, .enter = NOW - 2 * MS,
			      .staged = NOW - 3 * MS, .busy_seq = 7ull << 32 };

	cr_expect_eq(check(&c), NOW - 3 * MS);
	c.staged = 0;
	cr_expect_eq(check(&c), NOW - 2 * MS);
	c.state = 0;
	cr_expect_eq(check(&c), NOW);
	c.fault = NOW - 1 * MS;
	cr_expect_eq(check(&c), NOW - 1 * MS);
	/* never below the previous watermark */
	c.fault = PREV - 1;
	cr_expect_eq(check(&c), PREV);
}

/* A probe inside (busy) during the whole check: nothing new is known. */
Test(watermark, a_probe_inside_keeps_the_previous_watermark)
{
	struct fake_cpu c = { .busy_seq = (3ull << 32) | 1 };

	cr_expect_eq(check(&c), PREV);
}

/* A probe runs whole between every pair of reads (a syscall storm): after
 * KATRA_WM_TRIES readings the CPU is taken as busy; none was trusted. */
static void whole_probe(struct fake_cpu *c)
{
	probe_enters(c);
	probe_leaves(c);
}

Test(watermark, a_storm_of_probes_keeps_the_previous_watermark)
{
	struct fake_cpu c = { .storm = KATRA_WM_TRIES };

	cr_expect_eq(check(&c), PREV);
	cr_expect_leq(c.reads[KATRA_WM_BUSY_SEQ], 2 * KATRA_WM_TRIES);
}

/* A probe inside across the first eight readings (a loop of syscalls keeps
 * its CPU in probes much of the time; readings back to back fall within
 * one run): it leaves before the ninth, which is trusted, the watermark
 * moving on instead of standing at the previous one. */
Test(watermark, a_probe_inside_over_several_readings_is_waited_out)
{
	struct fake_cpu c = { .busy_seq = (5ull << 32) | 1 };

	c.steps[0] = (struct step){ KATRA_WM_BUSY_SEQ, 9, probe_leaves };
	c.nsteps = 1;
	cr_expect_eq(check(&c), NOW);
}

/* One probe between the reads of the first try: the second is trusted. */
Test(watermark, a_probe_between_reads_is_read_again)
{
	struct fake_cpu c = { .state = KATRA_SLOT_ACTIVE, .enter = NOW - 2 * MS,
			      .steps = { { KATRA_WM_STATE, 1, whole_probe } }, .nsteps = 1 };

	cr_expect_eq(check(&c), NOW - 2 * MS);
	cr_expect_eq(c.reads[KATRA_WM_STATE], 2);
}
