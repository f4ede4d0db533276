#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Vulkan presents by uprobes on the driver's own entry points: a lavapipe
# program with a window on the test's own Xvfb (VK_KHR_xcb_surface and a
# swapchain: this Mesa, 22.3, offers no VK_EXT_headless_surface), attached
# with -p while it waits at a gate, does P frames (acquire, one submit,
# vkQueuePresentKHR) and K - P more submits: exactly K VulkanQueueSubmit and
# P VulkanQueuePresent spans, all on its queue handle; each present's count
# (swapchainCount) 1 and its VkResult the one the program got (VK_SUCCESS or
# VK_SUBOPTIMAL_KHR); K fence waits as K VulkanFenceWait spans on its
# device, and P acquires as P VulkanAcquireNextImage spans on its swapchain,
# each End naming the image the program acquired, in order.  Each present ends a frame: P Frame epochs 'frame 1'
# .. 'frame P' of its swapchain, request_ids on the presents and on the
# events between them, and report --frames lists P - 1 frames, the slowest
# first, each one's path ending at its present.  Skips without Xvfb.
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vkpresent"
kt_xvfb
K=37 P=25
kt_gated vkpresent 60 "$KT_ROOT/build/uprobe/vkpresent" "$T/started" "$T/gate" $K $P
kt_stop_xvfb
kt_verify
kt_uptrace vulkan-present "$TRACE.jsonl" "$T/vkpresent.out"
"$REPLAY" report --frames --json "$TRACE" >"$T/frames.json" 2>"$T/frames.err" ||
	kt_fail "report --frames failed: $(kt_tail "$T/frames.err")"
kt_uptrace vulkan-frames "$TRACE.jsonl" "$T/frames.json" "$T/vkpresent.out"
