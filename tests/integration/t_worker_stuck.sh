#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The uprobes worker's waits honour Ctrl-C and a deadline: with every job
# taking 60 s (KATRA_TEST_WORKER_STALL_MS: a parse of a file a traced
# process controls), a capture of `-p PID` sent SIGINT during its start
# goes live anyway, ends, leaves the worker behind after 1 s
# (KATRA_TEST_UP_STOP_MS) and exits 0 within 5 s with a whole trace whose
# header says the start did not wait.
# kt-timeout: 60
. "$(dirname "$0")/lib.sh"
kt_require
sleep 100 &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
KATRA_TEST_WORKER_STALL_MS=60000 KATRA_TEST_UP_STOP_MS=1000 \
	"$REC" -o "$TRACE" -p "$WL_PID" >"$T/rec.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
# its start: the probes load (under a second), then it waits for the worker
sleep 1.5
kill -INT "$REC_PID"
KT_STOP_TIMEOUT=5
kt_wait_recorder 0
grep -q "the capture started before the worker had probed every file (a stop signal)" \
	"$T/rec.err" || kt_fail "no word that the start did not wait: $(kt_tail "$T/rec.err" 3)"
grep -q "the uprobes worker was still busy 1000 ms after the capture ended" "$T/rec.err" ||
	kt_fail "no word that the worker was left behind: $(kt_tail "$T/rec.err" 3)"
kt_verify
python3 - "$TRACE.jsonl" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
notes = json.loads(open(sys.argv[1]).readline())["notes"]
if not any(n.startswith("uprobes: the capture started before the worker") for n in notes):
    print("no header note on the start's wait: %s" % notes)
    sys.exit(1)
print("live and ended on SIGINT with the worker stuck; the trace is whole")
PY
kt_note "$(kt_tail "$T/check.out")"
