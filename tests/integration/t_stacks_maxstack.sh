#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kernel.perf_event_max_stack below the 127 frames katra-record asks for: the
# kernel refuses a stack map deeper than the sysctl, so the map is sized from
# it.  At the default, a ping-pong's kernel stacks go deeper than 8 frames;
# with the sysctl at 8 (restored at exit) a capture without --stacks and
# one with it both load, every kernel stack has 1 to 8 frames, and the
# header's notes say the limit (the probe's own frames, left out, count in
# the 8).
. "$(dirname "$0")/lib.sh"
kt_require
SYSCTL=/proc/sys/kernel/perf_event_max_stack
LOW=8
[ -w "$SYSCTL" ] || kt_skip "kernel.perf_event_max_stack cannot change: $SYSCTL is not writable"
OLD=$(cat "$SYSCTL")

# The kernel refuses a change (EBUSY) while any stack map or perf call chain
# is in use, anywhere on the machine: tried for 30 s
set_max_stack()
{
	local n=300
	until echo "$1" 2>/dev/null >"$SYSCTL"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
restore()
{
	[ "$(cat "$SYSCTL")" = "$OLD" ] || set_max_stack "$OLD" ||
		echo "t_stacks_maxstack: kernel.perf_event_max_stack left at $(cat "$SYSCTL"), was $OLD" >&2
	kt_cleanup
}
trap restore EXIT

# The fewest and most kernel frames of the off-CPU stacks (a syscall's
# stack has none: taken at its exit)
depths()
{
	"$REPLAY" dump --jsonl "$1" | python3 -c '
import json, sys
kern, off = {}, set()
for r in map(json.loads, sys.stdin):
    if r.get("record") == "Stack":
        kern[r["id"]] = len(r["kernel"])
    elif r.get("record") == "StackOf" and r["site"] == "OffCpu":
        off.add(r["stack_id"])
d = [kern[i] for i in off]
print(min(d) if d else -1, max(d) if d else -1)'
}

kt_run_rec -o "$T/deep.ktrc" --stack-threshold 0 -- "$WL/pingpong" 200
[ "$KT_RC" = 0 ] || kt_fail "katra-record (sysctl $OLD) exited $KT_RC: $(kt_tail "$T/rec.err")"
read -r lo hi < <(depths "$T/deep.ktrc")
[ "$hi" -gt "$LOW" ] || kt_fail "at the sysctl's $OLD no kernel stack is deeper than $LOW ($lo-$hi): nothing to limit"

set_max_stack "$LOW" || kt_skip "kernel.perf_event_max_stack cannot change now: another program holds stack maps or perf call chains"
TRACE=$T/off.ktrc
kt_run_rec -o "$TRACE" -- "$WL/pingpong" 200
[ "$KT_RC" = 0 ] || kt_fail "katra-record without --stacks, sysctl $LOW: exit $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify
TRACE=$T/on.ktrc
kt_run_rec -o "$TRACE" --stack-threshold 0 -- "$WL/pingpong" 200
[ "$KT_RC" = 0 ] || kt_fail "katra-record --stacks, sysctl $LOW: exit $KT_RC: $(kt_tail "$T/rec.err")"
restore_rc=0
set_max_stack "$OLD" || restore_rc=1
kt_verify
read -r lo hi < <(depths "$TRACE")
[ "$lo" -ge 1 ] && [ "$hi" -le "$LOW" ] ||
	kt_fail "kernel stacks $lo-$hi frames deep under kernel.perf_event_max_stack $LOW"
grep -q "\"stacks: kernel stacks at most $LOW frames deep" "$TRACE.jsonl" ||
	kt_fail "no header note of the limit"
grep -q "kernel stacks at most $LOW frames deep" "$T/rec.err" || kt_fail "the limit not said on stderr"
[ "$restore_rc" = 0 ] || kt_fail "kernel.perf_event_max_stack not restored to $OLD"
kt_note "kernel stacks $lo-$hi frames under the sysctl at $LOW"
exit 0
