#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Vulkan layer by uprobes on the driver's own entry points (resolved at run
# time by katra-vkresolve through vkGetDeviceProcAddr + dladdr): a headless
# lavapipe program (-p PID, attached while it waits at a gate) does K
# vkQueueSubmit + vkWaitForFences: exactly K VulkanQueueSubmit spans on its
# queue handle with VK_SUCCESS, and K VulkanFenceWait spans on its device.
# Presents: t_vulkan_present.sh (an X window on Xvfb: this Mesa, 22.3, offers
# no VK_EXT_headless_surface).
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vksubmit"
K=40
kt_gated vksubmit 30 "$KT_ROOT/build/uprobe/vksubmit" "$T/started" "$T/gate" $K
kt_verify
kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/vksubmit.out"
