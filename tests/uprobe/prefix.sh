#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Creates (once) and prints the Wine prefix the uprobe tests and benchmarks
# share: $KATRA_WINEPREFIX, default build/wineprefix.  Headless and quick:
# WINEDEBUG=-all, mscoree/mshtml disabled (no Mono/Gecko installers).  About
# 10-20 s and 700 MB the first time; later calls only print the path.
# Exits 77 when Wine is not installed (tests skip).
# (The Wine-session work has its own tests/wine/prefix.sh: one of the two
# goes when both are merged.)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${KATRA_WINEPREFIX:-$root/build/wineprefix}
command -v wine >/dev/null 2>&1 || { echo "wine is not installed" >&2; exit 77; }
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$(dirname "$prefix")"
exec 9>"$prefix.lock"
flock 9
if [ ! -f "$prefix/.katra-ready" ]; then
	rm -rf "$prefix"
	timeout -k 5 120 wineboot -i >/dev/null 2>&1 || { echo "wineboot -i failed for $prefix" >&2; exit 1; }
	timeout -k 5 60 wineserver -w || true
	touch "$prefix/.katra-ready"
fi
echo "$prefix"
