// SPDX-License-Identifier: GPL-2.0-only
/* The Vulkan driver's entry points (the functions vkGetDeviceProcAddr hands
 * out, resolved to file + offset by user/record/uprobes/uprobes.c through the
 * katra-vkresolve helper), or the loader's exports as a fallback.  System V
 * calling convention: rdi, rsi, rdx, rcx, r8, r9.  One entry program per
 * function ("up_" + its Vulkan name), one return program.  Records: struct
 * katra_ev_ucall (wire.h), rules in ucall.bpf.h. */
#include "ucall.bpf.h"

/* The registers (System V: rdi, rsi, rdx, rcx, r8, r9) are read once, first. */
#define VK_ENTRY(call_id)                                                             \
	__u64 pid_tgid = bpf_get_current_pid_tgid();                                  \
	struct ucall_state st = {};                                                   \
	__u64 start, sp = UREG(ctx, sp), di = UREG(ctx, di), si = UREG(ctx, si);      \
	__u64 dx = UREG(ctx, dx), cx = UREG(ctx, cx), r8 = UREG(ctx, r8);            \
	__u64 r9 = UREG(ctx, r9);                                                     \
	(void)di, (void)si, (void)dx, (void)cx, (void)r8, (void)r9;                   \
	if (!katra_tracked(pid_tgid >> 32))                                           \
		return 0;                                                             \
	start = ucall_task_start();                                                   \
	if (!ucall_is_outer(pid_tgid, KATRA_UC_LAYER_VULKAN, sp, start))              \
		return 0;                                                             \
	st.start_time = start;                                                        \
	st.sp = sp;                                                                   \
	st.call = call_id;                                                            \
	st.depth = 1

/* vkQueueSubmit / vkQueueSubmit2 (queue, submitCount, pSubmits, fence) */
static __always_inline int vk_submit(struct pt_regs *ctx, __u32 call)
{
	VK_ENTRY(call);
	st.a[0] = di;
	st.a[1] = (__u32)si;
	st.a[2] = cx;
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_VULKAN, &st);
}

SEC("uprobe")
int up_vkQueueSubmit(struct pt_regs *ctx)
{
	return vk_submit(ctx, KATRA_UC_VK_QUEUE_SUBMIT);
}

SEC("uprobe")
int up_vkQueueSubmit2(struct pt_regs *ctx)
{
	return vk_submit(ctx, KATRA_UC_VK_QUEUE_SUBMIT2);
}

/* vkQueuePresentKHR (queue, pPresentInfo): VkPresentInfoKHR.swapchainCount
 * is at offset 32 */
SEC("uprobe")
int up_vkQueuePresentKHR(struct pt_regs *ctx)
{
	VK_ENTRY(KATRA_UC_VK_QUEUE_PRESENT);
	st.a[0] = di;
	st.a[1] = si ? ucall_read_u32(si + 32) : 0;
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_VULKAN, &st);
}

/* vkWaitForFences (device, fenceCount, pFences, waitAll, timeout) */
SEC("uprobe")
int up_vkWaitForFences(struct pt_regs *ctx)
{
	VK_ENTRY(KATRA_UC_VK_WAIT_FOR_FENCES);
	st.a[0] = di;
	st.a[1] = (__u32)si;
	st.a[2] = r8;
	st.a[3] = (__u32)cx;
	st.flags = KATRA_UC_A2_VALID;
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_VULKAN, &st);
}

/* vkWaitSemaphores (device, pWaitInfo, timeout):
 * VkSemaphoreWaitInfo.semaphoreCount is at offset 20 */
SEC("uprobe")
int up_vkWaitSemaphores(struct pt_regs *ctx)
{
	VK_ENTRY(KATRA_UC_VK_WAIT_SEMAPHORES);
	st.a[0] = di;
	st.a[1] = si ? ucall_read_u32(si + 20) : 0;
	st.a[2] = dx;
	st.flags = KATRA_UC_A2_VALID;
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_VULKAN, &st);
}

/* vkAcquireNextImageKHR (device, swapchain, timeout, semaphore, fence,
 * pImageIndex) */
SEC("uprobe")
int up_vkAcquireNextImageKHR(struct pt_regs *ctx)
{
	VK_ENTRY(KATRA_UC_VK_ACQUIRE_NEXT_IMAGE);
	st.a[0] = di;
	st.a[1] = si;
	st.a[2] = dx;
	st.flags = KATRA_UC_A2_VALID;
	st.ptr[0] = r9;
	return ucall_begin(pid_tgid, KATRA_UC_LAYER_VULKAN, &st);
}

SEC("uretprobe")
int ur_vulkan(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);
	struct ucall_state *st;
	__u32 flags;
	__u64 a[4];

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	st = ucall_returning(pid_tgid, KATRA_UC_LAYER_VULKAN, sp);
	if (!st)
		return 0;
	a[0] = st->a[0];
	a[1] = st->a[1];
	a[2] = st->a[2];
	a[3] = st->a[3];
	flags = st->flags;
	if (st->call == KATRA_UC_VK_ACQUIRE_NEXT_IMAGE && st->ptr[0]) {
		a[1] = ucall_read_u32(st->ptr[0]);
		flags |= KATRA_UC_A1_VALID;
	}
	return ucall_end(pid_tgid, KATRA_UC_LAYER_VULKAN, st, a, flags, (__s32)ax);
}
