#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Page faults the kernel refuses (SIGSEGV before handle_mm_fault: a guard
# page, a write watch) are written at their own time, as instants, never
# held until the thread's next fault or turned into a span over unrelated
# time (SPEC §10).  200 refused writes between 201 getppid, then 100
# ordinary first-touch faults: in time order G F G F ... G exactly, and 100
# ordinary faults, none lasting longer than the workload's measured part.
# Where fexit on handle_mm_fault is refused (this host) every fault is an
# instant; the QEMU guests (tests/vm) measure them and run the same check.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload refused 200 100
kt_record -p "$WL_PID"
kt_wait_workload 30
kt_wait_recorder 0
kt_verify
python3 "$KT_DIR/truth_check.py" refused "$TRACE.jsonl" "$T/refused.out" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
