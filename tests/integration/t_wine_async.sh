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
kt_require
EXE=$KT_ROOT/build/uprobe/ntasync.exe
command -v wine >/dev/null 2>&1 || kt_skip "wine is not installed (ci/install-deps.sh)"
[ -f "$EXE" ] || kt_skip "$EXE is missing (no x86_64-w64-mingw32-gcc when make ran)"
prefix=$(bash "$KT_ROOT/tests/uprobe/prefix.sh" 2>"$T/prefix.err") ||
	kt_fail "cannot create the Wine prefix: $(kt_tail "$T/prefix.err")"
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
N=6 M=5
win() { printf 'Z:%s' "${1//\//\\}"; }
wine "$EXE" "$(win "$T/started")" "$(win "$T/gate")" $N $M >"$T/ntasync.out" 2>"$T/ntasync.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
for _ in $(seq 400); do
	[ -e "$T/started" ] && break
	kt_is_running "$WL_PID" || kt_fail "ntasync.exe exited early: $(kt_tail "$T/ntasync.err")"
	sleep 0.05
done
[ -e "$T/started" ] || kt_fail "ntasync.exe did not start within 20 s"
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
