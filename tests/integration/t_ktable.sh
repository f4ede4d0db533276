#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel map exhaustion: 16 threads blocked in read at once against an
# in-flight table of 8 (a test option): every refused entry is counted as a
# KernelTable drop, in Drop events and the summary, and each is exactly one
# exit written without its enter; the trace verifies.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload blockers 16
kt_record --small-tables 8 -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check ktable "$TRACE.jsonl" "$T/blockers.out" 8
