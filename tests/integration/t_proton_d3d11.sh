#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A Proton-class session traced from the host: the D3D11 program
# (tests/proton/d3d11frames.c) renders N frames under the root's Wine 10 and
# DXVK (tests/proton/mkroot.sh), in a mount namespace of its own and chrooted
# (tests/proton/enter.sh), with `katra-record -- enter.sh ...` on the host.
# Against the program's own counters: exactly N NtReadFile spans on its data
# file's handle with the length and offset asked (Wine 10's System V
# arguments read as such), each served by a Linux read that cites it; the
# program's other NT calls as named NtSyscall spans (Wine 10's dispatcher
# found in its own code); exactly N VulkanQueuePresent spans on the root's
# own driver (resolved inside the root).  The program waits at a gate once
# its device exists until katra-record says the Vulkan layer is attached
# (it attaches once the driver is mapped: the first presents would be lost).
# stats --per-frame finds the program's swapchain with N presents, one in
# each of its N - 1 frames, and places every call in the frame the
# recorder's request_id gives it.  The Vulkan calls through winevulkan's
# thunks (WinToUnix) carry their names: one vkQueuePresentKHR per frame, each
# holding the driver's present; dump, stats and export name them.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
kt_require
N=60
. "$KT_ROOT/tests/proton/require.sh"
. "$KT_ROOT/tests/proton/frames.sh"
kt_proton_frames d3d11frames.exe $N d3d11
# stats --all gives every section, the frames among them (with the syscalls
# per frame): the same track of N presents
"$REPLAY" stats --all --json "$TRACE" >"$T/all.json" 2>"$T/all.err" ||
	kt_fail "katra-replay stats --all failed: $(kt_tail "$T/all.err")"
python3 - "$T/all.json" "$pid" "$N" <<'PY' || kt_fail "stats --all: no frames track of $N presents with syscall rows"
import json, sys
doc, pid, n = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
t = [t for t in doc.get("per_frame", {}).get("tracks", []) if t["process_id"] == pid]
ok = len(t) == 1 and t[0]["presents"] == n and any(r["kind"] == "syscall" for r in t[0]["rows"])
sys.exit(0 if ok else 1)
PY
# the Vulkan calls through winevulkan's thunks carry their names (the
# recorder reads them from the root's winevulkan.so): exact counts against
# the program's presents and the driver's uprobes, and dump, stats and export
# name every call the table names (tests/proton/check.py unixnames)
kt_proton_unixnames unixnames "$pid"
kt_note "$(kt_tail "$T/check.out"); stats --per-frame: $(kt_tail "$T/perframe.out"); $(kt_tail "$T/unixnames.out")"
