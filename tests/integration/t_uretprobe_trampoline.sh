#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The uretprobe trampoline's syscall is not the program's (SPEC §10): since
# Linux 6.11 a uretprobe returns through a syscall (uretprobe, x86_64 335)
# whose exit has id -1 and no enter.  A program (attached with -p) makes N
# calls into a stand-in Wine ntdll.so, each returning through two uretprobes,
# between N getppid: the trace holds the N NtReadFile spans, exactly N
# getppid spans, and no syscall event numbered 335 or 4294967295.
. "$(dirname "$0")/lib.sh"
kt_require
command -v gcc >/dev/null 2>&1 || kt_skip "no gcc"
mkdir -p "$T/lib/wine/x86_64-unix"
gcc -O1 -shared -fPIC -o "$T/lib/wine/x86_64-unix/ntdll.so" "$KT_ROOT/tests/uprobe/fake_ntdll.c" \
	2>"$T/cc.err" || kt_fail "cannot build the stand-in ntdll.so: $(kt_tail "$T/cc.err")"
kt_workload uprobed "$T/lib/wine/x86_64-unix/ntdll.so" "$T/started" 300
kt_wait_started uprobed "$WL_PID"
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
python3 "$KT_DIR/truth_check.py" uprobed "$TRACE.jsonl" "$T/uprobed.out" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
