#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Short Wine programs started into a live session during a -p capture are
# each traced from their start: first.exe and second.exe run in prefix A,
# `katra-record -p <first>` is live, then 10 programs (copies of ticker.exe,
# j01.exe ... j10.exe, each running for a few ms) are started one after the
# other, 4 more (j11.exe ... j14.exe) at once, and 3 `wine cmd /c echo hi`
# (start.exe creating cmd.exe).  Every jNN.exe is in the trace by its
# Windows image, named (origin WineJoined) before its first event, with its
# first wineserver request (init_first_thread) traced; every cmd.exe is in
# it with its events, below a start.exe that joined.
# kt-timeout: 180
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
kw_setup

kw_start_pair
for i in $(seq -w 1 14); do
	cp "$WINE_BIN/ticker.exe" "$T/j$i.exe"
done

kt_record -p "$FIRST"
sleep 0.5
JOINED=""
# j01..j10 one after the other, j11..j14 at once
run_j()
{
	WINEPREFIX=$PFX_A wine "$T/j$1.exe" 0.01 >"$T/j$1.out" 2>&1 &
	J_PID=$!
	KT_PIDS="$KT_PIDS $J_PID"
	JOINED="$JOINED,$J_PID:j$1.exe"
}
for i in $(seq -w 1 10); do
	run_j "$i"
	kt_wait "$J_PID" 20 || kt_fail "wine j$i.exe still running after 20 s"
	[ "$KT_RC" = 0 ] || kt_fail "wine j$i.exe exited $KT_RC: $(kt_tail "$T/j$i.out")"
done
CONC=""
for i in 11 12 13 14; do
	run_j "$i"
	CONC="$CONC $J_PID"
done
for p in $CONC; do
	kt_wait "$p" 20 || kt_fail "a concurrent jNN.exe ($p) still running after 20 s"
	[ "$KT_RC" = 0 ] || kt_fail "a concurrent jNN.exe ($p) exited $KT_RC"
done
for i in 1 2 3; do
	WINEPREFIX=$PFX_A wine cmd /c echo "hi$i" >"$T/cmd$i.out" 2>&1 ||
		kt_fail "wine cmd /c echo exited $?: $(kt_tail "$T/cmd$i.out")"
	grep -q "hi$i" "$T/cmd$i.out" || kt_fail "wine cmd /c echo hi$i printed: $(kt_tail "$T/cmd$i.out")"
done
sleep 0.5
kill -INT "$REC_PID"
kt_wait_recorder 0
kt_verify
kw_check joiners "$TRACE.jsonl" joined="${JOINED#,}" cmd=3
