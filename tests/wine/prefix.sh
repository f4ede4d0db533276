#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The one script that creates (once) the Wine prefixes every Wine test and
# benchmark shares, and prints them, one per line:
#   A  $KATRA_WINEPREFIX (default build/wineprefix): a new prefix (wineboot
#      -i, ~10 s and ~700 MB the first time; headless and quick with
#      WINEDEBUG=-all and mscoree/mshtml off: no Mono/Gecko installers).
#   B  A-b: a copy of A made of hard links (~0.5 MB): another directory, so
#      another wineserver and another session (Wine replaces the files it
#      rewrites, so the two stay apart).
# usage: prefix.sh [--one]   (--one: A only, B is neither made nor printed:
# the uprobe tests and bench/uprobes.sh)
# Later calls only print them (A's marker .katra-ready: a CI run creates it
# once); a lock serialises concurrent ones.
# exit: 0 ready, 1 wineboot failed, 2 usage, 77 Wine not installed (tests skip).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
one=0
case ${1-} in
--one) one=1 ;;
"") ;;
*) echo "usage: prefix.sh [--one]" >&2; exit 2 ;;
esac
a=${KATRA_WINEPREFIX:-$root/build/wineprefix}
b=$a-b
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
unset WAYLAND_DISPLAY

command -v wine >/dev/null && command -v wineserver >/dev/null || {
	echo "prefix.sh: Wine is not installed (ci/install-deps.sh installs wine, wine64)" >&2
	exit 77
}
mkdir -p "$(dirname "$a")"
exec 9>"$a.lock"
flock 9
if [ ! -f "$a/.katra-ready" ]; then
	rm -rf "$a" "$b"
	start=${EPOCHREALTIME/./}
	# wineserver -w: wait for the session wineboot started (services, ...)
	if ! WINEPREFIX=$a timeout -k 5 120 wineboot -i >"$a.log" 2>&1 ||
		! WINEPREFIX=$a timeout -k 5 60 wineserver -w; then
		echo "prefix.sh: wineboot -i failed for $a: $(tail -n 2 "$a.log")" >&2
		WINEPREFIX=$a wineserver -k 2>/dev/null
		exit 1
	fi
	echo "created in $(((${EPOCHREALTIME/./} - start) / 1000)) ms" >"$a/.katra-ready"
fi
if [ "$one" = 1 ]; then
	echo "$a"
	exit 0
fi
if [ ! -f "$b/.katra-ready" ]; then
	rm -rf "$b"
	cp -al "$a" "$b" || { echo "prefix.sh: cannot copy $a to $b" >&2; exit 1; }
fi
echo "$a"
echo "$b"
