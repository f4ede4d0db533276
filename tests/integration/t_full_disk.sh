#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Output on a full 1 MiB tmpfs: exit 1 with a clear message, and dump reads
# the prefix that fitted.
. "$(dirname "$0")/lib.sh"
kt_require
mkdir "$T/mnt"
mount -t tmpfs -o size=1m katra-it "$T/mnt" || kt_skip "cannot mount a tmpfs"
KT_MOUNTS="$T/mnt"
kt_busy 10
TRACE=$T/mnt/trace.ktrc
kt_record -p "$BUSY_PID"
kt_wait "$REC_PID" 20 || kt_fail "katra-record still running 20 s into a full disk"
[ "$KT_RC" = 1 ] || kt_fail "katra-record exited $KT_RC on a full disk, expected 1"
grep -q 'katra-record: .*No space left on device' "$T/rec.err" ||
	kt_fail "no clear message on stderr: $(kt_tail "$T/rec.err" 2)"
"$REPLAY" dump --jsonl "$TRACE" >"$T/prefix.jsonl" 2>"$T/dump.err"
# the writer keeps every whole record that fitted: ~1 MiB of ~110-byte events
kt_check prefix "$T/prefix.jsonl" 5000
