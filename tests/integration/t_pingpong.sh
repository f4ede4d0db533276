#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two threads ping-pong K times over pipes: K off-CPU spans per thread whose
# End is caused by a Wakeup from the other thread.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload pingpong 300
kt_record -p "$WL_PID"
kt_wait_workload 30
kt_wait_recorder 0
kt_verify
kt_check pingpong "$TRACE.jsonl" "$T/pingpong.out"
