// SPDX-License-Identifier: GPL-2.0-only
/* The fixed sample trace: every record type, every enum variant, every
 * payload shape, Options absent and present, strings and vectors empty and
 * not.  Built once into static storage so the bytes never vary. */
#include "sample_records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the sample is about 130 records: room for more, and add() stops at the end */
#define SAMPLE_MAX 256
#define S(lit) { lit, sizeof(lit) - 1 }
#define SAMPLE_PID 4242u
#define SAMPLE_START_WALL 1700000000000000000ull
#define TID_MAIN 4242u
#define TID_IO 4243u
#define TID_GPU 4244u

static struct katra_record records[SAMPLE_MAX];
static size_t nrecords;
static uint64_t next_seq = 1;
static uint64_t now_ns = 1000;
static bool built;

/* Cause lists must outlive the builder: they point at earlier seqs. */
static uint64_t causes_pool[32];
static size_t causes_used;

static const uint64_t target_pids[] = { SAMPLE_PID, 4300 };
static const struct katra_str notes[] = {
	S("probe uprobe:NtReadFile not attached: ntdll.so not found"),
	S(""),
};
static const struct katra_str probes_attached[] = {
	S("tracepoint:raw_syscalls:sys_enter"),
	S("tp_btf:sched_switch"),
};

static struct katra_kind_count by_kind[KATRA_KIND_COUNT];
static struct katra_drop_count drops[KATRA_DROP_SOURCE_COUNT];

static const struct katra_header header = {
	.format_version = KATRA_FORMAT_VERSION,
	/* schema_hash is filled at build (it is an extern, not a constant) */
	.tool_version = S("katra-sample 0.1.0"),
	.capture_options = {
		.target_pids = { target_pids, 2 },
		.follow_children = true,
		.record_paths = false,
		.buffer_size_bytes = 1u << 20,
		.duration_limit_ns = { true, 5000000000ull },
		.counter_interval_ns = 100000000ull,
		.reorder_window_ns = 2000000ull,
	},
	.start_wall_ns = SAMPLE_START_WALL,
	.start_mono_ns = 123456789ull,
	.process_id = SAMPLE_PID,
	.workload = S("sample"),
	.host = {
		.hostname = S("katra-host"),
		.os = S("Debian GNU/Linux 12 (bookworm)"),
		.kernel_release = S("6.18.0"),
		.machine = S("x86_64"),
		.cpu_count = 2,
		.page_size = 4096,
	},
	.notes = { notes, 2 },
};
static struct katra_header header_copy;

static struct katra_record *add(uint32_t type)
{
	struct katra_record *r;

	if (nrecords == SAMPLE_MAX)
		abort(); /* a sample grown past SAMPLE_MAX: raise it */
	r = &records[nrecords++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	now_ns += 250;
	return r;
}

static struct katra_u64_vec causes(size_t n, const uint64_t *seqs)
{
	struct katra_u64_vec v = { &causes_pool[causes_used], n };

	memcpy(&causes_pool[causes_used], seqs, n * sizeof(*seqs));
	causes_used += n;
	return v;
}

/* An Instant event measured on the main thread; callers adjust fields. */
static struct katra_event *ev(uint32_t scope, uint32_t kind, uint32_t payload_type,
			      uint32_t domain, uint64_t res_id)
{
	struct katra_event *e = &add(KATRA_RECORD_EVENT)->u.event;

	e->seq = next_seq++;
	e->ts_mono_ns = now_ns;
	e->ts_wall_ns = SAMPLE_START_WALL + now_ns;
	e->thread_id = TID_MAIN;
	e->process_id = SAMPLE_PID;
	e->scope = scope;
	e->kind = kind;
	e->phase = KATRA_PHASE_INSTANT;
	e->resource.domain = domain;
	e->resource.id = res_id;
	e->payload.type = payload_type;
	e->confidence = KATRA_CONFIDENCE_MEASURED;
	return e;
}

static struct katra_event *span(struct katra_event *e, uint32_t phase, uint64_t id)
{
	e->phase = phase;
	e->span_id = (struct katra_opt_u64){ true, id };
	return e;
}

static void epoch(uint32_t kind, uint64_t n, const char *name)
{
	struct katra_epoch_marker *m = &add(KATRA_RECORD_EPOCH_MARKER)->u.epoch;

	m->seq = next_seq++;
	m->ts_mono_ns = now_ns;
	m->ts_wall_ns = SAMPLE_START_WALL + now_ns;
	m->epoch = n;
	m->kind = kind;
	m->name = katra_cstr(name);
}

static void counter(uint32_t kind, uint32_t instance, uint64_t value)
{
	struct katra_counter *c = &add(KATRA_RECORD_COUNTER)->u.counter;

	c->seq = next_seq++;
	c->ts_mono_ns = now_ns;
	c->ts_wall_ns = SAMPLE_START_WALL + now_ns;
	c->kind = kind;
	c->instance = instance;
	c->value = value;
}

static void build_linux(void)
{
	struct katra_event *e;
	uint64_t begin;

	/* Syscall span: Begin/End with the return in the End payload. */
	e = span(ev(KATRA_SCOPE_LINUX, KATRA_KIND_SYSCALL, KATRA_PAYLOAD_SYSCALL,
		    KATRA_RES_NONE, 0), KATRA_PHASE_BEGIN, 1);
	e->payload.u.syscall.nr = 39;
	begin = e->seq;
	e = span(ev(KATRA_SCOPE_LINUX, KATRA_KIND_SYSCALL, KATRA_PAYLOAD_SYSCALL_RETURN,
		    KATRA_RES_NONE, 0), KATRA_PHASE_END, 1);
	e->payload.u.syscall_return.nr = 39;
	e->payload.u.syscall_return.ret = -11;
	e->causes = causes(1, &begin);
	e->request_id = (struct katra_opt_u64){ true, 7 };

	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_OPEN, KATRA_PAYLOAD_FILE_OPEN, KATRA_RES_FILE, 3);
	e->payload.u.file_open.dirfd = -100;
	e->payload.u.file_open.flags = 0x80000;
	e->payload.u.file_open.mode = 0644;
	e->payload.u.file_open.path = (struct katra_opt_str){ true,
		katra_cstr("/tmp/donn\xc3\xa9" "es/"
			   "\xe3\x83\x95\xe3\x82\xa1\xe3\x82\xa4\xe3\x83\xab.txt") };
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_OPEN, KATRA_PAYLOAD_FILE_OPEN, KATRA_RES_FILE, 4);
	e->payload.u.file_open.dirfd = 5;
	e->payload.u.file_open.path = (struct katra_opt_str){ true, katra_cstr("") };
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_OPEN, KATRA_PAYLOAD_FILE_OPEN, KATRA_RES_FILE, 5);
	e->payload.u.file_open.dirfd = -100;
	e->payload.u.file_open.flags = 2;

	e = span(ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_READ, KATRA_PAYLOAD_FILE_IO,
		    KATRA_RES_FILE, 3), KATRA_PHASE_BEGIN, 2);
	e->thread_id = TID_IO;
	e->payload.u.file_io.fd = 3;
	e->payload.u.file_io.count = 4096;
	e->payload.u.file_io.offset = (struct katra_opt_u64){ true, 8192 };
	e->payload.u.file_io.iov_count = 1;
	begin = e->seq;
	e = span(ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_READ, KATRA_PAYLOAD_SYSCALL_RETURN,
		    KATRA_RES_FILE, 3), KATRA_PHASE_END, 2);
	e->thread_id = TID_IO;
	e->payload.u.syscall_return.nr = 17;
	e->payload.u.syscall_return.ret = 4096;
	e->causes = causes(1, &begin);
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_WRITE, KATRA_PAYLOAD_FILE_IO, KATRA_RES_FILE, 4);
	e->payload.u.file_io.fd = 4;
	e->payload.u.file_io.count = 0xffffffffffull;
	e->payload.u.file_io.iov_count = 3;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_CLOSE, KATRA_PAYLOAD_FILE_CLOSE,
	       KATRA_RES_FILE, 5);
	e->payload.u.file_close.fd = -1;

	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_MEMORY_MAP, KATRA_PAYLOAD_MEMORY_MAP,
	       KATRA_RES_MEMORY, 0x7f0000000000ull);
	e->payload.u.memory_map.addr = 0x7f0000000000ull;
	e->payload.u.memory_map.len = 1u << 21;
	e->payload.u.memory_map.prot = 3;
	e->payload.u.memory_map.flags = 0x22;
	e->payload.u.memory_map.fd = -1;
	e->payload.u.memory_map.offset = 0;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_MEMORY_UNMAP, KATRA_PAYLOAD_MEMORY_RANGE,
	       KATRA_RES_MEMORY, 0x7f0000000000ull);
	e->payload.u.memory_range.addr = 0x7f0000000000ull;
	e->payload.u.memory_range.len = 4096;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_MEMORY_PROTECT, KATRA_PAYLOAD_MEMORY_RANGE,
	       KATRA_RES_MEMORY, 0x7f0000001000ull);
	e->payload.u.memory_range.addr = 0x7f0000001000ull;
	e->payload.u.memory_range.len = 8192;
	e->payload.u.memory_range.arg = 1;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_MEMORY_ADVISE, KATRA_PAYLOAD_MEMORY_RANGE,
	       KATRA_RES_MEMORY, 0x7f0000003000ull);
	e->payload.u.memory_range.addr = 0x7f0000003000ull;
	e->payload.u.memory_range.len = 4096;
	e->payload.u.memory_range.arg = 4;

	e = span(ev(KATRA_SCOPE_LINUX, KATRA_KIND_FUTEX, KATRA_PAYLOAD_FUTEX,
		    KATRA_RES_FUTEX, 0x5555000010ull), KATRA_PHASE_BEGIN, 3);
	e->payload.u.futex.uaddr = 0x5555000010ull;
	e->payload.u.futex.op = 128;
	e->payload.u.futex.val = 1;
	begin = e->seq;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_EPOLL_WAIT, KATRA_PAYLOAD_WAIT, KATRA_RES_FILE, 6);
	e->thread_id = TID_IO;
	e->payload.u.wait.handle = 6;
	e->payload.u.wait.count = 16;
	e->payload.u.wait.timeout_ns = (struct katra_opt_u64){ true, 1000000 };
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_POLL, KATRA_PAYLOAD_WAIT, KATRA_RES_FILE, 7);
	e->thread_id = TID_IO;
	e->payload.u.wait.handle = -1;
	e->payload.u.wait.count = 2;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_SLEEP, KATRA_PAYLOAD_WAIT, KATRA_RES_THREAD, TID_IO);
	e->thread_id = TID_IO;
	e->payload.u.wait.timeout_ns = (struct katra_opt_u64){ true, 0 };
	e = span(ev(KATRA_SCOPE_LINUX, KATRA_KIND_FUTEX, KATRA_PAYLOAD_SYSCALL_RETURN,
		    KATRA_RES_FUTEX, 0x5555000010ull), KATRA_PHASE_END, 3);
	e->payload.u.syscall_return.nr = 202;
	e->causes = causes(1, &begin);

	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_SOCKET_SEND, KATRA_PAYLOAD_SOCKET_MSG,
	       KATRA_RES_SOCKET, 9);
	e->payload.u.socket_msg.fd = 9;
	e->payload.u.socket_msg.flags = 0x40;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_SOCKET_RECV, KATRA_PAYLOAD_SOCKET_MSG,
	       KATRA_RES_SOCKET, 9);
	e->payload.u.socket_msg.fd = 9;
	/* a pipe and an eventfd: (Pipe, its inode), (AnonInode, Eventfd) */
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_READ, KATRA_PAYLOAD_FILE_IO, KATRA_RES_PIPE, 2349781);
	e->payload.u.file_io.fd = 3;
	e->payload.u.file_io.count = 8;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_FILE_WRITE, KATRA_PAYLOAD_FILE_IO, KATRA_RES_ANON_INODE,
	       KATRA_ANON_EVENTFD);
	e->payload.u.file_io.fd = 7;
	e->payload.u.file_io.count = 8;
}

static void build_process(void)
{
	struct katra_event *e;
	uint64_t c[2];

	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_CLONE, KATRA_PAYLOAD_CLONE, KATRA_RES_PROCESS,
	       SAMPLE_PID);
	e->payload.u.clone.flags = 0x3d0f00;
	c[0] = e->seq;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_FORK, KATRA_PAYLOAD_TASK_FORK,
	       KATRA_RES_THREAD, TID_GPU);
	e->payload.u.task_fork.parent_pid = SAMPLE_PID;
	e->payload.u.task_fork.parent_tid = TID_MAIN;
	e->payload.u.task_fork.child_pid = SAMPLE_PID;
	e->payload.u.task_fork.child_tid = TID_GPU;
	e->payload.u.task_fork.is_thread = true;
	e->causes = causes(1, c);
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_FORK, KATRA_PAYLOAD_TASK_FORK,
	       KATRA_RES_PROCESS, 4300);
	e->payload.u.task_fork.parent_pid = SAMPLE_PID;
	e->payload.u.task_fork.parent_tid = TID_MAIN;
	e->payload.u.task_fork.child_pid = 4300;
	e->payload.u.task_fork.child_tid = 4300;
	e->payload.u.task_fork.is_thread = false;
	c[1] = e->seq;

	/* The child process 4300 execs twice (path known, then unknown). */
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_EXECVE, KATRA_PAYLOAD_EXECVE, KATRA_RES_PROCESS, 4300);
	e->thread_id = 4300;
	e->process_id = 4300;
	e->payload.u.execve.path = (struct katra_opt_str){ true, katra_cstr("/usr/bin/wine64") };
	e->causes = causes(2, c);
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXEC, KATRA_PAYLOAD_TASK_EXEC, KATRA_RES_PROCESS,
	       4300);
	e->thread_id = 4300;
	e->process_id = 4300;
	e->payload.u.task_exec.old_tid = 4300;
	e->payload.u.task_exec.path = (struct katra_opt_str){ true, katra_cstr("/usr/bin/wine64") };
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_EXECVE, KATRA_PAYLOAD_EXECVE, KATRA_RES_PROCESS, 4300);
	e->thread_id = 4300;
	e->process_id = 4300;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXEC, KATRA_PAYLOAD_TASK_EXEC, KATRA_RES_PROCESS,
	       4300);
	e->thread_id = 4300;
	e->process_id = 4300;
	e->payload.u.task_exec.old_tid = 4301;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXIT, KATRA_PAYLOAD_TASK_EXIT, KATRA_RES_PROCESS,
	       4300);
	e->thread_id = 4300;
	e->process_id = 4300;
	e->payload.u.task_exit.exit_code = -2;
	e->payload.u.task_exit.group_dead = true;

	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_OFF_CPU, KATRA_PAYLOAD_SWITCH, KATRA_RES_THREAD,
	       TID_IO);
	e->thread_id = TID_IO;
	e->payload.u.sched_switch.cpu = 1;
	e->payload.u.sched_switch.prev_state = 0x1;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_WAKEUP, KATRA_PAYLOAD_WAKEUP, KATRA_RES_THREAD,
	       TID_IO);
	e->payload.u.wakeup.target_tid = TID_IO;
	e->payload.u.wakeup.target_pid = SAMPLE_PID;
	e->payload.u.wakeup.target_cpu = 0;
	e->confidence = KATRA_CONFIDENCE_INFERRED;
	/* woken by a process outside the traced set, then by an interrupt */
	for (uint32_t c = KATRA_WAKER_TASK; c <= KATRA_WAKER_INTERRUPT; c++) {
		e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_WAKEUP, KATRA_PAYLOAD_WAKEUP_OUTSIDE,
		       KATRA_RES_THREAD, TID_IO);
		e->payload.u.wakeup_outside.target_tid = TID_IO;
		e->payload.u.wakeup_outside.target_pid = SAMPLE_PID;
		e->payload.u.wakeup_outside.target_cpu = 1;
		e->payload.u.wakeup_outside.waker_pid = c == KATRA_WAKER_TASK ? 812 : 0;
		e->payload.u.wakeup_outside.waker_tid = c == KATRA_WAKER_TASK ? 815 : 0;
		e->payload.u.wakeup_outside.waker_comm = katra_cstr(c == KATRA_WAKER_TASK ? "Xvfb" : "");
		e->payload.u.wakeup_outside.context = c;
		e->thread_id = e->process_id = 0;
	}
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_PAGE_FAULT, KATRA_PAYLOAD_PAGE_FAULT,
	       KATRA_RES_MEMORY, 0x7f0000002000ull);
	e->payload.u.page_fault.address = 0x7f0000002468ull;
	e->payload.u.page_fault.ip = 0x401000;
	e->payload.u.page_fault.error_code = 6;
	e->cost_estimate_ns = (struct katra_opt_u64){ true, 16000 };
	e->confidence = KATRA_CONFIDENCE_ESTIMATED;
}

static void build_io_uring(void)
{
	struct katra_event *e;
	uint64_t sub;

	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_IO_URING_CREATE, KATRA_PAYLOAD_IO_URING_CREATE,
	       KATRA_RES_IO_URING, 0xffff888000010000ull);
	e->thread_id = TID_IO;
	e->payload.u.io_uring_create.ctx = 0xffff888000010000ull;
	e->payload.u.io_uring_create.fd = 10;
	e->payload.u.io_uring_create.sq_entries = 64;
	e->payload.u.io_uring_create.cq_entries = 128;
	e->payload.u.io_uring_create.flags = 0;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_IO_URING_ENTER, KATRA_PAYLOAD_IO_URING_ENTER,
	       KATRA_RES_IO_URING, 0xffff888000010000ull);
	e->thread_id = TID_IO;
	e->payload.u.io_uring_enter.fd = 10;
	e->payload.u.io_uring_enter.to_submit = 1;
	e->payload.u.io_uring_enter.min_complete = 1;
	e->payload.u.io_uring_enter.flags = 1;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_IO_URING_SUBMIT, KATRA_PAYLOAD_IO_URING_SUBMIT,
	       KATRA_RES_IO_URING, 0xffff888000010000ull);
	e->thread_id = TID_IO;
	e->request_id = (struct katra_opt_u64){ true, 77 };
	e->payload.u.io_uring_submit.ctx = 0xffff888000010000ull;
	e->payload.u.io_uring_submit.user_data = 0xdeadbeef;
	e->payload.u.io_uring_submit.opcode = 22;
	e->payload.u.io_uring_submit.flags = 0;
	e->payload.u.io_uring_submit.fd = 3;
	sub = e->seq;
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_IO_URING_COMPLETE, KATRA_PAYLOAD_IO_URING_COMPLETE,
	       KATRA_RES_IO_URING, 0xffff888000010000ull);
	e->thread_id = TID_IO;
	e->request_id = (struct katra_opt_u64){ true, 77 };
	e->payload.u.io_uring_complete.ctx = 0xffff888000010000ull;
	e->payload.u.io_uring_complete.user_data = 0xdeadbeef;
	e->payload.u.io_uring_complete.res = -5;
	e->payload.u.io_uring_complete.cflags = 2;
	e->causes = causes(1, &sub);
}

static void nt_call(uint32_t kind, bool offset, bool status)
{
	struct katra_event *e = ev(KATRA_SCOPE_WINDOWS_FACING, kind, KATRA_PAYLOAD_NT_CALL,
				   KATRA_RES_WIN_HANDLE, 0x44);

	e->payload.u.nt_call.handle = 0x44;
	e->payload.u.nt_call.length = 65536;
	if (offset)
		e->payload.u.nt_call.offset = (struct katra_opt_u64){ true, 1ull << 32 };
	if (status)
		e->payload.u.nt_call.status = (struct katra_opt_u32){ true, 0x103 };
}

static void build_windows(void)
{
	struct katra_event *e;
	uint64_t c;

	/* a wineserver's request names (empty, then three), then the calls they name */
	static const struct katra_str reqs[3] = {
		{ "new_process", 11 }, { "get_new_process_info", 20 }, { "new_thread", 10 },
	};
	e = ev(KATRA_SCOPE_WINE_PROTON, KATRA_KIND_WINE_SERVER_REQUESTS,
	       KATRA_PAYLOAD_WINE_SERVER_REQUESTS, KATRA_RES_PROCESS, 4243);
	e = ev(KATRA_SCOPE_WINE_PROTON, KATRA_KIND_WINE_SERVER_REQUESTS,
	       KATRA_PAYLOAD_WINE_SERVER_REQUESTS, KATRA_RES_PROCESS, 4243);
	e->payload.u.wine_server_requests.names = (struct katra_str_vec){ reqs, 3 };
	/* a unix library's call names (winevulkan.so's), by its handle in one
	 * process: entry 0 unnamed */
	static const struct katra_str calls[2] = { { "", 0 }, { "vkQueueSubmit", 13 } };
	e = ev(KATRA_SCOPE_WINE_PROTON, KATRA_KIND_WINE_UNIX_CALL_NAMES,
	       KATRA_PAYLOAD_WINE_SERVER_REQUESTS, KATRA_RES_WIN_HANDLE, 0x7f0012345900ull);
	e->payload.u.wine_server_requests.names = (struct katra_str_vec){ calls, 2 };

	e = span(ev(KATRA_SCOPE_WINDOWS_FACING, KATRA_KIND_NT_READ_FILE, KATRA_PAYLOAD_NT_CALL,
		    KATRA_RES_WIN_HANDLE, 0x44), KATRA_PHASE_BEGIN, 10);
	e->payload.u.nt_call.handle = 0x44;
	e->payload.u.nt_call.length = 4096;
	e->payload.u.nt_call.offset = (struct katra_opt_u64){ true, 0 };
	c = e->seq;
	e = ev(KATRA_SCOPE_WINE_PROTON, KATRA_KIND_WINE_SERVER_CALL,
	       KATRA_PAYLOAD_WINE_SERVER_CALL, KATRA_RES_NONE, 0);
	e->payload.u.wine_server_call.request = 57;
	e->payload.u.wine_server_call.status = (struct katra_opt_u32){ true, 0 };
	e->causes = causes(1, &c);
	e = ev(KATRA_SCOPE_WINE_PROTON, KATRA_KIND_WINE_SERVER_CALL,
	       KATRA_PAYLOAD_WINE_SERVER_CALL, KATRA_RES_NONE, 0);
	e->payload.u.wine_server_call.request = 2;
	e = ev(KATRA_SCOPE_WINE_PROTON, KATRA_KIND_WIN_TO_UNIX, KATRA_PAYLOAD_NONE,
	       KATRA_RES_NONE, 0);
	e->confidence = KATRA_CONFIDENCE_INFERRED;
	e = span(ev(KATRA_SCOPE_WINDOWS_FACING, KATRA_KIND_NT_READ_FILE, KATRA_PAYLOAD_NT_CALL,
		    KATRA_RES_WIN_HANDLE, 0x44), KATRA_PHASE_END, 10);
	e->payload.u.nt_call.handle = 0x44;
	e->payload.u.nt_call.length = 4096;
	e->payload.u.nt_call.status = (struct katra_opt_u32){ true, 0 };
	e->causes = causes(1, &c);

	nt_call(KATRA_KIND_NT_WRITE_FILE, true, true);
	nt_call(KATRA_KIND_NT_CREATE_FILE, false, true);
	nt_call(KATRA_KIND_NT_MAP_VIEW_OF_SECTION, true, false);
	nt_call(KATRA_KIND_NT_ALLOCATE_VIRTUAL_MEMORY, false, false);
	nt_call(KATRA_KIND_NT_CREATE_USER_PROCESS, false, true);

	e = ev(KATRA_SCOPE_WINDOWS_FACING, KATRA_KIND_NT_WAIT, KATRA_PAYLOAD_WAIT,
	       KATRA_RES_WIN_HANDLE, 0x48);
	e->payload.u.wait.handle = 0x48;
	e->payload.u.wait.count = 1;
	e->payload.u.wait.timeout_ns = (struct katra_opt_u64){ true, 1000000000ull };
	e = ev(KATRA_SCOPE_WINDOWS_FACING, KATRA_KIND_NT_DELAY_EXECUTION, KATRA_PAYLOAD_WAIT,
	       KATRA_RES_NONE, 0);
	e->payload.u.wait.handle = -2;
	e->payload.u.wait.timeout_ns = (struct katra_opt_u64){ true, 16000000 };

	/* a generic NT call: the name on the Begin only, the status on the End */
	e = span(ev(KATRA_SCOPE_WINDOWS_FACING, KATRA_KIND_NT_SYSCALL, KATRA_PAYLOAD_NT_SYSCALL,
		    KATRA_RES_NONE, 0), KATRA_PHASE_BEGIN, 11);
	e->payload.u.nt_syscall.number = 0x31;
	e->payload.u.nt_syscall.name =
		(struct katra_opt_str){ true, katra_cstr("NtQueryPerformanceCounter") };
	c = e->seq;
	e = span(ev(KATRA_SCOPE_WINDOWS_FACING, KATRA_KIND_NT_SYSCALL, KATRA_PAYLOAD_NT_SYSCALL,
		    KATRA_RES_NONE, 0), KATRA_PHASE_END, 11);
	e->payload.u.nt_syscall.number = 0x31;
	e->payload.u.nt_syscall.status = (struct katra_opt_u32){ true, 0 };
	e->causes = causes(1, &c);
}

static void build_gpu(void)
{
	struct katra_event *e;
	uint64_t c;

	e = span(ev(KATRA_SCOPE_D3D12_VKD3D, KATRA_KIND_VULKAN_QUEUE_SUBMIT, KATRA_PAYLOAD_VULKAN,
		    KATRA_RES_VULKAN_QUEUE, 0x1000), KATRA_PHASE_BEGIN, 20);
	e->thread_id = TID_GPU;
	e->request_id = (struct katra_opt_u64){ true, 1 };
	e->payload.u.vulkan.handle = 0x1000;
	e->payload.u.vulkan.count = 2;
	c = e->seq;
	e = span(ev(KATRA_SCOPE_VULKAN, KATRA_KIND_VULKAN_QUEUE_SUBMIT, KATRA_PAYLOAD_VULKAN,
		    KATRA_RES_VULKAN_QUEUE, 0x1000), KATRA_PHASE_END, 20);
	e->thread_id = TID_GPU;
	e->request_id = (struct katra_opt_u64){ true, 1 };
	e->payload.u.vulkan.handle = 0x1000;
	e->payload.u.vulkan.count = 2;
	e->payload.u.vulkan.result = (struct katra_opt_i32){ true, 0 };
	e->causes = causes(1, &c);
	e = ev(KATRA_SCOPE_VULKAN, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PAYLOAD_VULKAN,
	       KATRA_RES_VULKAN_QUEUE, 0x1000);
	e->thread_id = TID_GPU;
	e->payload.u.vulkan.handle = 0x1000;
	e->payload.u.vulkan.count = 1;
	e->payload.u.vulkan.result = (struct katra_opt_i32){ true, -1000001004 };
	e = ev(KATRA_SCOPE_GPU, KATRA_KIND_VULKAN_FENCE_WAIT, KATRA_PAYLOAD_VULKAN,
	       KATRA_RES_VULKAN_QUEUE, 0x1000);
	e->thread_id = TID_GPU;
	e->payload.u.vulkan.handle = 0x2000;
	e->payload.u.vulkan.count = 1;
	e->cost_estimate_ns = (struct katra_opt_u64){ true, 0 };
	e->confidence = KATRA_CONFIDENCE_ESTIMATED;
	/* a semaphore wait on the device; an acquire of image 2 of a swapchain */
	e = ev(KATRA_SCOPE_VULKAN, KATRA_KIND_VULKAN_SEMAPHORE_WAIT, KATRA_PAYLOAD_VULKAN,
	       KATRA_RES_NONE, 0);
	e->thread_id = TID_GPU;
	e->payload.u.vulkan.handle = 0x2000;
	e->payload.u.vulkan.count = 2;
	e->payload.u.vulkan.result = (struct katra_opt_i32){ true, 2 };
	e = ev(KATRA_SCOPE_VULKAN, KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE, KATRA_PAYLOAD_VULKAN,
	       KATRA_RES_NONE, 0);
	e->thread_id = TID_GPU;
	e->payload.u.vulkan.handle = 0x3000;
	e->payload.u.vulkan.count = 2;
	e->payload.u.vulkan.result = (struct katra_opt_i32){ true, 1000001003 };
	/* the D3D12 calls vkd3d implements: an ExecuteCommandLists span, then a
	 * queue Signal / Wait and a fence's SetEventOnCompletion / Signal */
	for (int end = 0; end < 2; end++) {
		e = span(ev(KATRA_SCOPE_D3D12_VKD3D, KATRA_KIND_D3D12_EXECUTE_COMMAND_LISTS,
			    KATRA_PAYLOAD_D3D12, KATRA_RES_D3D12_OBJECT, 0x7fff00001000ull),
			 end ? KATRA_PHASE_END : KATRA_PHASE_BEGIN, 21);
		e->thread_id = TID_GPU;
		e->payload.u.d3d12.object = 0x7fff00001000ull;
		e->payload.u.d3d12.count = 1;
		if (end)
			e->causes = causes(1, &c);
		c = e->seq;
	}
	for (uint32_t k = KATRA_KIND_D3D12_QUEUE_SIGNAL; k <= KATRA_KIND_D3D12_FENCE_SIGNAL; k++) {
		bool queue = k <= KATRA_KIND_D3D12_QUEUE_WAIT;
		uint64_t object = queue ? 0x7fff00001000ull : 0x7fff00002000ull;
		e = ev(KATRA_SCOPE_D3D12_VKD3D, k, KATRA_PAYLOAD_D3D12, KATRA_RES_D3D12_OBJECT, object);
		e->thread_id = TID_GPU;
		e->payload.u.d3d12.object = object;
		e->payload.u.d3d12.fence = 0x7fff00002000ull;
		e->payload.u.d3d12.value = k == KATRA_KIND_D3D12_FENCE_SIGNAL ? 8 : 7;
		e->payload.u.d3d12.event = k == KATRA_KIND_D3D12_FENCE_SET_EVENT ? 0xac : 0;
		e->payload.u.d3d12.result = (struct katra_opt_i32){ true, 0 };
	}
	/* a dma_fence timeline's names, then one fence's life: made, emitted,
	 * signal enabled, waited on (a span), signalled; a second freed unsignalled */
	e = ev(KATRA_SCOPE_GPU, KATRA_KIND_GPU_TIMELINE, KATRA_PAYLOAD_GPU_TIMELINE,
	       KATRA_RES_GPU_TIMELINE, 7);
	e->thread_id = TID_GPU;
	e->payload.u.gpu_timeline.context = 7;
	e->payload.u.gpu_timeline.driver = katra_cstr("vgem");
	e->payload.u.gpu_timeline.timeline = katra_cstr("file");
	for (uint32_t k = KATRA_KIND_GPU_FENCE_INIT; k <= KATRA_KIND_GPU_FENCE_DESTROY; k++) {
		if (k == KATRA_KIND_GPU_FENCE_WAIT) {
			for (int end = 0; end < 2; end++) {
				e = span(ev(KATRA_SCOPE_GPU, k, KATRA_PAYLOAD_GPU_FENCE,
					    KATRA_RES_GPU_TIMELINE, 7),
					 end ? KATRA_PHASE_END : KATRA_PHASE_BEGIN, 22);
				e->thread_id = TID_GPU;
				e->payload.u.gpu_fence.context = 7;
				e->payload.u.gpu_fence.seqno = 1;
				if (end)
					e->causes = causes(1, &c);
				c = e->seq;
			}
			continue;
		}
		e = ev(KATRA_SCOPE_GPU, k, KATRA_PAYLOAD_GPU_FENCE, KATRA_RES_GPU_TIMELINE, 7);
		e->thread_id = TID_GPU;
		e->request_id = (struct katra_opt_u64){ true, 7ull << 32 | 1 };
		e->payload.u.gpu_fence.context = 7;
		e->payload.u.gpu_fence.seqno = k == KATRA_KIND_GPU_FENCE_DESTROY ? 2 : 1;
	}
	/* a GPU scheduler job by its finished fence: queued, run, done */
	for (uint32_t k = KATRA_KIND_GPU_JOB_QUEUE; k <= KATRA_KIND_GPU_JOB_DONE; k++) {
		e = ev(KATRA_SCOPE_GPU, k, KATRA_PAYLOAD_GPU_FENCE, KATRA_RES_GPU_TIMELINE, 7);
		e->thread_id = TID_GPU;
		e->request_id = (struct katra_opt_u64){ true, 7ull << 32 | 3 };
		e->payload.u.gpu_fence.context = 7;
		e->payload.u.gpu_fence.seqno = 3;
	}
	/* a display's vblank, a vblank event asked for and delivered (CRTC 0, vblank 5) */
	for (uint32_t k = KATRA_KIND_GPU_VBLANK; k <= KATRA_KIND_GPU_VBLANK_DELIVERED; k++) {
		e = ev(KATRA_SCOPE_GPU, k, KATRA_PAYLOAD_GPU_VBLANK, KATRA_RES_DISPLAY_CRTC, 0);
		e->thread_id = TID_GPU;
		e->payload.u.gpu_vblank.crtc = 0;
		e->payload.u.gpu_vblank.sequence = 5;
	}
	/* a driver's command with fence 1 queued to its device (virtio_gpu's
	 * TRANSFER_TO_HOST_2D, fenced) and the device's response (OK_NODATA) */
	for (uint32_t k = KATRA_KIND_GPU_CMD_QUEUE; k <= KATRA_KIND_GPU_CMD_RESPONSE; k++) {
		e = ev(KATRA_SCOPE_GPU, k, KATRA_PAYLOAD_GPU_CMD, KATRA_RES_GPU_TIMELINE, 7);
		e->thread_id = TID_GPU;
		e->request_id = (struct katra_opt_u64){ true, 7ull << 32 | 1 };
		e->payload.u.gpu_cmd.cmd_type = k == KATRA_KIND_GPU_CMD_QUEUE ? 0x0105 : 0x1100;
		e->payload.u.gpu_cmd.flags = 1;
		e->payload.u.gpu_cmd.fence_id = 1;
		e->payload.u.gpu_cmd.ctx_id = 0;
	}
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXIT, KATRA_PAYLOAD_TASK_EXIT, KATRA_RES_THREAD,
	       TID_GPU);
	e->thread_id = TID_GPU;
	e->payload.u.task_exit.exit_code = 0;
	e->payload.u.task_exit.group_dead = false;
}

/* Katra-native events; the Drop events mirror the summary's drops[]. */
static void build_katra(void)
{
	static const uint64_t drop_counts[KATRA_DROP_SOURCE_COUNT] = { 12, 3, 1, 0, 7, 2, 5, 9 };
	struct katra_event *e;
	uint32_t s;

	for (s = 0; s < KATRA_ORIGIN_COUNT; s++) {
		e = ev(KATRA_SCOPE_KATRA, KATRA_KIND_PROCESS_INFO, KATRA_PAYLOAD_PROCESS_INFO,
		       KATRA_RES_PROCESS, 4242);
		e->payload.u.process_info.comm = katra_cstr("Game.exe");
		if (s & 1)
			e->payload.u.process_info.exe_path =
				(struct katra_opt_str){ true, katra_cstr("/opt/game/Game.exe") };
		if (s % 3)
			e->payload.u.process_info.windows_image =
				(struct katra_opt_str){ true, katra_cstr("C:\\Game\\Game.exe") };
		e->payload.u.process_info.origin = s;
	}
	/* a thread's new name (prctl(PR_SET_NAME)) */
	e = ev(KATRA_SCOPE_LINUX, KATRA_KIND_TASK_RENAME, KATRA_PAYLOAD_TASK_RENAME,
	       KATRA_RES_THREAD, 4243);
	e->payload.u.task_rename.comm = katra_cstr("render");
	e = ev(KATRA_SCOPE_KATRA, KATRA_KIND_EPOCH, KATRA_PAYLOAD_NONE, KATRA_RES_NONE, 0);
	e = ev(KATRA_SCOPE_KATRA, KATRA_KIND_COUNTER, KATRA_PAYLOAD_NONE, KATRA_RES_RING, 0);
	for (s = 0; s < KATRA_DROP_SOURCE_COUNT; s++) {
		e = ev(KATRA_SCOPE_KATRA, KATRA_KIND_DROP, KATRA_PAYLOAD_DROP, KATRA_RES_RING, s);
		e->payload.u.drop.source = s;
		e->payload.u.drop.instance = s;
		e->payload.u.drop.count = drop_counts[s];
		drops[s] = (struct katra_drop_count){ s, s, drop_counts[s] };
	}
}

/* A stack of a process's off-CPU interval: its two modules, the stack (a
 * frame of each module and one outside them), the citation */
static const struct katra_stack_frame sample_frames[] = {
	{ 2, 0xcf503 }, { 1, 0x1404 }, { 0, 0x7ffd12345678 },
};
static const struct katra_str sample_kernel[] = {
	{ "do_nanosleep+0x5e", 17 }, { "hrtimer_nanosleep+0xb5", 22 },
};
/* the game's frame named by the recorder */
static const struct katra_symbol_name sample_symbols[] = {
	{ 0x1404, { "wait_for_frame", 14 }, 0x24 },
};

static void build_stacks(void)
{
	struct katra_record *r = add(KATRA_RECORD_MODULE);

	r->u.module = (struct katra_module){
		.id = 1, .name = katra_cstr("game"),
		.build_id = katra_cstr("b9e7d172173609569f999c8c718eaade4db63709")
	};
	r = add(KATRA_RECORD_MODULE);
	r->u.module = (struct katra_module){ 2, katra_cstr("libc.so.6"), katra_cstr(""), false,
					     { 0 } };
	r = add(KATRA_RECORD_MODULE);
	r->u.module = (struct katra_module){
		3, katra_cstr("d3d11.dll"), katra_cstr(""), true,
		{ 0x65432100, 0x400000, katra_cstr("1f2e3d4c5b6a79881f2e3d4c5b6a7988"), 1,
		  katra_cstr("d3d11.pdb") }
	};
	r = add(KATRA_RECORD_STACK);
	r->u.stack = (struct katra_stack){ 1, sample_frames, 3, { sample_kernel, 2 }, true };
	r = add(KATRA_RECORD_SYMBOLS);
	r->u.symbols = (struct katra_symbols){ 1, sample_symbols, 1 };
	r = add(KATRA_RECORD_STACK_OF);
	r->u.stack_of = (struct katra_stack_of){ 1, 4243, 4242, 1500000, 3000000,
						 KATRA_SITE_OFF_CPU };
	r = add(KATRA_RECORD_STACK_OF);
	r->u.stack_of = (struct katra_stack_of){ 1, 4243, 4242, 1400000, 3200000,
						 KATRA_SITE_SYSCALL };
	r = add(KATRA_RECORD_STACK_OF);
	r->u.stack_of = (struct katra_stack_of){ 1, 4243, 4242, 1450000, 10101010,
						 KATRA_SITE_SAMPLE };
}

static void build_summary(void)
{
	struct katra_summary *s;
	uint64_t counts[KATRA_KIND_COUNT] = { 0 };
	uint64_t ev_n = 0, ep_n = 0, ctr_n = 0, inferred = 0, dropped = 0;
	uint64_t last_ts = 0, threads[8], procs[8];
	size_t nthreads = 0, nprocs = 0, i, j, k = 0;

	for (i = 0; i < nrecords; i++) {
		const struct katra_record *r = &records[i];
		const struct katra_event *e = &r->u.event;

		if (r->type == KATRA_RECORD_EPOCH_MARKER) {
			ep_n++;
			last_ts = r->u.epoch.ts_mono_ns;
			continue;
		}
		if (r->type == KATRA_RECORD_COUNTER) {
			ctr_n++;
			last_ts = r->u.counter.ts_mono_ns;
			continue;
		}
		if (r->type != KATRA_RECORD_EVENT)
			continue;
		ev_n++;
		counts[e->kind]++;
		inferred += e->confidence == KATRA_CONFIDENCE_INFERRED;
		last_ts = e->ts_mono_ns;
		for (j = 0; j < nthreads && threads[j] != e->thread_id; j++)
			;
		if (j == nthreads && e->thread_id) /* distinct nonzero ids (SPEC 5.6) */
			threads[nthreads++] = e->thread_id;
		for (j = 0; j < nprocs && procs[j] != e->process_id; j++)
			;
		if (j == nprocs && e->process_id)
			procs[nprocs++] = e->process_id;
	}
	for (i = 0; i < KATRA_KIND_COUNT; i++)
		if (counts[i])
			by_kind[k++] = (struct katra_kind_count){ (uint32_t)i, counts[i] };
	for (i = 0; i < KATRA_DROP_SOURCE_COUNT; i++)
		dropped += drops[i].count;

	s = &add(KATRA_RECORD_SESSION_SUMMARY)->u.summary;
	s->event_count = ev_n;
	s->epoch_count = ep_n;
	s->counter_count = ctr_n;
	s->duration_ns = last_ts;
	s->events_by_kind = by_kind;
	s->events_by_kind_len = k;
	s->dropped_events = dropped;
	s->drops = drops;
	s->drops_len = KATRA_DROP_SOURCE_COUNT;
	s->inferred_events = inferred;
	s->probes_attached = (struct katra_str_vec){ probes_attached, 2 };
	s->probes_failed = (struct katra_str_vec){ NULL, 0 };
	s->processes_seen = nprocs;
	s->threads_seen = nthreads;
}

static void build(void)
{
	if (built)
		return;
	header_copy = header;
	header_copy.schema_hash = katra_schema_hash;

	epoch(KATRA_EPOCH_CAPTURE_START, 0, "");
	counter(KATRA_COUNTER_RING_CAPACITY_BYTES, 0, 1u << 20);
	build_linux();
	counter(KATRA_COUNTER_RING_FILL_BYTES, 0, 4096);
	counter(KATRA_COUNTER_OPEN_SPANS, 0, 0);
	epoch(KATRA_EPOCH_SIGNAL, 1, "SIGUSR1");
	build_process();
	build_io_uring();
	epoch(KATRA_EPOCH_FIFO, 2, "frame 1");
	build_windows();
	epoch(KATRA_EPOCH_USER, 3, "sc\xc3\xa8ne \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\xae");
	build_gpu();
	build_katra();
	counter(KATRA_COUNTER_EVENTS_RECORDED, 0, 0);
	counter(KATRA_COUNTER_EVENTS_DROPPED, 1, 23);
	counter(KATRA_COUNTER_BYTES_WRITTEN, 0, 0xffffffffffffffffull);
	/* the GPU layer's totals of one fence context (instance) */
	for (uint32_t k = KATRA_COUNTER_GPU_OTHER_FENCES; k <= KATRA_COUNTER_GPU_RING_BUSY_NS; k++)
		counter(k, 7, 1000 + k);
	epoch(KATRA_EPOCH_FRAME, 4, "frame 1 (pid 4242, swapchain 0x55d0c8a1b2c0)");
	epoch(KATRA_EPOCH_CAPTURE_END, 5, "capture end");
	build_stacks();
	build_summary();
	built = true;
}

const struct katra_header *katra_sample_header(void)
{
	build();
	return &header_copy;
}

size_t katra_sample_count(void)
{
	build();
	return nrecords;
}

const struct katra_record *katra_sample_record(size_t i)
{
	build();
	return i < nrecords ? &records[i] : NULL;
}

int katra_sample_write(const char *path)
{
	struct katra_writer *w = NULL;
	size_t i;
	int err, cerr;

	build();
	err = katra_writer_open(&w, path, &header_copy, KATRA_WRITER_OVERWRITE);
	if (err)
		return err;
	for (i = 0; i + 1 < nrecords && !err; i++)
		err = katra_writer_append(w, &records[i]);
	if (!err)
		err = katra_writer_finish(w, &records[nrecords - 1].u.summary);
	cerr = katra_writer_close(w);
	return err ? err : cerr;
}
