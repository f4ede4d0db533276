#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every NT call as a generic NtSyscall span, and the wineserver's request
# names: a mingw program under Debian's Wine (-p PID, attached while
# it waits at a gate) calls SwitchToThread Y times and CreateEventA E times.
# Exactly Y NtSyscall spans named NtYieldExecution and E named NtCreateEvent
# (numbers and names from ntdll.dll's stubs), each with its status (a
# yield's: 0, or where the build samples getrusage around sched_yield as
# Wine 10 does, STATUS_NO_YIELD_PERFORMED exactly when not switched out); inside
# each NtCreateEvent exactly one WineServerCall span citing it, whose request
# the trace's WineServerRequests table (read from the wineserver binary the
# session runs) names "create_event"; no NtSyscall span for a call that has a
# kind of its own (NtDelayExecution of the gate's Sleep); the header names
# the probed dispatcher.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
Y=37 E=23
kw_uprobe_start ntgen $Y $E
kt_open_gate ntgen.exe 30 -d 60
kill -INT "$REC_PID" 2>/dev/null
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$WL_PID" $Y $E >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
path, pid, Y, E = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lines = open(path).read().splitlines()
head, recs = json.loads(lines[0]), [json.loads(l) for l in lines[1:]]
evs = [r for r in recs if r.get("record") == "Event"]
def fail(msg):
    print(msg); sys.exit(1)
notes = head.get("notes") or head.get("header", {}).get("notes", [])
if not any("NtSyscall at the dispatcher of ntdll.so" in n for n in notes):
    fail("no header note names the probed dispatcher: %s" % notes)
begins, ends = {}, {}
nt_seen = set()
for e in evs:
    if e["kind"] == "NtSyscall" and e["process_id"] == pid:
        (begins if e["phase"] == "Begin" else ends if e["phase"] == "End" else {})[
            (e["thread_id"], e["span_id"])] = e
    if e["kind"] == "NtSyscall":
        first = e["thread_id"] not in nt_seen
        nt_seen.add(e["thread_id"])
        # the thread's first may have been in flight when the uprobes
        # attached (the gate's poll): its return has no entry
        if e["phase"] == "Instant" and not first:
            fail("an NtSyscall Instant: %s" % e)
names = {}
for k, b in begins.items():
    p = b["payload"]
    if p["type"] != "NtSyscall" or p["name"] is None or p["status"] is not None:
        fail("NtSyscall Begin payload %s" % p)
    if b["scope"] != "WindowsFacing":
        fail("NtSyscall scope %s" % b["scope"])
    en = ends.get(k)
    if en is None:
        fail("NtSyscall %s (seq %d) has no End" % (p["name"], b["seq"]))
    q = en["payload"]
    if en.get("confidence") == "Inferred":
        # a call that never returned (NtTerminateThread, a wait cut by the
        # process's end): ended where its thread did, without a payload
        if q.get("type") not in (None, "None"):
            fail("an Inferred End with payload %s" % q)
    elif q["number"] != p["number"] or q["name"] is not None or q["status"] is None:
        fail("End %s of %s" % (q, p))
    if b["seq"] not in en["causes"]:
        fail("End of seq %d does not cite its Begin" % b["seq"])
    names.setdefault(p["name"], []).append((b, en))
own = {"NtReadFile", "NtWriteFile", "NtCreateFile", "NtWaitForSingleObject",
       "NtWaitForMultipleObjects", "NtDelayExecution", "NtMapViewOfSection",
       "NtAllocateVirtualMemory", "NtCreateUserProcess", "wine_server_call"}
if own & set(names):
    fail("NtSyscall spans for calls with a kind of their own: %s" % sorted(own & set(names)))
y = names.get("NtYieldExecution", [])
c = names.get("NtCreateEvent", [])
if len(y) != Y:
    fail("%d NtYieldExecution spans, expected %d (names seen: %s)" % (len(y), Y, sorted(names)))
if len(c) != E:
    fail("%d NtCreateEvent spans, expected %d" % (len(c), E))
if len({b["payload"]["number"] for b, _ in y}) != 1:
    fail("NtYieldExecution with several numbers")
if any(en.get("confidence") == "Inferred" or en["payload"]["status"] != 0 for _, en in c):
    fail("a create without its measured End and status 0")
# a yield's status is what the build does inside it: Wine 8 calls sched_yield
# and returns 0; Wine 10 (the Proton root's ntdll.so) samples
# getrusage(RUSAGE_THREAD) before and after it and returns
# STATUS_NO_YIELD_PERFORMED when the thread's context switch counts did not
# change: 0 only if it was switched out between the samples, the other only
# if it was not between the two calls
NO_YIELD, NR_GETRUSAGE = 0x40000024, 98
by_thread = {}
for e in evs:
    by_thread.setdefault(e["thread_id"], []).append(e)
sampled = {0: 0, NO_YIELD: 0}
for b, en in y:
    st = en["payload"]["status"]
    if en.get("confidence") == "Inferred":
        fail("NtYieldExecution seq %d without its measured End" % b["seq"])
    inner = [x for x in by_thread[b["thread_id"]] if b["seq"] < x["seq"] < en["seq"]]
    ru = [x for x in inner if x["kind"] == "Syscall" and x["payload"].get("nr") == NR_GETRUSAGE]
    if not ru:
        if st != 0:
            fail("NtYieldExecution seq %d: status %#x, expected 0 (no getrusage inside)"
                 % (b["seq"], st))
        continue
    rb = [x["seq"] for x in ru if x["phase"] == "Begin"]
    re_ = [x["seq"] for x in ru if x["phase"] == "End"]
    if len(rb) != 2 or len(re_) != 2:
        fail("NtYieldExecution seq %d: %d getrusage Begins and %d Ends, expected 2"
             % (b["seq"], len(rb), len(re_)))
    def switched(lo, hi):
        return any(x["kind"] == "OffCpu" and x["phase"] in ("Begin", "Instant")
                   and lo < x["seq"] < hi for x in inner)
    if st == 0 and not switched(rb[0], re_[1]):
        fail("NtYieldExecution seq %d: status 0 with no switch between its getrusage calls"
             % b["seq"])
    if st == NO_YIELD and switched(re_[0], rb[1]):
        fail("NtYieldExecution seq %d: STATUS_NO_YIELD_PERFORMED though switched out" % b["seq"])
    if st not in sampled:
        fail("NtYieldExecution seq %d: status %#x" % (b["seq"], st))
    sampled[st] += 1
tables = [e for e in evs if e["kind"] == "WineServerRequests"]
if not tables:
    fail("no WineServerRequests event")
t = tables[-1]["payload"]["names"]
if len(t) < 100 or t[0] != "new_process":
    fail("request table of %d names, first %s" % (len(t), t[:1]))
server = {}
for e in evs:
    if e["kind"] == "WineServerCall" and e["phase"] == "Begin" and e["process_id"] == pid:
        for cs in e["causes"]:
            server.setdefault(cs, []).append(e)
for b, _ in c:
    inner = server.get(b["seq"], [])
    if len(inner) != 1:
        fail("NtCreateEvent seq %d: %d WineServerCall spans cite it" % (b["seq"], len(inner)))
    r = inner[0]["payload"]["request"]
    if r >= len(t) or t[r] != "create_event":
        fail("NtCreateEvent's server request %d is %s" % (r, t[r] if r < len(t) else "unnamed"))
print("%d NtYieldExecution + %d NtCreateEvent spans, exact (of %d NtSyscall spans, %d names);"
      " each NtCreateEvent holds one WineServerCall, request %d = create_event (table of %d names)"
      "%s" % (len(y), len(c), len(begins), len(names), inner[0]["payload"]["request"], len(t),
              "; yields sampled by getrusage: %d switched (0), %d not (STATUS_NO_YIELD_PERFORMED)"
              % (sampled[0], sampled[NO_YIELD]) if sampled[0] + sampled[NO_YIELD] else ""))
PY
kt_note "$(kt_tail "$T/check.out")"
"$REPLAY" dump "$TRACE" | grep -q "WineServerCall Begin .*request=[0-9]*(create_event)" ||
	kt_fail "the text dump does not name the create_event requests"
