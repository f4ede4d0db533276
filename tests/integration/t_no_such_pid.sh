#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -p with a PID that does not exist: a clear error naming it, exit 1.
. "$(dirname "$0")/lib.sh"
kt_require
pid=$(kt_free_pid) || kt_skip "no free PID found"
kt_run_rec -p "$pid" -o "$TRACE"
[ "$KT_RC" = 1 ] || kt_fail "-p $pid (no such process): exit $KT_RC, expected 1"
grep -q "katra-record: .*$pid" "$T/rec.err" ||
	kt_fail "the error does not name PID $pid: $(kt_tail "$T/rec.err")"
