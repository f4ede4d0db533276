#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Where the marker thread cannot start (KATRA_TEST_NO_MARKER), the capture
# loop drains the rings itself every round, taking its own marks: a getppid
# storm of twice a ring's size, one thread, loses nothing.  (With the drain's
# wait for marks, such a capture once read nothing until its end and lost
# what did not fit the rings.)
. "$(dirname "$0")/lib.sh"
kt_require
TRACE=$T/nomarker.ktrc
KATRA_TEST_NO_MARKER=1 timeout -k 5 60 "$REC" -o "$TRACE" --summary-json "$T/sum.json" \
	-- "$WL/storm" 1 1500000 >"$T/storm.out" 2>"$T/rec.err" ||
	kt_fail "katra-record failed: $(kt_tail "$T/rec.err" 2)"
read -r lost events <<<"$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["events_lost"], s["events"])' "$T/sum.json")"
[ "$lost" = 0 ] ||
	kt_fail "no marker thread: $lost events lost of $((lost + events)): the loop did not drain while records flowed"
[ "$events" -ge 3000000 ] || kt_fail "no marker thread: $events events for 1,500,000 getppid calls"
kt_note "1,500,000 getppid with no marker thread: $events events, 0 lost"
