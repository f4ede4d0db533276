#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's BTF is parsed once per start-up (probes_btf.c): the flavours'
# choice, the skeleton's load and the syscall probes' own object
# (probes_split.c) want it at once, on three threads, and share one copy.
# Where the file can be mapped (Linux 6.16+) every parse maps it, so the
# recorder's mmap() calls of the file's size count them: one to learn that
# it can be mapped (pk_btf_mappable), one parse.  Before: 1 + 3 (~5 ms of
# CPU each, and a 5.5 MiB copy each, on a 2-CPU machine that also verifies
# the programs meanwhile).
. "$(dirname "$0")/lib.sh"
kt_require
command -v strace >/dev/null || kt_skip "no strace"
BTF=/sys/kernel/btf/vmlinux
python3 -c "import mmap, sys; f = open('$BTF', 'rb'); mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)" \
	2>/dev/null || kt_skip "the kernel's BTF cannot be mapped here (before 6.16)"
SIZE=$(stat -c %s "$BTF")
sleep 120 &
SLEEPER=$!
KT_PIDS="$KT_PIDS $SLEEPER"
timeout -k 5 60 strace -f -qq -e trace=mmap -o "$T/strace.out" \
	"$REC" -p "$SLEEPER" -o "$TRACE" -d 0.2 >"$T/rec.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record under strace exited $rc: $(kt_tail "$T/rec.err" 2)"
maps=$(grep -c "mmap(NULL, $SIZE, PROT_READ, MAP_PRIVATE, " "$T/strace.out")
[ "$maps" = 2 ] ||
	kt_fail "the kernel's BTF ($SIZE bytes) mapped $maps times, expected 2 (the probe, one parse)"
kt_verify
kt_note "the kernel's BTF mapped twice: the probe and one parse"
