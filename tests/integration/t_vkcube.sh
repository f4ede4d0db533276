#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A real Vulkan program, as a new user would trace it: `vkcube
# --c 100` (vulkan-tools) on lavapipe in the test's own Xvfb, with two CPU
# hogs running, under `katra-record -- vkcube`: exactly 100
# VulkanQueuePresent spans, the first frame's included, and as many
# submits at least (vkcube submits once per frame).  Before the drivers were
# probed ahead of the command and the drain left SCHED_IDLE, 7 runs in 8
# had no present at all.  Skips without vkcube or Xvfb.
. "$(dirname "$0")/lib.sh"
kt_require
command -v vkcube >/dev/null || kt_skip "vkcube is not installed (package vulkan-tools: ci/install-deps.sh)"
kt_lavapipe "$(command -v vkcube)"
kt_xvfb
kt_hogs 2
TRACE=$T/vkcube.ktrc
timeout -k 5 180 "$REC" -o "$TRACE" -- vkcube --c 100 >"$T/vkcube.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record -- vkcube exited $rc: $(kt_tail "$T/rec.err")"
kt_stop_xvfb
kt_verify
python3 - "$TRACE.jsonl" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
ends = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("record") == "Event" and e["phase"] == "End" and e["kind"].startswith("VulkanQueue"):
        ends[e["kind"]] = ends.get(e["kind"], 0) + 1
p, s = ends.get("VulkanQueuePresent", 0), ends.get("VulkanQueueSubmit", 0)
if p != 100 or s < 100:
    sys.exit("%d VulkanQueuePresent and %d VulkanQueueSubmit spans, expected 100 and >= 100" % (p, s))
print("100 presents, %d submits" % s)
PY
kt_note "$(kt_tail "$T/check.out")"
