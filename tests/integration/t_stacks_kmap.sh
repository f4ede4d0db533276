#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks when the kernel-stack map refuses a stack: with the map made one
# entry (KATRA_TEST_KSTACK_ENTRIES=1) the first kernel stack taken holds its
# only bucket and bpf_get_stackid answers -EEXIST for every other, as it
# does for any two stacks whose hashes share a bucket in a full-size map.
# Each interval off the CPU of stackchains' known chains (sleep, O_DIRECT
# read, fault) still has its kernel frames (stacks_check.py, as t_stacks),
# taken into the record beside the map, and stderr says how many were.
. "$(dirname "$0")/lib.sh"
kt_require
ROUNDS=5
[ "$(stat -f -c %T "$T")" != tmpfs ] || kt_skip "$T is on tmpfs: O_DIRECT and a dropped page cache need a disk"
mkdir -p "$T/data"
TRACE=$T/kmap.ktrc
KATRA_TEST_KSTACK_ENTRIES=1 kt_run_rec -o "$TRACE" --stack-threshold 0 -- "$WL/stackchains" "$T/data" "$ROUNDS"
[ "$KT_RC" = 0 ] || kt_fail "katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
grep -q ' call stacks (' "$T/rec.err" || kt_fail "no stacks line: $(kt_tail "$T/rec.err")"
"$REPLAY" stats --stacks --json --top 10000 --symbols "$WL" "$TRACE" >"$T/stacks.json" 2>"$T/stats.err" ||
	kt_fail "stats --stacks: $(kt_tail "$T/stats.err")"
python3 "$KT_DIR/stacks_check.py" "$T/stacks.json" "$ROUNDS" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
n=$(sed -n 's/.*; \([0-9][0-9]*\) kernel stacks beside the map.*/\1/p' "$T/rec.err")
[ -n "$n" ] && [ "$n" -ge 3 ] ||
	kt_fail "no kernel stacks said taken beside the map: $(grep ' call stacks (' "$T/rec.err")"
kt_note "$n kernel stacks beside the map; $(cat "$T/check.out")"
exit 0
