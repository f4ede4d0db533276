#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The main job: capture the built-in demo workload (files read with read and
# io_uring, two threads handing work to each other, a child process), verify
# the trace and print its stats.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/demo.ktrc}
if [[ $(id -u) -ne 0 ]]; then
	echo "demo: katra-record needs root (or CAP_BPF + CAP_PERFMON): run it with sudo" >&2
	exit 1
fi
build/katra-record --force -o "$out" -- build/workloads/demo
build/katra-replay verify "$out"
build/katra-replay stats "$out"
