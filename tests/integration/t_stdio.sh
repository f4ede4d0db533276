#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -o - streams the trace to standard output, and every katra-replay command
# reads - as standard input: a capture piped straight into verify and stats
# is valid and holds the workload's exact counts; a file read through stdin
# dumps the same as by name.
. "$(dirname "$0")/lib.sh"
kt_require
set -o pipefail
"$REC" -q -o - -- "$WL/syscalls" 300 200 2>"$T/rec.err" >"$T/syscalls.out.trace" ||
	kt_fail "katra-record -o - exited $?: $(kt_tail "$T/rec.err" 2)"
# with -o -, the command's own stdout goes to stderr: the stream is the trace
"$REPLAY" verify --strict - <"$T/syscalls.out.trace" >"$T/verify.out" 2>&1 ||
	kt_fail "verify - rejects the streamed trace: $(kt_tail "$T/verify.out" 2)"
"$REC" -q -o - -- "$WL/syscalls" 300 200 2>"$T/rec2.err" | "$REPLAY" stats --json - >"$T/stats.json" ||
	kt_fail "katra-record -o - | katra-replay stats - failed: $(kt_tail "$T/rec2.err" 2)"
python3 - "$T/stats.json" <<'PY' || kt_fail "stats of the piped trace: $(kt_tail "$T/stats.json" 1)"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["events"] > 1000, s["events"]
PY
"$REC" -q -o "$TRACE" -- "$WL/syscalls" 100 100 >/dev/null 2>"$T/rec3.err" || kt_fail "capture to a file"
cmp <("$REPLAY" dump --jsonl "$TRACE") <("$REPLAY" dump --jsonl - <"$TRACE") ||
	kt_fail "dump - differs from dump FILE"
script -qec "$REC -q -o - -- true" /dev/null >"$T/tty.out" 2>&1
grep -q "standard output is a terminal" "$T/tty.out" || kt_fail "-o - on a terminal is not refused"
