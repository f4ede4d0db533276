// SPDX-License-Identifier: GPL-2.0-only
/* Wakeups through the wineserver (emit_winewake.c) and pending NtWriteFile
 * completions (emit_wine.c), from hand-made wire records: a waiter's select
 * request, the server's reply, a setter's request whose serving wakes the
 * waiter (its NtWait End cites the setter's WineServerCall), a timer's
 * wake-up (nobody's), and a pending write completed by the NtWait on its
 * event. */
#include <sys/syscall.h>

#include "pipeline_test_util.h"

#define START 1000000u
#define CLIENT 700
#define SERVER 900
#define WAITER 10
#define SETTER 11

/* pipes by inode: the waiter's request, reply and wait pipes, the setter's
 * request and reply pipes */
enum { W_REQ = 20, W_REPLY, W_WAIT, S_REQ, S_REPLY };

static struct pl_ev evs[128];
static size_t nevs;

static void read_events(const char *path)
{
	nevs = pl_read_events(path, evs, 128);
}

/* The n-th (0-based) event of that kind and phase on the thread. */
static const struct pl_ev *find(uint32_t kind, uint32_t phase, uint64_t tid, unsigned n)
{
	for (size_t i = 0; i < nevs; i++)
		if (evs[i].kind == kind && evs[i].phase == phase && evs[i].tid == tid && !n--)
			return &evs[i];
	cr_assert_fail("no event %u of kind %u phase %u on %llu", n, kind, phase,
		       (unsigned long long)tid);
	return NULL;
}

static bool cites(const struct pl_ev *e, uint64_t seq)
{
	for (uint64_t i = 0; i < e->ncauses; i++)
		if (e->causes[i] == seq)
			return true;
	return false;
}

static uint64_t clock_ts = 100;

/* A syscall of nr on pipe `ino` (0: no file), 10 ns long, after the last. */
static void sc(struct pipeline *pl, uint32_t tgid, uint32_t tid, uint32_t nr, uint64_t ino,
	       int64_t ret)
{
	struct katra_ev_syscall s = {
		.head = { KATRA_EV_SYSCALL, 0, tgid, tid, START + clock_ts + 10 },
		.enter_ts = START + clock_ts, .exit_ts = START + clock_ts + 10, .ret = ret,
		.nr = nr, .flags = KATRA_SC_ENTER | KATRA_SC_EXIT | (ino ? KATRA_SC_FILE : 0),
		.dev = 1, .ino = ino, .args = { 5, 0x1000, 64 },
	};

	clock_ts += 20;
	pipeline_on_record(pl, &s, sizeof(s));
}

static void uc(struct pipeline *pl, uint32_t tid, uint32_t call, uint32_t flags, uint64_t a0,
	       uint64_t a1, uint64_t a3, int64_t ret)
{
	struct katra_ev_ucall u = {
		.head = { KATRA_EV_UCALL, 0, CLIENT, tid, START + clock_ts },
		.call = call, .flags = flags, .a = { a0, a1, 0, a3 }, .ret = ret,
	};

	clock_ts += 20;
	pipeline_on_record(pl, &u, sizeof(u));
}

/* The server serves one request: its epoll_wait, the read of `req`, then
 * its writes. */
static void serve(struct pipeline *pl, uint64_t req, uint64_t w1, uint64_t w2)
{
	sc(pl, SERVER, SERVER, SYS_epoll_wait, 0, 1);
	if (req)
		sc(pl, SERVER, SERVER, SYS_read, req, 64);
	if (w1)
		sc(pl, SERVER, SERVER, SYS_write, w1, 16);
	if (w2)
		sc(pl, SERVER, SERVER, SYS_write, w2, 64);
}

Test(winewake, a_wait_cites_the_request_that_released_it_through_the_server)
{
	struct pl_trace t;

	clock_ts = 100;
	pl_trace_open(&t, 1, START);
	cr_assert_eq(emit_process_info(&t.pl.em, START + 1, SERVER, KATRA_ORIGIN_WINE_SESSION,
				       "wineserver64", NULL, NULL), 0);
	/* the waiter's wait: its select request is answered pending */
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x38, 1, 0, 0);
	sc(&t.pl, CLIENT, WAITER, SYS_writev, W_REQ, 112);
	serve(&t.pl, W_REQ, W_REPLY, 0);
	sc(&t.pl, CLIENT, WAITER, SYS_read, W_REPLY, 64);
	/* the setter's NtSetEvent: its request's serving wakes the waiter */
	uc(&t.pl, SETTER, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER, 0x10, 0, 0, 0);
	uc(&t.pl, SETTER, KATRA_UC_WINE_SERVER_CALL, KATRA_UC_ENTER, 60, 0, 0, 0);
	sc(&t.pl, CLIENT, SETTER, SYS_writev, S_REQ, 80);
	serve(&t.pl, S_REQ, W_WAIT, S_REPLY);
	sc(&t.pl, CLIENT, SETTER, SYS_read, S_REPLY, 64);
	uc(&t.pl, SETTER, KATRA_UC_WINE_SERVER_CALL, KATRA_UC_EXIT, 60, 0, 0, 0);
	uc(&t.pl, SETTER, KATRA_UC_NT_SYSCALL, KATRA_UC_EXIT, 0x10, 0, 0, 0);
	sc(&t.pl, CLIENT, WAITER, SYS_read, W_WAIT, 16);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x38, 1, 0, 0);
	/* a second wait ended by the server's timer: its wake-up serves nobody */
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x38, 1, 0, 0);
	sc(&t.pl, CLIENT, WAITER, SYS_writev, W_REQ, 112);
	serve(&t.pl, W_REQ, W_REPLY, 0);
	sc(&t.pl, CLIENT, WAITER, SYS_read, W_REPLY, 64);
	serve(&t.pl, 0, W_WAIT, 0);
	sc(&t.pl, CLIENT, WAITER, SYS_read, W_WAIT, 16);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x38, 1, 0, 0x102);
	pl_trace_finish(&t, START + clock_ts + 100);

	read_events(t.path);
	const struct pl_ev *set_call = find(KATRA_KIND_WINE_SERVER_CALL, KATRA_PHASE_BEGIN, SETTER, 0);
	const struct pl_ev *wait0 = find(KATRA_KIND_NT_WAIT, KATRA_PHASE_END, WAITER, 0);
	const struct pl_ev *wait0_b = find(KATRA_KIND_NT_WAIT, KATRA_PHASE_BEGIN, WAITER, 0);
	cr_assert_eq(wait0->ncauses, 2, "the released wait: %llu causes",
		     (unsigned long long)wait0->ncauses);
	cr_assert_eq(wait0->causes[0], wait0_b->seq);
	cr_assert_eq(wait0->causes[1], set_call->seq, "it cites the setter's server call");
	const struct pl_ev *wait1 = find(KATRA_KIND_NT_WAIT, KATRA_PHASE_END, WAITER, 1);
	cr_assert_eq(wait1->ncauses, 1, "a timer's wake-up releases nothing");

	/* the path across the server: the server's read of the setter's
	 * request cites the setter's write; the waiter's wake-up read cites
	 * the server's write; the waiter's read of its own reply cites the
	 * server's write too, but releases nothing */
	const struct pl_ev *s_write = find(KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, SETTER, 0);
	const struct pl_ev *srv_read = find(KATRA_KIND_FILE_READ, KATRA_PHASE_END, SERVER, 1);
	cr_assert(cites(srv_read, s_write->seq));
	const struct pl_ev *wake_write = find(KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, SERVER, 1);
	const struct pl_ev *wake_read = find(KATRA_KIND_FILE_READ, KATRA_PHASE_END, WAITER, 1);
	cr_assert_eq(wake_read->ncauses, 2);
	cr_assert_eq(wake_read->causes[1], wake_write->seq);
	struct katra_verify_report rep;
	cr_assert_eq(katra_verify_path(t.path, NULL, NULL, 0, &rep), 0);
	temp_dir_remove(t.dir);
}

/* A pending NtWriteFile is completed by the first NtWait of its process that
 * returns STATUS_WAIT_0 on its event; a wait on another handle, or one that
 * timed out, does not; once only. */
Test(winewake, pending_write_completed_by_the_wait_on_its_event)
{
	struct pl_trace t;

	clock_ts = 100;
	pl_trace_open(&t, 1, START);
	uc(&t.pl, WAITER, KATRA_UC_NT_WRITE_FILE, KATRA_UC_ENTER, 0x30, 2000, 0x44, 0x5000);
	uc(&t.pl, WAITER, KATRA_UC_NT_WRITE_FILE, KATRA_UC_EXIT, 0x30, 0, 0x44, 0x103);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x48, 1, 0, 0);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x48, 1, 0, 0);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x44, 1, 0, 0);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x44, 1, 0, 0x102);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x44, 1, 0, 0);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x44, 1, 0, 0);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x44, 1, 0, 0);
	uc(&t.pl, WAITER, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x44, 1, 0, 0);
	pl_trace_end(&t, START + clock_ts + 100);
	cr_assert_eq(t.pl.em.asyncs.count, 0, "the completed write is forgotten");
	pl_trace_close(&t);

	read_events(t.path);
	const struct pl_ev *wb = find(KATRA_KIND_NT_WRITE_FILE, KATRA_PHASE_BEGIN, WAITER, 0);
	cr_assert_eq(find(KATRA_KIND_NT_WAIT, KATRA_PHASE_END, WAITER, 0)->ncauses, 1,
		     "a wait on another handle");
	cr_assert_eq(find(KATRA_KIND_NT_WAIT, KATRA_PHASE_END, WAITER, 1)->ncauses, 1,
		     "a wait that timed out");
	const struct pl_ev *done = find(KATRA_KIND_NT_WAIT, KATRA_PHASE_END, WAITER, 2);
	cr_assert_eq(done->ncauses, 2);
	cr_assert_eq(done->causes[1], wb->seq, "the wait that saw it done cites the write");
	cr_assert_eq(find(KATRA_KIND_NT_WAIT, KATRA_PHASE_END, WAITER, 3)->ncauses, 1,
		     "once only");
	temp_dir_remove(t.dir);
}
