// SPDX-License-Identifier: GPL-2.0-only
/* The Vulkan driver's entry points (the functions vkGetDeviceProcAddr hands
 * out, resolved to file + offset by user/record/uprobes/uprobes.c through the
 * katra-vkresolve helper), or the loader's exports as a fallback.  System V
 * calling convention: rdi, rsi, rdx, rcx, r8, r9 (r->r[0..5]).  One entry
 * program per function ("up_" + its Vulkan name), one return program.
 * Records: struct katra_ev_ucall (wire.h), rules and the probes' shape in
 * ucall.bpf.h. */
#include "ucall.bpf.h"

/* vkQueueSubmit / vkQueueSubmit2 (queue, submitCount, pSubmits, fence) */
static __always_inline void vk_submit(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = (__u32)r->r[1];
	st->a[2] = r->r[3];
}

/* vkQueuePresentKHR (queue, pPresentInfo): VkPresentInfoKHR.swapchainCount
 * is at offset 32, pSwapchains at 40; the first swapchain names the frame
 * track (SPEC section 10, Frames) */
static __always_inline void vk_present(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = r->r[1] ? ucall_read_u32(r->r[1] + 32) : 0;
	st->a[2] = st->a[1] ? ucall_read_u64(ucall_read_u64(r->r[1] + 40)) : 0;
}

/* vkWaitForFences (device, fenceCount, pFences, waitAll, timeout) */
static __always_inline void vk_wait_fences(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = (__u32)r->r[1];
	st->a[2] = r->r[4];
	st->a[3] = (__u32)r->r[3];
	st->flags = KATRA_UC_A2_VALID;
}

/* vkWaitSemaphores (device, pWaitInfo, timeout):
 * VkSemaphoreWaitInfo.semaphoreCount is at offset 20 */
static __always_inline void vk_wait_semaphores(struct ucall_state *st,
					       const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = r->r[1] ? ucall_read_u32(r->r[1] + 20) : 0;
	st->a[2] = r->r[2];
	st->flags = KATRA_UC_A2_VALID;
}

/* vkAcquireNextImageKHR (device, swapchain, timeout, semaphore, fence,
 * pImageIndex) */
static __always_inline void vk_acquire(struct ucall_state *st, const struct ucall_regs *r)
{
	st->a[0] = r->r[0];
	st->a[1] = r->r[1];
	st->a[2] = r->r[2];
	st->flags = KATRA_UC_A2_VALID;
	st->ptr[0] = r->r[5];
}

#define VK_PROBE(name, call, decode) \
	UCALL_ENTRY_PROBE(name, UCALL_ABI_SYSV, KATRA_UC_LAYER_VULKAN, call, decode)

VK_PROBE(vkQueueSubmit, KATRA_UC_VK_QUEUE_SUBMIT, vk_submit)
VK_PROBE(vkQueueSubmit2, KATRA_UC_VK_QUEUE_SUBMIT2, vk_submit)
VK_PROBE(vkQueuePresentKHR, KATRA_UC_VK_QUEUE_PRESENT, vk_present)
VK_PROBE(vkWaitForFences, KATRA_UC_VK_WAIT_FOR_FENCES, vk_wait_fences)
VK_PROBE(vkWaitSemaphores, KATRA_UC_VK_WAIT_SEMAPHORES, vk_wait_semaphores)
VK_PROBE(vkAcquireNextImageKHR, KATRA_UC_VK_ACQUIRE_NEXT_IMAGE, vk_acquire)

/* The acquired image's index, written by the call (a[3]: a[1] keeps the
 * swapchain). */
static __always_inline void vk_returned(const struct ucall_state *st, __u64 *a, __u32 *flags)
{
	if (st->call == KATRA_UC_VK_ACQUIRE_NEXT_IMAGE && st->ptr[0]) {
		a[3] = ucall_read_u32(st->ptr[0]);
		*flags |= KATRA_UC_A1_VALID;
	}
}

UCALL_RETURN_PROBE(ur_vulkan, KATRA_UC_LAYER_VULKAN, vk_returned)
