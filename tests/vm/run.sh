#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make test-vm`: katra-record under Debian's own kernels, booted with QEMU
# (TCG: this machine has no nested KVM) from a busybox initramfs.
#
# usage: tests/vm/run.sh [GUEST...]    (default: every guest below)
#   5.10       Debian 11's kernel, 2 vCPUs:  the syscalls, threadnames and fdkinds captures
#   6.1        Debian 12's kernel, 2 vCPUs:  the syscalls, threadnames and fdkinds captures
#   6.1-smp16  Debian 12's kernel, -smp 16,maxcpus=64: storm, exit storm,
#              execthread (loss, peak RSS, ring memory, validity, Estimated)
#
# Prints PASS/FAIL per check (with the figures the guest measured), then
# exactly "N passed, N failed"; exits 1 if any check failed.  Each guest's
# console is kept in build/vm/GUEST.log.  Environment: KATRA_VM_TIMEOUT
# (seconds per guest, hard), KATRA_VM_CACHE (kernel cache, default
# /var/cache/katra-vm), KATRA_VM_JOBS (guests booted at once, default 1),
# KATRA_VM_CHECKS (a,b: only those checks).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/vm
guest_timeout=${KATRA_VM_TIMEOUT:-240}
jobs=${KATRA_VM_JOBS:-1}

# guest: kernel suite, vCPUs, possible CPUs, guest suite, checks it reports
declare -A SUITE=([5.10]=bullseye [6.1]=bookworm [6.1-smp16]=bookworm)
declare -A SMP=([5.10]=2 [6.1]=2 [6.1-smp16]=16)
declare -A MAXCPUS=([5.10]=2 [6.1]=2 [6.1-smp16]=64)
declare -A TESTS=([5.10]=basic [6.1]=basic [6.1-smp16]=scale)
declare -A CHECKS=([5.10]="syscalls select refused threadnames fdkinds gpu gpuothers flips atomic virtio virtioatomic" [6.1]="syscalls select refused threadnames fdkinds gpu gpuothers flips atomic virtio virtioatomic" [6.1-smp16]="storm exitstorm execthread")
# QEMU's devices beyond its defaults: a virtio-gpu (2D, no virgl) for the
# virtio check, beside the standard VGA the flips check drives
declare -A DEVICES=([5.10]="-device virtio-gpu-pci" [6.1]="-device virtio-gpu-pci" [6.1-smp16]="")
# the i386 program (int $0x80), where the toolchain built it: these kernels
# run it, this machine's own cannot (t_i386 skips here)
if [[ -x $root/build/workloads/i386prog ]]; then
	CHECKS[5.10]+=" i386"
	CHECKS[6.1]+=" i386"
else
	echo "run.sh: no build/workloads/i386prog (see make's warning): the i386 checks are left out" >&2
fi
all_guests=(5.10 6.1 6.1-smp16)
# KATRA_VM_CHECKS=a,b: only those checks run (and are reported)
only=${KATRA_VM_CHECKS:-}
if [[ -n $only ]]; then
	for g in "${!CHECKS[@]}"; do
		kept=
		for c in ${CHECKS[$g]}; do
			[[ ,$only, == *,$c,* ]] && kept+=" $c"
		done
		CHECKS[$g]=${kept# }
	done
fi

guests=("$@")
((${#guests[@]})) || guests=("${all_guests[@]}")
for g in "${guests[@]}"; do
	[[ -n ${SUITE[$g]:-} ]] || {
		echo "run.sh: unknown guest '$g' (${all_guests[*]})" >&2
		exit 2
	}
done
for tool in qemu-system-x86_64 busybox cpio; do
	command -v "$tool" >/dev/null || {
		echo "run.sh: $tool is missing (run ci/install-deps.sh)" >&2
		exit 1
	}
done

mkdir -p "$out"
t0=$SECONDS
# the kernels first: the initramfs carries the modules fetched with them
declare -A VMLINUZ
for g in "${guests[@]}"; do
	VMLINUZ[$g]=$("$here/fetch-kernel.sh" "${SUITE[$g]}")
done
"$here/mkinitramfs.sh" "$out/initramfs.cpio.gz"
echo "initramfs: $(($(stat -c %s "$out/initramfs.cpio.gz") >> 10)) KiB"
echo "prepared in $((SECONDS - t0)) s"

# boot GUEST: one guest, its serial console (CRs stripped) to build/vm/GUEST.log.
# TCG in one thread: with a thread per vCPU, the kernel's live patching of its
# own text (a tracepoint's call site in syscall_exit_to_user_mode, patched
# with int3 when katra-record attaches or detaches) livelocked both vCPUs in
# the int3 handler on that site, in most boots of a clean build here (see
# README.md); one thread is as fast on this 2-CPU host
boot()
{
	local g=$1 start=$SECONDS rc=0
	timeout -k 10 "$guest_timeout" qemu-system-x86_64 \
		-accel tcg,thread=single -nographic -no-reboot -nic none -m 2G \
		-smp "${SMP[$g]},maxcpus=${MAXCPUS[$g]}" ${DEVICES[$g]} \
		-kernel "${VMLINUZ[$g]}" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 cryptomgr.notests katra.suite=${TESTS[$g]}${only:+ katra.checks=$only}" \
		</dev/null 2>&1 | tr -d '\r' >"$out/$g.log" || rc=$?
	echo "qemu_rc=$rc seconds=$((SECONDS - start))" >"$out/$g.status"
}

# boot_once_more GUEST: a guest that never finished (its kernel seen stuck
# in a soft lockup a few times in ~60 boots of the 16-vCPU guest under TCG,
# once at boot before any capture: see README.md) boots once more; its console is kept as
# GUEST.hung.log and the retry says so.  A second hang fails.
boot_once_more()
{
	local g=$1
	grep -aq 'KATRA-VM-END' "$out/$g.log" && return 0
	grep -aq 'qemu_rc=12[4]\|qemu_rc=137' "$out/$g.status" || return 0
	mv "$out/$g.log" "$out/$g.hung.log"
	echo "guest $g: ran past ${guest_timeout}s without finishing ($(grep -a -o 'soft lockup.*' \
		"$out/$g.hung.log" | head -n 1 || echo 'no kernel message')); booting it once more"
	boot "$g"
}

running=0
for g in "${guests[@]}"; do
	boot "$g" &
	running=$((running + 1))
	if ((running >= jobs)); then
		wait -n || true
		running=$((running - 1))
	fi
done
wait
for g in "${guests[@]}"; do
	boot_once_more "$g"
done

passed=0
failed=0
for g in "${guests[@]}"; do
	log=$out/$g.log
	read -r qemu_rc seconds < <(sed 's/[a-z_]*=//g' "$out/$g.status")
	echo "guest $g: $(grep -a -m1 -o 'KATRA-VM-START .*' "$log" || echo 'did not start the tests') ($seconds s, qemu exit $qemu_rc)"
	for c in ${CHECKS[$g]}; do
		line=$(grep -a -o "KATRA-VM name=[^ ]*/$c rc=.*" "$log" | tail -n 1 || true)
		if [[ -z $line ]]; then
			why="no result line"
			((qemu_rc == 124 || qemu_rc == 137)) && why="$why: the guest ran past ${guest_timeout}s"
			echo "FAIL $g/$c: $why; console ends: $(grep -av '^KATRA-VM-LOG' "$log" | tail -n 3 | tr '\n' ' ')"
			failed=$((failed + 1))
			continue
		fi
		name=${line#KATRA-VM name=}
		name=${name%% *}
		rc=${line#* rc=}
		facts=${rc#* }
		rc=${rc%% *}
		whys=$(grep -a -o "KATRA-VM-WHY name=$name .*" "$log" | sed "s|^KATRA-VM-WHY name=$name ||" |
			paste -sd';' - | sed 's/;/; /g' || true)
		if [[ $rc == 0 ]]; then
			echo "PASS $g/$c: $facts"
			passed=$((passed + 1))
		else
			echo "FAIL $g/$c: ${whys:-rc=$rc}"
			echo "     figures: $facts"
			failed=$((failed + 1))
		fi
		grep -a -o "KATRA-VM-NOTE name=$name .*" "$log" | sed "s|^KATRA-VM-NOTE name=$name |     trace note: |" || true
	done
done
echo "total $((SECONDS - t0)) s"
echo "$passed passed, $failed failed"
((failed == 0))
