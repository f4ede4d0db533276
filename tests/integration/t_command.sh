#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -- COMMAND: katra-record exits with the command's status, and the command is
# traced from before its exec (exact syscall counts with no gate).
. "$(dirname "$0")/lib.sh"
kt_require
TRACE=$T/exit7.ktrc
kt_run_rec -o "$TRACE" -- sh -c 'exit 7'
[ "$KT_RC" = 7 ] || kt_fail "-- sh -c 'exit 7': katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify

TRACE=$T/cmd.ktrc
timeout -k 5 30 "$REC" -o "$TRACE" -- "$WL/syscalls" 300 200 >"$T/syscalls.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "-- syscalls: katra-record exited $rc: $(kt_tail "$T/rec.err")"
kt_verify
kt_check command "$TRACE.jsonl" "$T/syscalls.out"
