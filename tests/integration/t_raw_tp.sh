#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The raw_tp fallbacks (used where a kernel has no tp_btf for a tracepoint) run
# here too, forced with --raw-tp: the same exact counts as tp_btf (syscalls,
# sched, io_uring, page faults), the header
# says raw_tp, and the ping-pong's off-CPU causes hold.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload syscalls 2000 1000
kt_record --raw-tp -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
grep -q '"probes: raw_tp, ' "$TRACE.jsonl" || kt_fail "the header does not say raw_tp"
kt_check syscalls "$TRACE.jsonl" "$T/syscalls.out"
rm -f "$T/ready"
kt_workload pingpong 300
TRACE=$T/trace2.ktrc
kt_record --raw-tp -p "$WL_PID"
kt_wait_workload 30
kt_wait_recorder 0
kt_verify
kt_check pingpong "$TRACE.jsonl" "$T/pingpong.out"
# the io_uring and page-fault twins
for wl in "uring 200" "pagefault 2000"; do
	set -- $wl
	rm -f "$T/ready"
	kt_workload "$1" "$2"
	TRACE=$T/$1.ktrc
	kt_record --raw-tp -p "$WL_PID"
	kt_wait_workload 20
	kt_wait_recorder 0
	kt_verify
	grep -q '"probes: raw_tp, ' "$TRACE.jsonl" || kt_fail "$1: the header does not say raw_tp"
	kt_check "$1" "$TRACE.jsonl" "$T/$1.out"
done
