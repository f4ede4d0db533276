#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Windows-facing and Wine layers by uprobes on Wine's ntdll.so: a mingw
# program under Debian's Wine (-p PID, attached while it waits at a gate) does
# N ReadFile (plain and overlapped), M WaitForSingleObject and K gethostname:
# exactly N NtReadFile spans with its handles, lengths, offsets and statuses
# (STATUS_PENDING for the overlapped ones), each served by a Linux read of the
# data file that cites it; M NtWait spans; wine_server_call spans inside the
# reads; K WinToUnix spans (ws2_32's unix calls) between two markers.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
EXE=$KT_ROOT/build/uprobe/ntio.exe
kw_uprobe_setup "$EXE"
N_PLAIN=20 N_OVL=10 M=15 K=12
head -c 65536 /dev/urandom >"$T/data"
kw_start_gated "$EXE" ntio "$(kw_win "$T/data")" $N_PLAIN $N_OVL $M $K
WL_PID=$KW_PID
grep -q 'x86_64-unix/ntdll.so' "/proc/$WL_PID/maps" || kt_fail "process $WL_PID does not map ntdll.so"
"$REC" --ready-file "$T/ready" -o "$TRACE" -p "$WL_PID" >"$T/rec.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
touch "$T/gate"
kt_wait "$WL_PID" 30 || kt_fail "ntio.exe still running after 30 s"
[ "$KT_RC" = 0 ] || kt_fail "ntio.exe exited $KT_RC: $(kt_tail "$T/ntio.err")"
kt_wait_recorder 0
kt_verify
read -r dev ino < <(stat -c '%d %i' "$T/data")
python3 "$KT_ROOT/tests/uprobe/uptrace.py" wine-nt "$TRACE.jsonl" "$T/ntio.out" "$WL_PID" \
	"$dev" "$ino" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
