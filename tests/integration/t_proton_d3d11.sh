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
head -c 8192 /dev/urandom >"$W/data"
"$REC" --ready-file "$T/ready" -o "$TRACE" -- "$KT_ROOT/tests/proton/enter.sh" \
	"$cache/root" "$W" /mnt/d3d11frames.exe $N 'Z:\mnt\data' 'Z:\mnt\gate' \
	>"$T/prog.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
for _ in $(seq 1200); do
	grep -q '^ready' "$T/prog.out" && grep -q 'layer vulkan: .* uprobes on the drivers in' "$T/rec.err" &&
		break
	kt_is_running "$REC_PID" || break
	sleep 0.05
done
grep -q 'layer vulkan: .* uprobes on the drivers in' "$T/rec.err" ||
	kt_fail "no 'layer vulkan: N uprobes on the drivers in /proc/PID/root' from katra-record within 60 s: $(grep -v '^info:\|^warn:' "$T/rec.err" | tail -n 2)"
touch "$W/gate"
KT_STOP_TIMEOUT=80 kt_wait_recorder 0
grep -q '"frames"' "$T/prog.out" ||
	kt_fail "the program printed no counters: $(kt_tail "$T/prog.out") / $(grep -v '^info:\|^warn:' "$T/rec.err" | tail -n 2)"
"$REPLAY" verify "$TRACE" >"$T/verify.out" 2>&1 ||
	kt_fail "katra-replay verify rejects the trace: $(head -n 3 "$T/verify.out" | tr '\n' ' ')"
# the program's events only (the whole session's ~800,000 are too many for
# the check's Python within the test's time)
# (the Wine process whose Windows image it is: a child it forks is named
# after it too)
pid=$("$REPLAY" dump --jsonl --kind ProcessInfo "$TRACE" | grep '"windows_image":"d3d11frames.exe"' |
	sed -n 's/.*"process_id":\([0-9]*\),.*/\1/p' | sort -u)
[ -n "$pid" ] && [ "$(echo "$pid" | wc -l)" = 1 ] ||
	kt_fail "not one Wine process of d3d11frames.exe in the trace: '$(echo $pid)'"
"$REPLAY" dump --jsonl --pid "$pid" "$TRACE" >"$TRACE.jsonl" 2>"$T/dump.err" ||
	kt_fail "katra-replay dump --jsonl --pid $pid failed: $(kt_tail "$T/dump.err")"
read -r dev ino < <(stat -c '%d %i' "$W/data")
python3 "$KT_ROOT/tests/proton/check.py" d3d11 "$TRACE.jsonl" "$T/prog.out" "$dev" "$ino" \
	>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
# stats --per-frame: the program's swapchain is one track of N presents, one
# in each of its N - 1 frames, and every call is in the frame the recorder's
# request_id numbers it with (tests/proton/perframe_check.py)
"$REPLAY" stats --per-frame --json "$TRACE" >"$T/perframe.json" 2>"$T/perframe.err" ||
	kt_fail "katra-replay stats --per-frame failed: $(kt_tail "$T/perframe.err")"
python3 "$KT_ROOT/tests/proton/perframe_check.py" "$T/perframe.json" "$TRACE.jsonl" "$pid" "$N" \
	>"$T/perframe.out" 2>&1 || kt_fail "stats --per-frame: $(kt_tail "$T/perframe.out")"
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
"$REPLAY" dump --pid "$pid" --kind WinToUnix "$TRACE" >"$T/unix.txt" 2>"$T/unix.err" ||
	kt_fail "katra-replay dump --kind WinToUnix failed: $(kt_tail "$T/unix.err")"
"$REPLAY" stats --calls --json "$TRACE" >"$T/calls.json" 2>"$T/calls.err" ||
	kt_fail "katra-replay stats --calls failed: $(kt_tail "$T/calls.err")"
"$REPLAY" export --pid "$pid" -o "$T/export.json" "$TRACE" 2>"$T/export.err" ||
	kt_fail "katra-replay export failed: $(kt_tail "$T/export.err")"
python3 "$KT_ROOT/tests/proton/check.py" unixnames "$TRACE.jsonl" "$T/prog.out" "$T/unix.txt" \
	"$T/calls.json" "$T/export.json" >"$T/unixnames.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/unixnames.out")"
kt_note "$(kt_tail "$T/check.out"); stats --per-frame: $(kt_tail "$T/perframe.out"); $(kt_tail "$T/unixnames.out")"
