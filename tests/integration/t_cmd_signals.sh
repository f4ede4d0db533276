#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Behaves like perf and strace: SIGINT or SIGTERM to the recorder goes to -- COMMAND and
# the capture ends with it (no orphan, its status, a valid trace); SIGHUP ends
# a -p capture like SIGTERM; bad path options fail before the capture starts;
# -p of a thread id traces its process.
. "$(dirname "$0")/lib.sh"
kt_require

# 1. SIGTERM forwarded to the command (SIGINT too; a background shell job
# ignores SIGINT, so the test uses SIGTERM)
"$REC" --ready-file "$T/ready" -o "$TRACE" -- sleep 30 >"$T/rec.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
SLEEP_PID=$(pgrep -P "$REC_PID" -x sleep || true)
[ -n "$SLEEP_PID" ] || kt_fail "no sleep child of the recorder"
kill -TERM "$REC_PID"
kt_wait "$REC_PID" 10 || kt_fail "katra-record still running 10 s after SIGTERM"
[ "$KT_RC" = 143 ] || kt_fail "exit $KT_RC after SIGTERM, expected 143 (sleep killed by SIGTERM): $(kt_tail "$T/rec.err" 2)"
kill -0 "$SLEEP_PID" 2>/dev/null && kt_fail "sleep $SLEEP_PID still runs after the capture"
kt_verify
grep -q '"kind":"TaskExit"' "$TRACE.jsonl" || kt_fail "the command's exit is not in the trace"

# 2. SIGHUP (a closed terminal) ends a -p capture with a valid trace
kt_busy 10
rm -f "$T/ready"
TRACE=$T/hup.ktrc
kt_record -p "$BUSY_PID"
sleep 0.3
kill -HUP "$REC_PID"
kt_wait_recorder 0
kt_verify

# 3. path options checked before anything runs
start=$(date +%s%N)
kt_run_rec -p "$BUSY_PID" -o "$T/x.ktrc" --summary-json "$T/nodir/s.json" -d 5
[ "$KT_RC" = 1 ] || kt_fail "--summary-json in a missing directory: exit $KT_RC, expected 1"
grep -q -- "--summary-json" "$T/rec.err" || kt_fail "the message does not name --summary-json: $(kt_tail "$T/rec.err" 1)"
[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 3000 ] || kt_fail "--summary-json checked only after the capture"
[ ! -e "$T/x.ktrc" ] || kt_fail "a trace was written although an option was bad"
kt_run_rec -p "$BUSY_PID" -o "$T" -d 1
[ "$KT_RC" = 1 ] && grep -q "is a directory" "$T/rec.err" || kt_fail "-o DIR: exit $KT_RC: $(kt_tail "$T/rec.err" 1)"
kt_run_rec -p "$BUSY_PID" -d 0.0000000005
[ "$KT_RC" = 2 ] || kt_fail "-d below 1 ms: exit $KT_RC, expected 2"
mkdir -p "$T/notfifo"
kt_run_rec -p "$BUSY_PID" --epoch-fifo "$T/notfifo" -d 1
[ "$KT_RC" = 1 ] && grep -q "not a FIFO" "$T/rec.err" || kt_fail "--epoch-fifo on a directory: exit $KT_RC"

# 4. -p TID of a non-leader thread traces its process
kt_workload pingpong 20000
for _ in $(seq 100); do # its second thread is started after the gate opens
	TID=$(ls /proc/"$WL_PID"/task 2>/dev/null | grep -v "^$WL_PID\$" | head -n 1)
	[ -n "$TID" ] && break
	sleep 0.05
done
[ -n "$TID" ] || kt_fail "the ping-pong workload has no second thread"
kt_run_rec -p "$TID" -o "$T/tid.ktrc" -d 0.3 -q
[ "$KT_RC" = 0 ] || kt_fail "-p TID: exit $KT_RC: $(kt_tail "$T/rec.err" 1)"
grep -q "is a thread of process $WL_PID" "$T/rec.err" || kt_fail "-p TID does not say it traces process $WL_PID"
"$REPLAY" dump --jsonl --pid "$WL_PID" "$T/tid.ktrc" | grep -q '"kind":"OffCpu"' ||
	kt_fail "-p TID: no events of process $WL_PID"

# 5. a FIFO line written before a SIGUSR1 is the earlier epoch
rm -f "$T/ready"
TRACE=$T/order.ktrc
kt_record -p "$BUSY_PID" --epoch-fifo "$T/ep"
echo "before" >"$T/ep"
kill -USR1 "$REC_PID"
sleep 0.2
kill -TERM "$REC_PID"
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" <<'PY' || kt_fail "the FIFO epoch written first is not first: $(grep EpochMarker "$TRACE.jsonl" | head -4)"
import json, sys
ep = [json.loads(l) for l in open(sys.argv[1]) if '"EpochMarker"' in l]
names = [e["name"] for e in ep if e["kind"] in ("Fifo", "Signal")]
assert names == ["before", "mark 1"], names
PY
[ ! -e "$T/ep" ] || kt_fail "the FIFO katra-record created is left behind"

# 6. a command that ignores the forwarded SIGINT (a background job of a
# script ignores SIGINT, and the command inherits that): said at once; a
# second SIGINT ends the capture and the command, said, with its status
rm -f "$T/ready"
TRACE=$T/ign.ktrc
"$REC" --ready-file "$T/ready" -o "$TRACE" -- sleep 30 >"$T/rec.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
SLEEP_PID=$(pgrep -P "$REC_PID" -x sleep || true)
[ -n "$SLEEP_PID" ] || kt_fail "no sleep child of the recorder"
grep -q '^SigIgn:.*[2367abef]$' "/proc/$SLEEP_PID/status" || kt_fail "the background command does not ignore SIGINT here: the case is not set up"
kill -INT "$REC_PID"
for _ in $(seq 100); do
	grep -q "ignores SIGINT" "$T/rec.err" && break
	sleep 0.02
done
grep -q "pid $SLEEP_PID) ignores SIGINT" "$T/rec.err" || kt_fail "an ignored SIGINT is not said: $(kt_tail "$T/rec.err" 2)"
kt_is_running "$REC_PID" || kt_fail "the recorder ended on a SIGINT its command ignores"
kill -INT "$REC_PID"
kt_wait "$REC_PID" 10 || kt_fail "katra-record still running 10 s after a second SIGINT"
[ "$KT_RC" = 143 ] || kt_fail "exit $KT_RC after a second SIGINT, expected 143 (the command ended with SIGTERM): $(kt_tail "$T/rec.err" 2)"
kt_is_running "$SLEEP_PID" && kt_fail "sleep $SLEEP_PID still runs after the capture"
grep -q "pid $SLEEP_PID) was still running when the capture ended: ended it with SIGTERM" "$T/rec.err" ||
	kt_fail "the command's end is not said: $(kt_tail "$T/rec.err" 2)"
kt_verify

# 7. -d ends the capture before a command that ignores SIGTERM: SIGKILL
# after the grace, said; nothing left running
kt_run_rec -o "$T/d.ktrc" -d 0.3 -- perl -e '$SIG{TERM} = "IGNORE"; sleep 30'
[ "$KT_RC" = 137 ] || kt_fail "-d before the command's end: exit $KT_RC, expected 137 (SIGKILL): $(kt_tail "$T/rec.err" 2)"
grep -q "outlived SIGTERM by 2000 ms: ended it with SIGKILL" "$T/rec.err" || kt_fail "the SIGKILL is not said: $(kt_tail "$T/rec.err" 2)"
"$REPLAY" verify --strict "$T/d.ktrc" >/dev/null || kt_fail "the -d trace does not verify"
