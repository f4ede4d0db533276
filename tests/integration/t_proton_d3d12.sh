#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# D3D12 in the Proton-class session, traced from the host: the D3D12 program
# (tests/proton/d3d12frames.c) renders N frames under the root's Wine 10,
# whose d3d12 is vkd3d (built into Wine's d3d12.dll) on the root's lavapipe,
# with Wine's own dxgi (the prefix's dxgi is DXVK's, which has no D3D12
# swapchain: dxgi=b), in a mount namespace of its own and chrooted
# (tests/proton/enter.sh), with `katra-record -- enter.sh ...` on the host.
# Against the program's own counters (tests/proton/check.py d3d12): exactly
# N NtReadFile spans of 4096 bytes on its data file's handle, each served by
# the Linux read that cites it; exactly N VulkanQueuePresent spans on the
# root's driver; exactly N VulkanQueueSubmit spans (vkd3d submits each
# ExecuteCommandLists as one vkQueueSubmit, and the swapchain's own copy
# and the fence Signal as none on this stack: measured, see check.py);
# exactly N NtWait spans on the frame's fence event, each released
# (status 0).  stats --per-frame finds the program's swapchain with N
# presents, one in each of its N - 1 Frame epochs.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
kt_require
N=60
. "$KT_ROOT/tests/proton/require.sh"
head -c 8192 /dev/urandom >"$W/data"
KATRA_DLL_OVERRIDES=dxgi=b "$REC" --ready-file "$T/ready" -o "$TRACE" -- \
	"$KT_ROOT/tests/proton/enter.sh" "$cache/root" "$W" /mnt/d3d12frames.exe $N \
	'Z:\mnt\data' 'Z:\mnt\gate' >"$T/prog.out" 2>"$T/rec.err" &
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
	kt_fail "no 'layer vulkan: N uprobes on the drivers in /proc/PID/root' from katra-record within 60 s: $(grep -v '^info:\|^warn:' "$T/rec.err" | tail -n 2) / $(kt_tail "$T/prog.out")"
touch "$W/gate"
KT_STOP_TIMEOUT=80 kt_wait_recorder 0
grep -q '"frames"' "$T/prog.out" ||
	kt_fail "the program printed no counters: $(kt_tail "$T/prog.out") / $(grep -v '^info:\|^warn:' "$T/rec.err" | tail -n 2)"
"$REPLAY" verify "$TRACE" >"$T/verify.out" 2>&1 ||
	kt_fail "katra-replay verify rejects the trace: $(head -n 3 "$T/verify.out" | tr '\n' ' ')"
pid=$("$REPLAY" dump --jsonl --kind ProcessInfo "$TRACE" | grep '"windows_image":"d3d12frames.exe"' |
	sed -n 's/.*"process_id":\([0-9]*\),.*/\1/p' | sort -u)
[ -n "$pid" ] && [ "$(echo "$pid" | wc -l)" = 1 ] ||
	kt_fail "not one Wine process of d3d12frames.exe in the trace: '$(echo $pid)'"
"$REPLAY" dump --jsonl --pid "$pid" "$TRACE" >"$TRACE.jsonl" 2>"$T/dump.err" ||
	kt_fail "katra-replay dump --jsonl --pid $pid failed: $(kt_tail "$T/dump.err")"
read -r dev ino < <(stat -c '%d %i' "$W/data")
python3 "$KT_ROOT/tests/proton/check.py" d3d12 "$TRACE.jsonl" "$T/prog.out" "$dev" "$ino" \
	>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
"$REPLAY" stats --per-frame --json "$TRACE" >"$T/perframe.json" 2>"$T/perframe.err" ||
	kt_fail "katra-replay stats --per-frame failed: $(kt_tail "$T/perframe.err")"
python3 "$KT_ROOT/tests/proton/perframe_check.py" "$T/perframe.json" "$TRACE.jsonl" "$pid" "$N" \
	>"$T/perframe.out" 2>&1 || kt_fail "stats --per-frame: $(kt_tail "$T/perframe.out")"
kt_note "$(kt_tail "$T/check.out"); stats --per-frame: $(kt_tail "$T/perframe.out")"
