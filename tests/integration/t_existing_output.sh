#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An existing output file is refused without --force (and left alone);
# --force replaces it with a valid trace.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
echo original >"$TRACE"
kt_run_rec -p "$BUSY_PID" -d 0.3 -o "$TRACE"
case $KT_RC in 1 | 2) ;; *) kt_fail "existing output without --force: exit $KT_RC" ;; esac
[ "$(cat "$TRACE")" = original ] || kt_fail "existing output overwritten without --force"
kt_run_rec -p "$BUSY_PID" -d 0.3 --force -o "$TRACE"
[ "$KT_RC" = 0 ] || kt_fail "--force: exit $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify
kt_check clean "$TRACE.jsonl"
