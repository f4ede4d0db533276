#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A wakeup from a process outside the traced set names it (SPEC §10): a
# traced reader makes K one-byte reads of a FIFO, each asleep when an
# untraced process (started apart from the capture, named kt-outwaker)
# writes its byte.  Exactly K WakeupOutside on thread 0, context Task, with
# the writer's pid, tid and name; the report names it.
. "$(dirname "$0")/lib.sh"
kt_require
K=40
mkfifo "$T/fifo" || kt_fail "mkfifo failed"
kt_workload outwake read "$T/fifo" "$K"
kt_record -p "$WL_PID"
"$WL/outwake" wake "$WL_PID" "$T/fifo" "$K" >"$T/waker.out" 2>"$T/waker.err" &
WK_PID=$!
KT_PIDS="$KT_PIDS $WK_PID"
kt_wait_workload 30
kt_wait "$WK_PID" 10 || kt_fail "the waker still running after 10 s"
[ "$KT_RC" = 0 ] || kt_fail "the waker exited $KT_RC: $(kt_tail "$T/waker.err")"
kt_wait_recorder 0
kt_verify
python3 "$KT_DIR/truth_check.py" outwake "$TRACE.jsonl" "$T/outwake.out" "$T/waker.out" \
	>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
"$REPLAY" report "$TRACE" >"$T/report.txt" 2>"$T/report.err" ||
	kt_fail "katra-replay report failed: $(kt_tail "$T/report.err")"
grep -q "woken by kt-outwaker (pid $WK_PID)" "$T/report.txt" ||
	kt_fail "the report does not name the waker 'kt-outwaker (pid $WK_PID)': $(grep -m1 woken "$T/report.txt")"
kt_note "$(kt_tail "$T/check.out")"
