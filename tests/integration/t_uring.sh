#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# R reads through io_uring: exactly R submit->complete pairs linked by cause
# and request_id (= user_data).
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload uring 200
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check uring "$TRACE.jsonl" "$T/uring.out"
