#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kt-timeout: 180
# The perf-event uprobe links (one per uprobe; released by katra-linger
# after the recorder's exit), used where a kernel has no uprobe_multi links
# (Linux < 6.6), run here too, forced with KATRA_TEST_NO_UPROBE_MULTI: the
# header says perf-event, and the same exact checks as t_vulkan_submit (a
# lavapipe program, -p) and t_wine_nt (a mingw program under Wine, -p: NT
# functions with their returns and attach cookies, wine_server_call, the
# unix-call and syscall dispatchers) pass.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
export KATRA_TEST_NO_UPROBE_MULTI=1
kt_lavapipe "$KT_ROOT/build/uprobe/vksubmit"
K=40
kt_gated vksubmit 30 "$KT_ROOT/build/uprobe/vksubmit" "$T/started" "$T/gate" $K
kt_verify
grep -q '"uprobe links: perf-event, one per uprobe (uprobe_multi: turned off' "$TRACE.jsonl" ||
	kt_fail "vksubmit: the header does not say perf-event: $(grep -o '"uprobe links[^"]*"' "$TRACE.jsonl")"
kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/vksubmit.out"
# the Wine layer, as t_wine_nt
rm -f "$T/ready" "$T/started" "$T/gate"
TRACE=$T/wine.ktrc
N_PLAIN=20 N_OVL=10 M=15 K=12
head -c 65536 /dev/urandom >"$T/data"
kw_uprobe_start ntio "$(kw_win "$T/data")" $N_PLAIN $N_OVL $M $K
kt_open_gate ntio.exe 30
kt_wait_recorder 0
kt_verify
grep -q '"uprobe links: perf-event, one per uprobe (uprobe_multi: turned off' "$TRACE.jsonl" ||
	kt_fail "ntio.exe: the header does not say perf-event"
read -r dev ino < <(stat -c '%d %i' "$T/data")
kt_uptrace wine-nt "$TRACE.jsonl" "$T/ntio.out" "$WL_PID" "$dev" "$ino"
