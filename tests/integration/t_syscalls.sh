#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# N pread64 + M getppid on one thread: exactly N paired FileRead spans with the
# file's identity, offsets, lengths and returns, and exactly M getppid spans.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload syscalls 2000 1000
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check syscalls "$TRACE.jsonl" "$T/syscalls.out"
