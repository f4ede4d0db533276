#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The process table shrinks: 40 short-lived processes, one after the other,
# against a process table of 8 (a test option): an exited process's entry
# goes after its last event, so no fork finds the table full (0 drops),
# every process is named and counted, each thread exits once.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload exitstorm 40 2
kt_record --small-tables 8 -p "$WL_PID"
kt_wait_workload 60
kt_wait_recorder 0
kt_verified_check file exitstorm "$T/exitstorm.out"
KT_PY="python3 $KT_DIR/loss_checks.py" kt_check shrink "$TRACE.jsonl" "$T/exitstorm.out"
