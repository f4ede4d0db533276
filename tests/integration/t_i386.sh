#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A static i386 program (int $0x80) under `-- COMMAND`: exactly 1000 reads,
# as FileRead spans, and 1000 getppid, as Syscall spans, both with their i386
# numbers (KATRA_NR_I386 | nr) rather than misread as x86_64 close/semget.
. "$(dirname "$0")/lib.sh"
kt_require
[ -x "$WL/i386prog" ] || kt_skip "$WL/i386prog not built (the toolchain cannot assemble i386: see make's warning)"
grep -qs '^CONFIG_IA32_EMULATION=y' "/boot/config-$(uname -r)" ||
	"$WL/i386prog" || kt_skip "this kernel cannot run i386 programs (no IA32_EMULATION)"
TRACE=$T/i386.ktrc
kt_run_rec -o "$TRACE" -- "$WL/i386prog"
[ "$KT_RC" = 0 ] || kt_fail "-- i386prog: katra-record exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verified_check file i386 1000
