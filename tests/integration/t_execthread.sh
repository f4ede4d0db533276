#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# execve from a non-main thread while the main thread is blocked in read: the
# trace verifies (no span left open by the killed thread or by the exec'ing
# thread's change of tid) and has one TaskExec on the pid whose old_tid is the
# thread that called execve.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload execthread
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verified_check file execthread "$T/execthread.out"
