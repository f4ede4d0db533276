#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A capture of a process that does nothing costs (almost) nothing: while the
# target waits on a FIFO, the recorder's threads together wake at most a few
# times a second (the capture loop's once-a-second counters and the writer's
# hand-over of them; the marker sleeps until a record comes: it used to wake
# every 5 ms, the loop every 10 ms), and what the target does after that
# sleep is in the trace all the same.
. "$(dirname "$0")/lib.sh"
kt_require
IDLE_S=2
mkfifo "$T/go"
sh -c 'read x <"$1"; [ "$x" = go ]' sh "$T/go" &
TGT=$!
KT_PIDS="$KT_PIDS $TGT"
kt_record -p "$TGT"
# past the start: the marks that release the first records, then the sleep
sleep 0.5
switches()
{
	local n=0 v t
	for t in /proc/"$REC_PID"/task/*; do
		v=$(awk '/^voluntary_ctxt_switches:/ {print $2}' "$t/status" 2>/dev/null) || continue
		n=$((n + ${v:-0}))
	done
	echo "$n"
}
s0=$(switches)
sleep "$IDLE_S"
s1=$(switches)
woke=$((s1 - s0))
# 2 a second at most (counters, their write), and slack for a thread's start
[ "$woke" -le $((IDLE_S * 2 + 4)) ] ||
	kt_fail "the recorder's threads woke $woke times in $IDLE_S s of an idle target (at most $((IDLE_S * 2 + 4)))"
echo go >"$T/go"
kt_wait "$TGT" 10 || kt_fail "target still waiting"
kt_wait_recorder 0
kt_verify
# the shell reads "go\n" a byte at a time: its reads' returns add up to 3
got=$(jq -s --argjson p "$TGT" '[.[] | select(.record == "Event" and .process_id == $p and
	.payload.type == "SyscallReturn" and .payload.nr == 0) | .payload.ret] | add' \
	"$TRACE.jsonl")
[ "$got" = 3 ] ||
	kt_fail "the target's reads after the idle time return $got bytes in the trace, not 3"
kt_note "$woke wakeups in $IDLE_S s idle; the read after it recorded"
