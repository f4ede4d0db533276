#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a start-up used to do several times, done once (counted with strace,
# -p of a process without children):
# - the kernel's BTF is parsed once (probes_btf.c): the flavours' choice, the
#   skeleton's load and the syscall probes' own object (probes_split.c) want
#   it at once, on three threads, and share one copy.  Where the file can be
#   mapped (Linux 6.16+) every parse maps it, so the mmap() calls of the
#   file's size count them: one to learn that it can be mapped
#   (pk_btf_mappable), one parse.  Before: 1 + 3.
# - /proc is not listed at all: the Wine sessions' look for a Wine program
#   below the targets and the look for descendants read the target's
#   threads' /proc/PID/task/TID/children instead (targets.c: no child, no
#   descendant); a second look (for what a descendant forked before it was
#   tracked) and the look after the uprobes' settle (for what the tree
#   forked meanwhile) are skipped where the first found no descendant and
#   no target forked (the probes follow the targets' forks).  Before: 5
#   listings, each reading every process's stat.
. "$(dirname "$0")/lib.sh"
kt_require
command -v strace >/dev/null || kt_skip "no strace"
sleep 120 &
SLEEPER=$!
KT_PIDS="$KT_PIDS $SLEEPER"
timeout -k 5 60 strace -f -qq -e trace=mmap,openat -o "$T/strace.out" \
	"$REC" -p "$SLEEPER" -o "$TRACE" -d 0.2 >"$T/rec.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record under strace exited $rc: $(kt_tail "$T/rec.err" 2)"
kt_verify
lists=$(grep -c 'openat(AT_FDCWD, "/proc", ' "$T/strace.out")
[ "$lists" = 0 ] || kt_fail "/proc listed $lists times, expected none (a target without children)"
looks=$(grep -c "openat(AT_FDCWD, \"/proc/$SLEEPER/task/$SLEEPER/children\"" "$T/strace.out")
[ "$looks" = 2 ] || kt_fail "the target's children read $looks times, expected 2 (the sessions', the descendants')"
BTF=/sys/kernel/btf/vmlinux
if python3 -c "import mmap; f = open('$BTF', 'rb'); mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)" 2>/dev/null; then
	SIZE=$(stat -c %s "$BTF")
	maps=$(grep -c "mmap(NULL, $SIZE, PROT_READ, MAP_PRIVATE, " "$T/strace.out")
	[ "$maps" = 2 ] ||
		kt_fail "the kernel's BTF ($SIZE bytes) mapped $maps times, expected 2 (the probe, one parse)"
	kt_note "/proc not listed; the kernel's BTF mapped twice: the probe and one parse"
else
	kt_note "/proc not listed (the kernel's BTF cannot be mapped here: its parses not counted)"
fi
