#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Wakeups from interrupt context are thread 0's (SPEC §10): a sleeper making
# K clock_nanosleep calls and a spinner pinned to the same CPU; each timer
# expires in an interrupt that finds the spinner (or the idle task) current.
# K Sleep spans, each ended by exactly one wakeup, every one from thread 0,
# never the spinner; one the kernel ran no probe for is written Inferred
# (see truth_check.py).
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload irqwake 200
kt_record -p "$WL_PID"
kt_wait_workload 30
kt_wait_recorder 0
kt_verify
python3 "$KT_DIR/truth_check.py" irqwake "$TRACE.jsonl" "$T/irqwake.out" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
