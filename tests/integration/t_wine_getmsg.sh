#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A win32u wait released by another thread, with a user callback inside it
# (a wait's link to what released it): a mingw program under
# Debian's Wine (-p PID, attached at its gate) N times blocks in GetMessageA
# (NtUserGetMessage); a second thread, once it sees it blocked in Wine's
# wait, sends it a WM_APP (the wake-up) and posts a WM_USER; the window
# procedure, called back inside NtUserGetMessage for the WM_APP, calls
# SwitchToThread.  Against the program's own counts: exactly N
# NtUserGetMessage spans on the main thread, each holding exactly one
# NtYieldExecution span (measured, nested, citing it), and each End citing a
# WineServerCall Begin of the sending thread made in its NtUserMessageCall or
# NtUserPostMessage: the release, kept across the callback's own NT calls.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
N=25
kw_uprobe_start ntgetmsg $N
kt_open_gate ntgetmsg.exe 60
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$WL_PID" $N "$T/ntgetmsg.out" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
path, pid, N, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
truth = json.loads(open(out).read().strip().splitlines()[-1])
def fail(msg):
    print(msg); sys.exit(1)
if truth != {"rounds": N, "got_user": N, "app": N, "in_get": N, "yields": N}:
    fail("the program says %s" % truth)
recs = [json.loads(l) for l in open(path).read().splitlines()[1:]]
evs = [r for r in recs if r.get("record") == "Event"]
by_seq = {e["seq"]: e for e in evs}
begins, ends = {}, {}
for e in evs:
    if e["kind"] == "NtSyscall" and e["process_id"] == pid and e["phase"] != "Instant":
        (begins if e["phase"] == "Begin" else ends)[(e["thread_id"], e["span_id"])] = e
spans = {}
for k, b in begins.items():
    spans.setdefault(b["payload"]["name"], []).append((b, ends.get(k)))
gets = spans.get("NtUserGetMessage", [])
ylds = spans.get("NtYieldExecution", [])
if len(gets) != N:
    fail("%d NtUserGetMessage spans, expected %d" % (len(gets), N))
released = 0
for gb, ge in gets:
    if ge is None or ge.get("confidence") == "Inferred":
        fail("NtUserGetMessage seq %d not paired with a measured End: %s" % (gb["seq"], ge))
    mine = [(yb, ye) for yb, ye in ylds if ye is not None and yb["thread_id"] == gb["thread_id"]
            and gb["seq"] < yb["seq"] and ye["seq"] < ge["seq"]]
    if len(mine) != 1 or gb["seq"] not in mine[0][0]["causes"]:
        fail("NtUserGetMessage seq %d holds %d NtYieldExecution spans citing it, expected 1"
             % (gb["seq"], len(mine)))
    rel = [by_seq[c] for c in ge["causes"] if c in by_seq and c != gb["seq"]]
    def senders(r):  # the NT call the sender's server call was made in
        return [by_seq[c]["payload"].get("name") for c in r["causes"] if c in by_seq
                and by_seq[c]["kind"] == "NtSyscall" and by_seq[c]["thread_id"] == r["thread_id"]]
    if not any(r["kind"] == "WineServerCall" and r["phase"] == "Begin" and r["process_id"] == pid
               and r["thread_id"] != gb["thread_id"] and set(senders(r)) & {"NtUserMessageCall", "NtUserPostMessage"}
               for r in rel):
        fail("NtUserGetMessage End seq %d cites %s: no WineServerCall of the sender's "
             "SendNotifyMessageA or PostMessageA (its release)"
             % (ge["seq"], [(r["seq"], r["kind"], r["thread_id"], senders(r)) for r in rel]))
    released += 1
print("%d NtUserGetMessage spans, each holding 1 NtYieldExecution and citing the sender's "
      "server call that released it" % released)
PY
kt_note "$(kt_tail "$T/check.out")"
