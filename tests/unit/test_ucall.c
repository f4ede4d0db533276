// SPDX-License-Identifier: GPL-2.0-only
/* Calls probed in user space (Wine's ntdll.so, the Vulkan driver) through the
 * pipeline, from hand-made wire records: Begin/End pairing per layer, the
 * cause chain NT call -> server call -> syscall, payloads and resources, a
 * call left without returning, an End without Begin, and the executable
 * mmap that makes the recorder look for libraries. */
#include <errno.h>
#include <sys/syscall.h>

#include "pipeline_test_util.h"

#define START 1000000u
#define TGID 700

static struct pl_ev evs[64];
static size_t nevs;

static void read_events(const char *path)
{
	nevs = pl_read_events(path, evs, 64);
}

static void ucall(struct pipeline *pl, uint32_t tid, uint64_t ts, uint32_t call, uint32_t flags,
		  uint64_t a0, uint64_t a1, uint64_t a2, int64_t ret)
{
	struct katra_ev_ucall u = {
		.head = { KATRA_EV_UCALL, 0, TGID, tid, START + ts },
		.call = call, .flags = flags, .a = { a0, a1, a2, 0 }, .ret = ret,
	};

	pipeline_on_record(pl, &u, sizeof(u));
}

static void read_syscall(struct pipeline *pl, uint32_t tid, uint64_t enter, uint64_t exit)
{
	struct katra_ev_syscall sc = {
		.head = { KATRA_EV_SYSCALL, 0, TGID, tid, START + exit },
		.enter_ts = START + enter, .exit_ts = START + exit, .ret = 64, .nr = SYS_read,
		.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FILE, .dev = 1, .ino = 2,
		.args = { 5, 0, 64 },
	};

	pipeline_on_record(pl, &sc, sizeof(sc));
}

static uint32_t mapped_tgid;
static uint64_t mapped_dev, mapped_ino;
static unsigned nmapped;

static void on_map(void *ctx, uint32_t tgid, uint64_t kdev, uint64_t ino)
{
	(void)ctx;
	mapped_tgid = tgid;
	mapped_dev = kdev;
	mapped_ino = ino;
	nmapped++;
}

Test(ucall, nt_server_and_syscall_spans_nest_and_cite_inward)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	t.pl.on_exec_map = on_map;

	/* NtReadFile(0x30, 100 bytes, no offset) { wine_server_call(47) { read }
	 * read } -> STATUS_PENDING */
	ucall(&t.pl, 10, 100, KATRA_UC_NT_READ_FILE, KATRA_UC_ENTER, 0x30, 100, 0, 0);   /* 0 */
	ucall(&t.pl, 10, 110, KATRA_UC_WINE_SERVER_CALL, KATRA_UC_ENTER, 47, 0, 0, 0);   /* 1 */
	read_syscall(&t.pl, 10, 120, 130);                                               /* 2, 3 */
	ucall(&t.pl, 10, 140, KATRA_UC_WINE_SERVER_CALL, KATRA_UC_EXIT, 47, 0, 0, 0);    /* 4 */
	read_syscall(&t.pl, 10, 150, 160);                                               /* 5, 6 */
	ucall(&t.pl, 10, 170, KATRA_UC_NT_READ_FILE, KATRA_UC_EXIT | KATRA_UC_A1_VALID, 0x30, 0, 0,
	      0x103);                                                                    /* 7 */
	/* NtWaitForSingleObject(0x38, 100 ms) never returns: it ends where the
	 * next NT call begins */
	ucall(&t.pl, 10, 200, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER | KATRA_UC_A2_VALID, 0x38, 1,
	      (uint64_t)-1000000, 0);                                                    /* 8 */
	ucall(&t.pl, 10, 300, KATRA_UC_NT_DELAY_EXECUTION, KATRA_UC_ENTER, 0, 0, 0, 0);  /* 9, 10 */
	/* a submit's return whose entry was never seen: an Instant */
	ucall(&t.pl, 11, 400, KATRA_UC_VK_QUEUE_SUBMIT, KATRA_UC_EXIT, 0xabc, 2, 0, 0);  /* 11 */
	/* an executable mapping of a file: the recorder is told */
	struct katra_ev_syscall mm = {
		.head = { KATRA_EV_SYSCALL, 0, TGID, 10, START + 420 },
		.enter_ts = START + 410, .exit_ts = START + 420, .ret = 0x7f0000000000, .nr = SYS_mmap,
		.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FILE, .dev = 9, .ino = 99,
		.args = { 0, 4096, 5 /* PROT_READ | PROT_EXEC */, 2, 3, 0 },
	};
	pipeline_on_record(&t.pl, &mm, sizeof(mm));                                     /* 12, 13 */
	mm.args[2] = 1; /* PROT_READ only: nothing to look at */
	pipeline_on_record(&t.pl, &mm, sizeof(mm));
	cr_assert_eq(nmapped, 1);
	cr_assert_eq(mapped_tgid, TGID);
	cr_assert_eq(mapped_dev, 9);
	cr_assert_eq(mapped_ino, 99);
	pl_trace_finish(&t, START + 500);

	read_events(t.path);
	/* NtReadFile Begin */
	cr_assert_eq(evs[0].kind, KATRA_KIND_NT_READ_FILE);
	cr_assert_eq(evs[0].scope, KATRA_SCOPE_WINDOWS_FACING);
	cr_assert_eq(evs[0].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[0].payload.type, KATRA_PAYLOAD_NT_CALL);
	cr_assert_eq(evs[0].payload.u.nt_call.handle, 0x30);
	cr_assert_eq(evs[0].payload.u.nt_call.length, 100);
	cr_assert(!evs[0].payload.u.nt_call.offset.present);
	cr_assert(!evs[0].payload.u.nt_call.status.present);
	cr_assert_eq(evs[0].res.domain, KATRA_RES_WIN_HANDLE);
	cr_assert_eq(evs[0].res.id, 0x30);
	/* the server call inside it cites it; the read inside that cites the
	 * server call */
	cr_assert_eq(evs[1].kind, KATRA_KIND_WINE_SERVER_CALL);
	cr_assert_eq(evs[1].scope, KATRA_SCOPE_WINE_PROTON);
	cr_assert_eq(evs[1].payload.u.wine_server_call.request, 47);
	cr_assert_eq(evs[1].ncauses, 1);
	cr_assert_eq(evs[1].causes[0], 0);
	cr_assert_eq(evs[2].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(evs[2].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[2].ncauses, 1);
	cr_assert_eq(evs[2].causes[0], 1);
	cr_assert_eq(evs[4].kind, KATRA_KIND_WINE_SERVER_CALL);
	cr_assert_eq(evs[4].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[4].span, evs[1].span);
	cr_assert_eq(evs[4].causes[0], 1);
	cr_assert(evs[4].payload.u.wine_server_call.status.present);
	/* the read after the server call cites the NT call */
	cr_assert_eq(evs[5].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(evs[5].causes[0], 0);
	/* End: pending, no bytes yet */
	cr_assert_eq(evs[7].kind, KATRA_KIND_NT_READ_FILE);
	cr_assert_eq(evs[7].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[7].span, evs[0].span);
	cr_assert_eq(evs[7].causes[0], 0);
	cr_assert_eq(evs[7].payload.u.nt_call.status.value, 0x103);
	cr_assert_eq(evs[7].payload.u.nt_call.length, 0);
	/* NtWait: Wait payload, 100 ms; closed Inferred at the next NT Begin */
	cr_assert_eq(evs[8].kind, KATRA_KIND_NT_WAIT);
	cr_assert_eq(evs[8].payload.type, KATRA_PAYLOAD_WAIT);
	cr_assert_eq(evs[8].payload.u.wait.handle, 0x38);
	cr_assert_eq(evs[8].payload.u.wait.count, 1);
	cr_assert(evs[8].payload.u.wait.timeout_ns.present);
	cr_assert_eq(evs[8].payload.u.wait.timeout_ns.value, 100000000);
	cr_assert_eq(evs[9].kind, KATRA_KIND_NT_WAIT);
	cr_assert_eq(evs[9].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[9].confidence, KATRA_CONFIDENCE_INFERRED);
	cr_assert_eq(evs[9].span, evs[8].span);
	cr_assert_eq(evs[9].ts, 300);
	cr_assert_eq(evs[10].kind, KATRA_KIND_NT_DELAY_EXECUTION);
	cr_assert_eq(evs[10].phase, KATRA_PHASE_BEGIN);
	cr_assert(!evs[10].payload.u.wait.timeout_ns.present, "NULL timeout: infinite");
	/* the orphan submit */
	cr_assert_eq(evs[11].kind, KATRA_KIND_VULKAN_QUEUE_SUBMIT);
	cr_assert_eq(evs[11].phase, KATRA_PHASE_INSTANT);
	cr_assert_eq(evs[11].scope, KATRA_SCOPE_VULKAN);
	cr_assert_eq(evs[11].res.domain, KATRA_RES_VULKAN_QUEUE);
	cr_assert_eq(evs[11].res.id, 0xabc);
	cr_assert_eq(evs[11].payload.u.vulkan.count, 2);
	/* the mmap (Begin, End twice), then the delay closed at the end */
	cr_assert_eq(evs[12].kind, KATRA_KIND_MEMORY_MAP);
	cr_assert_eq(evs[nevs - 1].kind, KATRA_KIND_NT_DELAY_EXECUTION);
	cr_assert_eq(evs[nevs - 1].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[nevs - 1].confidence, KATRA_CONFIDENCE_INFERRED);
	struct katra_verify_report rep;
	cr_assert_eq(katra_verify_path(t.path, NULL, NULL, 0, &rep), 0);
	temp_dir_remove(t.dir);
}

/* Generic NT calls (KATRA_UC_NT_SYSCALL): NtSyscall spans, the name (from the
 * emitter's nt_name hook) on the Begin only, the status on the End; a
 * syscall inside cites it.  A wineserver's ProcessInfo is followed by its
 * WineServerRequests table (the server_requests hook), which cites it. */
static const char *nt_name(void *ctx, uint32_t slot, uint32_t number)
{
	(void)ctx;
	return slot == 0 && number == 0x2e ? "NtYieldExecution" : NULL;
}

static int server_requests(void *ctx, uint32_t tgid, const char *comm, size_t comm_len,
			   struct katra_str_vec *out)
{
	static const struct katra_str names[2] = { { "new_process", 11 }, { "new_thread", 10 } };

	(void)ctx;
	if (tgid != 900 || comm_len != 12 || memcmp(comm, "wineserver64", 12))
		return 0;
	*out = (struct katra_str_vec){ names, 2 };
	return 1;
}

Test(ucall, generic_nt_call_named_on_its_begin_and_server_request_names)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	t.pl.em.nt_name = nt_name;
	t.pl.em.server_requests = server_requests;
	cr_assert_eq(emit_process_info(&t.pl.em, START + 1, 900, KATRA_ORIGIN_WINE_SESSION,
				       "wineserver64", NULL, NULL), 0);          /* 0, 1 */
	cr_assert_eq(emit_process_info(&t.pl.em, START + 2, 901, KATRA_ORIGIN_WINE_SESSION,
				       "services.exe", NULL, "services.exe"), 0); /* 2 */
	ucall(&t.pl, 10, 100, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER, 0x2e, 0, 0, 0);       /* 3 */
	read_syscall(&t.pl, 10, 110, 120);                                               /* 4, 5 */
	ucall(&t.pl, 10, 130, KATRA_UC_NT_SYSCALL, KATRA_UC_EXIT, 0x2e, 0, 0, 0);        /* 6 */
	ucall(&t.pl, 10, 140, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER, 0x7, 0, 0, 0);        /* 7 */
	ucall(&t.pl, 10, 150, KATRA_UC_NT_SYSCALL, KATRA_UC_EXIT, 0x7, 0, 0, (int32_t)0xc0000008);
	pl_trace_finish(&t, START + 500);

	read_events(t.path);
	cr_assert_eq(evs[0].kind, KATRA_KIND_PROCESS_INFO);
	cr_assert_eq(evs[1].kind, KATRA_KIND_WINE_SERVER_REQUESTS);
	cr_assert_eq(evs[1].scope, KATRA_SCOPE_WINE_PROTON);
	cr_assert_eq(evs[1].phase, KATRA_PHASE_INSTANT);
	cr_assert_eq(evs[1].res.domain, KATRA_RES_PROCESS);
	cr_assert_eq(evs[1].res.id, 900);
	cr_assert_eq(evs[1].ncauses, 1);
	cr_assert_eq(evs[1].causes[0], evs[0].seq);
	cr_assert_eq(evs[1].payload.u.wine_server_requests.names.len, 2);
	cr_assert_eq(evs[2].kind, KATRA_KIND_PROCESS_INFO, "no table for other processes");
	cr_assert_eq(evs[3].kind, KATRA_KIND_NT_SYSCALL);
	cr_assert_eq(evs[3].scope, KATRA_SCOPE_WINDOWS_FACING);
	cr_assert_eq(evs[3].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[3].payload.type, KATRA_PAYLOAD_NT_SYSCALL);
	cr_assert_eq(evs[3].payload.u.nt_syscall.number, 0x2e);
	cr_assert(evs[3].payload.u.nt_syscall.name.present);
	cr_assert_eq(evs[3].payload.u.nt_syscall.name.value.len, 16);
	cr_assert(!evs[3].payload.u.nt_syscall.status.present);
	cr_assert_eq(evs[4].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(evs[4].causes[0], evs[3].seq, "the read cites the NT call");
	cr_assert_eq(evs[6].kind, KATRA_KIND_NT_SYSCALL);
	cr_assert_eq(evs[6].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[6].span, evs[3].span);
	cr_assert_eq(evs[6].causes[0], evs[3].seq);
	cr_assert(!evs[6].payload.u.nt_syscall.name.present, "the name is on the Begin only");
	cr_assert(evs[6].payload.u.nt_syscall.status.present);
	cr_assert_eq(evs[6].payload.u.nt_syscall.status.value, 0);
	/* a number without a name */
	cr_assert(!evs[7].payload.u.nt_syscall.name.present);
	cr_assert_eq(evs[8].payload.u.nt_syscall.status.value, 0xc0000008);
}

/* A wineserver whose binary the uprobes worker has not read yet (a chrooted
 * Wine's: the drain never reads it): -EAGAIN at its ProcessInfo, and its
 * table written once ready, before the next record, citing the ProcessInfo;
 * a table read with no names is dropped. */
static int later_calls;

static int server_requests_later(void *ctx, uint32_t tgid, const char *comm, size_t comm_len,
				 struct katra_str_vec *out)
{
	(void)ctx, (void)comm, (void)comm_len, (void)out;
	return tgid == 900 || tgid == 902 ? -EAGAIN : 0;
}

static int server_requests_ready(void *ctx, uint32_t *tgid, uint64_t *handle,
				 struct katra_str_vec *out)
{
	static const struct katra_str names[1] = { { "new_process", 11 } };

	(void)ctx;
	*handle = 0;
	switch (later_calls++) {
	case 0: /* at the first record: not read yet */
		return -EAGAIN;
	case 1: /* at the second: 902's binary holds no names */
		*tgid = 902;
		return 0;
	case 2:
		*tgid = 900;
		*out = (struct katra_str_vec){ names, 1 };
		return 1;
	}
	cr_assert_fail("asked again with nothing waiting");
	return -EAGAIN;
}

Test(ucall, server_request_names_read_later_come_before_the_next_record)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	t.pl.em.server_requests = server_requests_later;
	t.pl.em.names_ready = server_requests_ready;
	cr_assert_eq(emit_process_info(&t.pl.em, START + 1, 900, KATRA_ORIGIN_WINE_SESSION,
				       "wineserver64", NULL, NULL), 0);          /* 0 */
	cr_assert_eq(emit_process_info(&t.pl.em, START + 2, 902, KATRA_ORIGIN_WINE_SESSION,
				       "wineserver64", NULL, NULL), 0);          /* 1 */
	/* its Begin (2) finds nothing read; the table comes before its End (4) */
	read_syscall(&t.pl, 10, 110, 120);                                  /* 2, 3, 4 */
	read_syscall(&t.pl, 10, 130, 140);                                     /* 5, 6 */
	pl_trace_finish(&t, START + 500);

	read_events(t.path);
	cr_assert_eq(later_calls, 3);
	cr_assert_eq(evs[0].kind, KATRA_KIND_PROCESS_INFO);
	cr_assert_eq(evs[1].kind, KATRA_KIND_PROCESS_INFO);
	cr_assert_eq(evs[2].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(evs[3].kind, KATRA_KIND_WINE_SERVER_REQUESTS);
	cr_assert_eq(evs[3].res.id, 900);
	cr_assert_eq(evs[3].ncauses, 1);
	cr_assert_eq(evs[3].causes[0], evs[0].seq, "cites its wineserver's ProcessInfo");
	cr_assert_eq(evs[3].payload.u.wine_server_requests.names.len, 1);
	cr_assert_eq(evs[4].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(evs[5].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(evs[6].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(nevs, 7, "one table only");
}

/* Overlapped reads that complete after NtReadFile returned STATUS_PENDING:
 * the first later Linux read of the process that lands data (ret >= 0) in
 * the call's buffer (read's buf, recvmsg's first iovec: the AUX value) cites
 * its Begin on its End, once; a read that failed does not; a file's read
 * served inside the call (its pread64 fills the buffer) is not linked later;
 * another process's pending read of the same address is its own, and its
 * exit forgets it. */
static void buf_syscall(struct pipeline *pl, uint32_t nr, uint64_t enter, uint64_t buf,
			int64_t ret)
{
	struct katra_ev_syscall sc = {
		.head = { KATRA_EV_SYSCALL, 0, TGID, 10, START + enter + 5 },
		.enter_ts = START + enter, .exit_ts = START + enter + 5, .ret = ret, .nr = nr,
		.flags = KATRA_SC_ENTER | KATRA_SC_EXIT, .args = { 5, buf, 64 },
	};

	if (nr == SYS_recvmsg) {
		sc.args[1] = 0x9999; /* the msghdr */
		sc.aux = buf;
		sc.flags |= KATRA_SC_AUX;
	}
	pipeline_on_record(pl, &sc, sizeof(sc));
}

static void nt_read(struct pipeline *pl, uint64_t ts, uint32_t flags, uint64_t handle,
		    int64_t ret)
{
	ucall(pl, 10, ts, KATRA_UC_NT_READ_FILE, flags, handle, 64, 0, ret);
}

Test(ucall, pending_read_cited_by_the_read_that_lands_its_data)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);

	nt_read(&t.pl, 100, KATRA_UC_ENTER, 0x40, 0x5000);                   /* 0: socket */
	buf_syscall(&t.pl, SYS_recvmsg, 110, 0x5000, -11);                    /* 1, 2: EAGAIN */
	nt_read(&t.pl, 120, KATRA_UC_EXIT, 0x40, 0x103);                      /* 3 */
	nt_read(&t.pl, 200, KATRA_UC_ENTER, 0x30, 0x6000);                    /* 4: a file */
	buf_syscall(&t.pl, SYS_pread64, 210, 0x6000, 64);                     /* 5, 6 */
	nt_read(&t.pl, 220, KATRA_UC_EXIT, 0x30, 0x103);                      /* 7 */
	ucall(&t.pl, 10, 300, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0x38, 1, 0, 0); /* 8 */
	buf_syscall(&t.pl, SYS_recvmsg, 310, 0x7000, 64);                     /* 9, 10: another buffer */
	buf_syscall(&t.pl, SYS_recvmsg, 320, 0x5000, -11);                    /* 11, 12: failed */
	buf_syscall(&t.pl, SYS_recvmsg, 330, 0x5000, 64);                     /* 13, 14: completes 0 */
	buf_syscall(&t.pl, SYS_recvmsg, 340, 0x5000, 64);                     /* 15, 16: once only */
	buf_syscall(&t.pl, SYS_read, 350, 0x6000, 64);                        /* 17, 18 */
	ucall(&t.pl, 10, 400, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0x38, 1, 0, 0);  /* 19 */
	/* another process's pending read into the same address: its own; its
	 * exit forgets it */
	struct katra_ev_ucall o = {
		.head = { KATRA_EV_UCALL, 0, TGID + 1, 21, START + 410 },
		.call = KATRA_UC_NT_READ_FILE, .flags = KATRA_UC_ENTER, .a = { 0x40, 64 },
		.ret = 0x5000,
	};
	pipeline_on_record(&t.pl, &o, sizeof(o));                                  /* 20 */
	o.head.ts = START + 420;
	o.flags = KATRA_UC_EXIT;
	o.ret = 0x103;
	pipeline_on_record(&t.pl, &o, sizeof(o));                                  /* 21 */
	struct katra_ev_exit x = {
		.head = { KATRA_EV_EXIT, 0, TGID + 1, 21, START + 430 },
		.flags = KATRA_EXIT_GROUP_DEAD,
	};
	pipeline_on_record(&t.pl, &x, sizeof(x));                                  /* 22 */
	pl_trace_end(&t, START + 500);
	cr_assert_eq(t.pl.em.asyncs.count, 0, "completed, or forgotten at its process's exit");
	pl_trace_close(&t);

	read_events(t.path);
	cr_assert_eq(nevs, 23);
	cr_assert_eq(evs[3].kind, KATRA_KIND_NT_READ_FILE);
	cr_assert_eq(evs[3].payload.u.nt_call.status.value, 0x103);
	/* the socket read's EAGAIN inside the call completes nothing */
	cr_assert_eq(evs[2].ncauses, 1);
	cr_assert_eq(evs[14].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[14].ncauses, 2, "the completion: %u causes", (unsigned)evs[14].ncauses);
	cr_assert_eq(evs[14].causes[0], 13);
	cr_assert_eq(evs[14].causes[1], 0);
	for (size_t i = 0; i < nevs; i++)
		if (i != 14)
			for (uint64_t c = 0; c < evs[i].ncauses; c++)
				cr_assert(evs[i].causes[c] != 0 || evs[i].seq <= 3,
					  "seq %zu also cites the pending read", i);
	/* the file's pending read was served inside it: nothing later cites it */
	for (size_t i = 8; i < nevs; i++)
		for (uint64_t c = 0; c < evs[i].ncauses; c++)
			cr_assert(evs[i].causes[c] != 4, "seq %zu cites the file's read", i);
	struct katra_verify_report rep;
	cr_assert_eq(katra_verify_path(t.path, NULL, NULL, 0, &rep), 0);
	temp_dir_remove(t.dir);
}

/* Two pending reads whose (process, buffer) pairs share a table key: the
 * second replaces the first, and that lost link is counted, not silent. */
Test(ucall, pending_reads_sharing_a_key_count_the_one_replaced)
{
	/* key = buffer << 16 ^ process: buffer + 1 and process ^ 0x10000 collide */
	const uint32_t other = TGID ^ 0x10000u;
	struct katra_ev_ucall o = {
		.head = { KATRA_EV_UCALL, 0, other, other, START + 300 },
		.call = KATRA_UC_NT_READ_FILE, .flags = KATRA_UC_ENTER, .a = { 0x40, 64 },
		.ret = 0x5001,
	};
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	nt_read(&t.pl, 100, KATRA_UC_ENTER, 0x40, 0x5000);
	nt_read(&t.pl, 200, KATRA_UC_EXIT, 0x40, 0x103);
	pipeline_on_record(&t.pl, &o, sizeof(o));
	o.head.ts = START + 400;
	o.flags = KATRA_UC_EXIT;
	o.ret = 0x103;
	pipeline_on_record(&t.pl, &o, sizeof(o));
	pl_trace_end(&t, START + 500);
	cr_assert_eq(t.pl.em.asyncs.count, 1, "one entry: the second read replaced the first");
	cr_assert_eq(t.pl.em.st.evictions[KATRA_DROP_SPAN_TABLE], 1,
		     "the replaced read is counted once");
	pl_trace_close(&t);
	temp_dir_remove(t.dir);
}

/* NT calls by level (KATRA_UC_LEVEL): a win32u call (0x1000 | n) at level 0
 * holds the calls a user callback made inside it at level 1, each a span of
 * its own whose Begin cites the win32u call's; one of them left without
 * returning (an exception unwound out of the callback) ends, Inferred, where
 * the win32u call's return comes, before it; a level-0 call left without
 * returning ends where the next level-0 call begins. */
#define LV(n) ((uint32_t)(n) << KATRA_UC_LEVEL_SHIFT)
Test(ucall, nt_calls_of_user_callbacks_nest_by_level)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	ucall(&t.pl, 10, 100, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER | LV(0), 0x10c6, 0, 0, 0); /* 0 */
	ucall(&t.pl, 10, 110, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER | LV(1), 0x2e, 0, 0, 0);   /* 1 */
	ucall(&t.pl, 10, 120, KATRA_UC_NT_SYSCALL, KATRA_UC_EXIT | LV(1), 0x2e, 0, 0, 0);    /* 2 */
	ucall(&t.pl, 10, 130, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER | LV(1), 0x2e, 0, 0, 0);   /* 3 */
	ucall(&t.pl, 10, 140, KATRA_UC_NT_SYSCALL, KATRA_UC_EXIT | LV(0), 0x10c6, 0, 0, 1);  /* 4, 5 */
	ucall(&t.pl, 10, 150, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER | LV(0), 0x7, 0, 0, 0);    /* 6 */
	ucall(&t.pl, 10, 160, KATRA_UC_NT_SYSCALL, KATRA_UC_ENTER | LV(0), 0x7, 0, 0, 0);    /* 7, 8 */
	ucall(&t.pl, 10, 170, KATRA_UC_NT_SYSCALL, KATRA_UC_EXIT | LV(0), 0x7, 0, 0, 0);     /* 9 */
	pl_trace_finish(&t, START + 500);

	read_events(t.path);
	cr_assert_eq(nevs, 10);
	for (size_t i = 0; i < nevs; i++)
		cr_assert_eq(evs[i].kind, KATRA_KIND_NT_SYSCALL, "event %zu", i);
	cr_assert_eq(evs[0].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[0].payload.u.nt_syscall.number, 0x10c6);
	cr_assert_eq(evs[1].phase, KATRA_PHASE_BEGIN);
	cr_assert_neq(evs[1].span, evs[0].span);
	cr_assert_eq(evs[1].ncauses, 1);
	cr_assert_eq(evs[1].causes[0], evs[0].seq, "the callback's call cites the win32u call");
	cr_assert_eq(evs[2].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[2].span, evs[1].span);
	cr_assert_eq(evs[3].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[3].causes[0], evs[0].seq);
	/* the return of the win32u call: the call left open inside it first */
	cr_assert_eq(evs[4].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[4].span, evs[3].span);
	cr_assert_eq(evs[4].confidence, KATRA_CONFIDENCE_INFERRED);
	cr_assert_eq(evs[5].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[5].span, evs[0].span);
	cr_assert_neq(evs[5].confidence, KATRA_CONFIDENCE_INFERRED);
	cr_assert_eq(evs[5].payload.u.nt_syscall.status.value, 1);
	/* level 0 again: the first left open, ended where the second begins */
	cr_assert_eq(evs[6].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[6].ncauses, 0, "nothing open encloses it");
	cr_assert_eq(evs[7].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[7].span, evs[6].span);
	cr_assert_eq(evs[7].confidence, KATRA_CONFIDENCE_INFERRED);
	cr_assert_eq(evs[8].phase, KATRA_PHASE_BEGIN);
	cr_assert_eq(evs[8].ncauses, 0);
	cr_assert_eq(evs[9].span, evs[8].span);
	cr_assert_neq(evs[9].confidence, KATRA_CONFIDENCE_INFERRED);
}

/* A WinToUnix call's library (its handle) is asked for at its first Begin
 * only, per (process, handle); the names read later are a WineUnixCallNames
 * Instant before the next record: resource (WinHandle, handle), the
 * process's pid; a library read without names writes nothing. */
static unsigned unix_asks, unix_ready_calls;

static int unix_names(void *ctx, uint32_t tgid, uint64_t handle)
{
	(void)ctx;
	cr_assert_eq(tgid, TGID);
	unix_asks++;
	return handle == 0x7000 && unix_asks == 1 ? -EAGAIN : handle == 0x9000 && unix_asks == 3 ?
	       -EAGAIN : 0;
}

static int unix_ready(void *ctx, uint32_t *tgid, uint64_t *handle, struct katra_str_vec *out)
{
	static const struct katra_str names[3] = { { "", 0 }, { "vkQueueSubmit", 13 },
						   { "vkQueuePresentKHR", 17 } };

	(void)ctx;
	switch (unix_ready_calls++) {
	case 0: /* before the second call's Begin: not read yet */
		return -EAGAIN;
	case 1:
		*tgid = TGID;
		*handle = 0x7000;
		*out = (struct katra_str_vec){ names, 3 };
		return 1;
	case 2: /* 0x9000: a library without names */
		*tgid = TGID;
		*handle = 0x9000;
		return 0;
	}
	cr_assert_fail("asked again with nothing waiting");
	return -EAGAIN;
}

Test(ucall, unix_call_names_are_asked_once_and_written_when_read)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	t.pl.em.unix_names = unix_names;
	t.pl.em.names_ready = unix_ready;
	ucall(&t.pl, 10, 100, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_ENTER, 0x7000, 1, 0, 0); /* 0 */
	ucall(&t.pl, 10, 110, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_EXIT, 0x7000, 1, 0, 0);  /* 1 */
	ucall(&t.pl, 10, 120, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_ENTER, 0x7000, 2, 0, 0); /* 3 */
	ucall(&t.pl, 10, 130, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_EXIT, 0x7000, 2, 0, 0);  /* 4 */
	ucall(&t.pl, 10, 140, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_ENTER, 0x9000, 5, 0, 0); /* 5 */
	ucall(&t.pl, 10, 150, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_EXIT, 0x9000, 5, 0, 0);  /* 6 */
	pl_trace_finish(&t, START + 500);

	read_events(t.path);
	cr_assert_eq(unix_asks, 3, "one ask per Begin");
	cr_assert_eq(unix_ready_calls, 3);
	cr_assert_eq(nevs, 7);
	cr_assert_eq(evs[0].kind, KATRA_KIND_WIN_TO_UNIX);
	cr_assert_eq(evs[0].payload.u.wine_server_call.request, 1);
	cr_assert_eq(evs[1].kind, KATRA_KIND_WIN_TO_UNIX);
	cr_assert_eq(evs[2].kind, KATRA_KIND_WINE_UNIX_CALL_NAMES);
	cr_assert_eq(evs[2].scope, KATRA_SCOPE_WINE_PROTON);
	cr_assert_eq(evs[2].phase, KATRA_PHASE_INSTANT);
	cr_assert_eq(evs[2].res.domain, KATRA_RES_WIN_HANDLE);
	cr_assert_eq(evs[2].res.id, 0x7000);
	cr_assert_eq(evs[2].tid, TGID, "the process itself");
	cr_assert_eq(evs[2].payload.type, KATRA_PAYLOAD_WINE_SERVER_REQUESTS);
	cr_assert_eq(evs[2].payload.u.wine_server_requests.names.len, 3);
	cr_assert_eq(evs[3].kind, KATRA_KIND_WIN_TO_UNIX);
	cr_assert_eq(evs[3].payload.u.wine_server_call.request, 2);
	for (unsigned i = 4; i < 7; i++)
		cr_assert_eq(evs[i].kind, KATRA_KIND_WIN_TO_UNIX, "no table for 0x9000");
	struct katra_verify_report rep;
	cr_assert_eq(katra_verify_path(t.path, NULL, NULL, 0, &rep), 0);
}

/* vkd3d's D3D12 calls (D3d12Vkd3d): ExecuteCommandLists encloses the
 * Win->Unix call that submits to the Vulkan driver (the chain submit ->
 * WinToUnix -> ExecuteCommandLists); an S_OK SetEventOnCompletion is cited
 * by the first NtWait of the process that returns WAIT_0 on its event, a
 * failed one by none; an exit through a tail jump carries no HRESULT. */
Test(ucall, d3d12_calls_enclose_submits_and_release_their_event_wait)
{
	struct pl_trace t;

	pl_trace_open(&t, 1, START);
	ucall(&t.pl, 10, 100, KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS, KATRA_UC_ENTER, 0x100, 1,
	      0x5000, 0);                                                                /* 0 */
	ucall(&t.pl, 10, 110, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_ENTER, 0x900, 5, 0, 0);   /* 1 */
	ucall(&t.pl, 10, 120, KATRA_UC_VK_QUEUE_SUBMIT, KATRA_UC_ENTER, 0xabc, 1, 0, 0);  /* 2 */
	ucall(&t.pl, 10, 130, KATRA_UC_VK_QUEUE_SUBMIT, KATRA_UC_EXIT, 0xabc, 1, 0, 0);   /* 3 */
	ucall(&t.pl, 10, 140, KATRA_UC_WINE_UNIX_CALL, KATRA_UC_EXIT, 0x900, 5, 0, 0);    /* 4 */
	ucall(&t.pl, 10, 150, KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS, KATRA_UC_EXIT, 0x100, 1,
	      0x5000, 0x1234);                                                           /* 5 */
	ucall(&t.pl, 10, 200, KATRA_UC_D3D12_FENCE_SET_EVENT, KATRA_UC_ENTER, 0x200, 1, 0xac, 0);
	ucall(&t.pl, 10, 210, KATRA_UC_D3D12_FENCE_SET_EVENT, KATRA_UC_EXIT, 0x200, 1, 0xac, 0);
	ucall(&t.pl, 10, 220, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0xac, 1, 0, 0);    /* 8 */
	ucall(&t.pl, 10, 230, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0xac, 1, 0, 0);     /* 9 */
	ucall(&t.pl, 10, 300, KATRA_UC_D3D12_FENCE_SET_EVENT, KATRA_UC_ENTER, 0x200, 2, 0xac, 0);
	ucall(&t.pl, 10, 310, KATRA_UC_D3D12_FENCE_SET_EVENT, KATRA_UC_EXIT, 0x200, 2, 0xac,
	      (int32_t)0x80004005);                                                      /* 11 */
	ucall(&t.pl, 10, 320, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_ENTER, 0xac, 1, 0, 0);    /* 12 */
	ucall(&t.pl, 10, 330, KATRA_UC_NT_WAIT_SINGLE, KATRA_UC_EXIT, 0xac, 1, 0, 0);     /* 13 */
	ucall(&t.pl, 10, 400, KATRA_UC_D3D12_FENCE_SIGNAL, KATRA_UC_ENTER, 0x200, 3, 0, 0); /* 14 */
	ucall(&t.pl, 10, 410, KATRA_UC_D3D12_FENCE_SIGNAL, KATRA_UC_EXIT | KATRA_UC_RET_UNKNOWN,
	      0x200, 3, 0, 0);                                                           /* 15 */
	pl_trace_end(&t, START + 500);
	pl_trace_close(&t);

	read_events(t.path);
	cr_assert_eq(nevs, 16);
	cr_assert_eq(evs[0].kind, KATRA_KIND_D3D12_EXECUTE_COMMAND_LISTS);
	cr_assert_eq(evs[0].scope, KATRA_SCOPE_D3D12_VKD3D);
	cr_assert_eq(evs[0].res.domain, KATRA_RES_D3D12_OBJECT);
	cr_assert_eq(evs[0].res.id, 0x100);
	cr_assert_eq(evs[0].payload.type, KATRA_PAYLOAD_D3D12);
	cr_assert_eq(evs[0].payload.u.d3d12.count, 1);
	cr_assert_eq(evs[1].ncauses, 1);
	cr_assert_eq(evs[1].causes[0], 0, "the unix call cites its ExecuteCommandLists");
	cr_assert_eq(evs[2].ncauses, 1);
	cr_assert_eq(evs[2].causes[0], 1, "the submit cites its unix call");
	cr_assert_eq(evs[5].phase, KATRA_PHASE_END);
	cr_assert(!evs[5].payload.u.d3d12.result.present, "ExecuteCommandLists returns nothing");
	cr_assert_eq(evs[6].kind, KATRA_KIND_D3D12_FENCE_SET_EVENT);
	cr_assert_eq(evs[6].payload.u.d3d12.fence, 0x200);
	cr_assert_eq(evs[6].payload.u.d3d12.value, 1);
	cr_assert_eq(evs[6].payload.u.d3d12.event, 0xac);
	cr_assert(evs[7].payload.u.d3d12.result.present && !evs[7].payload.u.d3d12.result.value);
	cr_assert_eq(evs[9].ncauses, 2);
	cr_assert_eq(evs[9].causes[0], 8);
	cr_assert_eq(evs[9].causes[1], 6, "the wait cites the SetEventOnCompletion");
	cr_assert_eq(evs[11].payload.u.d3d12.result.value, (int32_t)0x80004005);
	cr_assert_eq(evs[13].ncauses, 1, "a failed registration releases nothing");
	cr_assert_eq(evs[14].payload.u.d3d12.value, 3);
	cr_assert(!evs[15].payload.u.d3d12.result.present, "a tail jump's return is not its own");
	struct katra_verify_report rep;
	cr_assert_eq(katra_verify_path(t.path, NULL, NULL, 0, &rep), 0);
	temp_dir_remove(t.dir);
}

Test(ucall, vulkan_waits_by_kind_and_the_image_acquired)
{
	struct pl_trace t;
	struct katra_ev_ucall u = {
		.head = { KATRA_EV_UCALL, 0, TGID, 10, START + 110 },
		.call = KATRA_UC_VK_ACQUIRE_NEXT_IMAGE, .flags = KATRA_UC_EXIT | KATRA_UC_A1_VALID,
		.a = { 0xd0, 0x5c, 1000, 2 }, .ret = 0,
	};

	pl_trace_open(&t, 1, START);
	ucall(&t.pl, 10, 100, KATRA_UC_VK_ACQUIRE_NEXT_IMAGE, KATRA_UC_ENTER, 0xd0, 0x5c, 1000, 0);
	pipeline_on_record(&t.pl, &u, sizeof(u));                                        /* 1 */
	ucall(&t.pl, 10, 200, KATRA_UC_VK_ACQUIRE_NEXT_IMAGE, KATRA_UC_ENTER, 0xd0, 0x5c, 0, 0);
	ucall(&t.pl, 10, 210, KATRA_UC_VK_ACQUIRE_NEXT_IMAGE, KATRA_UC_EXIT, 0xd0, 0x5c, 0,
	      2 /* VK_TIMEOUT: no image */);                                             /* 3 */
	ucall(&t.pl, 10, 300, KATRA_UC_VK_WAIT_SEMAPHORES, KATRA_UC_ENTER, 0xd0, 3, 1000, 0);
	ucall(&t.pl, 10, 310, KATRA_UC_VK_WAIT_SEMAPHORES, KATRA_UC_EXIT, 0xd0, 3, 1000, 0);
	ucall(&t.pl, 10, 400, KATRA_UC_VK_WAIT_FOR_FENCES, KATRA_UC_ENTER, 0xd0, 1, 1000, 0);
	ucall(&t.pl, 10, 410, KATRA_UC_VK_WAIT_FOR_FENCES, KATRA_UC_EXIT, 0xd0, 1, 1000, 0);
	pl_trace_end(&t, START + 500);
	pl_trace_close(&t);

	read_events(t.path);
	cr_assert_eq(nevs, 8);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(evs[i].kind, KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE);
		cr_assert_eq(evs[i].payload.u.vulkan.handle, 0x5c, "an acquire is on its swapchain");
	}
	cr_assert_eq(evs[0].payload.u.vulkan.count, 0);
	cr_assert_eq(evs[1].phase, KATRA_PHASE_END);
	cr_assert_eq(evs[1].payload.u.vulkan.count, 2, "the image the call wrote");
	cr_assert_eq(evs[3].payload.u.vulkan.count, UINT32_MAX, "a timed-out acquire wrote none");
	cr_assert_eq(evs[3].payload.u.vulkan.result.value, 2);
	cr_assert_eq(evs[4].kind, KATRA_KIND_VULKAN_SEMAPHORE_WAIT);
	cr_assert_eq(evs[4].payload.u.vulkan.handle, 0xd0);
	cr_assert_eq(evs[4].payload.u.vulkan.count, 3);
	cr_assert_eq(evs[6].kind, KATRA_KIND_VULKAN_FENCE_WAIT);
	cr_assert_eq(evs[7].payload.u.vulkan.count, 1);
	temp_dir_remove(t.dir);
}
