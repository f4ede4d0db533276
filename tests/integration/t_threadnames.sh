#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Names that follow the program: threads that name themselves with
# prctl(PR_SET_NAME), one named by another thread (pthread_setname_np), a
# process that renames itself after start, and a child's exec.  Exactly one
# TaskRename per rename (on the renaming thread, resource the renamed one),
# a ProcessInfo after the main thread's, none for the exec; and the names per
# tid in dump (text and JSONL), stats (text and JSON), report and export;
# with the tp_btf probe and with its raw_tp twin.
. "$(dirname "$0")/lib.sh"
kt_require
for flavour in tp_btf raw_tp; do
rm -f "$T/ready"
TRACE=$T/$flavour.ktrc
kt_workload threadnames
if [ $flavour = raw_tp ]; then kt_record --raw-tp -p "$WL_PID"; else kt_record -p "$WL_PID"; fi
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
"$REPLAY" dump "$TRACE" >"$T/dump.txt" 2>&1 || kt_fail "dump failed"
"$REPLAY" stats "$TRACE" >"$T/stats.txt" 2>&1 || kt_fail "stats failed"
"$REPLAY" stats --json "$TRACE" >"$T/stats.json" 2>&1 || kt_fail "stats --json failed"
"$REPLAY" report --json "$TRACE" >"$T/report.json" 2>&1 || kt_fail "report --json failed"
"$REPLAY" export -o "$T/export.json" "$TRACE" >/dev/null 2>&1 || kt_fail "export failed"
python3 - "$T" "$TRACE.jsonl" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$flavour: $(kt_tail "$T/check.out")"
import json, re, sys
T, path = sys.argv[1], sys.argv[2]
wl = json.loads(open(T + "/threadnames.out").read().splitlines()[-1])
pid, child = wl["pid"], wl["child"]
want = {wl["render"]: "render", wl["audio"]: "audio", wl["worker"]: "worker 3",
        pid: "renamed-main"}
renamer = {wl["render"]: wl["render"], wl["audio"]: wl["audio"], wl["worker"]: pid, pid: pid}
def fail(msg):
    print(msg); sys.exit(1)
recs = [json.loads(l) for l in open(path).read().splitlines()[1:]]
evs = [r for r in recs if r.get("record") == "Event"]
renames = [e for e in evs if e["kind"] == "TaskRename"]
got = {}
for e in renames:
    if e["resource"]["domain"] != "Thread" or e["phase"] != "Instant" or e["scope"] != "Linux":
        fail("TaskRename shape: %s" % e)
    tid = int(e["resource"]["id"])
    if tid in got:
        fail("two TaskRename of tid %d: %s" % (tid, renames))
    got[tid] = e["payload"]["comm"]
    if e["thread_id"] != renamer.get(tid) or e["process_id"] != pid:
        fail("TaskRename of %d on thread %d (process %d), expected on %s" %
             (tid, e["thread_id"], e["process_id"], renamer.get(tid)))
if got != want:
    fail("renames %s, expected %s" % (got, want))
# the main thread's rename renames the process: a ProcessInfo citing it
main = [e for e in renames if int(e["resource"]["id"]) == pid][0]
infos = [e for e in evs if e["kind"] == "ProcessInfo" and e["process_id"] == pid and
         e["seq"] > main["seq"]]
if len(infos) != 1 or main["seq"] not in infos[0]["causes"] or \
        infos[0]["payload"]["comm"] != "renamed-main" or infos[0]["seq"] != main["seq"] + 1:
    fail("ProcessInfo of %d after its rename: %s" % (pid, infos))
# the child's exec names it, and is no rename
cinfo = [e["payload"]["comm"] for e in evs if e["kind"] == "ProcessInfo" and e["process_id"] == child]
if cinfo[-1:] != ["true"] or any(e["process_id"] == child for e in renames):
    fail("child %d: ProcessInfo comms %s, renames %s" % (child, cinfo, renames))
# JSONL: every event of a renamed thread after its rename carries its name
for e in evs:
    t = e["thread_id"]
    if t in want and e["seq"] > max(r["seq"] for r in renames if int(r["resource"]["id"]) == t):
        if e.get("thread_name") != want[t]:
            fail("JSONL event %d of tid %d: thread_name %r" % (e["seq"], t, e.get("thread_name")))
# dump text: tid=T(name) after the rename
dump = open(T + "/dump.txt").read()
for t, n in want.items():
    q = n if " " not in n else json.dumps(n)
    if " tid=%d(%s) " % (t, q) not in dump:
        fail("dump never shows tid=%d(%s)" % (t, q))
# stats text: the thread table names each thread; stats --json too
stats = open(T + "/stats.txt").read()
for t, n in want.items():
    q = n if " " not in n else json.dumps(n)
    if not re.search(r"^  %d\(%s\) +%d\(renamed-main\) " % (t, re.escape(q), pid), stats, re.M):
        fail("stats' thread table has no row '%d(%s) %d(renamed-main)'" % (t, q, pid))
sj = json.load(open(T + "/stats.json"))
names = {th["thread_id"]: th["name"] for th in sj["threads"]}
for t, n in want.items():
    if names.get(t) != n:
        fail("stats --json names thread %d %r, expected %r" % (t, names.get(t), n))
if not any(p["process_id"] == pid and p["name"] == "renamed-main" for p in sj["processes"]):
    fail("stats --json: process %d is not named renamed-main" % pid)
# report --json: each thread's name
rj = open(T + "/report.json").read()
for t, n in want.items():
    if not re.search(r'"tid":%d,"pid":%d,"process_name":"renamed-main","thread_name":%s' %
                     (t, pid, re.escape(json.dumps(n))), rj):
        fail("report --json does not name thread %d %r" % (t, n))
# export: the last thread_name metadata of each tid
ex = json.load(open(T + "/export.json"))
ex = ex["traceEvents"] if isinstance(ex, dict) else ex
last = {}
for m in ex:
    if m.get("ph") == "M" and m.get("name") == "thread_name" and m.get("pid") == pid:
        last[m["tid"]] = m["args"]["name"]
for t, n in want.items():
    if last.get(t) != n:
        fail("export names thread %d %r, expected %r" % (t, last.get(t), n))
print("ok")
PY
done
