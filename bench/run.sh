#!/usr/bin/env bash
# `make bench` entry point: installs the peer tracers when missing, builds the
# bench programs (bench/Makefile -> build/bench/), runs bench/bench.py.
# usage: bench/run.sh [--quick] [--runs N] [--only sys1,...] [--columns a,b]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
	echo "bench/run.sh: needs root (BPF, tracefs)" >&2
	exit 1
fi
for t in trace-cmd bpftrace perf strace; do
	if ! command -v "$t" >/dev/null; then
		bash ci/install-deps.sh --bench
		break
	fi
done
[[ -d /sys/kernel/tracing/events ]] || mount -t tracefs tracefs /sys/kernel/tracing
make -s -C bench
# a broken tracer must not fill the disk: cap every file it writes (KiB)
ulimit -f $((8 * 1024 * 1024))
exec python3 bench/bench.py "$@"
