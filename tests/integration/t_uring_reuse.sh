#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A ring whose owner is forgotten while it is still used: its maker exits
# (the recorder deletes the rings it owned from the probes' table), its child
# goes on submitting on the same CPU, and completions that an untraced
# process posts into it (IORING_OP_MSG_RING: they complete in the sender's
# context, so only the table says whose ring it is) are all in the trace.
# The submit's per-CPU cache of rings known to the table must not skip the
# child's insert: user space bumps the table's generation when it deletes.
. "$(dirname "$0")/lib.sh"
kt_require
# fewer than the ring's 16 CQ entries (overflows: t_uring_overflow)
K=8
kt_workload uringreuse --go "$T/go" "$K"
kt_record -p "$WL_PID"
kt_wait_workload 20
line=$(head -n 1 "$T/uringreuse.out")
child=$(jq -r .child <<<"$line")
fd=$(jq -r .ring_fd <<<"$line")
cpu=$(jq -r .cpu <<<"$line")
[ -n "$child" ] && [ "$child" != null ] || kt_fail "workload printed no child: $line"
KT_PIDS="$KT_PIDS $child"
# the parent's exit reaches the recorder, which forgets its rings (the drain
# runs every 10 ms; 1 s leaves room on a loaded machine)
sleep 1
touch "$T/go"
n=1000
while [ ! -e "$T/go.sub" ]; do
	n=$((n - 1))
	[ "$n" -gt 0 ] || kt_fail "the child never submitted"
	sleep 0.01
done
# not in the traced tree: a child of this script, not of the workload
"$WL/uringreuse" msg "$child" "$fd" "$K" "$cpu" >"$T/msg.out" 2>"$T/msg.err" ||
	kt_fail "sender failed: $(kt_tail "$T/msg.err")"
n=1000
until grep -q '"got"' "$T/uringreuse.out"; do
	n=$((n - 1))
	[ "$n" -gt 0 ] || kt_fail "the child never reported its completions"
	sleep 0.01
done
touch "$T/go.end"
kt_wait_recorder 0
grep -q "\"got\":$K" "$T/uringreuse.out" ||
	kt_fail "the child did not get its $K completions: $(tail -n 1 "$T/uringreuse.out")"
kt_verify
got=$(jq -s '[.[] | select(.record == "Event" and .kind == "IoUringComplete") |
	.payload.user_data | tonumber | select(. >= 1000 and . < 1000 + '"$K"')] | length' \
	"$TRACE.jsonl")
[ "$got" = "$K" ] ||
	kt_fail "$got of the $K completions posted into the child's ring are in the trace"
kt_note "$K completions posted from outside the traced tree into a ring whose maker was forgotten: all recorded"
