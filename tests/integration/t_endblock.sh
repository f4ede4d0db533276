#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The end of a capture with threads inside syscalls: 4 threads blocked in
# read() for good and 4 looping on short nanosleeps while the probes are
# detached (a test option pauses between the syscall probes and the others,
# where the order of the teardown decides).  Every Begin has its End (the
# blocked reads' Inferred at the capture's end), each blocked thread has
# exactly its one read, and no syscall's Begin vanished (no exit without its
# enter after a thread's first event); nothing is lost.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload endblock 4 4
kt_record -d 1.5 --detach-pause 300 -p "$WL_PID"
kt_wait_recorder 0
kill "$WL_PID" 2>/dev/null
kt_verify
KT_PY="python3 $KT_DIR/loss_checks.py" kt_check endblock "$TRACE.jsonl" "$T/endblock.out"
