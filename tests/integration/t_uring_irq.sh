#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Whose completion it is: a no-op completed inside the thread's
# io_uring_enter is the thread's (its pid and tid); a timeout that expires
# while the thread spins in user space is completed on the way back to user
# space from an interrupt, so it is written as outside the traced set
# (process and thread 0), never blamed on the thread the interrupt hit
# (the completion's in-task check: its user registers' orig_ax).  With
# tp_btf, then with the raw_tp twin.
. "$(dirname "$0")/lib.sh"
kt_require
for flavour in tp_btf raw_tp; do
	rm -f "$T/ready"
	TRACE=$T/$flavour.ktrc
	kt_workload uringirq
	if [ "$flavour" = raw_tp ]; then
		kt_record --raw-tp -p "$WL_PID"
	else
		kt_record -p "$WL_PID"
	fi
	kt_wait_workload 20
	kt_wait_recorder 0
	grep -q '"in_spin":1,"timeout_res":-62,"nop_res":0' "$T/uringirq.out" ||
		kt_fail "the timeout did not complete during the spin: $(cat "$T/uringirq.out")"
	kt_verify
	pid=$(jq -r .pid "$T/uringirq.out")
	# the last attempt's pair (an earlier one's timeout completed inside
	# io_uring_enter: the workload did it again)
	k=$(jq -r .attempt "$T/uringirq.out")
	to=$((2 * k + 1)) nop=$((2 * k + 2))
	got=$(jq -s -c '[.[] | select(.record == "Event" and .kind == "IoUringComplete" and
		(.payload.user_data == "'$to'" or .payload.user_data == "'$nop'")) |
		[.payload.user_data, .process_id, .thread_id]] | sort' "$TRACE.jsonl")
	want="[[\"$to\",0,0],[\"$nop\",$pid,$pid]]"
	[ "$got" = "$want" ] || kt_fail "$flavour: completions (user_data, process, thread): $got, want $want"
done
kt_note "tp_btf and raw_tp: the in-syscall no-op's completion on its thread, the timeout's that came during a user-space spin outside the traced set"
