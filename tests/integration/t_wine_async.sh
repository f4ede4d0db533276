#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Overlapped reads that Wine completes later, through the wineserver: a
# mingw program (-p PID, attached while it waits at a gate) issues N
# overlapped ReadFile on a named pipe and M on a loopback TCP socket, all
# pending, then a thread of its own writes their data: exactly N+M NtReadFile
# spans ending STATUS_PENDING, each cited by exactly one later Linux read that
# lands its bytes in the read's buffer (read(2) of the server reply for the
# pipe, recvmsg(2) for the socket).
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
EXE=$KT_ROOT/build/uprobe/ntasync.exe
kw_uprobe_setup "$EXE"
N=6 M=5
kw_start_gated "$EXE" ntasync $N $M
WL_PID=$KW_PID
"$REC" --ready-file "$T/ready" -o "$TRACE" -p "$WL_PID" >"$T/rec.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
touch "$T/gate"
kt_wait "$WL_PID" 30 || kt_fail "ntasync.exe still running after 30 s"
[ "$KT_RC" = 0 ] || kt_fail "ntasync.exe exited $KT_RC: $(kt_tail "$T/ntasync.err")"
kt_wait_recorder 0
kt_verify
python3 "$KT_ROOT/tests/uprobe/uptrace.py" wine-async "$TRACE.jsonl" "$T/ntasync.out" "$WL_PID" \
	>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
