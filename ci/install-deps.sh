#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs every Debian package katra-record needs to build, test and
# benchmark.  Idempotent; run as root.  `--bench` adds the peer tracers.
set -euo pipefail

packages=(
	build-essential make pkg-config git
	clang llvm                      # BPF objects (clang -target bpf), libFuzzer
	libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev
	libdw-dev                       # --stacks: CFI unwinding and symbols (elfutils' libdwfl)
	libdebuginfod-dev               # katra-replay: stacks' modules fetched where DEBUGINFOD_URLS is set
	debuginfod                      # the debuginfod test (t_stacks_debuginfod.sh): a local server
	libc6-dbg                       # --stacks tests: libc's local symbols (__libc_start_call_main)
	libcapstone-dev                 # the exits of D3D12 methods in PE code (pexits.c)
	libcriterion-dev                # unit tests
	liburing-dev                    # io_uring test and bench workloads
	python3 jq                      # integration test assertions
	strace                          # the strace oracle test (t_oracle.sh)
	cargo librust-bincode-dev librust-serde-derive-dev librust-serde-dev # Rust compat
	libclang-rt-14-dev              # sanitizer runtimes for clang
	# make test-vm: Debian kernels booted under QEMU (TCG) from a busybox
	# initramfs; the kernels come from apt-get download (debian-archive-keyring
	# signs bullseye's suite too)
	qemu-system-x86 busybox-static cpio debian-archive-keyring
	librust-flate2-dev              # Rust compat of compressed traces (format/rust/gzip)
	chromium                        # headless checks: speedscope (export), report --html
	man-db                          # man -l checks of man/*.1, man/*.8
	sudo                            # the docs' commands are written with sudo (a root
	                                # image may lack it); -u's default is SUDO_USER
	# Wine and Vulkan layers (uprobes) and the Wine session tests (~1.2 GiB):
	# Debian's Wine 8 and a mingw compiler for the Windows test programs;
	# Mesa's lavapipe (a CPU Vulkan driver)
	# and the loader's headers for katra-vkresolve and the Vulkan test
	wine wine64 gcc-mingw-w64-x86-64 mesa-vulkan-drivers libvulkan-dev
	# the Vulkan present test: an X server of its own (this Mesa has no
	# headless surface) and xcb for its window
	xvfb libxcb1-dev
	vulkan-tools                    # vkcube: the real-renderer present test (t_vkcube.sh)
	# the Proton-class stack (tests/proton/mkroot.sh, make proton-root): a
	# Debian 13 root with Wine 10, DXVK and lavapipe, built with mmdebstrap
	# from Debian's mirror (~2.1 GiB under /var/cache/katra-proton)
	mmdebstrap
)
if [[ "${1:-}" == "--bench" ]]; then
	packages+=(trace-cmd bpftrace linux-perf python3-matplotlib)
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "ci/install-deps.sh: run as root (apt-get install)" >&2
	exit 1
fi
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# tracefs is where tracepoints live; some images do not mount it
if [[ ! -d /sys/kernel/tracing/events ]]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
fi
# speedscope for the export viewer test: the npm package, pinned in the
# Makefile (SPEEDSCOPE_VERSION), into build/speedscope; npm from Debian when
# no node is installed
command -v npm >/dev/null || apt-get install -y -q --no-install-recommends npm
make -C "$(dirname "$0")/.." speedscope
