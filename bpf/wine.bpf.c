// SPDX-License-Identifier: GPL-2.0-only
/* Wine's Unix-side ntdll.so: the NT calls a Windows program makes (reached
 * through Wine's syscall dispatcher, with the Windows x64 calling convention
 * in Wine 8, System V in Wine 10: nt_args), wine_server_call, and the Win->Unix
 * call dispatcher.  One entry program per function ("up_" + its exported
 * name, attached by user/record/uprobes/uprobes.c), one return program per layer.
 * Records: struct katra_ev_ucall (wire.h), rules in ucall.bpf.h. */
#include "ntstack.bpf.h"

/* The ntdll.so files whose syscall dispatcher is probed, by slot (the
 * uprobes' attach cookie): struct katra_nt_file (wire.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KATRA_NT_FILES);
	__type(key, __u32);
	__type(value, struct katra_nt_file);
} nt_files SEC(".maps");

/* The probe's attach cookie says how this ntdll.so passes arguments
 * (KATRA_NT_ABI_SYSV, wire.h; decided by uprobes_wine.c from the build's own
 * code, never assumed).  Without attach cookies (Linux < 5.15) only the
 * Windows convention is attached. */
static __always_inline bool nt_sysv(struct pt_regs *ctx)
{
	return have_attach_cookie && (bpf_get_attach_cookie(ctx) & KATRA_NT_ABI_SYSV);
}

/* The NT functions' registers by the build's convention.  Every register is
 * read before the choice: loads from ctx chosen by a branch were merged into
 * one load at a variable offset, which the verifier refuses. */
static __always_inline struct ucall_regs nt_regs(struct pt_regs *ctx)
{
	__u64 sp = UREG(ctx, sp), di = UREG(ctx, di), si = UREG(ctx, si), dx = UREG(ctx, dx),
	      cx = UREG(ctx, cx), r8 = UREG(ctx, r8), r9 = UREG(ctx, r9);

	asm volatile("" : "+r"(di), "+r"(si), "+r"(dx), "+r"(cx), "+r"(r8), "+r"(r9));
	if (nt_sysv(ctx))
		return (struct ucall_regs){ sp, { di, si, dx, cx, r8, r9 }, 6, 8 };
	return (struct ucall_regs){ sp, { cx, dx, r8, r9, 0, 0 }, 4, 40 };
}

#define UCALL_ABI_NT(ctx) nt_regs(ctx)

/* Arguments 0..n-1 of an NT function at its entry, whichever the convention
 * (n a constant, at most 9: a[] holds 9). */
static __always_inline void nt_args(const struct ucall_regs *r, __u64 *a, __u32 n)
{
	a[0] = r->r[0];
	a[1] = r->r[1];
	a[2] = r->r[2];
	a[3] = r->r[3];
	if (r->nregs == 6) {
		a[4] = r->r[4];
		a[5] = r->r[5];
		if (n > 6)
			bpf_probe_read_user(&a[6], (n - 6) * 8, (void *)(r->sp + 8));
	} else if (n > 4) {
		bpf_probe_read_user(&a[4], (n - 4) * 8, (void *)(r->sp + 40));
	}
}

/* NtReadFile / NtWriteFile (handle, event, apc, apc_user, io, buffer,
 * length, offset, key) */
static __always_inline void nt_rw(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 8);
	st->a[0] = a[0];
	st->a[1] = (__u32)a[6];
	if (a[7]) {
		st->a[2] = ucall_read_u64(a[7]);
		st->flags |= KATRA_UC_A2_VALID;
	}
	st->a[3] = a[1];
	st->ptr[0] = a[4];
	st->enter_ret = a[5]; /* the buffer: what a later completion fills */
}

/* NtCreateFile (handle_ptr, access, attr, io, alloc_size, attributes,
 * sharing, disposition, options, ea_buffer, ea_length) */
static __always_inline void nt_create_file(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 9);
	st->a[1] = (__u32)a[1];
	st->a[2] = (__u32)a[7];
	st->a[3] = (__u32)a[8];
	st->ptr[0] = a[0];
}

/* NtWaitForSingleObject (handle, alertable, timeout) */
static __always_inline void nt_wait_single(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 3);
	st->a[0] = a[0];
	st->a[1] = 1;
	if (a[2]) {
		st->a[2] = ucall_read_u64(a[2]);
		st->flags |= KATRA_UC_A2_VALID;
	}
	st->a[3] = (__u8)a[1];
}

/* NtWaitForMultipleObjects (count, handles, wait_any, alertable, timeout) */
static __always_inline void nt_wait_multiple(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 5);
	st->a[1] = (__u32)a[0];
	if (st->a[1])
		st->a[0] = ucall_read_u64(a[1]);
	if (a[4]) {
		st->a[2] = ucall_read_u64(a[4]);
		st->flags |= KATRA_UC_A2_VALID;
	}
	st->a[3] = ((__u8)a[3] ? 1 : 0) | ((__u8)a[2] ? 2 : 0);
}

/* NtDelayExecution (alertable, timeout) */
static __always_inline void nt_delay(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 2);
	st->a[1] = (__u8)a[0];
	if (a[1]) {
		st->a[2] = ucall_read_u64(a[1]);
		st->flags |= KATRA_UC_A2_VALID;
	}
}

/* NtMapViewOfSection (section, process, addr_ptr, zero_bits, commit_size,
 * offset_ptr, size_ptr, inherit, alloc_type, protect) */
static __always_inline void nt_map_view(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 7);
	st->a[0] = a[0];
	st->a[1] = ucall_read_u64(a[6]);
	if (a[5]) {
		st->a[2] = ucall_read_u64(a[5]);
		st->flags |= KATRA_UC_A2_VALID;
	}
	st->a[3] = ucall_read_u64(a[2]);
	st->ptr[0] = a[2]; /* base */
	st->ptr[1] = a[6]; /* size */
}

/* NtAllocateVirtualMemory (process, base_ptr, zero_bits, size_ptr, type,
 * protect) */
static __always_inline void nt_alloc_vm(struct ucall_state *st, const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 6);
	st->a[0] = a[0];
	st->a[1] = ucall_read_u64(a[3]);
	st->a[2] = ucall_read_u64(a[1]);
	st->a[3] = (__u32)a[4] | ((__u64)(__u32)a[5] << 32);
	st->ptr[0] = a[1]; /* base */
	st->ptr[1] = a[3]; /* size */
}

/* NtCreateUserProcess (process_handle_ptr, thread_handle_ptr, process_access,
 * thread_access, process_attr, thread_attr, process_flags, thread_flags,
 * params, info, attr) */
static __always_inline void nt_create_process(struct ucall_state *st,
					      const struct ucall_regs *r)
{
	__u64 a[9] = {};

	nt_args(r, a, 8);
	st->a[1] = (__u32)a[6];
	st->a[2] = (__u32)a[7];
	st->ptr[0] = a[0];
	st->ptr[1] = a[1];
}

#define NT_PROBE(name, call, decode) NT_ENTRY_PROBE(name, UCALL_ABI_NT, call, decode)

NT_PROBE(NtReadFile, KATRA_UC_NT_READ_FILE, nt_rw)
NT_PROBE(NtWriteFile, KATRA_UC_NT_WRITE_FILE, nt_rw)
NT_PROBE(NtCreateFile, KATRA_UC_NT_CREATE_FILE, nt_create_file)
NT_PROBE(NtWaitForSingleObject, KATRA_UC_NT_WAIT_SINGLE, nt_wait_single)
NT_PROBE(NtWaitForMultipleObjects, KATRA_UC_NT_WAIT_MULTIPLE, nt_wait_multiple)
NT_PROBE(NtDelayExecution, KATRA_UC_NT_DELAY_EXECUTION, nt_delay)
NT_PROBE(NtMapViewOfSection, KATRA_UC_NT_MAP_VIEW_OF_SECTION, nt_map_view)
NT_PROBE(NtAllocateVirtualMemory, KATRA_UC_NT_ALLOCATE_VIRTUAL_MEMORY, nt_alloc_vm)
NT_PROBE(NtCreateUserProcess, KATRA_UC_NT_CREATE_USER_PROCESS, nt_create_process)

/* The return of any NT call above (one program, attached as the uretprobe of
 * each): out-parameters by the remembered call. */
static __always_inline void nt_returned(const struct ucall_state *st, __u64 *a, __u32 *flags)
{
	*flags &= KATRA_UC_A2_VALID;
	switch (st->call) {
	case KATRA_UC_NT_READ_FILE:
	case KATRA_UC_NT_WRITE_FILE:
		/* IO_STATUS_BLOCK { Status/Pointer; ULONG_PTR Information } */
		a[1] = st->ptr[0] ? ucall_read_u64(st->ptr[0] + 8) : 0;
		*flags |= st->ptr[0] ? KATRA_UC_A1_VALID : 0;
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
}

NT_RETURN_PROBE(ur_nt, nt_returned)

/* Every NT call a Windows program makes, at Wine's syscall dispatcher: a
 * uprobe on its `call *(%r10,%rax,8)` (rax: the number within its table,
 * r10: the table, rbx: the thread's entry for that table in its table of
 * tables, rbp: the dispatcher's frame, rsp: the unix stack with the
 * arguments copied) and one on the instruction after it (rax: the
 * NTSTATUS).  Not a uretprobe: the dispatcher saves and restores the frame
 * itself.  ntdll's table (0) is the file's own; win32u's (1) is the one
 * whose previous entry in the table of tables is ntdll's
 * (KATRA_NT_FILE_TABLE1): written as 0x1000 | n.  The numbers of table 0 a
 * function probe of their own writes are skipped (that probe wins), and so
 * is NtCallbackReturn (it never returns there).  Levels: ntstack.bpf.h. */
UPROBE_TWINS("uprobe", up_nt_syscall)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ip = UREG(ctx, ip), ax = UREG(ctx, ax), r10 = UREG(ctx, r10),
	      bx = UREG(ctx, bx), bp = UREG(ctx, bp);
	struct ucall_state st = {};
	struct katra_nt_file *f;
	__u32 slot = 0, nr;
	__u64 bias;
	int level;

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	if (have_attach_cookie)
		slot = (__u32)bpf_get_attach_cookie(ctx);
	f = bpf_map_lookup_elem(&nt_files, &slot);
	if (!f || !f->call_vaddr)
		return 0;
	bias = ip - f->call_vaddr;
	nr = (__u32)ax;
	if (r10 - bias == f->table_vaddr) {
		if (nr >= f->count || nr >= KATRA_NT_SKIP_WORDS * 64)
			return 0;
		if (f->skip[(nr >> 6) & (KATRA_NT_SKIP_WORDS - 1)] & (1ull << (nr & 63)))
			return 0;
	} else if ((f->flags & KATRA_NT_FILE_TABLE1) &&
		   ucall_read_u64(bx - 32) == f->table_vaddr + bias) {
		nr = 0x1000 | (nr & 0xfff);
	} else {
		return 0;
	}
	level = nt_enter(pid_tgid, &st, true, bp, sp - 8 /* as at the function's entry */,
			 ip + 4 /* the return address of the call */);
	if (level < 0)
		return 0;
	st.call = KATRA_UC_NT_SYSCALL;
	st.a[0] = nr;
	st.a[3] = slot;
	return nt_begin(pid_tgid, level, &st);
}

UPROBE_TWINS("uprobe", up_nt_syscall_ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax), bp = UREG(ctx, bp);
	struct ucall_state *st;
	__u32 level = 0;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	st = nt_returning(pid_tgid, true, bp, sp, &level);
	if (!st)
		return 0;
	a[0] = st->a[0];
	a[1] = a[2] = 0;
	a[3] = st->a[3];
	return nt_end(pid_tgid, level, st, a, 0, (__s32)ax);
}

/* wine_server_call (req): the request number is the first int of the
 * request (struct request_header.req in Wine's server protocol). */
static __always_inline void server_call(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = ucall_read_u32(r->r[0]);
}

UCALL_ENTRY_PROBE(wine_server_call, UCALL_ABI_NT, KATRA_UC_LAYER_SERVER,
		  KATRA_UC_WINE_SERVER_CALL, server_call)

/* Its EXIT carries the request number only. */
static __always_inline void server_returned(const struct ucall_state *st, __u64 *a,
					    __u32 *flags)
{
	a[1] = a[2] = a[3] = 0;
	*flags = 0;
}

UCALL_RETURN_PROBE(ur_server, KATRA_UC_LAYER_SERVER, server_returned)

/* The Win->Unix call dispatcher, after its prologue (the exported
 * __wine_unix_call_dispatcher_prolog_end of Wine 8) or at its call (Wine
 * 10): r10 = the unixlib handle, rdx = the function index, r8 = the
 * arguments, whatever the build's convention; its return address is already
 * popped.  No uretprobe: the dispatcher switches stacks, and a uretprobe's
 * bookkeeping assumes one stack; its return is a second uprobe, on the
 * instruction after its `call *(%r10,%rdx,8)`.  Nested dispatcher calls (a
 * user callback inside a unix call) are counted by depth. */
static __always_inline void unix_call(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[4];
	st->a[1] = (__u32)r->r[1];
	st->a[2] = r->r[2];
}

UCALL_ENTRY_PROBE(unix_call, UCALL_ABI_MS, KATRA_UC_LAYER_UNIX, KATRA_UC_WINE_UNIX_CALL,
		  unix_call)

UPROBE_TWINS("uprobe", up_unix_call_ret)
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
