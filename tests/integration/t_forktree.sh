#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A fork/exec chain three levels deep under -p: every descendant traced from its
# first event (caused by its fork); a busy unrelated process contributes nothing.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 0
kt_workload forktree 3
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check forktree "$TRACE.jsonl" "$T/forktree.out" "$BUSY_PID"
