#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --paths on a busy machine (two CPU hogs): a command that opens
# 3,000 files, each once (find ... -exec cat {} +: cat prints each file's
# number), must have every openat's path and lose nothing.  With the drain at
# SCHED_IDLE (the old default) it got no CPU while the hogs ran: paths went
# missing and SpanTable drops were counted.
. "$(dirname "$0")/lib.sh"
kt_require
N=3000
mkdir "$T/files"
for i in $(seq $N); do
	echo "$i" >"$T/files/f$i"
done
kt_hogs 2
TRACE=$T/busy.ktrc
timeout -k 5 240 "$REC" -o "$TRACE" --paths \
	-- find "$T/files" -type f -name 'f*' -exec cat {} + >"$T/cat.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record exited $rc: $(kt_tail "$T/rec.err")"
# the workload's own count: each file printed once
got=$(sort -n "$T/cat.out" | uniq | wc -l)
[ "$got" = $N ] || kt_fail "the workload read $got files, not $N"
kt_verify
kt_check paths_all "$TRACE.jsonl" "$T/files" $N
kt_note "$(kt_tail "$T/check.out")"
