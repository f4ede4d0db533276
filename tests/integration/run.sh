#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Integration tests of katra-record on the real kernel (needs root).
# usage: tests/integration/run.sh [NAME...]   (default: every t_NAME.sh here)
# Prints PASS/FAIL/SKIP per test, then exactly "N passed, N failed"; a skip
# whose reason tests/host-skips.txt does not list is a FAIL;
# exits 1 if any test failed.  KT_KEEP=1 keeps each test's scratch directory,
# KT_TIMES=1 prints how long each test took.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
per_test_timeout=${KT_TEST_TIMEOUT:-90}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP integration: not root (katra-record needs root, or CAP_BPF + CAP_PERFMON)"
	echo "0 passed, 0 failed"
	exit 0
fi

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for f in "$dir"/t_*.sh; do
		n=${f##*/t_}
		names+=("${n%.sh}")
	done
fi

# host_lacks WHY: whether WHY begins with a reason tests/host-skips.txt
# allows (a kernel or CPU a machine may lack); any other skip is a failure
host_lacks()
{
	local pattern machine
	while IFS=$'\t' read -r pattern machine; do
		[[ -z "$pattern" || "$pattern" == \#* ]] && continue
		# shellcheck disable=SC2053 # the pattern is a glob on purpose
		[[ "$1" == $pattern* ]] && return 0
	done <"$dir/../host-skips.txt"
	return 1
}

passed=0
failed=0
reason=$(mktemp)
note=$(mktemp)
log=$(mktemp)
trap 'rm -f "$reason" "$note" "$log"' EXIT
for name in "${names[@]}"; do
	: >"$reason"
	: >"$note"
	start=${EPOCHREALTIME/./}
	# a test that starts Wine sessions or a root may ask for more time on a
	# line "# kt-timeout: SECONDS" (the larger of it and the default wins)
	limit=$(sed -n 's/^# kt-timeout: \([0-9][0-9]*\)$/\1/p' "$dir/t_$name.sh" | head -n 1)
	[ -n "$limit" ] && [ "$limit" -gt "$per_test_timeout" ] || limit=$per_test_timeout
	KT_REASON=$reason KT_NOTE=$note timeout -k 5 "$limit" bash "$dir/t_$name.sh" >"$log" 2>&1
	rc=$?
	ms=$(((${EPOCHREALTIME/./} - start) / 1000))
	[ "${KT_TIMES:-0}" = 1 ] && echo "time $name: ${ms} ms"
	why=$(head -c 700 "$reason" | tr '\n' ' ' | sed 's/ *$//')
	# a test's measured figures (kt_note), printed after its result
	what=$(head -c 300 "$note" | tr '\n' ' ' | sed 's/ *$//')
	case $rc in
	0)
		echo "PASS $name${what:+: $what}"
		passed=$((passed + 1))
		;;
	77)
		if host_lacks "$why"; then
			echo "SKIP $name: $why"
		else
			echo "FAIL $name: skipped: $why (a test skips only for what a machine lacks, tests/host-skips.txt; install the rest with ci/install-deps.sh)"
			failed=$((failed + 1))
		fi
		;;
	124 | 137)
		echo "FAIL $name: timed out after ${limit}s"
		failed=$((failed + 1))
		;;
	*)
		[ -n "$why" ] || why="exit $rc: $(tail -n 2 "$log" | tr '\n' ' ')"
		echo "FAIL $name: $why"
		failed=$((failed + 1))
		;;
	esac
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
