#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's BTF as the CO-RE relocations see it (the struct names no
# relocation names blanked, user/record/kernel/probes_btfnames.c; cut to
# what the relocations reach where the kernel has no module BTF,
# probes_btfcore.c) relocates every program exactly as the whole BTF does:
# libbpf's log of each relocation (its candidates, each instruction
# patched) is the same line for line, with KATRA_TEST_FULL_BTF=1 (the
# whole BTF) and without.
. "$(dirname "$0")/lib.sh"
kt_require
relocs() {
	# two objects load at once: their lines interleave, sorted here
	grep -E 'libbpf: (prog|CO-RE)' "$1" | grep -E 'relo #|candidate|patched' | sort >"$2"
}
# the objects loaded depend on whether the command's Vulkan drivers are
# known from an earlier capture (the early object, probes_early.c): this
# capture makes both runs' the same
"$REC" -q -o "$T/warm.ktr" -- true 2>"$T/warm.err" ||
	kt_fail "katra-record failed: $(kt_tail "$T/warm.err")"
KATRA_TIMING=1 KATRA_TEST_FULL_BTF=1 "$REC" -vv -q -o "$T/full.ktr" -- true 2>"$T/full.err" ||
	kt_fail "katra-record (whole BTF) failed: $(kt_tail "$T/full.err")"
KATRA_TIMING=1 "$REC" -vv -q -o "$T/blank.ktr" -- true 2>"$T/blank.err" ||
	kt_fail "katra-record failed: $(kt_tail "$T/blank.err")"
# where the kernel has no module BTF the relocations see the cut BTF: fewer
# types than the kernel's
if [ "$(ls /sys/kernel/btf)" = vmlinux ]; then
	cut=$(sed -n 's/.*CO-RE BTF: \([0-9]*\) types.*/\1/p' "$T/blank.err")
	all=$(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -c '^\[')
	[ -n "$cut" ] || kt_fail "no cut CO-RE BTF (KATRA_TIMING says nothing of it)"
	[ "$all" -eq 0 ] || [ "$cut" -lt "$all" ] ||
		kt_fail "the cut CO-RE BTF has $cut types, the kernel's $all"
fi
relocs "$T/full.err" "$T/full.relo"
grep -q 'CO-RE BTF:' "$T/full.err" && kt_fail "KATRA_TEST_FULL_BTF=1 still cut the BTF"
relocs "$T/blank.err" "$T/blank.relo"
n=$(grep -c patched "$T/full.relo")
[ "$n" -ge 100 ] || kt_fail "libbpf's log has $n patched instructions (expected 100 or more): $(kt_tail "$T/full.err")"
diff "$T/full.relo" "$T/blank.relo" >"$T/diff" ||
	kt_fail "relocations differ from the whole BTF's: $(head -c 1500 "$T/diff")"
