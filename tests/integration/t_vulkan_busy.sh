#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Vulkan presents from the first frame, on a busy machine (two CPU
# hogs): katra-record -- vkpresent (lavapipe, a window on the test's own
# Xvfb; no gate to wait at) must see exactly its K submits and P presents
# (check_vulkan_present: each with its result, on its queue).  The driver's
# entry points are probed before the command runs (the ICD its loader will
# read: VK_ICD_FILENAMES), not when it maps the loader: before, the first
# frames were always missing, and with the drain at SCHED_IDLE all of them
# (katra-vkresolve waited for the starved drain).  Skips without Xvfb.
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vkpresent"
kt_xvfb
K=100 P=100
touch "$T/gate"
kt_hogs 2
TRACE=$T/vk.ktrc
timeout -k 5 180 "$REC" -o "$TRACE" -- "$KT_ROOT/build/uprobe/vkpresent" "$T/started" "$T/gate" \
	$K $P >"$T/vkpresent.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record exited $rc: $(kt_tail "$T/rec.err")"
kt_stop_xvfb
kt_verify
kt_uptrace vulkan-present "$TRACE.jsonl" "$T/vkpresent.out"
"$REPLAY" report --frames --json "$TRACE" >"$T/frames.json" 2>"$T/frames.err" ||
	kt_fail "report --frames failed: $(kt_tail "$T/frames.err")"
kt_uptrace vulkan-frames "$TRACE.jsonl" "$T/frames.json" "$T/vkpresent.out"
