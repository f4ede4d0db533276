#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -d SECONDS stops the capture on time with exit 0 and a valid trace.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
start=${EPOCHREALTIME/./}
kt_run_rec -p "$BUSY_PID" -d 1 -o "$TRACE"
ms=$(((${EPOCHREALTIME/./} - start) / 1000))
[ "$KT_RC" = 0 ] || kt_fail "-d 1: katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
[ "$ms" -ge 1000 ] || kt_fail "-d 1 stopped after only $ms ms"
[ "$ms" -le 6000 ] || kt_fail "-d 1 took $ms ms"
kt_verify
kt_check clean "$TRACE.jsonl"
kt_check header "$TRACE.jsonl" duration_limit_ns 1000000000

# -d counts from when the capture is live, however long the start-up took
# (here 1.5 s more, as the Wine layers' can): the trace's own span from that
# point (summary live_at_ns, from the trace's capture start) to its end is at
# least -d (the mechanism's bound); the upper bound is only a sanity check:
# the loop sees the deadline within 10 ms plus one drain, then the probes are
# detached (which a loaded machine can make take a while) before the end
TRACE=$T/slow.ktrc
KATRA_TEST_SLOW_START_MS=1500 kt_run_rec -p "$BUSY_PID" -d 1 -o "$TRACE" --summary-json "$T/slow.json"
[ "$KT_RC" = 0 ] || kt_fail "-d 1, slow start: katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify
python3 - "$TRACE.jsonl" "$T/slow.json" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
summ = [json.loads(l) for l in open(sys.argv[1]) if '"SessionSummary"' in l][0]
live = json.load(open(sys.argv[2]))["live_at_ns"]
assert live >= 1500000000, "live at %d ns, the start-up was held 1.5 s" % live
span = summ["duration_ns"] - live
assert 1000000000 <= span < 2500000000, "from live to the end %d ns, -d 1" % span
print("live at %.3f s, then %.3f s" % (live / 1e9, span / 1e9))
PY
kt_note "$(kt_tail "$T/check.out")"
