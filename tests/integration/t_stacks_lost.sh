#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks with a stack ring made small (KATRA_TEST_STACK_RING_BYTES) and
# every interval and syscall taking a stack (--stack-threshold 0): the ring
# overflows, and every stack the probe could not keep is in the trace as a
# Drop of source Stacks, exactly the probe's counters (said on stderr), in
# the Drop events and in the summary; the StackOf records and the lost
# stacks add up to the spans that took one.  No event is lost, so
# --max-loss 0 still exits 0.
. "$(dirname "$0")/lib.sh"
kt_require
TRACE=$T/lost.ktrc
KATRA_TEST_STACK_RING_BYTES=65536 kt_run_rec -o "$TRACE" --stack-threshold 0 --max-loss 0 \
	--summary-json "$T/summary.json" -- "$WL/pingpong" 1000
[ "$KT_RC" = 0 ] || kt_fail "katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
line=$(grep ' call stacks (' "$T/rec.err") || kt_fail "no stacks line: $(kt_tail "$T/rec.err")"
[[ $line =~ \(([0-9]+):\ thread\ slots\ full,\ ([0-9]+):\ ring\ full\) ]] ||
	kt_fail "stacks line without its losses: $line"
slots=${BASH_REMATCH[1]} ring=${BASH_REMATCH[2]}
kt_verify
python3 "$KT_DIR/stacks_lost_check.py" "$TRACE.jsonl" "$slots" "$ring" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
python3 - "$T/summary.json" $((slots + ring)) <<'PY' || kt_fail "summary JSON: $(cat "$T/summary.json")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (j["stacks_lost"] == int(sys.argv[2]) and j["events_lost"] == 0))
PY
kt_note "$(cat "$T/check.out")"
exit 0
