#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The drain's CPU policy (--drain-policy, user/record/kernel/consumer_sched.c).  By
# default (chosen by measurement under two CPU hogs) the recorder
# reads its rings at the normal policy: the drain thread is seen at SCHED_OTHER
# throughout (summary: drain_boosts null), as with --drain-policy normal.
# --drain-policy idle: on a light target it is seen at SCHED_IDLE unless the
# summary counts a boost (other load can starve it into one); under a getppid storm with 1 MiB rings, the rings' forced
# wakeups bring it to the normal policy at least once, and every call is still
# accounted for.
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
for policy in default idle normal; do
	rm -f "$T/ready"
	args=()
	[ "$policy" = default ] || args=(--drain-policy "$policy")
	kt_record -p "$BUSY_PID" --force --buffer-size 8M --summary-json "$T/$policy.json" \
		"${args[@]}"
	sleep 0.3
	cls=$(drain_class)
	sleep 0.5
	cls2=$(drain_class)
	kill -INT "$REC_PID"
	kt_wait_recorder 0
	b=$(boosts "$T/$policy.json")
	if [ "$policy" = idle ]; then
		# at SCHED_IDLE unless boosted: other load on the machine (the
		# light target alone keeps up) can starve it into a boost, and
		# then the summary counts it
		case "$cls/$cls2" in
		IDL/IDL) ok=1 ;;
		IDL/TS | TS/IDL | TS/TS) [ "$b" -ge 1 ] && ok=1 || ok=0 ;;
		*) ok=0 ;;
		esac
		[ "$ok" = 1 ] && [ "$b" -ge 0 ] 2>/dev/null ||
			kt_fail "drain policy idle: class '$cls' then '$cls2' with drain_boosts $b"
		kt_note "idle: class $cls then $cls2, $b boosts"
	else
		[ "$cls" = TS ] && [ "$cls2" = TS ] ||
			kt_fail "drain policy $policy: the drain ran at class '$cls' then '$cls2', not TS"
		[ "$b" = None ] || kt_fail "drain policy $policy: drain_boosts is '$b', not null"
	fi
done

# storm: 4 threads x 200000 getppid, rings of 1 MiB (a forced wakeup at 256 KiB)
TRACE=$T/storm.ktrc
timeout -k 5 60 "$REC" -o "$TRACE" --buffer-size 1M --summary-json "$T/storm.json" \
	--drain-policy idle -- "$WL/storm" 4 200000 >"$T/storm.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "storm: katra-record exited $rc: $(kt_tail "$T/rec.err" 2)"
b=$(boosts "$T/storm.json")
[ "$b" -ge 1 ] 2>/dev/null || kt_fail "storm: the idle drain was never boosted (drain_boosts $b)"
kt_verified_check stream storm "$T/storm.out"
kt_note "storm: drain boosted $b times; $(kt_tail "$T/check.out")"
