#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# P fresh anonymous pages touched once: >= P page faults on that thread, every
# page of the mapping covered.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload pagefault 2000
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check pagefault "$TRACE.jsonl" "$T/pagefault.out"
