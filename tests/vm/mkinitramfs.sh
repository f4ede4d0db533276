#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the guest's initramfs: busybox (static), the recorder, katra-replay,
# katra-vmcheck and the test workloads with every shared library ldd finds for
# them, /init and the guest test script.  No disk image: this cpio.gz is the
# whole root file system.
#
# usage: tests/vm/mkinitramfs.sh OUT.cpio.gz
set -euo pipefail

out=${1:?usage: mkinitramfs.sh OUT.cpio.gz}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
b=$root/build
bins=(katra-record katra-replay vm/katra-vmcheck
	workloads/syscalls workloads/storm workloads/exitstorm workloads/execthread
	workloads/refused
	workloads/threadnames workloads/fdkinds workloads/vgemfence workloads/flips)

busybox=$(command -v busybox || true)
[[ -n $busybox ]] || {
	echo "mkinitramfs.sh: no busybox (apt-get install busybox-static)" >&2
	exit 1
}
# the guest has no libc of its own to offer a dynamic busybox
if [[ $(LC_ALL=C ldd "$busybox" 2>&1 || true) != *"not a dynamic executable"* ]]; then
	echo "mkinitramfs.sh: $busybox is dynamically linked (apt-get install busybox-static)" >&2
	exit 1
fi
# the i386 program only where the toolchain could build it (the Makefile
# warns; run.sh then leaves its check out)
[[ -x $b/workloads/i386prog ]] && bins+=(workloads/i386prog)
for f in "${bins[@]}"; do
	[[ -x $b/$f ]] || {
		echo "mkinitramfs.sh: $b/$f is missing (make all build/vm/katra-vmcheck)" >&2
		exit 1
	}
done

stage=$(mktemp -d /tmp/katra-initramfs.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,root,katra/workloads,katra/vm}
cp "$busybox" "$stage/bin/busybox"
for applet in $("$busybox" --list); do
	[[ $applet == busybox ]] || ln -s busybox "$stage/bin/$applet"
done
ln -s bin "$stage/sbin"
for f in "${bins[@]}"; do
	cp "$b/$f" "$stage/katra/$f"
	# "libX.so => /path (addr)" and the loader's own "/lib64/ld-linux... (addr)"
	# (a static program: ldd says so and fails; nothing to copy)
	{ LC_ALL=C ldd "$b/$f" || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	# the library's contents under the name the binaries ask for
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
# the guest kernels' own modules fetch-kernel.sh kept (the GPU checks load
# vgem, bochs, virtio_gpu): /katra/modules/RELEASE/, with their load orders
cache=${KATRA_VM_CACHE:-/var/cache/katra-vm}
for m in "$cache"/modules-*/; do
	[[ -s $m/load-order && -s $m/release ]] || continue
	mkdir -p "$stage/katra/modules/$(cat "$m/release")"
	cp "$m"/*.ko "$m"/load-order* "$stage/katra/modules/$(cat "$m/release")/"
done
install -m 0755 "$here/init" "$stage/init"
install -m 0755 "$here/guest.sh" "$stage/guest.sh"
# the kernel opens /dev/console for init before anything is mounted
if [[ $(id -u) == 0 ]]; then
	mknod -m 600 "$stage/dev/console" c 5 1
fi
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
