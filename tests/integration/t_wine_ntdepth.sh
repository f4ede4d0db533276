#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# User callbacks nested deeper than the NT layer keeps (8 levels): a mingw
# program under Debian's Wine (-p PID, attached at its gate) R times creates
# a message-only window whose WM_CREATE (a user callback inside win32u's
# NtUserCreateWindowEx) creates the next, D = 12 deep, then calls
# SwitchToThread once with every level returned.  Against the program's own
# counts: per round exactly 8 NtUserCreateWindowEx spans, nested in one
# another (levels 0-7, each Begin citing its encloser's), every one paired
# with a measured End; none deeper; the deeper calls counted as KernelTable
# drops of instance 4 (two events each, at least 2 x (D - 8) x R, the Drop
# events agreeing with the summary); and after each round the stack is whole
# again: exactly R NtYieldExecution spans, measured, outside every creation.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
D=12 R=5
kw_uprobe_start ntdepth $D $R
kt_open_gate ntdepth.exe 60
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$WL_PID" $D $R "$T/ntdepth.out" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
path, pid, D, R, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
KEPT = 8
truth = json.loads(open(out).read().strip().splitlines()[-1])
def fail(msg):
    print(msg); sys.exit(1)
if truth != {"rounds": R, "depth": D, "creates": D * R, "deepest": D - 1, "yields": R}:
    fail("the program says %s" % truth)
lines = open(path).read().splitlines()
recs = [json.loads(l) for l in lines[1:]]
evs = [r for r in recs if r.get("record") == "Event"]
begins, ends = {}, {}
nt_seen = set()
for e in evs:
    if e["kind"] == "NtSyscall" and e["process_id"] == pid:
        first = e["thread_id"] not in nt_seen
        nt_seen.add(e["thread_id"])
        if e["phase"] == "Instant" and first:
            continue  # in flight when the uprobes attached (the gate's poll)
        if e["phase"] == "Instant":
            fail("an NtSyscall Instant: %s" % e)
        (begins if e["phase"] == "Begin" else ends)[(e["thread_id"], e["span_id"])] = e
spans = {}
for k, b in begins.items():
    en = ends.get(k)
    if b["payload"]["name"] in ("NtTerminateProcess", "NtTerminateThread"):
        continue  # they do not return
    if en is None or en.get("confidence") == "Inferred":
        fail("%s seq %d is not paired with a measured End: %s" % (b["payload"]["name"], b["seq"], en))
    spans.setdefault(b["payload"]["name"], []).append((b, en))
creates = sorted(spans.get("NtUserCreateWindowEx", []), key=lambda s: s[0]["seq"])
ylds = spans.get("NtYieldExecution", [])
def inside(inner, outer):
    return (inner[0]["thread_id"] == outer[0]["thread_id"]
            and outer[0]["seq"] < inner[0]["seq"] and inner[1]["seq"] < outer[1]["seq"])
def depth_of(s):
    return sum(1 for o in creates if o is not s and inside(s, o))
if len(creates) != KEPT * R:
    fail("%d NtUserCreateWindowEx spans, expected %d (%d rounds of %d levels kept)"
         % (len(creates), KEPT * R, R, KEPT))
levels = sorted(depth_of(s) for s in creates)
if levels != sorted(list(range(KEPT)) * R):
    fail("creation spans at levels %s, expected 0-%d %d times" % (levels, KEPT - 1, R))
for s in creates:
    d = depth_of(s)
    if d == 0:
        continue
    enc = [o for o in creates if inside(s, o) and depth_of(o) == d - 1]
    if len(enc) != 1 or enc[0][0]["seq"] not in s[0]["causes"]:
        fail("the level-%d creation seq %d does not cite its encloser" % (d, s[0]["seq"]))
if len(ylds) != R:
    fail("%d NtYieldExecution spans, expected %d" % (len(ylds), R))
if any(inside(y, c) for y in ylds for c in creates):
    fail("an NtYieldExecution span inside a creation: the stack was not unwound")
drops = sum(e["payload"]["count"] for e in evs if e["kind"] == "Drop"
            and e["payload"]["source"] == "KernelTable" and e["payload"]["instance"] == 4)
if drops < 2 * (D - KEPT) * R:
    fail("%d KernelTable drops of instance 4, expected at least %d" % (drops, 2 * (D - KEPT) * R))
print("%d rounds: %d NtUserCreateWindowEx spans at levels 0-%d (of %d created, %d deeper "
      "counted: %d KernelTable drops), all paired and nested, %d NtYieldExecution after them"
      % (R, len(creates), KEPT - 1, truth["creates"], truth["creates"] - len(creates), drops, len(ylds)))
PY
kt_note "$(kt_tail "$T/check.out")"
