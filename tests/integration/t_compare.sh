#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-replay compare on real captures: the same deterministic workload
# (syscalls, fixed counts, traced from its exec) twice is equivalent; a run
# with one extra pread after the 50th getppid differs, and the first
# divergence names that pread (B) and the 51st getppid (A).
# The data file is given (--file): with its own temporary file the workload
# is not deterministic, as compare itself showed: mkstemp draws its name with
# getrandom and, by rejection sampling, now and then draws twice.
. "$(dirname "$0")/lib.sh"
kt_require
N=300
M=100
head -c 4096 /dev/zero >"$T/data"
capture()
{
	TRACE=$T/$1.ktrc
	shift
	timeout -k 5 30 "$REC" -o "$TRACE" -- "$WL/syscalls" --file "$T/data" "$@" >"$T/wl.out" 2>"$T/rec.err"
	rc=$?
	[ "$rc" = 0 ] || kt_fail "katra-record -- syscalls exited $rc: $(kt_tail "$T/rec.err")"
	kt_verify
}
capture a $N $M
capture b $N $M
capture c --extra-pread-after 50 $N $M
CHECK="python3 $KT_DIR/analysis_checks.py"

"$REPLAY" compare --json "$T/a.ktrc" "$T/b.ktrc" >"$T/ab.json" 2>"$T/ab.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "compare of two runs exited $rc, expected 0: $(kt_tail "$T/ab.err")"
$CHECK compare_same "$T/ab.json" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
"$REPLAY" compare "$T/a.ktrc" "$T/b.ktrc" >"$T/ab.txt" || kt_fail "text compare exited $?"
grep -q '^result     equivalent$' "$T/ab.txt" || kt_fail "text report: $(head -n 3 "$T/ab.txt" | tr '\n' ' ')"

"$REPLAY" compare --json "$T/a.ktrc" "$T/c.ktrc" >"$T/ac.json" 2>"$T/ac.err"
rc=$?
[ "$rc" = 1 ] || kt_fail "compare with one extra pread exited $rc, expected 1: $(kt_tail "$T/ac.err")"
$CHECK compare_extra "$T/ac.json" "$T/c.ktrc.jsonl" $N 50 >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"

# every kind compared: OffCpu and page faults make the same runs differ or
# not, but the answer must still be 0 or 1 and the report complete
"$REPLAY" compare --ignore none --json "$T/a.ktrc" "$T/b.ktrc" >"$T/none.json"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || kt_fail "compare --ignore none exited $rc"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ignored_kinds"] == [] else 1)' \
	"$T/none.json" || kt_fail "--ignore none still ignores kinds"

# --ignore adds to the default list (it does not replace it); after
# 'none' it starts from nothing
"$REPLAY" compare --ignore Futex --json "$T/a.ktrc" "$T/b.ktrc" >"$T/futex.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=d["ignored_kinds"]; sys.exit(0 if "OffCpu" in k and "Wakeup" in k and "Futex" in k else 1)' \
	"$T/futex.json" || kt_fail "--ignore Futex dropped the default kinds: $(head -c 300 "$T/futex.json")"
"$REPLAY" compare --ignore none --ignore Futex --json "$T/a.ktrc" "$T/b.ktrc" >"$T/futex.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ignored_kinds"] == ["Futex"] else 1)' \
	"$T/futex.json" || kt_fail "--ignore none --ignore Futex: $(head -c 300 "$T/futex.json")"

# usage and unreadable traces: 2
"$REPLAY" compare "$T/a.ktrc" >/dev/null 2>&1
[ $? = 2 ] || kt_fail "compare with one trace did not exit 2"
"$REPLAY" compare "$T/a.ktrc" "$T/nonexistent.ktrc" >/dev/null 2>"$T/err"
[ $? = 2 ] || kt_fail "compare with a missing trace did not exit 2"
grep -q "^katra-replay: compare: cannot open trace file" "$T/err" || kt_fail "message: $(kt_tail "$T/err")"
"$REPLAY" compare --ignore Bogus "$T/a.ktrc" "$T/b.ktrc" >/dev/null 2>&1
[ $? = 2 ] || kt_fail "compare --ignore Bogus did not exit 2"
exit 0
