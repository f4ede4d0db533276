#!/bin/bash
# Creates the Wine prefixes the t_wine_* tests share, once per checkout (a CI
# run): DIR/a, a new prefix (wineboot -i, ~15 s, ~700 MB), and DIR/b, a copy
# of it made of hard links (another directory: another wineserver, another
# session; Wine replaces the files it rewrites, so the copies stay apart).
# Reused while DIR/a/.katra-ready exists; a lock serialises concurrent runs.
#
# usage: tests/wine/prefix.sh [DIR]   (default: build/wine/prefix)
# exit: 0 ready (prints DIR), 1 wineboot failed, 77 Wine not installed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-${KATRA_WINE_PREFIX_DIR:-$root/build/wine/prefix}}
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
unset WAYLAND_DISPLAY

command -v wine >/dev/null && command -v wineserver >/dev/null || {
	echo "prefix.sh: Wine is not installed (ci/install-deps.sh installs wine, wine64)" >&2
	exit 77
}
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -e "$dir/a/.katra-ready" ]; then
	rm -rf "$dir/a" "$dir/b"
	start=${EPOCHREALTIME/./}
	# a fresh prefix: wineboot -i creates it; wineserver -w waits for the
	# session it started (services, ...) to end
	if ! WINEPREFIX="$dir/a" timeout 120 wineboot -i >"$dir/wineboot.log" 2>&1 ||
		! WINEPREFIX="$dir/a" timeout 60 wineserver -w; then
		echo "prefix.sh: wineboot -i failed in $dir/a: $(tail -n 2 "$dir/wineboot.log")" >&2
		WINEPREFIX="$dir/a" wineserver -k 2>/dev/null
		exit 1
	fi
	cp -al "$dir/a" "$dir/b"
	echo "$(((${EPOCHREALTIME/./} - start) / 1000)) ms" >"$dir/a/.katra-ready"
fi
echo "$dir"
