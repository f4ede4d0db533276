#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -e io: the kernel filters unselected syscalls and layers: exactly the N
# pread64 spans, no getppid, no OffCpu, no page faults, a valid trace whose
# notes say what was selected and that the raw tracepoints carried it (this
# kernel refuses the per-syscall path's trampolines).  Then pingpong under
# -e io: every pipe read blocks, so without the sched class the switch-out
# still writes its enter and the exit closes it: exactly K read and K write
# spans per thread.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload syscalls 1500 700
kt_record -e io -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
grep -q '"events: io,proc"' "$TRACE.jsonl" || kt_fail "the header does not name the selection"
# this kernel refuses BPF trampolines: the raw tracepoints carry -e, and the
# header says so (the QEMU guests' kernels take the per-syscall path:
# tests/vm, check select)
grep -q '"syscalls: raw tracepoints, filtered in the kernel (no per-syscall attach: ' "$TRACE.jsonl" ||
	kt_fail "the header does not say which syscall path ran: $(grep -o '"syscalls: [^"]*"' "$TRACE.jsonl")"
kt_check select_io "$TRACE.jsonl" "$T/syscalls.out"
note=$(kt_tail "$T/check.out")

rm -f "$T/ready"
kt_workload pingpong 300
kt_record -e io -p "$WL_PID" --force
kt_wait_workload 30
kt_wait_recorder 0
kt_verify
kt_check select_io_pingpong "$TRACE.jsonl" "$T/pingpong.out"
kt_note "$note; pingpong: $(kt_tail "$T/check.out")"
