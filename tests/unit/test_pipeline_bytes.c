// SPDX-License-Identifier: GPL-2.0-only
/* The pipeline's shortcuts write the bytes its general path writes: a
 * seeded mix of wire records (combined, flushed and orphan syscalls with and
 * without a file, switches, wakeups, forks of new threads and processes,
 * counters and epochs between them, a capture start and end that cut
 * through it, a reorder budget small enough to force early releases) goes
 * through the pipeline twice, once with every combined syscall's End sent
 * back through the merge (generic_order), once as the recorder runs; the
 * two traces must be equal byte for byte. */
#include <sys/syscall.h>

#include "pipeline_test_util.h"

#define MIX_START 1000000ull

struct mix {
	uint32_t seed;
	unsigned nrings;
	size_t max_items; /* 0: no budget */
	bool cut;         /* a start after the first records and an end before the last */
};

static uint32_t mix_rand(uint32_t *s, uint32_t n)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) % n;
}

/* How a flushed syscall's End is sent: 0 a whole katra_ev_syscall, 1 a
 * katra_ev_syscall_end, 2 that in a staging batch. */
static int mix_end_as;

/* How a combined pread64 is sent: 0 a whole katra_ev_syscall, 1 a
 * katra_ev_syscall_mid, 2 that in a staging batch. */
static int mix_mid_as;

/* The mid-sized record the probes write for sc (wire.h): no fifth or sixth
 * argument, no aux, the exit time in the head. */
static struct katra_ev_syscall_mid mix_mid(const struct katra_ev_syscall *sc)
{
	struct katra_ev_syscall_mid m = { .head = sc->head, .enter_ts = sc->enter_ts, .ret = sc->ret,
					  .nr = sc->nr, .flags = sc->flags, .dev = sc->dev,
					  .ino = sc->ino };

	m.head.type = KATRA_EV_SYSCALL_MID;
	memcpy(m.args, sc->args, sizeof(m.args));
	return m;
}

/* sc as mix_mid_as says (a combined call never left the CPU, its exit
 * time the head's). */
static void mix_send_combined(struct pipeline *pl, const struct katra_ev_syscall *sc)
{
	struct {
		struct katra_ev_batch b;
		struct katra_ev_syscall_mid m;
	} batch = { .b.head = { KATRA_EV_BATCH, sc->head.cpu, 0, 0, sc->enter_ts },
		    .b.bytes = sizeof(struct katra_ev_syscall_mid), .b.events = 2 };

	if (mix_mid_as == 0 || sc->exit_ts != sc->head.ts) {
		pipeline_on_record(pl, (void *)sc, sizeof(*sc));
		return;
	}
	batch.m = mix_mid(sc);
	if (mix_mid_as == 1)
		pipeline_on_record(pl, &batch.m, sizeof(batch.m));
	else
		pipeline_on_record(pl, &batch, sizeof(batch));
}

/* Whether the mix has io_uring_enter calls with their submissions and
 * completions (and at times a wakeup) written before their combined record,
 * as the probes write them. */
static bool mix_uring;

/* How an io_uring_enter's combined record is sent: 0 after the records
 * made inside the call, each on its own; 1 as the probes stage it, in a
 * batch before them, in the place the enter took; 2 that place left a hole
 * (its batch went out before the call returned), the record after them. */
static int mix_uring_as;

/* Records back to back in one staging batch (wire.h), as the probes send
 * them: n records of sizes[i] at recs[i]. */
static void mix_batch(struct pipeline *pl, unsigned ring, uint64_t key, const void *const *recs,
		      const size_t *sizes, unsigned n, uint32_t events)
{
	uint8_t buf[1024];
	struct katra_ev_batch *b = (void *)buf;
	size_t off = sizeof(*b);

	*b = (struct katra_ev_batch){ .head = { KATRA_EV_BATCH, ring, 0, 0, key }, .events = events };
	for (unsigned i = 0; i < n; i++) {
		memcpy(buf + off, recs[i], sizes[i]);
		off += sizes[i];
	}
	b->bytes = (uint32_t)(off - sizeof(*b));
	pipeline_on_record(pl, buf, off);
}

/* The combined record of an io_uring_enter of tid (one read submitted and
 * waited for). */
static struct katra_ev_syscall mix_enter_record(unsigned ring, uint32_t tgid, uint32_t tid,
						uint64_t enter, uint64_t now)
{
	struct katra_ev_syscall sc = { .head = { KATRA_EV_SYSCALL, ring, tgid, tid, now },
				       .nr = SYS_io_uring_enter };

	sc.flags = KATRA_SC_ENTER | KATRA_SC_EXIT;
	sc.enter_ts = enter;
	sc.exit_ts = now;
	sc.ret = 1;
	sc.args[0] = 4;
	sc.args[1] = 1;
	sc.args[2] = 1;
	sc.args[3] = 1; /* IORING_ENTER_GETEVENTS */
	return sc;
}

/* The call of mix_uring_enter() as the probes stage it (mix_uring_as 1
 * or 2): the same records, the same draws. */
static void mix_uring_staged(struct pipeline *pl, uint32_t *s, unsigned ring, uint32_t tgid,
			     uint32_t tid, uint64_t now, uint64_t enter,
			     const struct katra_ev_uring_submit *sq, uint64_t t2)
{
	struct katra_ev_waking wk = { .head = sq->head, .target_tgid = tgid };
	struct katra_ev_uring_complete cq = { .ctx = sq->ctx, .req = sq->req, .owner_tgid = tgid };
	struct katra_ev_syscall sc;
	struct katra_ev_syscall_mid placed;
	const void *recs[4];
	size_t sizes[4];
	unsigned n = 0;
	bool woke = mix_rand(s, 4) == 0;

	if (woke) {
		wk.head.type = KATRA_EV_WAKING;
		wk.head.ts = sq->head.ts + 1;
		wk.target_tid = 1 + mix_rand(s, 6);
		wk.target_cpu = ring;
		t2 = t2 > sq->head.ts + 1 ? t2 : sq->head.ts + 1;
	}
	cq.head = (struct katra_wire_head){ KATRA_EV_URING_COMPLETE, ring, tgid, tid, t2 };
	cq.user_data = sq->user_data;
	cq.res = 1;
	sc = mix_enter_record(ring, tgid, tid, enter, now);
	placed = mix_mid(&sc);
	struct katra_ev_syscall_mid hole = { .head = { KATRA_EV_HOLE, ring, tgid, tid, enter } };
	recs[n] = mix_uring_as == 1 ? &placed : &hole;
	sizes[n++] = sizeof(placed);
	recs[n] = sq;
	sizes[n++] = sizeof(*sq);
	if (woke) {
		recs[n] = &wk;
		sizes[n++] = sizeof(wk);
	}
	recs[n] = &cq;
	sizes[n++] = sizeof(cq);
	mix_batch(pl, ring, enter, recs, sizes, n, n + (mix_uring_as == 1 ? 1 : -1));
	if (mix_uring_as == 2)
		pipeline_on_record(pl, &placed, sizeof(placed));
}

/* One io_uring_enter of tid on ring, returning at now: a submission, a
 * completion (at times at an equal key, or at the exit's own time), at
 * times a wakeup between them, then the combined record. */
static void mix_uring_enter(struct pipeline *pl, uint32_t *s, unsigned ring, uint32_t tid,
			    uint32_t tgid, uint64_t now)
{
	uint64_t enter = now - 60 - mix_rand(s, 200), t1 = enter + 1 + mix_rand(s, 20);
	uint64_t t2 = mix_rand(s, 8) ? t1 + mix_rand(s, 3) : now;
	uint64_t req = 0xffff888000100000ull + mix_rand(s, 4) * 0x100;
	struct katra_wire_head head = { KATRA_EV_URING_SUBMIT, ring, tgid, tid, t1 };
	struct katra_ev_uring_submit sq = { .head = head, .ctx = 0xffff888000200000ull, .req = req };
	struct katra_ev_uring_complete cq = { .ctx = sq.ctx, .req = req, .owner_tgid = tgid };
	struct katra_ev_syscall sc;

	sq.user_data = mix_rand(s, 1000);
	sq.opcode = 22; /* IORING_OP_READ */
	if (mix_uring_as) {
		mix_uring_staged(pl, s, ring, tgid, tid, now, enter, &sq, t2);
		return;
	}
	pipeline_on_record(pl, &sq, sizeof(sq));
	if (mix_rand(s, 4) == 0) { /* tid wakes another inside the call */
		struct katra_ev_waking wk = { .head = head, .target_tgid = tgid };
		wk.head.type = KATRA_EV_WAKING;
		wk.head.ts = t1 + 1;
		wk.target_tid = 1 + mix_rand(s, 6);
		wk.target_cpu = ring;
		pipeline_on_record(pl, &wk, sizeof(wk));
		t2 = t2 > t1 + 1 ? t2 : t1 + 1;
	}
	cq.head = (struct katra_wire_head){ KATRA_EV_URING_COMPLETE, ring, tgid, tid, t2 };
	cq.user_data = sq.user_data;
	cq.res = 1;
	pipeline_on_record(pl, &cq, sizeof(cq));
	sc = mix_enter_record(ring, tgid, tid, enter, now);
	pipeline_on_record(pl, &sc, sizeof(sc));
}

/* Whether the mix has new threads and processes: now and then one of a
 * ring's two threads forks a tracked child (a thread of its process, or a
 * process of its own), which then runs on that ring beside them until the
 * ring's next fork, where it exits (its TaskExit, its final switch-out).
 * The child's first event that takes a cause carries its fork
 * (TH_FIRST_CAUSE); half the children first wake their parent (a Wakeup
 * takes none), so that the first is then a Begin of a thread already on the
 * CPU and among the last two the emitter looked up: the shortcuts' case. */
static bool mix_forks;
#define MIX_CHILD0 1000u   /* the children's thread ids, in order */
#define MIX_CHILDREN 4096u
static uint32_t mix_nchildren, mix_child_tgid[MIX_CHILDREN];
/* by ring: its child (0: none), the child's parent, and how many of the
 * child's first records are still to come before the ring's others */
static uint32_t mix_child[16], mix_parent[16], mix_fresh[16];
/* separate Begin records the last run_mix() sent (a flushed futex's) */
static uint64_t mix_begins_sent;

static uint32_t mix_tgid(uint32_t tid)
{
	if (tid >= MIX_CHILD0 && tid - MIX_CHILD0 < mix_nchildren)
		return mix_child_tgid[tid - MIX_CHILD0];
	return 100 + tid % 3;
}

/* The thread of ring's next record: one of its two, or its child. */
static uint32_t mix_tid(uint32_t *s, unsigned ring)
{
	uint32_t tid = 1 + ring * 2 + mix_rand(s, 2);

	if (!mix_forks || !mix_child[ring])
		return tid;
	return mix_fresh[ring] || mix_rand(s, 3) == 0 ? mix_child[ring] : tid;
}

/* With mix_forks, tid's record at now when it is a fork (the ring's child
 * before it exiting first) or a new child's wakeup of its parent: true
 * when one was sent. */
static bool mix_fork_record(struct pipeline *pl, uint32_t *s, unsigned ring, uint32_t tid,
			    uint32_t tgid, uint64_t now)
{
	uint32_t old = mix_child[ring];

	if (tid == old && mix_fresh[ring] && mix_fresh[ring]-- == 2 && mix_rand(s, 2)) {
		struct katra_ev_waking wk = { .head = { KATRA_EV_WAKING, ring, tgid, tid, now },
					      .target_tgid = mix_tgid(mix_parent[ring]),
					      .target_tid = mix_parent[ring], .target_cpu = ring };
		pipeline_on_record(pl, &wk, sizeof(wk));
		return true;
	}
	if (tid == old || mix_nchildren == MIX_CHILDREN || mix_rand(s, 12))
		return false;
	if (old) { /* the last child exits and leaves the CPU for good */
		uint32_t otgid = mix_tgid(old);
		struct katra_ev_exit x = { .head = { KATRA_EV_EXIT, ring, otgid, old, now },
					   .flags = otgid == old ? KATRA_EXIT_GROUP_DEAD : 0 };
		struct katra_ev_switch sw = { .head = { KATRA_EV_SWITCH, ring, otgid, old, now },
					      .prev_state = 0x80, /* TASK_DEAD */
					      .flags = KATRA_SW_PREV_TRACKED };
		pipeline_on_record(pl, &x, sizeof(x));
		pipeline_on_record(pl, &sw, sizeof(sw));
	}
	uint32_t child = MIX_CHILD0 + mix_nchildren;
	bool thread = mix_rand(s, 2);
	struct katra_ev_fork f = { .head = { KATRA_EV_FORK, ring, tgid, tid, now },
				   .child_tgid = thread ? tgid : child, .child_tid = child,
				   .flags = KATRA_FORK_TRACKED | (thread ? KATRA_FORK_THREAD : 0) };

	memcpy(f.comm, "mixer", 6);
	mix_child_tgid[mix_nchildren++] = f.child_tgid;
	mix_child[ring] = child;
	mix_parent[ring] = tid;
	mix_fresh[ring] = 2;
	pipeline_on_record(pl, &f, sizeof(f));
	return true;
}

/* Whether the mix has scheduler and page-fault records of every shape (a
 * switch between two traced threads, to and from an untraced one, blocked
 * or preempted; wakeups by a traced thread, an untraced one, an interrupt;
 * measured faults, a Begin or an End alone, instants), and whether the
 * emitter writes those through its general builders (generic_events). */
static bool mix_sched, mix_generic_events;

/* One scheduler or page-fault record of tid on ring at now. */
static void mix_sched_record(struct pipeline *pl, uint32_t *s, unsigned ring, uint32_t tid,
			     uint32_t tgid, uint64_t now)
{
	/* the ring's other thread (a child's: its parent) */
	uint32_t other = tid >= MIX_CHILD0 ? mix_parent[ring] : tid & 1 ? tid + 1 : tid - 1;
	struct katra_wire_head head = { KATRA_EV_SWITCH, ring, tgid, tid, now };

	switch (mix_rand(s, 4)) {
	case 0: { /* tid leaves the CPU: to the other, or to an untraced task */
		struct katra_ev_switch sw = { .head = head, .next_tgid = mix_tgid(other) };
		unsigned how = mix_rand(s, 8);

		sw.next_tid = how < 5 ? other : 900;
		sw.prev_state = how % 4 ? 1 : how % 8 ? 2 : 0;
		sw.flags = KATRA_SW_PREV_TRACKED | (how < 5 ? KATRA_SW_NEXT_TRACKED : 0) |
			   (how == 3 ? KATRA_SW_PREEMPT : 0);
		pipeline_on_record(pl, &sw, sizeof(sw));
		break;
	}
	case 1: { /* an untraced task leaves the CPU to tid */
		struct katra_ev_switch sw = { .head = head, .next_tgid = tgid, .next_tid = tid };

		sw.head.tgid = sw.head.tid = 0;
		sw.flags = KATRA_SW_NEXT_TRACKED;
		pipeline_on_record(pl, &sw, sizeof(sw));
		break;
	}
	case 2: { /* tid (else an untraced task or an interrupt) wakes the other */
		struct katra_ev_waking wk = { .head = head, .target_tgid = mix_tgid(other) };
		unsigned who = mix_rand(s, 6);

		wk.head.type = KATRA_EV_WAKING;
		wk.target_tid = other;
		wk.target_cpu = mix_rand(s, 3);
		if (who >= 4) {
			wk.head.tgid = wk.head.tid = 0;
			wk.flags = who == 5 ? KATRA_WK_INTERRUPT : 0;
			wk.out_tgid = wk.out_tid = 77;
			memcpy(wk.out_comm, "kworker/0:1", 12);
		}
		pipeline_on_record(pl, &wk, sizeof(wk));
		break;
	}
	default: { /* a page fault: measured, its Begin or End alone, an instant */
		struct katra_ev_page_fault pf = { .head = head, .error_code = mix_rand(s, 32) };
		unsigned how = mix_rand(s, 8);

		pf.head.type = KATRA_EV_PAGE_FAULT;
		pf.address = 0x7f0000000000ull + ((uint64_t)mix_rand(s, 1 << 20) << 12);
		pf.ip = 0x401000 + mix_rand(s, 4096);
		pf.enter_ts = now - 1 - mix_rand(s, 300);
		pf.flags = how < 5 ? KATRA_PF_MEASURED : how == 5 ? KATRA_PF_BEGIN
						 : how == 6 ? KATRA_PF_END : 0;
		if (how == 5)
			pf.head.ts = pf.enter_ts;
		pipeline_on_record(pl, &pf, sizeof(pf));
		break;
	}
	}
}

/* One ring record of tid on ring, happening at now (its exit). */
static void mix_record(struct pipeline *pl, uint32_t *s, unsigned ring, uint32_t tid,
		       uint64_t now)
{
	uint32_t tgid = mix_tgid(tid);
	/* mostly shorter than the gap to the next record, some much longer */
	uint64_t enter = now - (mix_rand(s, 4) ? mix_rand(s, 200) : mix_rand(s, 3000));
	struct katra_wire_head head = { KATRA_EV_SYSCALL, ring, tgid, tid, now };

	if (mix_forks && mix_fork_record(pl, s, ring, tid, tgid, now))
		return;
	if (mix_uring && mix_rand(s, 3) == 0) {
		mix_uring_enter(pl, s, ring, tid, tgid, now);
		return;
	}
	if (mix_sched && mix_rand(s, 3)) {
		mix_sched_record(pl, s, ring, tid, tgid, now);
		return;
	}
	switch (mix_rand(s, 8)) {
	case 0: case 1: { /* a combined pread64 of one of a few files */
		struct katra_ev_syscall sc = { .head = head, .nr = SYS_pread64 };
		sc.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FILE;
		sc.enter_ts = enter;
		sc.exit_ts = now;
		sc.ret = mix_rand(s, 4096);
		sc.dev = (8u << 20) | 1;
		sc.ino = 12 + mix_rand(s, 3);
		sc.args[0] = 3;
		sc.args[2] = 4096;
		sc.args[3] = mix_rand(s, 1 << 20);
		if (mix_rand(s, 4) == 0) /* a pipe */
			sc.flags |= KATRA_SC_PIPE;
		if (mix_rand(s, 40) == 0) /* malformed: it returns before the capture began */
			sc.exit_ts = MIX_START;
		mix_send_combined(pl, &sc);
		break;
	}
	case 2: case 3: { /* a combined getppid */
		struct katra_ev_syscall_short gp = { .nr = SYS_getppid, .ret = tgid };
		gp.head = head;
		gp.head.type = KATRA_EV_SYSCALL_SHORT;
		gp.enter_ts = enter;
		gp.flags = KATRA_SC_ENTER | KATRA_SC_EXIT;
		pipeline_on_record(pl, &gp, sizeof(gp));
		break;
	}
	case 4: { /* a futex flushed at its enter, its exit later in the same record stream */
		struct katra_ev_syscall sc = { .head = head, .nr = SYS_futex };
		sc.head.ts = enter;
		sc.enter_ts = enter;
		sc.flags = KATRA_SC_ENTER;
		sc.args[0] = 0x7f0000001000ull + mix_rand(s, 64) * 4;
		pipeline_on_record(pl, &sc, sizeof(sc));
		mix_begins_sent++;
		sc.head.ts = now;
		sc.exit_ts = now;
		sc.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FLUSHED;
		sc.ret = -(int64_t)mix_rand(s, 2) * 11;
		if (mix_end_as == 0) {
			pipeline_on_record(pl, &sc, sizeof(sc));
			break;
		}
		/* as the probes write it: the End's 72 bytes, alone or staged */
		struct {
			struct katra_ev_batch b;
			struct katra_ev_syscall_end en;
		} batch = { .b.head = { KATRA_EV_BATCH, ring, 0, 0, now },
			    .b.bytes = sizeof(struct katra_ev_syscall_end), .b.events = 1 };
		memcpy(&batch.en, &sc, sizeof(batch.en));
		batch.en.head.type = KATRA_EV_SYSCALL_END;
		if (mix_end_as == 1)
			pipeline_on_record(pl, &batch.en, sizeof(batch.en));
		else
			pipeline_on_record(pl, &batch, sizeof(batch));
		break;
	}
	case 5: { /* a switch out of tid */
		struct katra_ev_switch sw = { .head = head, .next_tgid = 0, .next_tid = 0 };
		sw.head.type = KATRA_EV_SWITCH;
		sw.prev_state = mix_rand(s, 2);
		pipeline_on_record(pl, &sw, sizeof(sw));
		break;
	}
	case 6: { /* tid wakes another */
		struct katra_ev_waking wk = { .head = head, .target_tgid = tgid };
		wk.head.type = KATRA_EV_WAKING;
		wk.target_tid = 1 + mix_rand(s, 6);
		wk.target_cpu = ring;
		pipeline_on_record(pl, &wk, sizeof(wk));
		break;
	}
	default: { /* a return whose enter was not seen */
		struct katra_ev_syscall sc = { .head = head, .nr = SYS_read };
		sc.flags = KATRA_SC_EXIT | KATRA_SC_NO_ENTER;
		sc.exit_ts = now;
		sc.ret = -4;
		pipeline_on_record(pl, &sc, sizeof(sc));
		break;
	}
	}
}

/* io_uring items the last run_mix() wrote between a Begin and its End,
 * and the Begins it wrote in a run with their End behind another ring's head */
static uint64_t mix_uring_in_pair, mix_apart;
/* the last run_mix()'s events by kind */
static uint64_t mix_by_kind[KATRA_KIND_COUNT];

/* Whether each ring is one thread looping on combined syscalls (pread64 and
 * getppid) from the drain period's start, back to back: the rings' calls
 * overlap in time (two threads on two CPUs), on a 10 ns grid, so that Begins
 * and Ends of different rings often fall on one key. */
static bool mix_overlap;

/* mix_overlap's drain period of ring from `from`: n calls; the time it ends. */
static uint64_t mix_thread_loop(struct pipeline *pl, uint32_t *s, unsigned ring, uint64_t from,
				unsigned n)
{
	uint32_t tid = 1 + ring * 2, tgid = 100 + tid % 3;
	uint64_t t = from;

	for (unsigned i = 0; i < n; i++) {
		uint64_t enter = t + 10 * mix_rand(s, 4), exit = enter + 10 * (1 + mix_rand(s, 40));
		struct katra_wire_head head = { KATRA_EV_SYSCALL, ring, tgid, tid, exit };

		if (mix_rand(s, 2)) {
			struct katra_ev_syscall sc = { .head = head, .nr = SYS_pread64 };
			sc.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FILE;
			sc.enter_ts = enter;
			sc.exit_ts = exit;
			sc.ret = mix_rand(s, 4096);
			sc.dev = (8u << 20) | 1;
			sc.ino = 12 + ring;
			sc.args[0] = 3;
			sc.args[2] = 4096;
			mix_send_combined(pl, &sc);
		} else {
			struct katra_ev_syscall_short gp = { .nr = SYS_getppid, .ret = tgid };
			gp.head = head;
			gp.head.type = KATRA_EV_SYSCALL_SHORT;
			gp.enter_ts = enter;
			gp.flags = KATRA_SC_ENTER | KATRA_SC_EXIT;
			pipeline_on_record(pl, &gp, sizeof(gp));
		}
		t = exit;
	}
	return t;
}

/* The mix through a pipeline into path; how many Ends were written in place. */
static uint64_t run_mix(const struct mix *m, const char *path, bool generic_order)
{
	struct katra_writer *w;
	struct pipeline pl;
	struct pipeline_config pc = {
		.nrings = m->nrings, .fifo_items = 16, .max_items = m->max_items,
		.start_mono = MIX_START + (m->cut ? 20000 : 0), .start_wall = 1700000000000000000ull,
		.limits = { 64, 16, 16 },
	};
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_drop_count drops[8];
	struct katra_summary sum;
	uint64_t ring_drops[16] = { 0 }, now = MIX_START, end = 0;
	uint32_t s = m->seed;

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), KATRA_WRITER_OVERWRITE), 0);
	cr_assert_eq(pipeline_init(&pl, w, &pc), 0);
	pl.generic_order = generic_order;
	pl.em.generic_events = mix_generic_events;
	mix_nchildren = 0;
	mix_begins_sent = 0;
	memset(mix_child, 0, sizeof(mix_child));
	memset(mix_fresh, 0, sizeof(mix_fresh));
	for (int drain = 0; drain < 40; drain++) {
		/* a drain period: each ring's records in its own time order, one
		 * ring after the other, as the capture loop reads them */
		uint64_t from = now;
		for (unsigned ring = 0; mix_overlap && ring < m->nrings; ring++) {
			uint64_t t = mix_thread_loop(&pl, &s, ring, from, mix_rand(&s, 60));
			now = t > now ? t : now;
		}
		for (unsigned ring = 0; !mix_overlap && ring < m->nrings; ring++) {
			uint64_t t = from;
			unsigned n = mix_rand(&s, 40);
			for (unsigned i = 0; i < n; i++) {
				t += 1 + mix_rand(&s, 700);
				mix_record(&pl, &s, ring, mix_tid(&s, ring), t);
			}
			if (t > now)
				now = t;
		}
		/* Katra records between them, some at the same key as an item */
		if (mix_rand(&s, 3) == 0)
			pipeline_queue_counter(&pl, from + mix_rand(&s, (uint32_t)(now - from + 1)),
					       KATRA_COUNTER_EVENTS_RECORDED, 0, 0);
		if (mix_rand(&s, 5) == 0)
			pipeline_queue_epoch(&pl, from + mix_rand(&s, (uint32_t)(now - from + 1)),
					     KATRA_EPOCH_USER, "mark");
		if (m->cut && drain == 35)
			pipeline_end_at(&pl, end = now - 5000);
		cr_assert_eq(pipeline_emit_until(&pl, now - mix_rand(&s, 8000)), 0);
	}
	cr_assert_eq(pipeline_finish(&pl, end ? end : now, ring_drops, NULL, &sum, kinds, drops, 8),
		     0);
	cr_assert_eq(katra_writer_finish(w, &sum), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	uint64_t in_place = pl.ends_in_place;
	mix_uring_in_pair = pl.uring_in_pair;
	memcpy(mix_by_kind, pl.em.st.by_kind, sizeof(mix_by_kind));
	mix_apart = pl.begins_apart;
	pipeline_free(&pl);
	return in_place;
}

/* What a trace holds that the mix is meant to make: its TaskForks, the
 * syscall Begins caused by one (a new thread's first caused event), those
 * of them right after a wakeup their thread made, and the futex Begins (the
 * mix sends a futex only as a separate Begin record, flushed at its enter,
 * and its End apart: PEND_SYSCALL_BEGIN, through emit_by_kind). */
struct mix_scan {
	uint64_t forks, fork_begins, fork_begins_after_wake, futex_begins;
};

static void mix_scan_trace(const char *path, struct mix_scan *out)
{
	static uint64_t fork_seq[MIX_CHILDREN];
	static uint8_t last_kind[MIX_CHILD0 + MIX_CHILDREN];
	struct katra_reader *r;
	struct katra_record rec;
	size_t nforks = 0;
	char msg[256];

	memset(last_kind, 0xff, sizeof(last_kind));
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD) {
		if (rec.type != KATRA_RECORD_EVENT)
			continue;
		const struct katra_event *ev = &rec.u.event;
		bool by_fork = false;

		for (uint64_t i = 0; i < ev->causes.len; i++)
			for (size_t f = 0; f < nforks && !by_fork; f++)
				by_fork = ev->causes.items[i] == fork_seq[f];
		if (ev->kind == KATRA_KIND_TASK_FORK && nforks < MIX_CHILDREN) {
			fork_seq[nforks++] = ev->seq;
			out->forks++;
		}
		if (ev->phase == KATRA_PHASE_BEGIN && ev->kind <= KATRA_KIND_CLONE) {
			out->futex_begins += ev->kind == KATRA_KIND_FUTEX;
			out->fork_begins += by_fork;
			out->fork_begins_after_wake +=
				by_fork && ev->thread_id < sizeof(last_kind) &&
				last_kind[ev->thread_id] == KATRA_KIND_WAKEUP;
		}
		if (ev->thread_id < sizeof(last_kind))
			last_kind[ev->thread_id] = (uint8_t)ev->kind;
	}
	katra_reader_close(r);
}

/* The mix through the general paths and the shortcuts: the same bytes;
 * what the shortcuts' trace holds added to *scan (unless NULL). */
static void assert_same_bytes_scan(const struct mix *m, struct mix_scan *scan)
{
	char dir[64], general[128], shortcut[128];
	size_t na, nb;

	temp_dir(dir, sizeof(dir));
	snprintf(general, sizeof(general), "%s/general.ktrc", dir);
	snprintf(shortcut, sizeof(shortcut), "%s/shortcut.ktrc", dir);
	bool generic = mix_generic_events;

	mix_generic_events = true; /* a syscall's End through emit_syscall_end() */
	cr_assert_eq(run_mix(m, general, true), 0, "generic_order writes no End in place");
	mix_generic_events = generic;
	cr_assert_gt(run_mix(m, shortcut, false), 0, "seed %u: the shortcut was taken", m->seed);
	uint8_t *a = read_file(general, &na), *b = read_file(shortcut, &nb);
	size_t at = 0;
	while (at < na && at < nb && a[at] == b[at])
		at++;
	cr_assert(na == nb && at == na, "seed %u, %u rings: the traces differ at byte %zu "
		  "(%zu and %zu bytes)", m->seed, m->nrings, at, na, nb);
	if (scan)
		mix_scan_trace(shortcut, scan);
	free(a);
	free(b);
	temp_dir_remove(dir);
}

static void assert_same_bytes(const struct mix *m)
{
	assert_same_bytes_scan(m, NULL);
}

Test(pipeline_bytes, an_end_written_in_place_is_the_one_the_merge_writes, .timeout = 30)
{
	struct mix_scan scan = { 0 };
	uint64_t sent = 0;

	for (uint32_t seed = 1; seed <= 6; seed++) {
		assert_same_bytes_scan(&(struct mix){ seed, 1, 0, false }, &scan);
		sent += mix_begins_sent;
		assert_same_bytes_scan(&(struct mix){ seed, 3, 0, true }, &scan);
		sent += mix_begins_sent;
		assert_same_bytes_scan(&(struct mix){ seed, 8, 0, false }, &scan);
		sent += mix_begins_sent;
	}
	/* blocking calls' Begins as records of their own, written through the
	 * dispatch (emit_syscall_begin_common) and compared above: many (some
	 * come after their thread's later events and are dropped as late) */
	cr_assert_gt(scan.futex_begins, 4000, "separate Begins written: %llu of %llu sent",
		     (unsigned long long)scan.futex_begins, (unsigned long long)sent);
	cr_assert_leq(scan.futex_begins, sent);
}

/* New threads and processes (mix_forks): each child's first event that
 * takes a cause carries its fork, a syscall's Begin among them, often of a
 * thread the emitter knows already (it woke its parent first): the
 * shortcuts write what the general builders write, byte for byte, with
 * io_uring calls, scheduler and fault records, early releases and a cut. */
Test(pipeline_bytes, a_new_threads_first_caused_event_is_what_the_builders_write, .timeout = 30)
{
	struct mix_scan scan = { 0 };

	mix_forks = true;
	for (uint32_t seed = 1; seed <= 6; seed++) {
		assert_same_bytes_scan(&(struct mix){ seed, 1, 0, false }, &scan);
		assert_same_bytes_scan(&(struct mix){ seed, 3, 0, true }, &scan);
		assert_same_bytes_scan(&(struct mix){ seed, 8, 0, false }, &scan);
		mix_uring = true;
		assert_same_bytes_scan(&(struct mix){ seed, 4, 160, seed & 1 }, &scan);
		mix_uring = false;
		mix_sched = true;
		assert_same_bytes_scan(&(struct mix){ seed, 4, 0, seed & 1 }, &scan);
		mix_sched = false;
	}
	mix_forks = false;
	cr_assert_gt(scan.forks, 2000, "forks: %llu", (unsigned long long)scan.forks);
	cr_assert_gt(scan.fork_begins, 1000, "Begins caused by a fork: %llu",
		     (unsigned long long)scan.fork_begins);
	cr_assert_gt(scan.fork_begins_after_wake, 500, "of them after a wakeup: %llu",
		     (unsigned long long)scan.fork_begins_after_wake);
}

/* io_uring_enter's End comes after the submissions and completions made
 * inside it, which come before it in their ring: written with them in one
 * run (emit_pair_around_uring), it is the End the merge writes. */
Test(pipeline_bytes, an_io_uring_enter_around_its_requests_is_what_the_merge_writes, .timeout = 30)
{
	uint64_t inside = 0;

	mix_uring = true;
	for (uint32_t seed = 1; seed <= 6; seed++) {
		assert_same_bytes(&(struct mix){ seed, 1, 0, false });
		inside += mix_uring_in_pair;
		assert_same_bytes(&(struct mix){ seed, 3, 0, true });
		assert_same_bytes(&(struct mix){ seed, 4, 160, seed & 1 });
	}
	mix_uring = false;
	cr_assert_gt(inside, 0, "io_uring items were written inside their call");
}

/* Two threads on two CPUs whose syscalls overlap (and more rings so): a
 * Begin written in a run with its End behind the other ring's head, the End
 * left in its FIFO (also across a watermark step: the limits fall between
 * Begins and Ends), ties between the rings' keys, a capture's start and end
 * that cut calls, a reorder budget that forces early releases: the bytes
 * the merge writes item by item. */
Test(pipeline_bytes, overlapping_threads_begins_apart_from_their_ends_write_the_same, .timeout = 30)
{
	uint64_t apart = 0;

	mix_overlap = true;
	for (uint32_t seed = 1; seed <= 6; seed++) {
		assert_same_bytes(&(struct mix){ seed, 2, 0, false });
		apart += mix_apart;
		assert_same_bytes(&(struct mix){ seed, 2, 0, true });
		assert_same_bytes(&(struct mix){ seed, 3, 0, seed & 1 });
		assert_same_bytes(&(struct mix){ seed, 2, 40, seed & 1 });
	}
	mix_overlap = false;
	cr_assert_gt(apart, 1000, "Begins were written apart from their Ends: %lu",
		     (unsigned long)apart);
}

Test(pipeline_bytes, and_so_is_one_after_an_early_release, .timeout = 30)
{
	for (uint32_t seed = 1; seed <= 4; seed++)
		assert_same_bytes(&(struct mix){ seed, 4, 160, seed & 1 });
}

/* The mix with *as at 0 and at 1 and 2 (how some record is sent): the
 * same trace each time, byte for byte. */
static void assert_sent_alike(int *as, const char *what)
{
	for (uint32_t seed = 1; seed <= 4; seed++) {
		char dir[64], first[128], other[128];
		size_t na, nb;

		temp_dir(dir, sizeof(dir));
		snprintf(first, sizeof(first), "%s/first.ktrc", dir);
		snprintf(other, sizeof(other), "%s/other.ktrc", dir);
		for (int way = 1; way <= 2; way++) {
			*as = 0;
			run_mix(&(struct mix){ seed, 3, 0, seed & 1 }, first, false);
			*as = way;
			run_mix(&(struct mix){ seed, 3, 0, seed & 1 }, other, false);
			*as = 0;
			uint8_t *a = read_file(first, &na), *b = read_file(other, &nb);
			cr_assert(na == nb && !memcmp(a, b, na),
				  "seed %u, %s sent as %d: the traces differ (%zu and %zu bytes)",
				  seed, what, way, na, nb);
			free(a);
			free(b);
		}
		temp_dir_remove(dir);
	}
}

/* A blocking syscall's End as the probes write it since 2026-12-02 (72
 * bytes, KATRA_EV_SYSCALL_END, wire.h), directly or in a batch: the trace
 * is the one the whole 128-byte record gave. */
Test(pipeline_bytes, a_short_end_writes_what_the_whole_record_wrote, .timeout = 30)
{
	assert_sent_alike(&mix_end_as, "End");
}

/* A combined call whose decoder reads four arguments at most as the probes
 * write it (96 bytes, KATRA_EV_SYSCALL_MID, wire.h), directly or in a
 * batch: the trace is the one the whole 128-byte record gave. */
Test(pipeline_bytes, a_mid_record_writes_what_the_whole_record_wrote, .timeout = 30)
{
	assert_sent_alike(&mix_mid_as, "combined pread64");
	mix_overlap = true;
	assert_sent_alike(&mix_mid_as, "combined pread64 (overlapping threads)");
	mix_overlap = false;
}

/* io_uring_enter's combined record staged before the records made inside
 * the call, in the place its first submission took (or that place left a
 * hole, the record sent after them): the trace is the one the record after
 * them gave. */
Test(pipeline_bytes, an_io_uring_enter_placed_before_its_requests_writes_the_same, .timeout = 30)
{
	mix_uring = true;
	assert_sent_alike(&mix_uring_as, "io_uring_enter");
	mix_uring = false;
}

/* Switches, wakeups and page faults of every shape: those queued inline
 * (queue_sched.h) and written as scalars by the emitter
 * (katra_writer_append_switch, _wakeup, _fault) are what on_record_any()
 * and the emitter's general builders write, byte for byte. */
Test(pipeline_bytes, sched_and_fault_events_as_scalars_are_what_the_builders_write, .timeout = 30)
{
	uint64_t kinds[3] = { 0 };

	mix_sched = true;
	for (uint32_t seed = 1; seed <= 6; seed++)
		for (unsigned shape = 0; shape < 3; shape++) {
			const struct mix m = { seed, shape ? 4 * shape : 1, shape == 2 ? 160 : 0,
					       shape == 1 };
			char dir[64], general[128], scalar[128];
			size_t na, nb;

			temp_dir(dir, sizeof(dir));
			snprintf(general, sizeof(general), "%s/general.ktrc", dir);
			snprintf(scalar, sizeof(scalar), "%s/scalar.ktrc", dir);
			mix_generic_events = true; /* and each record through on_record_any */
			run_mix(&m, general, true);
			mix_generic_events = false;
			run_mix(&m, scalar, false);
			kinds[0] += mix_by_kind[KATRA_KIND_OFF_CPU];
			kinds[1] += mix_by_kind[KATRA_KIND_WAKEUP];
			kinds[2] += mix_by_kind[KATRA_KIND_PAGE_FAULT];
			uint8_t *a = read_file(general, &na), *b = read_file(scalar, &nb);
			size_t at = 0;
			while (at < na && at < nb && a[at] == b[at])
				at++;
			cr_assert(na == nb && at == na,
				  "seed %u, %u rings: the traces differ at byte %zu (%zu and %zu "
				  "bytes)", seed, m.nrings, at, na, nb);
			free(a);
			free(b);
			temp_dir_remove(dir);
		}
	mix_sched = false;
	cr_assert_gt(kinds[0], 1000, "OffCpu events: %llu", (unsigned long long)kinds[0]);
	cr_assert_gt(kinds[1], 1000, "Wakeup events: %llu", (unsigned long long)kinds[1]);
	cr_assert_gt(kinds[2], 1000, "PageFault events: %llu", (unsigned long long)kinds[2]);
}

/* Threads that alternate (the ids counted last and before them are not
 * looked up again), a third thread between them, and a process whose
 * thread id is the one counted before last: every id counted once. */
Test(pipeline_bytes, alternating_threads_count_each_process_and_thread_once, .timeout = 30)
{
	static const uint32_t ids[][2] = { { 100, 1 }, { 100, 2 }, { 100, 1 }, { 101, 3 },
					   { 100, 2 }, { 101, 3 }, { 100, 2 }, { 102, 3 },
					   { 101, 4 }, { 102, 3 }, { 100, 1 }, { 100, 5 } };
	struct pl_trace t;
	uint64_t ts = 2000;

	pl_trace_open(&t, 1, 1000);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++, ts += 100) {
		struct katra_ev_syscall_short gp = { .nr = SYS_getppid, .ret = 1 };
		gp.head = (struct katra_wire_head){ KATRA_EV_SYSCALL_SHORT, 0, ids[i][0], ids[i][1],
						    ts + 50 };
		gp.enter_ts = ts;
		gp.flags = KATRA_SC_ENTER | KATRA_SC_EXIT;
		pipeline_on_record(&t.pl, &gp, sizeof(gp));
	}
	pl_trace_end(&t, ts);
	cr_assert_eq(t.s.event_count, 24);
	cr_assert_eq(t.s.processes_seen, 3, "processes seen: %lu", (unsigned long)t.s.processes_seen);
	cr_assert_eq(t.s.threads_seen, 5, "threads seen: %lu", (unsigned long)t.s.threads_seen);
	pl_trace_close(&t);
	temp_dir_remove(t.dir);
}

/* A pipe read whose record carries the dev and inode of the file read just
 * before (the file identity remembered): its resource is the pipe's inode,
 * the file's is the file's id, Begin and End alike. */
Test(pipeline_bytes, a_pipe_after_a_file_of_the_same_numbers_is_the_pipe, .timeout = 30)
{
	struct pl_trace t;
	struct pl_ev ev[8];
	uint64_t file_id = katra_file_id(katra_kernel_dev_to_user((8u << 20) | 1), 12);

	pl_trace_open(&t, 1, 1000);
	for (int i = 0; i < 2; i++) {
		struct katra_ev_syscall sc = { .head = { KATRA_EV_SYSCALL, 0, 100, 1, 2100 + i * 200 },
					       .nr = SYS_read };
		sc.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FILE | (i ? KATRA_SC_PIPE : 0);
		sc.enter_ts = 2000 + i * 200;
		sc.exit_ts = sc.head.ts;
		sc.dev = (8u << 20) | 1;
		sc.ino = 12;
		sc.ret = 1;
		pipeline_on_record(&t.pl, &sc, sizeof(sc));
	}
	pl_trace_finish(&t, 3000);
	cr_assert_eq(pl_read_events(t.path, ev, 8), 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(ev[i].res.domain, i < 2 ? KATRA_RES_FILE : KATRA_RES_PIPE, "event %d", i);
		cr_assert_eq(ev[i].res.id, i < 2 ? file_id : 12, "event %d", i);
	}
	temp_dir_remove(t.dir);
}
