#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Completions that overflow the CQ ring: N no-ops into a ring of CQ
# completion entries, none reaped until all are in, so the last N - CQ
# overflow (the kernel's io_uring_cqe_overflow, not io_uring_complete).
# Every one of the N is in the trace, each once, and exactly the N - CQ
# overflowed ones carry the overflow flag (SPEC: IoUringCompletePayload);
# with tp_btf, then with the raw_tp twin.
. "$(dirname "$0")/lib.sh"
kt_require
N=20
CQ=16
for flavour in tp_btf raw_tp; do
	rm -f "$T/ready"
	TRACE=$T/$flavour.ktrc
	kt_workload uringoverflow "$N" "$CQ"
	if [ "$flavour" = raw_tp ]; then
		kt_record --raw-tp -p "$WL_PID"
	else
		kt_record -p "$WL_PID"
	fi
	kt_wait_workload 20
	kt_wait_recorder 0
	grep -q "\"got\":$N," "$T/uringoverflow.out" ||
		kt_fail "the workload did not reap its $N completions: $(cat "$T/uringoverflow.out")"
	kt_verify
	pid=$(jq -r .pid "$T/uringoverflow.out")
	# user_data of the workload's completions, sorted, then of the
	# overflowed ones (cflags bit 14, 0x4000)
	got=$(jq -s -c '[.[] | select(.record == "Event" and .kind == "IoUringComplete" and
		.process_id == '"$pid"') | .payload.user_data | tonumber] | sort' "$TRACE.jsonl")
	want=$(jq -n -c "[range(1; $N + 1)]")
	[ "$got" = "$want" ] || kt_fail "$flavour: completions in the trace: $got, want $want"
	over=$(jq -s -c '[.[] | select(.record == "Event" and .kind == "IoUringComplete" and
		.process_id == '"$pid"' and ((.payload.cflags / 16384 | floor) % 2 == 1)) |
		.payload.user_data | tonumber] | sort' "$TRACE.jsonl")
	want=$(jq -n -c "[range($CQ + 1; $N + 1)]")
	[ "$over" = "$want" ] || kt_fail "$flavour: overflowed completions in the trace: $over, want $want"
	subs=$(jq -s '[.[] | select(.record == "Event" and .kind == "IoUringSubmit" and
		.process_id == '"$pid"')] | length' "$TRACE.jsonl")
	[ "$subs" = "$N" ] || kt_fail "$flavour: $subs submits in the trace, want $N"
done
kt_note "$N no-ops into $CQ CQ entries, tp_btf and raw_tp: all $N completions recorded, the last $((N - CQ)) flagged overflowed"
