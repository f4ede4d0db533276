#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The drain's CPU policy (--drain-policy, user/record/kernel/consumer_sched.c).  By
# default the recorder reads its rings at SCHED_IDLE: on a light target the
# drain thread is seen at SCHED_IDLE throughout and never boosted.  Under a
# getppid storm with 1 MiB rings, the rings' forced wakeups bring it to the
# normal policy at least once, and every call is still accounted for.
# --drain-policy normal keeps it at SCHED_OTHER (summary: drain_boosts null).
. "$(dirname "$0")/lib.sh"
kt_require

boosts()
{
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["drain_boosts"])' "$1"
}

# the drain is the main thread: its scheduling class, as ps names it
drain_class()
{
	ps -o cls= -p "$REC_PID" | tr -d ' '
}

# light: a getppid loop sleeping 1 ms after every 200 calls; 8 MiB rings, so
# a quarter (2 MiB) is ~100 ms of its events: the 10 ms polls keep up
kt_busy 200
for policy in idle normal; do
	rm -f "$T/ready"
	kt_record -p "$BUSY_PID" --force --buffer-size 8M --summary-json "$T/$policy.json" \
		--drain-policy "$policy"
	sleep 0.3
	cls=$(drain_class)
	sleep 0.5
	cls2=$(drain_class)
	kill -INT "$REC_PID"
	kt_wait_recorder 0
	want=IDL
	[ "$policy" = normal ] && want=TS
	[ "$cls" = "$want" ] && [ "$cls2" = "$want" ] ||
		kt_fail "--drain-policy $policy: the drain ran at class '$cls' then '$cls2', not $want"
	b=$(boosts "$T/$policy.json")
	if [ "$policy" = idle ]; then
		[ "$b" = 0 ] || kt_fail "light target: the idle drain was boosted $b times"
	else
		[ "$b" = None ] || kt_fail "--drain-policy normal: drain_boosts is '$b', not null"
	fi
done

# storm: 4 threads x 200000 getppid, rings of 1 MiB (a forced wakeup at 256 KiB)
TRACE=$T/storm.ktrc
timeout -k 5 60 "$REC" -o "$TRACE" --buffer-size 1M --summary-json "$T/storm.json" \
	-- "$WL/storm" 4 200000 >"$T/storm.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "storm: katra-record exited $rc: $(kt_tail "$T/rec.err" 2)"
b=$(boosts "$T/storm.json")
[ "$b" -ge 1 ] 2>/dev/null || kt_fail "storm: the idle drain was never boosted (drain_boosts $b)"
kt_verified_check stream storm "$T/storm.out"
kt_note "storm: drain boosted $b times; $(kt_tail "$T/check.out")"
