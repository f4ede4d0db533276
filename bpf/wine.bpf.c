// SPDX-License-Identifier: GPL-2.0-only
/* Wine's Unix-side ntdll.so: the NT calls a Windows program makes (reached
 * through Wine's syscall dispatcher, with the Windows x64 calling convention
 * in Wine 8, System V in Wine 10: NT_ARGS), wine_server_call, and the Win->Unix
 * call dispatcher.  One entry program per function ("up_" + its exported
 * name, attached by user/record/uprobes/uprobes.c), one return program per layer.
 * Records: struct katra_ev_ucall (wire.h), rules in ucall.bpf.h. */
#include "ucall.bpf.h"

/* The ntdll.so files whose syscall dispatcher is probed, by slot (the
 * uprobes' attach cookie): struct katra_nt_file (wire.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KATRA_NT_FILES);
	__type(key, __u32);
	__type(value, struct katra_nt_file);
} nt_files SEC(".maps");

/* The registers (Windows x64: rcx, rdx, r8, r9) are read once, first. */
#define UC_ENTRY(call_id)                                                             \
	__u64 pid_tgid = bpf_get_current_pid_tgid();                                  \
	struct ucall_state st = {};                                                   \
	__u64 start, sp = UREG(ctx, sp), cx = UREG(ctx, cx), dx = UREG(ctx, dx);      \
	__u64 r8 = UREG(ctx, r8), r9 = UREG(ctx, r9), r10 = UREG(ctx, r10);          \
	(void)cx, (void)dx, (void)r8, (void)r9, (void)r10;                            \
	if (!katra_tracked(pid_tgid >> 32))                                           \
		return 0;                                                             \
	start = ucall_task_start();                                                   \
	if (!ucall_is_outer(pid_tgid, KATRA_UC_LAYER_OF(call_id), sp, start))         \
		return 0;                                                             \
	st.start_time = start;                                                        \
	st.sp = sp;                                                                   \
	st.call = call_id;                                                            \
	st.depth = 1

/* ---- issue 19: the build's calling convention (begin) ---- */
/* The probe's attach cookie says how this ntdll.so passes arguments
 * (KATRA_NT_ABI_SYSV, wire.h; decided by uprobes_wine.c from the build's own
 * code).  Without attach cookies (Linux < 5.15) only the Windows convention
 * is attached. */
static __always_inline bool nt_sysv(struct pt_regs *ctx)
{
	return have_attach_cookie && (bpf_get_attach_cookie(ctx) & KATRA_NT_ABI_SYSV);
}

/* Arguments 0..N-1 of an NT function at its entry (a[] holds at least 6):
 * Windows x64 (rcx, rdx, r8, r9, then sp + 8 return address + 32 shadow
 * space) or System V (rdi, rsi, rdx, rcx, r8, r9, then sp + 8). */
#define NT_ARGS(ctx, sp, a, n)                                                        	do {                                                                          		if (nt_sysv(ctx)) {                                                   			(a)[0] = UREG(ctx, di);                                       			(a)[1] = UREG(ctx, si);                                       			(a)[2] = UREG(ctx, dx);                                       			(a)[3] = UREG(ctx, cx);                                       			(a)[4] = UREG(ctx, r8);                                       			(a)[5] = UREG(ctx, r9);                                       			if ((n) > 6)                                                  				bpf_probe_read_user(&(a)[6], ((n) - 6) * 8,           						    (void *)((sp) + 8));              		} else {                                                              			(a)[0] = UREG(ctx, cx);                                       			(a)[1] = UREG(ctx, dx);                                       			(a)[2] = UREG(ctx, r8);                                       			(a)[3] = UREG(ctx, r9);                                       			if ((n) > 4)                                                  				bpf_probe_read_user(&(a)[4], ((n) - 4) * 8,           						    (void *)((sp) + 40));             		}                                                                     	} while (0)
/* ---- issue 19: the build's calling convention (end) ---- */

/* NtReadFile / NtWriteFile (handle, event, apc, apc_user, io, buffer,
 * length, offset, key) */
static __always_inline int nt_rw(struct pt_regs *ctx, __u32 call)
{
	__u64 a[8] = {};

	UC_ENTRY(call);
	NT_ARGS(ctx, sp, a, 8);
	st.a[0] = a[0];
	st.a[1] = (__u32)a[6];
	if (a[7]) {
		st.a[2] = ucall_read_u64(a[7]);
		st.flags |= KATRA_UC_A2_VALID;
	}
	st.a[3] = a[1];
	st.ptr[0] = a[4];
	st.enter_ret = a[5]; /* the buffer: what a later completion fills */
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

SEC("uprobe")
int up_NtReadFile(struct pt_regs *ctx)
{
	return nt_rw(ctx, KATRA_UC_NT_READ_FILE);
}

SEC("uprobe")
int up_NtWriteFile(struct pt_regs *ctx)
{
	return nt_rw(ctx, KATRA_UC_NT_WRITE_FILE);
}

/* NtCreateFile (handle_ptr, access, attr, io, alloc_size, attributes,
 * sharing, disposition, options, ea_buffer, ea_length) */
SEC("uprobe")
int up_NtCreateFile(struct pt_regs *ctx)
{
	__u64 a[9] = {};

	UC_ENTRY(KATRA_UC_NT_CREATE_FILE);
	NT_ARGS(ctx, sp, a, 9);
	st.a[1] = (__u32)a[1];
	st.a[2] = (__u32)a[7];
	st.a[3] = (__u32)a[8];
	st.ptr[0] = a[0];
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* NtWaitForSingleObject (handle, alertable, timeout) */
SEC("uprobe")
int up_NtWaitForSingleObject(struct pt_regs *ctx)
{
	__u64 a[6] = {};

	UC_ENTRY(KATRA_UC_NT_WAIT_SINGLE);
	NT_ARGS(ctx, sp, a, 3);
	st.a[0] = a[0];
	st.a[1] = 1;
	if (a[2]) {
		st.a[2] = ucall_read_u64(a[2]);
		st.flags |= KATRA_UC_A2_VALID;
	}
	st.a[3] = (__u8)a[1];
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* NtWaitForMultipleObjects (count, handles, wait_any, alertable, timeout) */
SEC("uprobe")
int up_NtWaitForMultipleObjects(struct pt_regs *ctx)
{
	__u64 a[6] = {};

	UC_ENTRY(KATRA_UC_NT_WAIT_MULTIPLE);
	NT_ARGS(ctx, sp, a, 5);
	st.a[1] = (__u32)a[0];
	if (st.a[1])
		st.a[0] = ucall_read_u64(a[1]);
	if (a[4]) {
		st.a[2] = ucall_read_u64(a[4]);
		st.flags |= KATRA_UC_A2_VALID;
	}
	st.a[3] = ((__u8)a[3] ? 1 : 0) | ((__u8)a[2] ? 2 : 0);
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* NtDelayExecution (alertable, timeout) */
SEC("uprobe")
int up_NtDelayExecution(struct pt_regs *ctx)
{
	__u64 a[6] = {};

	UC_ENTRY(KATRA_UC_NT_DELAY_EXECUTION);
	NT_ARGS(ctx, sp, a, 2);
	st.a[1] = (__u8)a[0];
	if (a[1]) {
		st.a[2] = ucall_read_u64(a[1]);
		st.flags |= KATRA_UC_A2_VALID;
	}
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* NtMapViewOfSection (section, process, addr_ptr, zero_bits, commit_size,
 * offset_ptr, size_ptr, inherit, alloc_type, protect) */
SEC("uprobe")
int up_NtMapViewOfSection(struct pt_regs *ctx)
{
	__u64 a[7] = {};

	UC_ENTRY(KATRA_UC_NT_MAP_VIEW_OF_SECTION);
	NT_ARGS(ctx, sp, a, 7);
	st.a[0] = a[0];
	st.a[1] = ucall_read_u64(a[6]);
	if (a[5]) {
		st.a[2] = ucall_read_u64(a[5]);
		st.flags |= KATRA_UC_A2_VALID;
	}
	st.a[3] = ucall_read_u64(a[2]);
	st.ptr[0] = a[2]; /* base */
	st.ptr[1] = a[6]; /* size */
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* NtAllocateVirtualMemory (process, base_ptr, zero_bits, size_ptr, type,
 * protect) */
SEC("uprobe")
int up_NtAllocateVirtualMemory(struct pt_regs *ctx)
{
	__u64 a[6] = {};

	UC_ENTRY(KATRA_UC_NT_ALLOCATE_VIRTUAL_MEMORY);
	NT_ARGS(ctx, sp, a, 6);
	st.a[0] = a[0];
	st.a[1] = ucall_read_u64(a[3]);
	st.a[2] = ucall_read_u64(a[1]);
	st.a[3] = (__u32)a[4] | ((__u64)(__u32)a[5] << 32);
	st.ptr[0] = a[1]; /* base */
	st.ptr[1] = a[3]; /* size */
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* NtCreateUserProcess (process_handle_ptr, thread_handle_ptr, process_access,
 * thread_access, process_attr, thread_attr, process_flags, thread_flags,
 * params, info, attr) */
SEC("uprobe")
int up_NtCreateUserProcess(struct pt_regs *ctx)
{
	__u64 a[8] = {};

	UC_ENTRY(KATRA_UC_NT_CREATE_USER_PROCESS);
	NT_ARGS(ctx, sp, a, 8);
	st.a[1] = (__u32)a[6];
	st.a[2] = (__u32)a[7];
	st.ptr[0] = a[0];
	st.ptr[1] = a[1];
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

/* The return of any NT call above (one program, attached as the uretprobe of
 * each): out-parameters by the remembered call. */
SEC("uretprobe")
int ur_nt(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);
	struct ucall_state *st;
	__u32 flags = 0;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	st = ucall_returning(pid_tgid, KATRA_UC_LAYER_NT, sp);
	if (!st)
		return 0;
	a[0] = st->a[0];
	a[1] = st->a[1];
	a[2] = st->a[2];
	a[3] = st->a[3];
	flags = st->flags & KATRA_UC_A2_VALID;
	switch (st->call) {
	case KATRA_UC_NT_READ_FILE:
	case KATRA_UC_NT_WRITE_FILE:
		/* IO_STATUS_BLOCK { Status/Pointer; ULONG_PTR Information } */
		a[1] = st->ptr[0] ? ucall_read_u64(st->ptr[0] + 8) : 0;
		flags |= st->ptr[0] ? KATRA_UC_A1_VALID : 0;
		break;
	case KATRA_UC_NT_CREATE_FILE:
		a[0] = ucall_read_u64(st->ptr[0]);
		break;
	case KATRA_UC_NT_MAP_VIEW_OF_SECTION:
		a[1] = ucall_read_u64(st->ptr[1]);
		a[3] = ucall_read_u64(st->ptr[0]);
		break;
	case KATRA_UC_NT_ALLOCATE_VIRTUAL_MEMORY:
		a[1] = ucall_read_u64(st->ptr[1]);
		a[2] = ucall_read_u64(st->ptr[0]);
		break;
	case KATRA_UC_NT_CREATE_USER_PROCESS:
		a[0] = ucall_read_u64(st->ptr[0]);
		a[1] = ucall_read_u64(st->ptr[1]);
		break;
	default:
		break;
	}
	return ucall_end(pid_tgid, KATRA_UC_LAYER_NT, st, a, flags, (__s32)ax);
}

/* Every NT call a Windows program makes, at Wine's syscall dispatcher: a
 * uprobe on its `call *(%r10,%rax,8)` (rax: the number, r10: the table,
 * rsp: the unix stack with the arguments copied) and one on the instruction
 * after it (rax: the NTSTATUS).  Not a uretprobe: the dispatcher saves and
 * restores the frame itself.  The numbers a function probe of their own
 * writes are skipped (that probe wins), so are other tables' (win32u's:
 * their user callbacks would nest).  A dispatcher entry always starts an
 * outer NT call (a call still open on the thread was left without
 * returning: dispatcher entries nest only through user callbacks). */
SEC("uprobe")
int up_nt_syscall(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ip = UREG(ctx, ip), ax = UREG(ctx, ax), r10 = UREG(ctx, r10);
	struct ucall_state st = {};
	struct katra_nt_file *f;
	__u32 slot = 0, nr;

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	if (have_attach_cookie)
		slot = (__u32)bpf_get_attach_cookie(ctx);
	f = bpf_map_lookup_elem(&nt_files, &slot);
	if (!f || !f->call_vaddr)
		return 0;
	if (r10 - (ip - f->call_vaddr) != f->table_vaddr)
		return 0;
	nr = (__u32)ax;
	if (nr >= f->count || nr >= KATRA_NT_SKIP_WORDS * 64)
		return 0;
	if (f->skip[(nr >> 6) & (KATRA_NT_SKIP_WORDS - 1)] & (1ull << (nr & 63)))
		return 0;
	st.start_time = ucall_task_start();
	st.sp = sp - 8; /* as at the called function's entry */
	st.call = KATRA_UC_NT_SYSCALL;
	st.depth = 1;
	st.a[0] = nr;
	st.a[3] = slot;
	st.ptr[0] = ip + 4; /* the return address of the call */
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_NT, &st);
}

SEC("uprobe")
int up_nt_syscall_ret(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);
	__u64 key = ucall_key(pid_tgid, KATRA_UC_LAYER_NT);
	struct ucall_state *st;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	st = bpf_map_lookup_elem(&ucall_states, &key);
	if (!st || st->call != KATRA_UC_NT_SYSCALL)
		return 0;
	if (st->start_time != ucall_task_start() || sp > st->sp + 8) {
		bpf_map_delete_elem(&ucall_states, &key);
		return 0;
	}
	if (sp < st->sp + 8)
		return 0; /* a dispatcher return inside it (a user callback's call) */
	a[0] = st->a[0];
	a[1] = a[2] = 0;
	a[3] = st->a[3];
	return ucall_end(pid_tgid, KATRA_UC_LAYER_NT, st, a, 0, (__s32)ax);
}

/* wine_server_call (req): the request number is the first int of the
 * request (struct request_header.req in Wine's server protocol). */
SEC("uprobe")
int up_wine_server_call(struct pt_regs *ctx)
{
	UC_ENTRY(KATRA_UC_WINE_SERVER_CALL);
	st.a[0] = ucall_read_u32(nt_sysv(ctx) ? UREG(ctx, di) : cx);
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_SERVER, &st);
}

SEC("uretprobe")
int ur_server(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);
	struct ucall_state *st;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	st = ucall_returning(pid_tgid, KATRA_UC_LAYER_SERVER, sp);
	if (!st)
		return 0;
	a[0] = st->a[0];
	a[1] = a[2] = a[3] = 0;
	return ucall_end(pid_tgid, KATRA_UC_LAYER_SERVER, st, a, 0, (__s32)ax);
}

/* The Win->Unix call dispatcher, after its prologue (the exported
 * __wine_unix_call_dispatcher_prolog_end of Wine 8) or at its call (Wine 10):
 * r10 = the unixlib handle, rdx = the function index, r8 = the arguments; its
 * return address is already popped.  No uretprobe: the dispatcher switches stacks, and a uretprobe's
 * bookkeeping assumes one stack; its return is a second uprobe, on the
 * instruction after its `call *(%r10,%rdx,8)`.  Nested dispatcher calls (a
 * user callback inside a unix call) are counted by depth. */
SEC("uprobe")
int up_unix_call(struct pt_regs *ctx)
{
	UC_ENTRY(KATRA_UC_WINE_UNIX_CALL);
	st.a[0] = r10;
	st.a[1] = (__u32)dx;
	st.a[2] = r8;
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_UNIX, &st);
}

SEC("uprobe")
int up_unix_call_ret(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 ax = UREG(ctx, ax);
	__u64 key = ucall_key(pid_tgid, KATRA_UC_LAYER_UNIX);
	struct ucall_state *st;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	st = bpf_map_lookup_elem(&ucall_states, &key);
	if (!st)
		return 0;
	if (st->start_time != ucall_task_start()) {
		bpf_map_delete_elem(&ucall_states, &key);
		return 0;
	}
	if (st->depth > 1) {
		st->depth--;
		return 0;
	}
	a[0] = st->a[0];
	a[1] = st->a[1];
	a[2] = a[3] = 0;
	return ucall_end(pid_tgid, KATRA_UC_LAYER_UNIX, st, a, 0, (__s32)ax);
}
