#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -z output on a full 1 MiB tmpfs: exit 1 with a clear message; the file is
# cut back to its last flush and closed with a gzip trailer, so gzip -t
# accepts it and every record in it is whole (verify: only the missing
# SessionSummary is wrong).
. "$(dirname "$0")/lib.sh"
kt_require
mkdir "$T/mnt"
mount -t tmpfs -o size=1m katra-it "$T/mnt" || kt_skip "cannot mount a tmpfs"
KT_MOUNTS="$T/mnt"
kt_busy 10
TRACE=$T/mnt/trace.ktrc.gz
kt_record -z -p "$BUSY_PID"
kt_wait "$REC_PID" 40 || kt_fail "katra-record still running 40 s into a full disk"
[ "$KT_RC" = 1 ] || kt_fail "katra-record exited $KT_RC on a full disk, expected 1"
grep -q 'katra-record: .*No space left on device' "$T/rec.err" ||
	kt_fail "no clear message on stderr: $(kt_tail "$T/rec.err" 2)"
gzip -t "$TRACE" 2>"$T/gzip.err" || kt_fail "gzip -t rejects the file: $(kt_tail "$T/gzip.err")"
"$REPLAY" verify "$TRACE" >"$T/verify.out" 2>&1
grep -q "no SessionSummary\|last record is not a SessionSummary\|SessionSummary" "$T/verify.out" ||
	kt_fail "verify: $(kt_tail "$T/verify.out" 2)"
if grep -q "ends mid-record\|corrupt" "$T/verify.out"; then
	kt_fail "a record is cut or corrupt: $(kt_tail "$T/verify.out" 2)"
fi
"$REPLAY" dump --jsonl "$TRACE" >"$T/prefix.jsonl" 2>"$T/dump.err" ||
	kt_fail "dump does not read the file to its end: $(kt_tail "$T/dump.err")"
# compressed, 1 MiB holds several times the plain test's 5000 events
kt_check prefix "$T/prefix.jsonl" 15000
