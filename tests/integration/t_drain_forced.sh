#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Items written before every CPU's older records were read (the reorder
# memory full) are counted: with a reorder budget of 64 items
# (KATRA_TEST_REORDER_ITEMS) a 2-thread getppid storm forces releases, and
# --summary-json's forced_releases holds the number the end-of-capture
# summary says; with the default budget the same storm forces none (0, and
# no such line).
. "$(dirname "$0")/lib.sh"
kt_require

# forced_releases and late_events of a summary JSON
counts()
{
	python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["forced_releases"], s["late_events"])' "$1"
}

KATRA_TEST_REORDER_ITEMS=64 timeout -k 5 60 "$REC" -f -o "$T/small.ktrc" \
	--summary-json "$T/small.json" -- "$WL/storm" 2 100000 >"$T/small.out" 2>"$T/small.err" ||
	kt_fail "katra-record failed: $(kt_tail "$T/small.err" 2)"
read -r forced late <<<"$(counts "$T/small.json")" ||
	kt_fail "no forced_releases in the summary JSON: $(head -c 300 "$T/small.json")"
[ "$forced" -gt 0 ] || kt_fail "a reorder budget of 64 items: forced_releases $forced"
said=$(sed -n 's/^katra-record: \([0-9]*\) items\? written before every CPU.s older records were read.*dropped as late (\([0-9]*\))$/\1 \2/p' "$T/small.err")
[ "$said" = "$forced $late" ] ||
	kt_fail "the summary says '$said', the JSON $forced forced and $late late: $(kt_tail "$T/small.err" 3)"

timeout -k 5 60 "$REC" -f -o "$T/dflt.ktrc" --summary-json "$T/dflt.json" \
	-- "$WL/storm" 2 100000 >"$T/dflt.out" 2>"$T/dflt.err" ||
	kt_fail "katra-record failed: $(kt_tail "$T/dflt.err" 2)"
read -r dforced _ <<<"$(counts "$T/dflt.json")"
[ "$dforced" = 0 ] || kt_fail "the default reorder budget: $dforced items forced"
if grep -q "written before every CPU" "$T/dflt.err"; then
	kt_fail "the default budget forced nothing, yet the summary says: $(grep "written before" "$T/dflt.err")"
fi
kt_note "a 64-item reorder budget: $forced items forced, $late late; the default budget: 0 forced"
