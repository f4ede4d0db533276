#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Windows x64 unwinder against a real program: build/unwind/chains.exe
# (mingw, -O2 -fomit-frame-pointer) runs under Wine RUNS times (default 3)
# in a prefix of its own under a temporary directory, each run dumping its
# registers and stack at the leaf of main -> chain_a -> chain_b -> chain_c
# -> leaf; build/unwind/peustack, given the .exe file and the dump, must
# name leaf, chain_c, chain_b, chain_a, main as the first five frames, in
# that order, then leave the module through mainCRTStartup, every time;
# and again
# with the dump taken at a fault in leaf_nopdata, an assembly leaf without
# .pdata that leaf calls (its frame left by the leaf rule), and in a qsort
# comparison called from Wine's msvcrt.dll.  Wine's own DLLs (kernel32.dll,
# ntdll.dll, msvcrt.dll, read from the Wine installation by the names the
# dump lists) are unwound too, down to ntdll.dll!RtlUserThreadStart, the
# thread's outermost frame; the images laid out as the loader maps them
# (peustack --mapped) give the same frames.  Then the
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
want_qsort=$'compare\nmsvcrt.dll: msvcrt.dll!qsort\nleaf\nchain_c\nchain_b\nchain_a\nmain'
# verify LABEL DUMP DLLDIR [MODE]: the frames peustack names from the dump
verify() {
	local out got what
	out=$("$tool" "$exe" "$2" "$3" 2>&1)
	case ${4-} in
	fault)
		# the first line whole: leaf_nopdata left by the leaf rule
		got=$(head -n 6 <<<"$out" | sed -E '1!s/[+ ].*//')
		[ "$got" = "$want_fault" ]
		what="leaf_nopdata without .pdata as a leaf, then leaf, chain_c, chain_b, chain_a, main" ;;
	qsort)
		# msvcrt.dll's frames (its own static functions) as one, named by
		# the outermost: qsort
		got=$(sed -E 's/[+ ].*//' <<<"$out" |
			awk '/^msvcrt\.dll!/ { m = $0; next } m != "" { print "msvcrt.dll: " m; m = "" } { print }' |
			head -n 7)
		[ "$got" = "$want_qsort" ]
		what="compare, msvcrt.dll's frames up to qsort, then leaf, chain_c, chain_b, chain_a, main" ;;
	*)
		got=$(head -n 5 <<<"$out" | sed -E 's/[+ ].*//')
		[ "$got" = "$want" ]
		what="the first five frames are leaf, chain_c, chain_b, chain_a, main" ;;
	esac
	check "$1${4:+ ($4)}: $what" $? "got: $(tr '\n' ' ' <<<"$out")"
	# the module's own frames all unwound, down to its entry point, then
	# Wine's kernel32.dll and ntdll.dll to the thread's first frame
	sed -n '/^mainCRTStartup/,$p' <<<"$out" | sed -n 2,4p | sed -E 's/[+ ].*//' | tr '\n' ' ' |
		grep -qx 'kernel32.dll!BaseThreadInitThunk ntdll.dll!RtlUserThreadStart stop: '
	check "$1${4:+ ($4)}: after mainCRTStartup, kernel32.dll!BaseThreadInitThunk, ntdll.dll!RtlUserThreadStart, the end" $? \
		"got: $(tr '\n' ' ' <<<"$out")"
	grep -qx 'stop: end' <<<"$out"
	check "$1${4:+ ($4)}: the walk ends at the outermost frame" $? "got: $(tail -n 2 <<<"$out" | head -n 1)"
	# the same frames from the images laid out as the loader maps them
	[ "$("$tool" --mapped "$exe" "$2" "$3" 2>&1)" = "$out" ]
	check "$1${4:+ ($4)}: the images as mapped give the same frames" $? "--mapped differs"
}

wine_version=$(wine --version 2>/dev/null)
# Wine's own PE DLLs (Debian's wine64 package)
dlls=$(dirname "$(readlink -f "$(command -v wine)")")/../lib/x86_64-linux-gnu/wine/x86_64-windows
[ -d "$dlls" ] || dlls=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
for i in $(seq 1 "$runs"); do
	for mode in "" fault qsort; do
		dump=$tmp/dump$i$mode.bin
		# Wine maps / to Z:
		if ! timeout -k 5 120 wine "$exe" "Z:${dump//\//\\}" $mode >"$tmp/out$i" 2>"$tmp/err$i"; then
			check "$wine_version run $i $mode: chains.exe wrote its dump" 1 "$(tail -n 3 "$tmp/err$i")"
			continue
		fi
		verify "$wine_version run $i" "$dump" "$dlls" $mode
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
		for mode in "" fault qsort; do
			if ! timeout -k 5 180 "$root/tests/proton/enter.sh" "$proton" "$w" /mnt/chains.exe \
				"Z:\\mnt\\dump$i$mode.bin" $mode >"$tmp/out10-$i" 2>"$tmp/err10-$i"; then
				check "Wine 10 run $i $mode: chains.exe wrote its dump" 1 "$(tail -n 3 "$tmp/err10-$i")"
				continue
			fi
			verify "Wine 10 run $i" "$w/dump$i$mode.bin" \
				"$proton/usr/lib/x86_64-linux-gnu/wine/x86_64-windows" $mode
		done
	done
fi
echo "$passed passed, $failed failed"
((failed == 0))
