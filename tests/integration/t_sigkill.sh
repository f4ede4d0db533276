#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# SIGKILL of the recorder mid-capture: verify reports the file as truncated
# (exit 1) and dump still reads the flushed prefix.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
kt_record -p "$BUSY_PID"
sleep 1
kill -KILL "$REC_PID"
kt_wait "$REC_PID" 5 || kt_fail "katra-record survived SIGKILL"
[ -s "$TRACE" ] || kt_fail "nothing flushed to the trace after 1 s of capture"
"$REPLAY" verify "$TRACE" >"$T/verify.out" 2>&1
rc=$?
[ "$rc" = 1 ] || kt_fail "verify of a killed capture exited $rc: $(kt_tail "$T/verify.out")"
grep -q -e 'ends mid-record' -e 'no SessionSummary' "$T/verify.out" ||
	kt_fail "verify does not say truncated: $(kt_tail "$T/verify.out" 2)"
"$REPLAY" dump --jsonl "$TRACE" >"$TRACE.jsonl" 2>"$T/dump.err"
kt_check prefix "$TRACE.jsonl" 1
