#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Windows x64 unwinder against a real program: build/unwind/chains.exe
# (mingw, -O2 -fomit-frame-pointer) runs under Wine RUNS times (default 3)
# in a prefix of its own under a temporary directory, each run dumping its
# registers and stack at the leaf of main -> chain_a -> chain_b -> chain_c
# -> leaf; build/unwind/peustack, given the .exe file and the dump, must
# name leaf, chain_c, chain_b, chain_a, main as the first five frames, in
# that order, then leave the module through mainCRTStartup (the walk ends
# at the first pc in no module given: kernel32's), every time.  Needs no
# root; `make unwind-test` builds both programs first.  Prints one line per
# check, then "N passed, N failed"; no Wine or mingw: it says so and
# exits 0 with nothing counted.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
exe=$root/build/unwind/chains.exe
tool=$root/build/unwind/peustack
passed=0
failed=0

if ! command -v wine >/dev/null || ! command -v wineserver >/dev/null; then
	echo "skip: Wine is not installed (ci/install-deps.sh installs wine, wine64)"
	echo "0 passed, 0 failed"
	exit 0
fi
for f in "$exe" "$tool"; do
	if [ ! -x "$f" ] && [ ! -f "$f" ]; then
		echo "unwind: missing $f (run: make unwind-test)" >&2
		exit 2
	fi
done

tmp=$(mktemp -d /tmp/katra-unwind.XXXXXX)
export WINEPREFIX=$tmp/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
unset WAYLAND_DISPLAY
cleanup() {
	wineserver -k >/dev/null 2>&1
	wineserver -w >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

check() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
		echo "PASS $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1: $3"
	fi
}

want=$'leaf\nchain_c\nchain_b\nchain_a\nmain'
for i in $(seq 1 "$runs"); do
	dump=$tmp/dump$i.bin
	# Wine maps / to Z:
	if ! timeout -k 5 120 wine "$exe" "Z:${dump//\//\\}" >"$tmp/out$i" 2>"$tmp/err$i"; then
		check "run $i: chains.exe wrote its dump" 1 "$(tail -n 3 "$tmp/err$i")"
		continue
	fi
	out=$("$tool" "$exe" "$dump" 2>&1)
	got=$(head -n 5 <<<"$out" | sed -E 's/[+ ].*//')
	[ "$got" = "$want" ]
	check "run $i: the first five frames are leaf, chain_c, chain_b, chain_a, main" $? \
		"got: $(tr '\n' ' ' <<<"$out")"
	# the module's own frames all unwound, down to its entry point
	sed -n '/^mainCRTStartup/,$p' <<<"$out" | sed -n 2,3p | tr '\n' ' ' |
		grep -qx '? unknown stop: no-module '
	check "run $i: the walk leaves the .exe through mainCRTStartup, then stops" $? \
		"got: $(tr '\n' ' ' <<<"$out")"
done
echo "$passed passed, $failed failed"
((failed == 0))
