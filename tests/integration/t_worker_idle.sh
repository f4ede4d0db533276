#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The uprobes' worker thread sleeps while it has nothing to do: it wakes
# once a second (the sweep of dead threads' call states) or for a job.  Its
# condition variable's deadline is a CLOCK_MONOTONIC time; on a condition
# variable of the default clock (CLOCK_REALTIME) that deadline is long past,
# every wait timed out at once and the idle worker spun on a CPU for the
# whole capture.  Counted under strace: in a 3 s capture of a sleeping
# process (-d 3, uprobe layers on), the futex waits that timed out are at
# most a few (one a second for the worker), not thousands.
. "$(dirname "$0")/lib.sh"
kt_require
command -v strace >/dev/null || kt_skip "strace is not installed"
sleep 60 &
SL=$!
KT_PIDS="$KT_PIDS $SL"
timeout -k 5 60 strace -f -qq -e trace=futex -e status=failed -o "$T/futex.txt" \
	"$REC" -q -o "$TRACE" -d 3 -p "$SL" >"$T/rec.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record -d 3 -p $SL exited $rc: $(kt_tail "$T/rec.err" 2)"
kt_verify
n=$(grep -c 'ETIMEDOUT' "$T/futex.txt")
[ "$n" -le 10 ] || kt_fail "$n futex waits timed out in a 3 s capture (a thread spinning on a timed wait): $(grep ETIMEDOUT "$T/futex.txt" | head -n 1)"
kt_note "$n futex waits timed out in 3 s"
