#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The cut CO-RE BTF kept between captures (user/record/kernel/btfcache.c):
# the first capture makes the file, the next one takes it; a file with a
# flipped byte, torn, made for another recorder or kernel, or not root's
# alone is not taken: the cut is made again, byte for byte the same, and
# written over it.  Every capture, from the file or not, is exact (the
# syscalls workload's own counts).
. "$(dirname "$0")/lib.sh"
kt_require
[ "$(ls /sys/kernel/btf)" = vmlinux ] || kt_skip "this kernel has module BTF: no cut CO-RE BTF is made"
# the cut is made from the shared parse, which maps the file (Linux 6.16+)
python3 -c 'import mmap; f = open("/sys/kernel/btf/vmlinux", "rb"); mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)' \
	2>/dev/null || kt_skip "this kernel's BTF cannot be mapped: no cut CO-RE BTF is made"
C=$KATRA_TEST_BTFCACHE_DIR/btf-core
# capture NAME WANT: an exact capture whose CO-RE BTF line says WANT
# ("made" or "from the cache")
capture()
{
	TRACE=$T/$1.ktrc
	KATRA_TIMING=1 timeout -k 5 30 "$REC" -o "$TRACE" -- "$WL/syscalls" 300 200 \
		>"$T/$1.out" 2>"$T/$1.err" || kt_fail "$1: katra-record failed: $(kt_tail "$T/$1.err")"
	kt_verify
	kt_check command "$TRACE.jsonl" "$T/$1.out"
	grep -q "probes: CO-RE BTF: [0-9]* types.*$2" "$T/$1.err" ||
		kt_fail "$1: the CO-RE BTF was not $2: $(grep 'CO-RE BTF' "$T/$1.err" | tr '\n' ' ')"
}
capture first made
[ -f "$C" ] || kt_fail "the first capture left no $C"
[ "$(stat -c '%u %a' "$C")" = "0 600" ] || kt_fail "$C is $(stat -c '%u %a' "$C"), not root's 600"
cp "$C" "$T/good"
capture second "from the cache"
# a name's byte flipped near the end (libbpf's parse takes it: the checksum does not)
size=$(stat -c %s "$C")
printf 'Z' | dd of="$C" bs=1 seek=$((size - 40)) conv=notrunc status=none
cmp -s "$C" "$T/good" && kt_fail "the byte was not flipped"
capture flipped made
grep -q 'CO-RE BTF not cached (Invalid argument)' "$T/flipped.err" || kt_fail "flipped: $(grep 'CO-RE' "$T/flipped.err")"
cmp -s "$C" "$T/good" || kt_fail "the cut made again differs from the first"
head -c $((size / 2)) "$T/good" >"$C"
capture torn made
cmp -s "$C" "$T/good" || kt_fail "the cut made again after the torn file differs from the first"
# another recorder's: its build id's first digit changed
sed -i '0,/^self \(.\)/s//self X/' "$C"
capture foreign made
grep -q 'CO-RE BTF not cached (Stale file handle)' "$T/foreign.err" || kt_fail "foreign: $(grep 'CO-RE' "$T/foreign.err")"
chown 65534 "$C"
capture nobodys made
[ "$(stat -c %u "$C")" = 0 ] || kt_fail "a file not root's was left in place"
capture last "from the cache"
