#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the Proton-class test stack once and prints its path: a Debian 13
# (trixie) root holding Wine 10, DXVK (dxvk-wine64), Mesa's lavapipe, Xvfb and
# vulkan-tools, with a Wine prefix inside it (DXVK installed, a virtual
# desktop so DXVK 2.6 does not divide by Xvfb's 0 Hz refresh rate).
#
# usage: tests/proton/mkroot.sh            (prints the root's path)
# Exit 0: built or cached; 77: it cannot be built here (no mmdebstrap, the
# mirror unreachable), the reason on stderr and in $cache/last-error, which
# the tests that need the root quote when they skip; 1: the build failed.
#
# Cached under $KATRA_PROTON_CACHE (default /var/cache/katra-proton): a root
# already there is reused, so CI re-runs need no network; a fresh machine
# builds it once.  Atomic: it is built in a temporary directory beside the
# cache and renamed into place only when complete, so an interrupted build
# leaves nothing that looks finished.  The machine's own apt state is never
# touched: mmdebstrap runs apt with state of its own inside the new root.
set -euo pipefail

cache=${KATRA_PROTON_CACHE:-/var/cache/katra-proton}
root=$cache/root
if [[ -e $root/.katra-proton-complete ]]; then
	echo "$root"
	exit 0
fi
# cannot: a reason the root cannot be built on this machine (exit 77)
cannot() {
	echo "mkroot.sh: $*" >&2
	{ mkdir -p "$cache" && echo "$*" >"$cache/last-error"; } 2>/dev/null || true
	exit 77
}
[[ $(id -u) -eq 0 ]] || cannot "run as root (mmdebstrap's root mode and chroot)"
command -v mmdebstrap >/dev/null ||
	cannot "mmdebstrap missing (apt-get install mmdebstrap, or run ci/install-deps.sh)"
mirror=${KATRA_PROTON_MIRROR:-http://deb.debian.org/debian}
# the mirror's host and port, reachable or not (no network: exit 77)
hostport=${mirror#*://}
hostport=${hostport%%/*}
host=${hostport%:*}
port=80
[[ $hostport == *:* ]] && port=${hostport##*:}
[[ $mirror == https://* && $hostport != *:* ]] && port=443
timeout 20 bash -c ": >/dev/tcp/$host/$port" 2>/dev/null ||
	cannot "the mirror $mirror is unreachable (no network?): the root is built from it"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || {
	echo "mkroot.sh: $keyring missing (apt-get install debian-archive-keyring)" >&2
	exit 1
}
mkdir -p "$cache"
# one build at a time; a second caller waits and then finds it cached
exec 9>"$cache/.lock"
flock 9
if [[ -e $root/.katra-proton-complete ]]; then
	echo "$root"
	exit 0
fi
# what a killed build left (under the lock, so nobody's live build)
rm -rf --one-file-system "$cache"/root.tmp.*
rm -f "$cache/last-error"
tmp=$(mktemp -d "$cache/root.tmp.XXXXXX")
cleanup() {
	# a failed build: drop the half root (the prefix step's mounts died with
	# its namespace), say so where the tests look
	rm -rf --one-file-system "$tmp"
	echo "the build of the root failed (tests/proton/mkroot.sh; log: $cache/build.log)" \
		>"$cache/last-error"
}
trap cleanup EXIT

# everything below also goes to build.log (the make test output stays short)
exec 2> >(tee "$cache/build.log" >&2)
start=$SECONDS
echo "mkroot.sh: mmdebstrap trixie into $tmp (Wine 10, DXVK, lavapipe, Xvfb)" >&2
# --variant=apt: essential + apt, then --include; contrib holds dxvk.  The
# apt lists and .debs are dropped afterwards (the root's own /var/cache/apt).
mmdebstrap --variant=apt --components=main,contrib \
	--keyring="$keyring" \
	--include=wine,wine64,dxvk,dxvk-wine64,mesa-vulkan-drivers,libvulkan1,xvfb,xauth,vulkan-tools,procps \
	--customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
	trixie "$tmp" "$mirror" >&2

# The Wine prefix, made once inside the root: wineboot, DXVK's DLLs
# (dxvk-setup from the dxvk package), and the virtual desktop that keeps DXVK
# 2.6 off Xvfb's 0 Hz modes.  Done in a mount namespace of its own so the
# mounts vanish with it.
echo "mkroot.sh: Wine prefix in the root ($((SECONDS - start)) s so far)" >&2
cat >"$tmp/usr/local/sbin/katra-mkprefix" <<'EOF'
#!/bin/sh
# runs inside the root: creates /opt/katra/prefix with DXVK and a virtual desktop
set -e
export WINEPREFIX=/opt/katra/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" HOME=/root
mkdir -p /opt/katra
Xvfb :91 -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
export DISPLAY=:91
wineboot -i >/dev/null 2>&1
wineserver -w
dxvk-setup install -y -s >/dev/null
wine reg add 'HKCU\Software\Wine\Explorer' /v Desktop /d Default /f >/dev/null 2>&1
wine reg add 'HKCU\Software\Wine\Explorer\Desktops' /v Default /d 640x480 /f >/dev/null 2>&1
wineserver -w
kill $xvfb
EOF
chmod 755 "$tmp/usr/local/sbin/katra-mkprefix"
unshare -m sh -c '
	set -e
	mount -t proc proc "$1/proc"
	mount --rbind /dev "$1/dev"
	mount -t tmpfs tmpfs "$1/tmp"
	exec chroot "$1" /usr/local/sbin/katra-mkprefix' - "$tmp" >&2
[[ -e $tmp/opt/katra/prefix/system.reg ]] || {
	echo "mkroot.sh: the Wine prefix was not created in $tmp/opt/katra/prefix" >&2
	exit 1
}
touch "$tmp/.katra-proton-complete"
rm -rf --one-file-system "$root"
mv "$tmp" "$root"
trap - EXIT
echo "mkroot.sh: built $root in $((SECONDS - start)) s, $(du -sh --one-file-system "$root" | cut -f1)" >&2
echo "$root"
