#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# win32u's NT calls and the user callbacks nested in them: a mingw
# program under Debian's Wine (-p PID, attached while it waits at a gate)
# N times has a second thread queue one message to its message-only window
# (SendNotifyMessageA) and then calls PeekMessageA (NtUserPeekMessage, table
# 1), whose Unix side delivers it by calling the window procedure back; the
# window procedure counts it and calls SwitchToThread once
# (NtYieldExecution, table 0).  Against the program's own counts: exactly N
# NtSyscall spans named NtUserPeekMessage (number 0x1000 | n, named by
# win32u.dll's stubs) on the window's thread, each holding exactly one
# NtYieldExecution span (same thread, nested in time, its Begin citing the
# NtUserPeekMessage's), every NtYieldExecution of the process in one, every
# span of the two names paired with a measured End; the header note says
# win32u's are written; the dump names them.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
N=41
kw_uprobe_start ntwin32u $N
kt_open_gate ntwin32u.exe 60
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$WL_PID" $N "$T/ntwin32u.out" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
path, pid, N, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
truth = json.loads(open(out).read().strip().splitlines()[-1])
def fail(msg):
    print(msg); sys.exit(1)
if truth["rounds"] != N or truth["app"] != N or truth["in_peek"] != N or truth["yields"] != N:
    fail("the program says %s, rounds %d" % (truth, N))
lines = open(path).read().splitlines()
head, recs = json.loads(lines[0]), [json.loads(l) for l in lines[1:]]
evs = [r for r in recs if r.get("record") == "Event"]
notes = head.get("notes") or head.get("header", {}).get("notes", [])
if not any("NtSyscall at the dispatcher" in n and "win32u's as 0x1000 | n" in n for n in notes):
    fail("no header note says win32u's calls are written: %s" % notes)
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
    spans.setdefault(b["payload"]["name"], []).append((b, ends.get(k)))
calls = spans.get("NtUserPeekMessage", [])
ylds = spans.get("NtYieldExecution", [])
for b, en in calls + ylds:
    p = b["payload"]
    if en is None or en.get("confidence") == "Inferred":
        fail("%s seq %d is not paired with a measured End: %s" % (p["name"], b["seq"], en))
    if en["payload"]["number"] != p["number"] or b["seq"] not in en["causes"]:
        fail("End %s of %s" % (en, b))
if len(calls) != N:
    fail("%d NtUserPeekMessage spans, expected %d (win32u names seen: %s)"
         % (len(calls), N, sorted(n for n in spans if n and n.startswith("NtUser"))))
if len(ylds) != N:
    fail("%d NtYieldExecution spans, expected %d" % (len(ylds), N))
if any(b["payload"]["number"] & ~0xfff != 0x1000 for b, _ in calls):
    fail("NtUserPeekMessage numbers %s, not 0x1000 | n"
         % sorted({hex(b["payload"]["number"]) for b, _ in calls}))
inside = 0
for cb, ce in calls:
    mine = [(yb, ye) for yb, ye in ylds if yb["thread_id"] == cb["thread_id"]
            and cb["seq"] < yb["seq"] and ye["seq"] < ce["seq"]
            and cb["ts_mono_ns"] <= yb["ts_mono_ns"] and ye["ts_mono_ns"] <= ce["ts_mono_ns"]]
    if len(mine) != 1:
        fail("NtUserPeekMessage seq %d holds %d NtYieldExecution spans, expected 1"
             % (cb["seq"], len(mine)))
    if cb["seq"] not in mine[0][0]["causes"]:
        fail("NtYieldExecution seq %d does not cite its NtUserPeekMessage seq %d"
             % (mine[0][0]["seq"], cb["seq"]))
    inside += 1
nested = sum(1 for k, b in begins.items() if any(
    c["thread_id"] == b["thread_id"] and c["seq"] < b["seq"] < ends[(c["thread_id"], c["span_id"])]["seq"]
    for c, _ in calls) and (k in ends))
print("%d NtUserPeekMessage spans (number %#x), each holding exactly 1 of the %d "
      "NtYieldExecution spans, all paired, as the window procedure counted %s; "
      "%d NtSyscall spans inside them in all, %d win32u names seen"
      % (len(calls), calls[0][0]["payload"]["number"], len(ylds), truth, nested,
         sum(1 for n in spans if n and (n.startswith("NtUser") or n.startswith("NtGdi")))))
PY
kt_note "$(kt_tail "$T/check.out")"
"$REPLAY" dump "$TRACE" | grep -q "NtSyscall Begin .*NtUserPeekMessage" ||
	kt_fail "the text dump does not name the NtUserPeekMessage spans"
