#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-replay export of a real capture of the demo workload (files read with
# read and io_uring, two threads handing work to each other, a child
# process): one slice per span, nested per thread, off-CPU slices named for
# their reason, one flow arrow per cause across threads, names for every
# process, epochs as global instants; --pid and --from/--to keep only what
# they name.
. "$(dirname "$0")/lib.sh"
kt_require
timeout -k 5 30 "$REC" -o "$TRACE" -- "$WL/demo" >"$T/demo.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record -- demo exited $rc: $(kt_tail "$T/rec.err")"
kt_verify
CHECK="python3 $KT_DIR/analysis_checks.py"

"$REPLAY" export "$TRACE" -o "$T/demo.json" 2>"$T/export.err" ||
	kt_fail "export exited $?: $(kt_tail "$T/export.err")"
$CHECK export "$T/demo.json" "$TRACE.jsonl" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
"$REPLAY" export "$TRACE" -o - >"$T/stdout.json" 2>/dev/null || kt_fail "export -o - exited $?"
cmp -s "$T/demo.json" "$T/stdout.json" || kt_fail "-o - and -o FILE differ"

pid=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["pid"])' "$T/demo.out")
rpid=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["process_id"])' "$TRACE.jsonl")
"$REPLAY" export --pid "$pid" "$TRACE" -o "$T/pid.json" || kt_fail "export --pid exited $?"
$CHECK export_pid "$T/pid.json" "$pid" "$rpid" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
# the middle half of the traced events' time (not fixed seconds: on a loaded
# machine the capture goes live late, and 0.1 .. 0.3 s held nothing)
read -r from to < <(python3 -c '
import json, sys
ts = [int(json.loads(l)["ts_mono_ns"]) for l in open(sys.argv[1]) if "\"phase\"" in l]
a, b = min(ts), max(ts)
print("%.6f %.6f" % ((a + (b - a) / 4) / 1e9, (a + 3 * (b - a) / 4) / 1e9))' "$TRACE.jsonl")
"$REPLAY" export --from "$from" --to "$to" "$TRACE" -o "$T/window.json" || kt_fail "export --from/--to exited $?"
$CHECK export_window "$T/window.json" "$from" "$to" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
"$REPLAY" export --from 'capture start' --to 'capture end' "$TRACE" -o "$T/epochs.json" ||
	kt_fail "export between epoch names exited $?"
"$REPLAY" export --to 'no such epoch' "$TRACE" -o "$T/bad.json" 2>"$T/err"
[ $? = 1 ] || kt_fail "an unknown epoch name did not exit 1"
"$REPLAY" export "$TRACE" >/dev/null 2>&1
[ $? = 2 ] || kt_fail "export without -o did not exit 2"
exit 0
