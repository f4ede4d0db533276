#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A target that exits ends the capture promptly and cleanly: exit 0, valid
# trace with the target's TaskExit, --summary-json agreeing with the trace.
. "$(dirname "$0")/lib.sh"
kt_require
KT_STOP_TIMEOUT=5
kt_workload syscalls 10 10
kt_record -p "$WL_PID" --summary-json "$T/summary.json"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check clean "$TRACE.jsonl" "$WL_PID"
[ -s "$T/summary.json" ] || kt_fail "--summary-json file not written"
kt_check summary-json "$TRACE.jsonl" "$T/summary.json"
