#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dump --jsonl of a real io_uring capture (kernel context pointers above 2^63,
# file identities above 2^53) read by Debian's jq 1.6: every id comes back
# exactly as the text dump prints it, and jq -c reprints every line byte for
# byte (no number in it was rounded).
. "$(dirname "$0")/lib.sh"
kt_require
command -v jq >/dev/null || kt_skip "jq is not installed"
kt_workload uring 50
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
"$REPLAY" dump "$TRACE" >"$TRACE.txt" 2>"$T/dump.err" || kt_fail "dump failed: $(kt_tail "$T/dump.err")"
jq -c . "$TRACE.jsonl" | cmp -s - "$TRACE.jsonl" ||
	kt_fail "jq -c reprints the JSON lines differently: a number was rounded"
grep -q '"domain":"IoUring","id":"1[0-9]\{19\}"' "$TRACE.jsonl" ||
	kt_fail "no io_uring context above 2^63 in the trace (nothing to test)"
python3 "$KT_DIR/jq_ids.py" "$TRACE.jsonl" "$TRACE.txt" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
