// SPDX-License-Identifier: GPL-2.0-only
/* The D3D12 methods vkd3d implements (Wine's d3d12 on vkd3d, built into
 * wined3d.dll; vkd3d-proton's d3d12core.dll has the same names), found by
 * their COFF symbols in the DLL the process maps (user/record/uprobes/
 * uprobes_d3d12.c).  PE code: the Windows x64 convention, `this` in rcx
 * (r->r[0]), then rdx, r8, r9.  One entry program per method ("up_" + its
 * vkd3d name), two exit programs (below).  Records: struct katra_ev_ucall
 * (wire.h: the a[] of each call), rules in ucall.bpf.h. */
#include "ucall.bpf.h"

/* ExecuteCommandLists (queue, NumCommandLists, ppCommandLists) */
static __always_inline void d3d12_execute(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = (__u32)r->r[1];
	st->a[2] = r->r[2];
}

/* ID3D12CommandQueue::Signal / ::Wait (queue, fence, value);
 * ID3D12Fence::SetEventOnCompletion (fence, value, event);
 * ID3D12Fence::Signal (fence, value) */
static __always_inline void d3d12_three(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = r->r[1];
	st->a[2] = r->r[2];
}

#define D3D12_PROBE(name, call, decode) \
	UCALL_ENTRY_PROBE(name, UCALL_ABI_MS, KATRA_UC_LAYER_D3D12, call, decode)

D3D12_PROBE(d3d12_command_queue_ExecuteCommandLists, KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS,
	    d3d12_execute)
D3D12_PROBE(d3d12_command_queue_Signal, KATRA_UC_D3D12_QUEUE_SIGNAL, d3d12_three)
D3D12_PROBE(d3d12_command_queue_Wait, KATRA_UC_D3D12_QUEUE_WAIT, d3d12_three)
D3D12_PROBE(d3d12_fence_SetEventOnCompletion, KATRA_UC_D3D12_FENCE_SET_EVENT, d3d12_three)
D3D12_PROBE(d3d12_fence_Signal, KATRA_UC_D3D12_FENCE_SIGNAL, d3d12_three)

/* The returns: no uretprobe (its trampoline's syscall, in PE code, is one
 * that Wine's syscall user dispatch turns into a Windows system call: the
 * program dies), but uprobes on the method's exits (user/record/uprobes/
 * pexits.h): a `ret` (rax: the HRESULT), or a tail jump through a pointer
 * (the return value is the jump target's: none).  At either the stack
 * pointer is the entry's (the return address on top): the remembered call's
 * own exit; a deeper one is a nested call's (a tail-called function's exits
 * are probed too). */
static __always_inline int d3d12_exit(struct pt_regs *ctx, __u32 flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);
	struct ucall_state *st;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	/* as a uretprobe would see it: the return address popped */
	st = ucall_returning(pid_tgid, KATRA_UC_LAYER_D3D12, sp + 8);
	if (!st)
		return 0;
	a[0] = st->a[0];
	a[1] = st->a[1];
	a[2] = st->a[2];
	a[3] = st->a[3];
	return ucall_end(pid_tgid, KATRA_UC_LAYER_D3D12, st, a, st->flags | flags,
			 flags ? 0 : (__s32)ax);
}

UPROBE_TWINS("uprobe", ur_d3d12_ret)
{
	return d3d12_exit(ctx, 0);
}

UPROBE_TWINS("uprobe", ur_d3d12_jmp)
{
	return d3d12_exit(ctx, KATRA_UC_RET_UNKNOWN);
}
