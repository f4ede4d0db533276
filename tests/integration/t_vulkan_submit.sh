#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Vulkan layer by uprobes on the driver's own entry points (resolved at run
# time by katra-vkresolve through vkGetDeviceProcAddr + dladdr): a headless
# lavapipe program (-p PID, attached while it waits at a gate) does K
# vkQueueSubmit + vkWaitForFences: exactly K VulkanQueueSubmit spans on its
# queue handle with VK_SUCCESS, and K VulkanFenceWait spans on its device.
# Presents are not tested: this Mesa (22.3) offers no VK_EXT_headless_surface.
. "$(dirname "$0")/lib.sh"
kt_require
PROG=$KT_ROOT/build/uprobe/vksubmit
ICD=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -x "$PROG" ] || kt_skip "$PROG is missing (no libvulkan-dev when make ran)"
[ -x "$KT_ROOT/build/katra-vkresolve" ] || kt_skip "katra-vkresolve is missing (no libvulkan-dev)"
[ -f "$ICD" ] || kt_skip "no lavapipe ($ICD: mesa-vulkan-drivers)"
export VK_ICD_FILENAMES=$ICD VK_DRIVER_FILES=$ICD
K=40
"$PROG" "$T/started" "$T/gate" $K >"$T/vk.out" 2>"$T/vk.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
for _ in $(seq 400); do
	[ -e "$T/started" ] && break
	kt_is_running "$WL_PID" || kt_fail "vksubmit exited early: $(kt_tail "$T/vk.err")"
	sleep 0.05
done
[ -e "$T/started" ] || kt_fail "vksubmit did not start within 20 s"
"$REC" --ready-file "$T/ready" -o "$TRACE" -p "$WL_PID" >"$T/rec.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
touch "$T/gate"
kt_wait "$WL_PID" 30 || kt_fail "vksubmit still running after 30 s"
[ "$KT_RC" = 0 ] || kt_fail "vksubmit exited $KT_RC: $(kt_tail "$T/vk.err")"
kt_wait_recorder 0
kt_verify
python3 "$KT_ROOT/tests/uprobe/uptrace.py" vulkan-submit "$TRACE.jsonl" "$T/vk.out" \
	>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
