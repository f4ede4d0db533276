#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetches Debian SUITE's own amd64 kernel (linux-image-amd64's current image,
# BTF on) and prints the path of its vmlinuz.
#
# usage: tests/vm/fetch-kernel.sh SUITE      (bullseye: 5.10, bookworm: 6.1)
#
# The machine's own apt state is never touched: a private source list, private
# lists and caches under $KATRA_VM_CACHE (default /var/cache/katra-vm), and
# the package is unpacked there, not installed.  A vmlinuz already in the cache
# is reused, so CI re-runs need no network; a fresh machine downloads once.
set -euo pipefail

suite=${1:?usage: fetch-kernel.sh SUITE}
case $suite in
bullseye | bookworm) ;;
*)
	echo "fetch-kernel.sh: unknown suite '$suite' (bullseye or bookworm)" >&2
	exit 2
	;;
esac
cache=${KATRA_VM_CACHE:-/var/cache/katra-vm}
out=$cache/vmlinuz-$suite
# the few modules the guest loads (the GPU checks: vgem, bochs for QEMU's
# standard VGA (bochs-drm up to 5.x), and what they need), with the kernel
# they belong to: both come from one package, so a cache without them
# fetches both again.  virtio_gpu (virtio-gpu.ko) and what it needs beyond
# those go into a second list, load-order-virtio, loaded after the first:
# a checkout whose guest loads only load-order finds what it loaded before.
mods=$cache/modules-$suite
want_modules=(vgem bochs)
want_virtio=(virtio_gpu)
cached()
{
	[[ -s $out && -s $mods/load-order ]] && grep -q '^vgem\.ko$' "$mods/load-order" &&
		grep -q '^bochs' "$mods/load-order" && [[ -s $mods/load-order-virtio ]] &&
		grep -q '^virtio-gpu\.ko$' "$mods/load-order-virtio"
}
if cached; then
	echo "$out"
	exit 0
fi
# Two runs at once (two checkouts testing on one machine) would share the
# private apt state below and remove it under each other: one fetch per
# suite at a time, and the second finds the first's kernel.
if mkdir -p "$cache" 2>/dev/null && exec 9>"$cache/.lock-$suite"; then
	flock 9
	if cached; then
		echo "$out"
		exit 0
	fi
fi

# the same mirror and keyring as the machine's own sources
mirror=${KATRA_VM_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || {
	echo "fetch-kernel.sh: $keyring missing (apt-get install debian-archive-keyring)" >&2
	exit 1
}

state=$cache/apt-$suite
if ! mkdir -p "$cache" 2>/dev/null || [[ ! -w $cache ]]; then
	echo "fetch-kernel.sh: cannot write $cache (run as root once, or set KATRA_VM_CACHE)" >&2
	exit 1
fi
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/deb"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$state/sources.list"
# Dir::Etc::sourceparts=- : ignore /etc/apt/sources.list.d; lists and the
# binary caches live in $state; only amd64 (a machine with i386 enabled
# would otherwise fetch those lists too); the download runs as root into our
# own directory (the _apt sandbox user cannot write there).
apt_opts=(
	-o "Dir::Etc::sourcelist=$state/sources.list"
	-o "Dir::Etc::sourceparts=-"
	-o "Dir::State::Lists=$state/lists"
	-o "Dir::Cache=$state/cache"
	-o "Dir::Cache::pkgcache=$state/cache/pkgcache.bin"
	-o "Dir::Cache::srcpkgcache=$state/cache/srcpkgcache.bin"
	-o "APT::Architectures=amd64"
	-o "Acquire::Languages=none"
	-o "APT::Sandbox::User=root"
)
echo "fetch-kernel.sh: $suite: apt-get update (private lists in $state)" >&2
apt-get "${apt_opts[@]}" -q update >&2

# linux-image-amd64 is a metapackage: its first dependency is the image itself
image=$(apt-cache "${apt_opts[@]}" depends linux-image-amd64 |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
[[ -n $image ]] || {
	echo "fetch-kernel.sh: $suite: cannot find the image linux-image-amd64 depends on" >&2
	exit 1
}
echo "fetch-kernel.sh: $suite: apt-get download $image" >&2
(cd "$state/deb" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -q download "$image" >&2)
deb=$(ls "$state/deb/"*.deb)

# Only boot/vmlinuz-* and a few modules are needed: unpack just those
# members of the package's data archive instead of `dpkg -x` of ~400 MB of
# modules.
x=$state/x
rm -rf "$x"
mkdir -p "$x"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$x" --wildcards './boot/vmlinuz-*' \
	'./lib/modules/*/kernel/drivers/gpu/*' './lib/modules/*/kernel/drivers/video/*' \
	'./lib/modules/*/kernel/drivers/media/cec/*' './lib/modules/*/kernel/drivers/i2c/*' \
	'./lib/modules/*/kernel/drivers/virtio/*' './lib/modules/*/kernel/drivers/char/*'
vmlinuz=$(ls "$x"/boot/vmlinuz-*)
release=${vmlinuz##*/vmlinuz-}
drm=$x/lib/modules/$release/kernel/drivers
# the wanted modules and what they depend on (each module's own
# `depends=` in its .modinfo: the package has no modules.dep, depmod makes
# it at install), dependencies first
order=()
# modcat FILE: a module's ELF, decompressed where the package compresses it
modcat()
{
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}
add_module()
{
	local f d
	f=$(find "$drm" -name "$1.ko*" -o -name "${1//_/-}.ko*" | head -n 1)
	# bochs was bochs-drm before 6.0
	[[ -n $f || $1 != bochs ]] || f=$(find "$drm" -name "bochs-drm.ko*" | head -n 1)
	[[ -n $f ]] || {
		echo "fetch-kernel.sh: $suite: no module $1 under drivers/{gpu,video,media/cec,i2c,virtio,char} in $release" >&2
		return 1
	}
	[[ " ${order[*]} " == *" $f "* ]] && return 0
	for d in $(modcat "$f" | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
		add_module "$d"
	done
	[[ " ${order[*]} " == *" $f "* ]] || order+=("$f")
}
for m in "${want_modules[@]}"; do
	add_module "$m"
done
first=${#order[@]}
# the virtio bus's PCI driver where it is a module (the guest's virtio-gpu
# is a PCI device; Debian builds virtio, virtio_ring and virtio_pci as
# modules)
[[ -z $(find "$drm" -name 'virtio_pci.ko*' | head -n 1) ]] || want_virtio=(virtio_pci "${want_virtio[@]}")
for m in "${want_virtio[@]}"; do
	add_module "$m"
done
rm -rf "$mods.tmp"
mkdir -p "$mods.tmp"
: >"$mods.tmp/load-order-virtio"
for i in "${!order[@]}"; do
	f=${order[$i]}
	base=${f##*/}
	base=${base%.xz}
	base=${base%.zst}
	base=${base%.gz}
	# busybox insmod reads plain ELF
	modcat "$f" >"$mods.tmp/$base"
	if ((i < first)); then
		echo "$base" >>"$mods.tmp/load-order"
	else
		echo "$base" >>"$mods.tmp/load-order-virtio"
	fi
done
echo "$release" >"$mods.tmp/release"
rm -rf "$mods"
mv "$mods.tmp" "$mods"
cp "$vmlinuz" "$out.tmp"
echo "$release" >"$cache/release-$suite"
mv "$out.tmp" "$out"
# the lists and binary caches (~90 MB) are not needed once vmlinuz is cached
rm -rf "$state"
echo "$out"
