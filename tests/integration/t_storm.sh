#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A getppid storm, 4 threads x 200000 calls at once, under `-- COMMAND` with
# default options: the trace verifies, no event is Estimated, and every call
# is accounted for: recorded as a span or counted as dropped (2 x spans +
# dropped >= 2 x calls), never more spans than calls.  The note gives the
# loss rate.
. "$(dirname "$0")/lib.sh"
kt_require
threads=${KT_STORM_THREADS:-4}
calls=${KT_STORM_CALLS:-200000}
TRACE=$T/storm.ktrc
timeout -k 5 60 "$REC" -o "$TRACE" -- "$WL/storm" "$threads" "$calls" >"$T/storm.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "-- storm: katra-record exited $rc: $(kt_tail "$T/rec.err" 2)"
kt_verified_check stream storm "$T/storm.out"
