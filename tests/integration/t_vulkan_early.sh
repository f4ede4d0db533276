#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A command's Vulkan drivers, known from an earlier capture (vkcache.c),
# are probed while the probes load (user/record/kernel/probes_early.c): the
# first uprobe registration waits for an RCU grace period in the kernel
# (dup_mmap_sem), which then overlaps the load instead of delaying live.
# The first capture (the helper runs) makes its links after the load; the
# second makes the same number of uprobe_multi links before the load ends (its
# KATRA_TIMING steps: `probes: early links` before ` load: probes`), with
# uprobe_multi links and with perf-event links, and so does `-p` of a
# vksubmit that maps the loader; every capture's vksubmit is exact (K
# submits, K fence waits).  Before, the links were always made
# after the load, at ` attach: uprobes`.
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vksubmit"
K=12
export KATRA_TEST_VKCACHE_DIR=$T/cache KATRA_TIMING=1 KATRA_TEST_LINK_TIMES=1
touch "$T/gate"

capture() # NAME: one capture of vksubmit as a command, checked exact
{
	TRACE=$T/$1.ktrc
	timeout -k 5 60 "$REC" -o "$TRACE" -- "$KT_ROOT/build/uprobe/vksubmit" "$T/started" \
		"$T/gate" $K >"$T/$1.out" 2>"$T/$1.err" ||
		kt_fail "capture $1: katra-record failed: $(kt_tail "$T/$1.err")"
	kt_verify
	kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/$1.out"
}
# NAME: "LINE_OF_LINKS LINE_OF_LOAD_END LINKS" from its stderr
steps() {
	awk '/links made in/ && !l { l = NR; n = $2 } / load: probes/ { p = NR }
	     END { print l + 0, p + 0, n + 0 }' "$T/$1.err"
}

# the answer is kept only when what it depends on is over a second old
sleep 2
capture first
read -r l p n1 <<<"$(steps first)"
[ "$n1" -gt 0 ] || kt_fail "first capture made no links: $(kt_tail "$T/first.err")"
[ "$l" -gt "$p" ] || kt_fail "first capture (helper ran) made its links during the load"
for mode in multi perf; do
	if [ $mode = perf ]; then export KATRA_TEST_NO_UPROBE_MULTI=1; fi
	capture $mode
	grep -q 'probes: early links' "$T/$mode.err" ||
		kt_fail "$mode: the known drivers were not probed during the load: $(kt_tail "$T/$mode.err")"
	read -r l p n <<<"$(steps $mode)"
	[ "$l" -gt 0 ] && [ "$l" -lt "$p" ] ||
		kt_fail "$mode: links made after the load (line $l, load ends at $p)"
	# perf-event links: one per uprobe, not one per program and file
	[ $mode = perf ] || [ "$n" = "$n1" ] ||
		kt_fail "$mode: $n links during the load, $n1 after it in the first capture"
done
unset KATRA_TEST_NO_UPROBE_MULTI
# -p of a process that maps the Vulkan loader, with the same answer kept
rm -f "$T/gate" "$T/started"
TRACE=$T/pid.ktrc
kt_gated vksubmit 30 "$KT_ROOT/build/uprobe/vksubmit" "$T/started" "$T/gate" $K
kt_verify
kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/vksubmit.out"
cp "$T/rec.err" "$T/pid.err"
grep -q 'probes: early links' "$T/pid.err" ||
	kt_fail "-p: the target's known drivers were not probed during the load: $(kt_tail "$T/pid.err")"
read -r l p n <<<"$(steps pid)"
[ "$l" -gt 0 ] && [ "$l" -lt "$p" ] || kt_fail "-p: links made after the load (line $l, load ends at $p)"
[ "$n" = "$n1" ] || kt_fail "-p: $n links during the load, $n1 after it in the first capture"
kt_note "$n1 links each time; after the load on the first capture, during it after (command, -p)"
