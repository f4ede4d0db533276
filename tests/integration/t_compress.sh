#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -z: a real capture written gzip-compressed.  The file is gzip (by magic),
# katra-replay reads it as it is and finds exactly the workload's syscalls,
# --summary-json reports its raw and compressed bytes; a compressed capture
# killed with SIGKILL still decompresses up to its last flush.
. "$(dirname "$0")/lib.sh"
kt_require
"$REC" --help | grep -q -- "-z, --compress" || kt_fail "katra-record --help does not name -z"

kt_workload syscalls 2000 1000
kt_record -z -p "$WL_PID" --summary-json "$T/sum.json"
kt_wait_workload 20
kt_wait_recorder 0
[ "$(od -An -tx1 -N2 "$TRACE" | tr -d ' ')" = 1f8b ] || kt_fail "the -z trace is not gzip"
kt_verify
kt_check syscalls "$TRACE.jsonl" "$T/syscalls.out"
kt_check summary-json "$TRACE.jsonl" "$T/sum.json"
raw=$(gzip -dc "$TRACE" | wc -c)
size=$(stat -c %s "$TRACE")
python3 - "$T/sum.json" "$raw" "$size" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
s = json.load(open(sys.argv[1]))
raw, size = int(sys.argv[2]), int(sys.argv[3])
assert s["compressed"] is True, "compressed: %s" % s["compressed"]
assert s["raw_bytes"] == raw == s["bytes"], "raw_bytes %s, gzip -dc gives %d" % (s["raw_bytes"], raw)
assert s["compressed_bytes"] == size, "compressed_bytes %s, file %d" % (s["compressed_bytes"], size)
assert size * 2 < raw, "compressed %d of %d bytes: expected at least 2x" % (size, raw)
PY
grep -q "MiB gzip" "$T/rec.err" || kt_fail "the stderr summary does not give the gzip size"

# killed: the gzip stream has no trailer, every flushed record is readable
rm -f "$T/ready"
TRACE=$T/killed.ktrc.gz
kt_busy 10
kt_record -z -p "$BUSY_PID"
sleep 1
kill -KILL "$REC_PID"
kt_wait "$REC_PID" 5 || kt_fail "katra-record survived SIGKILL"
[ -s "$TRACE" ] || kt_fail "nothing flushed to the compressed trace after 1 s"
"$REPLAY" verify "$TRACE" >"$T/verify.out" 2>&1
rc=$?
[ "$rc" = 1 ] || kt_fail "verify of a killed compressed capture exited $rc: $(kt_tail "$T/verify.out")"
grep -q "gzip stream ends early" "$T/verify.out" ||
	kt_fail "verify does not say the gzip stream was cut: $(kt_tail "$T/verify.out" 2)"
"$REPLAY" dump --jsonl "$TRACE" >"$TRACE.jsonl" 2>"$T/dump.err"
kt_check prefix "$TRACE.jsonl" 1
[ "$(gzip -dc "$TRACE" 2>/dev/null | head -c 8)" = KATRATRC ] ||
	kt_fail "gzip -dc cannot read the killed capture's prefix"
exit 0
