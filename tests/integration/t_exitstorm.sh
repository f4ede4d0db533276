#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 50 processes of 8 busy threads each die by exit_group while their threads
# are in syscalls: every thread of every process gets exactly one TaskExit,
# exactly one per process with group_dead, and the trace verifies.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload exitstorm "${KT_EXIT_ROUNDS:-50}" "${KT_EXIT_THREADS:-8}"
kt_record -p "$WL_PID"
kt_wait_workload 60
kt_wait_recorder 0
kt_verified_check stream exitstorm "$T/exitstorm.out"
