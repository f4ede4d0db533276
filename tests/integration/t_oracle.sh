#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The strace oracle: a multi-threaded program with signal handlers (a syscall
# in the handler, rt_sigreturn), futex hand-offs, file reads, forks and execs
# runs under `strace -f` inside a capture; per thread and per syscall the
# trace's spans equal strace's lines exactly (strace's own set-up before its
# child's execve excepted).
. "$(dirname "$0")/lib.sh"
kt_require
command -v strace >/dev/null || kt_fail "strace is not installed (ci/install-deps.sh installs it)"
kt_run_rec -q -o "$TRACE" -- strace -f -qq -o "$T/strace.txt" "$WL/oracle" 40
[ "$KT_RC" = 0 ] || kt_fail "katra-record -- strace ... exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
python3 "$KT_DIR/oracle_check.py" "$TRACE.jsonl" "$T/strace.txt" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
