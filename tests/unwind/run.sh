#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Windows x64 unwinder against a real program: build/unwind/chains.exe
# (mingw, -O2 -fomit-frame-pointer) runs under Wine RUNS times (default 3)
# in a prefix of its own under a temporary directory, each run dumping its
# registers and stack at the leaf of main -> chain_a -> chain_b -> chain_c
# -> leaf; build/unwind/peustack, given the .exe file and the dump, must
# name leaf, chain_c, chain_b, chain_a, main as the first five frames, in
# that order, then leave the module through mainCRTStartup (the walk ends
# at the first pc in no module given: kernel32's), every time; and again
# with the dump taken at a fault in leaf_nopdata, an assembly leaf without
# .pdata that leaf calls (its frame left by the leaf rule).  Then the
# same under Wine 10, in the Proton-class root (tests/proton/enter.sh, as
# root, when $KATRA_PROTON_CACHE/root is built; else it says why it
# skips).  The host's Wine part needs no root; `make unwind-test` builds
# both programs first.  Prints one line per check, then "N passed, N
# failed"; no Wine: it says so and exits 0 with nothing counted.
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
want_fault=$'leaf_nopdata leaf\nleaf\nchain_c\nchain_b\nchain_a\nmain'
# verify LABEL DUMP [fault]: the frames peustack names from the dump
verify() {
	local out got
	out=$("$tool" "$exe" "$2" 2>&1)
	if [ "${3-}" = fault ]; then
		# the first line whole: leaf_nopdata left by the leaf rule
		got=$(head -n 6 <<<"$out" | sed -E '1!s/[+ ].*//')
		[ "$got" = "$want_fault" ]
		check "$1 (fault): leaf_nopdata without .pdata as a leaf, then leaf, chain_c, chain_b, chain_a, main" $? \
			"got: $(tr '\n' ' ' <<<"$out")"
	else
		got=$(head -n 5 <<<"$out" | sed -E 's/[+ ].*//')
		[ "$got" = "$want" ]
		check "$1: the first five frames are leaf, chain_c, chain_b, chain_a, main" $? \
			"got: $(tr '\n' ' ' <<<"$out")"
	fi
	# the module's own frames all unwound, down to its entry point
	sed -n '/^mainCRTStartup/,$p' <<<"$out" | sed -n 2,3p | tr '\n' ' ' |
		grep -qx '? unknown stop: no-module '
	check "$1${3:+ ($3)}: the walk leaves the .exe through mainCRTStartup, then stops" $? \
		"got: $(tr '\n' ' ' <<<"$out")"
}

wine_version=$(wine --version 2>/dev/null)
for i in $(seq 1 "$runs"); do
	for mode in "" fault; do
		dump=$tmp/dump$i$mode.bin
		# Wine maps / to Z:
		if ! timeout -k 5 120 wine "$exe" "Z:${dump//\//\\}" $mode >"$tmp/out$i" 2>"$tmp/err$i"; then
			check "$wine_version run $i $mode: chains.exe wrote its dump" 1 "$(tail -n 3 "$tmp/err$i")"
			continue
		fi
		verify "$wine_version run $i" "$dump" $mode
	done
done

# Wine 10: the Proton-class root, its prefix's changes in an overlay under
# $tmp (enter.sh: a mount namespace, chroot; root only)
proton=${KATRA_PROTON_CACHE:-/var/cache/katra-proton}/root
if [ "$(id -u)" != 0 ]; then
	echo "skip: Wine 10 (the Proton-class root) needs root (unshare -m, chroot)"
elif [ ! -e "$proton/.katra-proton-complete" ]; then
	echo "skip: Wine 10: no Proton-class root at $proton (make proton-root)"
else
	w=$tmp/w10
	mkdir -p "$w"
	cp "$exe" "$w/chains.exe"
	for i in $(seq 1 "$runs"); do
		for mode in "" fault; do
			if ! timeout -k 5 180 "$root/tests/proton/enter.sh" "$proton" "$w" /mnt/chains.exe \
				"Z:\\mnt\\dump$i$mode.bin" $mode >"$tmp/out10-$i" 2>"$tmp/err10-$i"; then
				check "Wine 10 run $i $mode: chains.exe wrote its dump" 1 "$(tail -n 3 "$tmp/err10-$i")"
				continue
			fi
			verify "Wine 10 run $i" "$w/dump$i$mode.bin" $mode
		done
	done
fi
echo "$passed passed, $failed failed"
((failed == 0))
