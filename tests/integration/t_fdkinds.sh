#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Pipes, sockets and anon inodes named as /proc/PID/fd and strace -y name
# them (one vocabulary): a read and a write on a pipe, a unix
# socketpair and an eventfd, the close of an epoll fd, beside a regular file.
# Every syscall on those fds has exactly the resource its fd's /proc name
# says (pipe:[INO] = (Pipe, INO), socket:[INO] = (Socket, INO),
# anon_inode:[eventfd] = (AnonInode, 1)); the file keeps its hashed identity
# and no path (no --paths).  dump (text and JSONL), stats --files (text and
# JSON), report (text and JSON) and export name each the same way.
. "$(dirname "$0")/lib.sh"
kt_require
DATA=$T/data.bin
kt_workload fdkinds "$DATA"
kt_record -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
"$REPLAY" dump "$TRACE" >"$T/dump.txt" 2>&1 || kt_fail "dump failed"
"$REPLAY" stats --files "$TRACE" >"$T/stats.txt" 2>&1 || kt_fail "stats failed"
"$REPLAY" stats --files --json "$TRACE" >"$T/stats.json" 2>&1 || kt_fail "stats --json failed"
"$REPLAY" report "$TRACE" >"$T/report.txt" 2>&1 || kt_fail "report failed"
"$REPLAY" report --json "$TRACE" >"$T/report.json" 2>&1 || kt_fail "report --json failed"
"$REPLAY" export -o "$T/export.json" "$TRACE" >/dev/null 2>&1 || kt_fail "export failed"
python3 - "$T" "$TRACE.jsonl" "$DATA" "$KT_DIR" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, os, re, sys
T, path, data, kt_dir = sys.argv[1:5]
sys.path.insert(0, kt_dir)
from ktrace import file_id
def fail(msg):
    print(msg); sys.exit(1)
wl = json.loads(open(T + "/fdkinds.out").read().splitlines()[-1])
pid, tid = wl["pid"], wl["tid"]
st = os.stat(data)
fid = file_id(st.st_dev, st.st_ino)
names = {int(fd): n for fd, n in wl["fds"].items()}
names[wl["file"]] = "File:%d" % fid
expected = {}  # fd -> (domain, id)
for fd, n in names.items():
    m = re.fullmatch(r"(pipe|socket):\[(\d+)\]", n)
    if m:
        expected[fd] = ("Pipe" if m.group(1) == "pipe" else "Socket", int(m.group(2)))
    elif n == "anon_inode:[eventfd]":
        expected[fd] = ("AnonInode", 1)
    elif n == "anon_inode:[eventpoll]":
        expected[fd] = ("AnonInode", 2)
    elif n.startswith("File:"):
        expected[fd] = ("File", fid)
    else:
        fail("fd %d: /proc says %r" % (fd, n))
pr, pw = wl["pipe"]
sa, sb = wl["socket"]
if names[pr] != names[pw] or names[sa] == names[sb]:
    fail("/proc names: %s" % names)
recs = [json.loads(l) for l in open(path).read().splitlines()[1:]]
evs = [r for r in recs if r.get("record") == "Event" and r["process_id"] == pid]
ends = {(e["thread_id"], e["span_id"]): e for e in evs if e["phase"] == "End"}
# every fd syscall the workload makes after the gate: (tid is main or the
# helper) kind, fd; the helper's own /proc reads are on other fds
want = {("FileRead", pr), ("FileWrite", pw), ("FileRead", sb), ("FileWrite", sa),
        ("FileRead", wl["eventfd"]), ("FileWrite", wl["eventfd"]),
        ("FileWrite", wl["file"]), ("FileRead", wl["file"])}
want |= {("FileClose", fd) for fd in names}
seen = set()
for b in evs:
    if b["phase"] != "Begin" or b["kind"] not in ("FileRead", "FileWrite", "FileClose"):
        continue
    fd = b["payload"]["fd"]
    if (b["kind"], fd) not in want:
        continue
    dom, rid = expected[fd]
    e = ends.get((b["thread_id"], b["span_id"]))
    for x in (b, e):
        if x is None:
            fail("no End for %s" % b)
        if x["resource"] != {"domain": dom, "id": str(rid)} or x.get("resource_name") != names[fd]:
            fail("%s %s of fd %d (%s): resource %s, resource_name %r" %
                 (x["kind"], x["phase"], fd, names[fd], x["resource"], x.get("resource_name")))
    seen.add((b["kind"], fd))
if seen != want:
    fail("fd syscalls not seen: %s" % sorted(want - seen))
# privacy: no path without --paths
if data in open(path).read():
    fail("the data file's path is in the trace")
# dump text: each name on an event of the workload
dump = open(T + "/dump.txt").read()
for fd, n in names.items():
    if " res=%s " % n not in dump:
        fail("dump never says res=%s" % n)
# stats --files: a row per read or written object, named; JSON too
stats = open(T + "/stats.txt").read()
sj = {f["name"]: f for f in json.load(open(T + "/stats.json"))["files"]}
for fd in (pr, sa, sb, wl["eventfd"], wl["file"]):
    n = names[fd]
    if not re.search(r"^ .*\d  %s$" % re.escape(n), stats, re.M):
        fail("stats --files has no row for %s" % n)
    dom, rid = expected[fd]
    j = sj.get(n)
    if not j or j["domain"] != dom or j["id"] != str(rid) or j["path"] is not None:
        fail("stats --files --json row of %s: %s" % (n, j))
# report: the main thread waited on the pipe, the socket, the eventfd
rep = open(T + "/report.txt").read()
rnames = {r["name"] for r in re.findall(r'"resource":(\{[^{}]*\})', open(T + "/report.json").read())
          for r in [json.loads(r)]}
for fd in (pr, sb, wl["eventfd"]):
    n = names[fd]
    if "  %s  by %d(fdkinds) " % (n, tid) not in rep:
        fail("report names no wait on %s by %d(fdkinds)" % (n, tid))
    if n not in rnames:
        fail("report --json names no resource %s (%s)" % (n, sorted(rnames)))
# export: the spans' resource argument
ex = json.load(open(T + "/export.json"))
ex = ex["traceEvents"] if isinstance(ex, dict) else ex
xnames = {x.get("args", {}).get("resource") for x in ex if x.get("pid") == pid}
for fd, n in names.items():
    if n not in xnames:
        fail("export names no span's resource %s" % n)
print("ok")
PY
