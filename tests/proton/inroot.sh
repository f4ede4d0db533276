#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Inside the Proton-class root (tests/proton/enter.sh): an Xvfb of its own
# (-displayfd: the first display free, also of the host's abstract sockets),
# `wine EXE ARGS...` in the prefix, then the session's end (wineserver -w).
# The prefix's virtual desktop keeps DXVK 2.6 off Xvfb's 0 Hz modes.
# KATRA_DLL_OVERRIDES (e.g. dxgi=b: Wine's own dxgi for a D3D12 program, the
# prefix's being DXVK's) is appended to WINEDLLOVERRIDES.
export WINEPREFIX=/opt/katra/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=${KATRA_DLL_OVERRIDES:+;$KATRA_DLL_OVERRIDES}" HOME=/root DXVK_LOG_LEVEL=none
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>/tmp/display 2>/tmp/xvfb.err &
xvfb=$!
i=0
while [ ! -s /tmp/display ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s /tmp/display ] || {
	echo "inroot.sh: Xvfb did not start: $(tail -n 2 /tmp/xvfb.err)" >&2
	exit 1
}
DISPLAY=:$(cat /tmp/display)
export DISPLAY
wine "$@"
rc=$?
wineserver -w
kill $xvfb
wait $xvfb 2>/dev/null
exit $rc
