#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks: a workload without frame pointers whose known chains (main ->
# chain_a -> chain_b -> leaf) sleep, read with O_DIRECT and fault a dropped
# file page.  Every interval off the CPU they cause has a stack that names
# the chain in order, untruncated, with the kernel frames of its cause, and
# cites its OffCpu span exactly (the Begin's time, the End's),
# symbolised from a copy of the trace in another directory with the binary
# found by its build id (--symbols).  With the unwinder forced to frame
# pointers the same capture names no chain: CFI is what finds them.
# With --sample-hz, a thread on the CPU in a known chain is sampled there.
. "$(dirname "$0")/lib.sh"
kt_require
ROUNDS=5
[ "$(stat -f -c %T "$T")" != tmpfs ] || kt_skip "$T is on tmpfs: O_DIRECT and a dropped page cache need a disk"
mkdir -p "$T/data"
TRACE=$T/stacks.ktrc
kt_run_rec -o "$TRACE" --stack-threshold 0 -- "$WL/stackchains" "$T/data" "$ROUNDS"
[ "$KT_RC" = 0 ] || kt_fail "katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
grep -q ' call stacks (' "$T/rec.err" || kt_fail "no stacks line: $(kt_tail "$T/rec.err")"
kt_verify
python3 "$KT_DIR/stacks_check.py" cite "$TRACE.jsonl" >"$T/cite.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/cite.out")"

# elsewhere: the trace copied, the binary only under its build id
bid=$(kt_module_bid stackchains)
[ -n "$bid" ] || kt_fail "no Module record for stackchains with a build id"
mkdir -p "$T/elsewhere/syms/.build-id/${bid:0:2}"
cp "$TRACE" "$T/elsewhere/copy.ktrc"
cp "$WL/stackchains" "$T/elsewhere/syms/.build-id/${bid:0:2}/${bid:2}.debug"
(cd "$T/elsewhere" && "$REPLAY" stats --stacks --json --top 10000 --symbols syms copy.ktrc) \
	>"$T/stacks.json" 2>"$T/stats.err" || kt_fail "stats --stacks: $(kt_tail "$T/stats.err")"
python3 "$KT_DIR/stacks_check.py" "$T/stacks.json" "$ROUNDS" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
(cd "$T/elsewhere" && "$REPLAY" stats --folded --symbols syms copy.ktrc) >"$T/folded" ||
	kt_fail "stats --folded failed"
grep -Eq '^_start;__libc_start_main;__libc_start_call_main;main;chain_a;chain_b;leaf_sleep;.*;do_nanosleep_\[k\];.* [0-9]+$' "$T/folded" ||
	kt_fail "no folded line main;chain_a;chain_b;leaf_sleep ... do_nanosleep_[k]: $(head -n 2 "$T/folded")"

# report: each blocked hop of the critical path in a sleep or a read names
# its chain under it; export --stacks: every Sleep and FileRead slice of the
# rounds carries its chain in args.stack, innermost first
"$REPLAY" report --symbols "$WL" "$TRACE" >"$T/report.txt" 2>"$T/report.err" ||
	kt_fail "report --symbols: $(kt_tail "$T/report.err")"
"$REPLAY" export --stacks --symbols "$WL" -o "$T/export.json" "$TRACE" 2>"$T/export.err" ||
	kt_fail "export --stacks: $(kt_tail "$T/export.err")"
python3 "$KT_DIR/stacks_check.py" views "$T/report.txt" "$T/export.json" "$ROUNDS" \
	>"$T/views.out" 2>&1 || kt_fail "$(kt_tail "$T/views.out")"

# frame pointers only: the workload has none, no chain can be found
TRACE=$T/fp.ktrc
KATRA_TEST_STACKS_FP_ONLY=1 kt_run_rec -o "$TRACE" --stack-threshold 0 -- "$WL/stackchains" "$T/data" 2
[ "$KT_RC" = 0 ] || kt_fail "katra-record (frame pointers only) exited $KT_RC: $(kt_tail "$T/rec.err")"
"$REPLAY" stats --stacks --json --top 10000 --symbols "$WL" "$TRACE" >"$T/fp.json" ||
	kt_fail "stats --stacks (frame pointers only) failed"
if python3 "$KT_DIR/stacks_check.py" "$T/fp.json" 2 >"$T/fp-check.out" 2>&1; then
	kt_fail "frame pointers alone found the chains: the workload has frame pointers"
fi

# --sample-hz: 300 ms of CPU time in main -> spin_a -> spin_b -> spin_leaf
# (its own CPU time, not the wall clock's: as many samples however loaded);
# 80 % of its timer samples or more name that chain in order, each weighing
# the period (1e9 / 99 ns); --off-cpu keeps the off-CPU stacks alone
TRACE=$T/spin.ktrc
kt_run_rec -o "$TRACE" --sample-hz 99 -- "$WL/stackchains" spin 300
[ "$KT_RC" = 0 ] || kt_fail "katra-record --sample-hz exited $KT_RC: $(kt_tail "$T/rec.err")"
"$REPLAY" stats --stacks --on-cpu --json --top 10000 --symbols "$WL" "$TRACE" >"$T/on.json" ||
	kt_fail "stats --stacks --on-cpu failed"
python3 "$KT_DIR/stacks_check.py" oncpu "$T/on.json" 10101010 10 >"$T/on-check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/on-check.out")"
"$REPLAY" stats --folded --on-cpu --symbols "$WL" "$TRACE" >"$T/on.folded" ||
	kt_fail "stats --folded --on-cpu failed"
grep -Eq '^_start;__libc_start_main;__libc_start_call_main;main;spin_a;spin_b;spin_leaf(;[^ ]*)? [0-9]+$' "$T/on.folded" ||
	kt_fail "no folded line main;spin_a;spin_b;spin_leaf: $(head -n 2 "$T/on.folded")"
"$REPLAY" stats --stacks --off-cpu --json --top 10000 "$TRACE" >"$T/off.json" ||
	kt_fail "stats --stacks --off-cpu failed"
python3 - "$T/off.json" <<'PY' || kt_fail "stats --stacks --off-cpu kept another site"
import json, sys
sys.exit(any(s["site"] != "OffCpu" for s in json.load(open(sys.argv[1]))["stacks"]))
PY
exit 0
