#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder notices that its targets are gone by their exit (the last
# thread's TaskExit, as the drain writes it), not by a poll: with the poll
# for gone targets made an hour long (KATRA_TEST_TARGETS_POLL_MS), a -p
# target and a -- command that exit still end the capture (exit 0, a valid
# trace holding the target's TaskExit).  Where the kernel's exit tracepoint
# lacks group_dead (before Linux 6.16) the reaper's /proc poll is what
# untracks a process: skipped there.
. "$(dirname "$0")/lib.sh"
kt_require
read -r major minor _ < <(uname -r | tr '.-' '  ')
if [ "$major" -lt 6 ] || { [ "$major" = 6 ] && [ "$minor" -lt 16 ]; }; then
	kt_skip "kernel $(uname -r): exits are found by the reaper's poll before 6.16"
fi
export KATRA_TEST_TARGETS_POLL_MS=3600000
KT_STOP_TIMEOUT=30

kt_workload syscalls 10 10
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
kt_check clean "$TRACE.jsonl" "$WL_PID"

rm -f "$T/ready"
timeout -k 5 "$KT_STOP_TIMEOUT" "$REC" -q -o "$T/cmd.ktrc" -- "$WL/syscalls" 10 10 \
	>"$T/cmd.out" 2>"$T/cmd.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "-- syscalls: katra-record exited $rc (124: still running \
${KT_STOP_TIMEOUT}s after the command exited): $(kt_tail "$T/cmd.err" 2)"
"$REPLAY" verify --strict "$T/cmd.ktrc" >/dev/null || kt_fail "-- syscalls: the trace does not verify"

