#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Blocked syscalls of many threads on one CPU keep their Begin: 16 threads
# pinned to one CPU pass a token K times around a ring of pipes, each read
# blocking while the others' syscalls use the CPU's syscall slot.  Every
# thread has exactly K read spans on its pipe (Begin and End, measured) and
# K writes, and no read or write without its Begin.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload blockring 16 300
kt_record -p "$WL_PID"
kt_wait_workload 30
kt_wait_recorder 0
kt_verify
python3 "$KT_DIR/truth_check.py" blockring "$TRACE.jsonl" "$T/blockring.out" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
