#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make test`: every suite, one after the other, whatever fails; the totals
# are the last line ("N passed, N failed").
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0
log_dir=build/test-logs
mkdir -p "$log_dir"

# run NAME COMMAND...: runs a suite, adds its counts (parsed from its own
# summary line) or counts it as one check when it prints none.
run() {
	local name=$1
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log_dir/$name.log"
	local rc=${PIPESTATUS[0]}
	local line p f
	line=$(grep -E 'Synthesis: Tested: [0-9]+ \| Passing: [0-9]+ \| Failing: [0-9]+ \| Crashing: [0-9]+' "$log_dir/$name.log" | tail -n 1)
	if [[ -n "$line" ]]; then
		p=$(sed -E 's/.*Passing: ([0-9]+).*/\1/' <<<"$line")
		f=$(sed -E 's/.*Failing: ([0-9]+) \| Crashing: ([0-9]+).*/\1+\2/' <<<"$line")
		f=$((f))
	else
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log_dir/$name.log" | tail -n 1)
		if [[ -n "$line" ]]; then
			p=$(awk '{print $1}' <<<"$line")
			f=$(awk '{print $3}' <<<"$line")
		elif ((rc == 0)); then
			p=1 f=0
		else
			p=0 f=1
		fi
	fi
	if ((rc != 0 && f == 0)); then
		f=1 # a suite that exits non-zero has failed, whatever it counted
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "=== $name: $p passed, $f failed (exit $rc)"
}

run spdx tools/spdx.sh --check
run unit make -s unit-test
# the Windows x64 unwinder against a mingw program under Wine (no root)
run unwind make -s unwind-test
# the wings: no import circle, arrows down, no file over 800 lines
run wings python3 tools/wings.py
run asan-ubsan make -s asan-test
run rust-compat make -s rust-test
run fuzz-smoke make -s fuzz-smoke
run install make -s install-test
run integration make -s integration-test
# QEMU guests: Debian 11's 5.10 and 12's 6.1 kernels, and 6.1 with 16 of 64
# vCPUs (storm, exit storm, exec from a thread, the recorder's own memory)
run vm make -s test-vm

echo "$passed passed, $failed failed"
((failed == 0))
