#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs a Windows program in the Proton-class root the way pressure-vessel
# runs a game: a mount namespace of its own (unshare -m), the root's /proc
# (the host's PIDs), /dev, a private /tmp, then chroot; inside, an X server
# of its own (Xvfb) and `wine EXE ARGS...` in the root's prefix, whose
# changes go to an overlay in WORK (the cached prefix stays as built).
#
# usage: tests/proton/enter.sh ROOT WORK EXE [ARGS...]
#   WORK: a host directory, seen inside as /mnt (EXE and its data live there,
#   named /mnt/... or Z:\mnt\...); its ovl/ holds the prefix's overlay.
# KATRA_DLL_OVERRIDES passes through to WINEDLLOVERRIDES (inroot.sh).
# The program's stdout and stderr pass through; the exit status is its own.
set -euo pipefail
root=${1:?usage: enter.sh ROOT WORK EXE [ARGS...]}
work=${2:?usage: enter.sh ROOT WORK EXE [ARGS...]}
shift 2
[[ -e $root/.katra-proton-complete ]] || {
	echo "enter.sh: $root is not a complete root (tests/proton/mkroot.sh)" >&2
	exit 1
}
mkdir -p "$work/ovl/up" "$work/ovl/wk"
cp "$(dirname "$0")/inroot.sh" "$work/.inroot.sh"
exec unshare -m --propagation private /bin/sh -c '
	set -e
	r=$1 w=$2
	shift 2
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs tmpfs "$r/tmp"
	mount --bind "$w" "$r/mnt"
	mount -t overlay overlay -o "lowerdir=$r/opt/katra/prefix,upperdir=$w/ovl/up,workdir=$w/ovl/wk" "$r/opt/katra/prefix"
	exec chroot "$r" /bin/sh /mnt/.inroot.sh "$@"' - "$root" "$work" "$@"
