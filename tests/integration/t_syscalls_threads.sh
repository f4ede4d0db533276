#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The same exact counts on each of two threads running at once.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload syscalls --threads 2 1000 500
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check syscalls "$TRACE.jsonl" "$T/syscalls.out"
