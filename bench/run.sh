#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench` entry point: installs the peer tracers when missing, builds the
# bench programs (bench/Makefile -> build/bench/), runs bench/bench.py.
# usage: bench/run.sh [--quick] [--runs N] [--only sys1,...,game] [--columns a,b]
#                     [--katra-variant 'NAME=ARGS'] [--game-seconds CAPPED,UNCAPPED]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
	echo "bench/run.sh: needs root (BPF, tracefs)" >&2
	exit 1
fi
# Debian's python3 (python3-matplotlib for the plots), whatever python3 is first in PATH
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
for t in trace-cmd bpftrace perf strace; do
	if ! command -v "$t" >/dev/null || ! "$PY" -c 'import matplotlib' 2>/dev/null; then
		bash ci/install-deps.sh --bench
		break
	fi
done
[[ -d /sys/kernel/tracing/events ]] || mount -t tracefs tracefs /sys/kernel/tracing
make -s -C bench
# a broken tracer must not fill the disk: cap every file it writes (KiB)
ulimit -f $((8 * 1024 * 1024))
exec "$PY" bench/bench.py "$@"
