#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's demo: katra-record -- build/workloads/demo; every part of it in
# the trace with its known counts.
. "$(dirname "$0")/lib.sh"
kt_require
timeout -k 5 30 "$REC" -o "$TRACE" -- "$WL/demo" >"$T/demo.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record -- demo exited $rc: $(kt_tail "$T/rec.err")"
kt_verify
kt_check demo "$TRACE.jsonl" "$T/demo.out"
