#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ground-truth checks for the katra-record integration tests (stdlib only).

usage: ktrace.py CHECK ARGS...   (see CHECKS at the bottom)

A trace is read from `katra-replay dump --jsonl` output: line 1 the header,
then one object per record, field names as in format/schema.txt.  Workload
ground truth is the JSON line(s) each tests/workloads program prints.  A
failed check prints one line saying what differs and exits 1.
"""
import json
import struct
import sys

SYS_READ, SYS_WRITE, SYS_PREAD64, SYS_GETPPID, SYS_EXECVE = 0, 1, 17, 110, 59
IORING_OP_READ = 22
TASK_INTERRUPTIBLE = 1


class Fail(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def file_id(dev, ino):
    """Resource id of a file: FNV-1a-64 over st_dev, st_ino as u64 LE."""
    return fnv1a64(struct.pack("<QQ", dev, ino))


# dump --jsonl writes 64-bit identifiers, addresses and wall-clock times as
# decimal strings (exact for jq 1.6); the checks compare them as integers.
ID_KEYS = ("schema_hash", "start_wall_ns", "start_mono_ns", "ts_wall_ns", "span_id",
           "request_id")
PAYLOAD_ID_KEYS = ("addr", "uaddr", "address", "ip", "ctx", "user_data", "handle")


def exact_ids(r):
    for k in ID_KEYS:
        if isinstance(r.get(k), str):
            r[k] = int(r[k])
    res = r.get("resource")
    if isinstance(res, dict) and isinstance(res.get("id"), str):
        res["id"] = int(res["id"])
    p = r.get("payload")
    if isinstance(p, dict):
        for k in PAYLOAD_ID_KEYS:
            if isinstance(p.get(k), str):
                p[k] = int(p[k])
    return r


def load_jsonl(path):
    with open(path) as f:
        return [exact_ids(json.loads(line)) for line in f if line.strip()]


def workload_lines(path):
    return load_jsonl(path)


class Trace:
    def __init__(self, path, complete=True):
        self.records = load_jsonl(path)
        expect(self.records, "%s is empty" % path)
        self.header = self.records[0]
        expect(self.header.get("record") == "Header", "first line is not the header")
        self.body = self.records[1:]
        self.events = [r for r in self.body if r["record"] == "Event"]
        self.by_seq = {r["seq"]: r for r in self.body if "seq" in r}
        if complete:
            self.check_frame()

    def check_frame(self):
        """CaptureStart first, CaptureEnd after every event, summary last."""
        b = self.body
        expect(len(b) >= 3, "trace has only %d records" % len(b))
        expect(b[0]["record"] == "EpochMarker" and b[0]["kind"] == "CaptureStart",
               "first record is not the CaptureStart marker: %s" % short(b[0]))
        expect(b[-1]["record"] == "SessionSummary", "last record is not the SessionSummary")
        ends = [i for i, r in enumerate(b)
                if r["record"] == "EpochMarker" and r["kind"] == "CaptureEnd"]
        expect(len(ends) == 1, "%d CaptureEnd markers, expected 1" % len(ends))
        expect(all(r["record"] != "Event" for r in b[ends[0]:]),
               "an event follows the CaptureEnd marker")
        # the recorder orders by time before assigning seq: seq order is time
        # order across all threads (verify only checks each thread)
        prev = None
        for r in b:
            if "ts_mono_ns" not in r:
                continue
            if prev is not None and r["ts_mono_ns"] < prev["ts_mono_ns"]:
                raise Fail("seq order is not time order: seq %d at %d ns follows seq %d at %d ns"
                           % (r["seq"], r["ts_mono_ns"], prev["seq"], prev["ts_mono_ns"]))
            prev = r
        s = b[-1]
        expect(s["event_count"] == len(self.events),
               "summary event_count %d, trace has %d events" % (s["event_count"], len(self.events)))

    def summary(self):
        return self.body[-1]

    def thread(self, tid):
        return [e for e in self.events if e["thread_id"] == tid]

    def process(self, pid):
        return [e for e in self.events if e["process_id"] == pid]


def short(e):
    keys = ("seq", "record", "thread_id", "kind", "phase", "span_id", "causes", "payload")
    return json.dumps({k: e[k] for k in keys if k in e})


# Ends that may cite more than their Begin (SPEC section 10): an NT call
# released through the wineserver by another thread's call, a Linux read
# completing a pending NtReadFile or reading what the wineserver (or its
# client) wrote into a pipe.
RELEASED_KINDS = {"NtWait", "NtSyscall", "NtReadFile", "NtWriteFile", "NtDelayExecution",
                  "FileRead", "SocketRecv"}


def spans(t, evs, kind):
    """Begin/End pairs of `kind` among evs, checked for pairing; [(begin, end)]."""
    begins = [e for e in evs if e["kind"] == kind and e["phase"] == "Begin"]
    ends = {e["span_id"]: e for e in evs if e["kind"] == kind and e["phase"] == "End"}
    expect(len(ends) == len([e for e in evs if e["kind"] == kind and e["phase"] == "End"]),
           "%s: two Ends share a span_id" % kind)
    out = []
    for b in begins:
        e = ends.pop(b["span_id"], None)
        expect(e is not None, "%s Begin without End: %s" % (kind, short(b)))
        extra_ok = kind in RELEASED_KINDS and all(c < e["seq"] for c in e["causes"])
        expect(e["causes"] == [b["seq"]] or (extra_ok and e["causes"][0] == b["seq"]),
               "%s End causes %s, expected [Begin seq %d]" % (kind, e["causes"], b["seq"]))
        expect(e["seq"] > b["seq"] and e["ts_mono_ns"] >= b["ts_mono_ns"],
               "%s End before its Begin: %s" % (kind, short(e)))
        out.append((b, e))
    if ends:
        raise Fail("%s End without Begin: %s" % (kind, short(next(iter(ends.values())))))
    return out


def measured(*evs):
    for e in evs:
        expect(e["confidence"] == "Measured", "not Measured: %s" % short(e))


# ---------------------------------------------------------------- checks

def check_syscalls(trace_path, wl_path):
    """N pread64 + M getppid per thread, exact."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    fid = file_id(w["file_dev"], w["file_ino"])
    pid, n, m, size = w["pid"], w["n"], w["m"], w["file_size"]
    for tid in w["tids"]:
        evs = t.thread(tid)
        expect(evs, "no events on thread %d" % tid)
        expect(all(e["process_id"] == pid for e in evs),
               "thread %d has events with a process_id other than %d" % (tid, pid))
        inst = [e for e in evs if e["kind"] == "FileRead" and e["phase"] == "Instant"
                and e["payload"].get("nr") == SYS_PREAD64]
        expect(not inst, "thread %d: a pread64 Instant: %s" % (tid, short(inst[0]) if inst else ""))
        # the workload's preads: its own file's resource id (no other process
        # or loader read touches that file); and every pread64 of 1 byte on
        # that fd must be one of them (a wrong resource id fails here)
        allp = [(b, e) for b, e in spans(t, evs, "FileRead")
                if e["payload"].get("nr") == SYS_PREAD64]
        pairs = [(b, e) for b, e in allp if b["resource"] == {"domain": "File", "id": fid}]
        mine = {b["seq"] for b, e in pairs}
        other = [b for b, e in allp if b["seq"] not in mine
                 and b["payload"].get("fd") == w["fd"] and b["payload"].get("count") == 1]
        expect(not other, "thread %d: %d pread64s of fd %d with resource %s, expected File %d"
               % (tid, len(other), w["fd"], other[0]["resource"] if other else None, fid))
        expect(len(pairs) == n, "thread %d: %d pread64 spans on the file, expected %d"
               % (tid, len(pairs), n))
        for i, (b, e) in enumerate(pairs):
            measured(b, e)
            want = {"type": "FileIo", "fd": w["fd"], "count": 1, "offset": i % size,
                    "iov_count": 0}
            expect(b["payload"] == want, "thread %d pread %d: payload %s, expected %s"
                   % (tid, i, b["payload"], want))
            expect(b["resource"] == {"domain": "File", "id": fid},
                   "thread %d pread %d: resource %s, expected File %d"
                   % (tid, i, b["resource"], fid))
            expect(e["payload"] == {"type": "SyscallReturn", "nr": SYS_PREAD64, "ret": 1},
                   "thread %d pread %d: End payload %s" % (tid, i, e["payload"]))
            if i + 1 < n:
                expect(e["seq"] < pairs[i + 1][0]["seq"], "thread %d: pread spans overlap" % tid)
        sys_pairs = spans(t, evs, "Syscall")
        gp = [(b, e) for b, e in sys_pairs if b["payload"] == {"type": "Syscall", "nr": SYS_GETPPID}]
        expect(len(gp) == m, "thread %d: %d getppid spans, expected %d" % (tid, len(gp), m))
        for b, e in gp:
            measured(b, e)
            expect(e["payload"] == {"type": "SyscallReturn", "nr": SYS_GETPPID, "ret": w["ppid"]},
                   "thread %d getppid End payload %s, expected ret %d"
                   % (tid, e["payload"], w["ppid"]))
            expect(b["seq"] > pairs[-1][1]["seq"] if pairs else True,
                   "thread %d: a getppid span before the last pread" % tid)
    return "%d thread(s): %d pread64 + %d getppid spans each" % (len(w["tids"]), n, m)


def check_command(trace_path, wl_path):
    """syscalls workload under `-- COMMAND`: exact counts, and the exec traced."""
    msg = check_syscalls(trace_path, wl_path)
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    pid = w["pid"]
    # (header target_pids: left to the recorder; today [] for -- COMMAND)
    evs = t.process(pid)
    execs = [e for e in evs if e["kind"] == "TaskExec"]
    expect(len(execs) == 1, "%d TaskExec events for the command, expected 1" % len(execs))
    ex = [b for b, e in spans(t, evs, "Execve") if b["payload"].get("type") == "Execve"]
    expect(ex and ex[-1]["seq"] < execs[0]["seq"],
           "no execve span before the command's TaskExec: its start was not traced")
    first = min(evs, key=lambda e: e["seq"])
    expect(first["seq"] < ex[-1]["seq"] or first is ex[-1],
           "the command's first event is not before its execve")
    # before its execve the command is katra-record's launcher: woken and
    # switched in, nothing of its own (no fault of the launcher's code)
    pre = sorted({e["kind"] for e in evs if e["seq"] < ex[-1]["seq"]} - {"Wakeup", "OffCpu"})
    expect(not pre, "the command has %s events before its execve: the launcher's" %
           ", ".join("%d %s" % (sum(1 for e in evs if e["kind"] == k and e["seq"] < ex[-1]["seq"]), k)
                     for k in pre))
    return msg + "; execve traced before TaskExec"


def check_pingpong(trace_path, wl_path):
    """K off-CPU spans per thread ended by the other thread's wakeup."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    k, a, b = w["k"], w["tid_a"], w["tid_b"]
    for me, other in ((a, b), (b, a)):
        evs = t.thread(me)
        pairs = [(x, y) for x, y in offcpu_pairs(t, evs)]
        woken = 0
        for beg, end in pairs:
            ws = [t.by_seq[c] for c in end["causes"][1:]]
            expect(all(x["kind"] == "Wakeup" for x in ws),
                   "OffCpu End cause is not a Wakeup: %s" % short(end))
            expect(all(x["payload"]["target_tid"] == me for x in ws),
                   "OffCpu End of %d caused by a wakeup of another thread: %s" % (me, short(end)))
            if any(x["thread_id"] == other for x in ws):
                woken += 1
                expect(beg["payload"]["prev_state"] == TASK_INTERRUPTIBLE,
                       "thread %d left the CPU in state %d, expected 1 (S): %s"
                       % (me, beg["payload"]["prev_state"], short(beg)))
        expect(woken == k, "thread %d: %d off-CPU spans ended by thread %d's wakeup, expected %d"
               % (me, woken, other, k))
        wk = [e for e in t.thread(other) if e["kind"] == "Wakeup"
              and e["payload"]["target_tid"] == me]
        expect(len(wk) >= k, "%d wakeups %d->%d, expected >= %d" % (len(wk), other, me, k))
    return "%d off-CPU spans per thread woken by the other" % k


def offcpu_pairs(t, evs):
    begins = {e["span_id"]: e for e in evs if e["kind"] == "OffCpu" and e["phase"] == "Begin"}
    out = []
    for e in evs:
        if e["kind"] != "OffCpu" or e["phase"] != "End":
            continue
        b = begins.get(e["span_id"])
        expect(b is not None, "OffCpu End without Begin: %s" % short(e))
        expect(e["causes"] and e["causes"][0] == b["seq"],
               "OffCpu End's first cause is not its Begin: %s" % short(e))
        expect(b["payload"]["type"] == "Switch", "OffCpu Begin payload: %s" % short(b))
        out.append((b, e))
    return out


def check_pagefault(trace_path, wl_path):
    """P fresh pages touched: every page has a write fault from that thread."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    lo, hi, ps = w["start"], w["end"], w["page_size"]
    faults = [e for e in t.thread(w["tid"]) if e["kind"] == "PageFault"
              and lo <= e["payload"]["address"] < hi]
    expect(len(faults) >= w["pages"], "%d page faults in the mapping, expected >= %d"
           % (len(faults), w["pages"]))
    pages = set()
    for e in faults:
        expect(e["phase"] in ("Instant", "Begin", "End"), "bad phase: %s" % short(e))
        if e["phase"] == "End":
            continue
        expect(e["payload"]["error_code"] & 0x6 == 0x6,
               "fault error_code %#x lacks write|user: %s" % (e["payload"]["error_code"], short(e)))
        expect(e["payload"]["ip"] != 0, "fault with ip 0: %s" % short(e))
        pages.add((e["payload"]["address"] - lo) // ps)
    expect(len(pages) == w["pages"], "faults cover %d of the %d pages" % (len(pages), w["pages"]))
    return "%d faults cover all %d pages" % (len(faults), w["pages"])


def check_uring(trace_path, wl_path):
    """R io_uring reads: exactly R submit->complete pairs by cause and request_id."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    r, pid = w["r"], w["pid"]
    subs = [e for e in t.events if e["kind"] == "IoUringSubmit" and e["process_id"] == pid]
    comps = [e for e in t.events if e["kind"] == "IoUringComplete"
             and e["request_id"] in range(1, r + 1)]
    expect(len(subs) == r, "%d IoUringSubmit events, expected %d" % (len(subs), r))
    expect(len(comps) == r, "%d IoUringComplete events, expected %d" % (len(comps), r))
    by_id = {}
    for s in subs:
        rid = s["request_id"]
        expect(rid in range(1, r + 1) and rid not in by_id, "submit request_id %s" % rid)
        expect(s["thread_id"] == w["tid"], "submit on thread %d, expected %d"
               % (s["thread_id"], w["tid"]))
        p = s["payload"]
        expect(p["type"] == "IoUringSubmit" and p["user_data"] == rid and
               p["opcode"] == IORING_OP_READ, "submit payload %s" % p)
        by_id[rid] = s
    seen = set()
    for c in comps:
        rid = c["request_id"]
        expect(rid not in seen, "two completions of request %d" % rid)
        seen.add(rid)
        s = by_id[rid]
        expect(s["seq"] in c["causes"], "completion of %d not caused by its submit (seq %d): %s"
               % (rid, s["seq"], short(c)))
        expect(c["seq"] > s["seq"], "completion of %d before its submit" % rid)
        p = c["payload"]
        expect(p["type"] == "IoUringComplete" and p["user_data"] == rid and p["res"] == 1,
               "completion payload %s" % p)
    return "%d submit->complete pairs" % r


def check_forktree(trace_path, wl_path, busy_pid):
    """Every descendant traced from its first event; the busy process absent."""
    t = Trace(trace_path)
    busy_pid = int(busy_pid)
    lines = {x["level"]: x for x in workload_lines(wl_path) if "level" in x}
    expect(sorted(lines) == [0, 1, 2, 3], "workload printed levels %s" % sorted(lines))
    top = lines[3]["pid"]
    expect(t.header["capture_options"]["target_pids"] == [top],
           "header target_pids %s" % t.header["capture_options"]["target_pids"])
    for lvl in (2, 1, 0):
        d, parent = lines[lvl]["pid"], lines[lvl]["ppid"]
        forks = [e for e in t.events if e["kind"] == "TaskFork"
                 and e["payload"]["child_pid"] == d]
        expect(len(forks) == 1, "%d TaskFork events for pid %d" % (len(forks), d))
        f = forks[0]
        expect(f["process_id"] == parent and not f["payload"]["is_thread"],
               "TaskFork of %d not on its parent %d: %s" % (d, parent, short(f)))
        evs = t.process(d)
        expect(evs, "no events of descendant %d" % d)
        first = min(evs, key=lambda e: e["seq"])
        expect(f["seq"] in first["causes"],
               "first event of %d does not have the fork (seq %d) among its causes: %s"
               % (d, f["seq"], short(first)))
        kinds = {e["kind"] for e in evs}
        for k in ("TaskExec", "TaskExit", "FileWrite"):
            expect(k in kinds, "descendant %d (level %d) has no %s event" % (d, lvl, k))
    stray = [e for e in t.events if busy_pid in (e["process_id"], e["thread_id"])]
    expect(not stray, "%d events of the unrelated busy process %d, e.g. %s"
           % (len(stray), busy_pid, short(stray[0]) if stray else ""))
    return "3 descendants traced from their fork; busy process absent"


def check_demo(trace_path, wl_path):
    """The demo workload's known counts."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    fid = file_id(w["file_dev"], w["file_ino"])
    loader = [b for b, e in spans(t, t.thread(w["loader_tid"]), "FileRead")
              if b["resource"] == {"domain": "File", "id": fid}]
    expect(len(loader) == w["read_calls"], "%d file reads on the loader, expected %d"
           % (len(loader), w["read_calls"]))
    subs = [e for e in t.process(w["pid"]) if e["kind"] == "IoUringSubmit"]
    comps = [e for e in t.events if e["kind"] == "IoUringComplete"
             and e["request_id"] in range(1, w["uring_reads"] + 1)]
    expect(len(subs) == w["uring_reads"] and len(comps) == w["uring_reads"],
           "%d submits, %d completions, expected %d" % (len(subs), len(comps), w["uring_reads"]))
    sub_seq = {s["request_id"]: s["seq"] for s in subs}
    for c in comps:
        expect(sub_seq.get(c["request_id"]) in c["causes"], "completion not linked: %s" % short(c))
    child = w["child_pid"]
    forks = [e for e in t.events if e["kind"] == "TaskFork" and e["payload"]["child_pid"] == child]
    expect(len(forks) == 1, "%d TaskFork events for the child" % len(forks))
    cev = t.process(child)
    expect(cev and forks[0]["seq"] in min(cev, key=lambda e: e["seq"])["causes"],
           "the child's first event is not caused by its fork")
    creads = spans(t, cev, "FileRead")
    expect(len(creads) == 16, "child: %d FileRead spans, expected 16" % len(creads))
    handoff = 0
    for _, end in offcpu_pairs(t, t.thread(w["worker_tid"])):
        if any(t.by_seq[c]["thread_id"] == w["loader_tid"] for c in end["causes"][1:]):
            handoff += 1
    expect(handoff >= 1, "the worker was never woken by the loader")
    return "demo: %d reads, %d io_uring pairs, child traced, %d handoff wakeups" % (
        len(loader), len(comps), handoff)


def check_prefix(trace_path, min_events):
    """A cut-off trace: header, CaptureStart, >= min_events events, all parsed."""
    t = Trace(trace_path, complete=False)
    expect(t.body, "the prefix has no record after the header")
    expect(t.body[0]["record"] == "EpochMarker" and t.body[0]["kind"] == "CaptureStart",
           "the prefix does not start with CaptureStart")
    expect(len(t.events) >= int(min_events), "the prefix has %d events, expected >= %s"
           % (len(t.events), min_events))
    return "prefix of %d records" % len(t.body)


def check_clean(trace_path, pid=None):
    """A complete trace; with pid: the target's TaskExit(group_dead) is in it."""
    t = Trace(trace_path)
    if pid is not None:
        ex = [e for e in t.process(int(pid)) if e["kind"] == "TaskExit"
              and e["payload"]["group_dead"]]
        expect(len(ex) == 1, "%d group TaskExit events for pid %s" % (len(ex), pid))
    return "complete trace, %d events" % len(t.events)


def check_header(trace_path, key, value):
    """capture_options[key] == json value."""
    t = Trace(trace_path)
    got = t.header["capture_options"][key]
    expect(got == json.loads(value), "header %s is %s, expected %s" % (key, got, value))
    return "header %s = %s" % (key, value)


def check_summary_json(trace_path, json_path):
    """--summary-json agrees with the trace's SessionSummary."""
    t = Trace(trace_path)
    with open(json_path) as f:
        s = json.load(f)
    summ = t.summary()
    expect(s.get("events") == summ["event_count"], "summary json events %s, trace %d"
           % (s.get("events"), summ["event_count"]))
    expect(s.get("dropped") == summ["dropped_events"], "summary json dropped %s, trace %d"
           % (s.get("dropped"), summ["dropped_events"]))
    kinds = {k["kind"]: k["count"] for k in summ["events_by_kind"]}
    expect(s.get("events_by_kind") == kinds, "summary json events_by_kind %s, trace %s"
           % (s.get("events_by_kind"), kinds))
    return "summary json matches"


def check_epochs(trace_path, *expected):
    """EpochMarkers exactly as expected ("Kind:name" each), epochs numbered 0.."""
    t = Trace(trace_path)
    marks = [r for r in t.body if r["record"] == "EpochMarker"]
    got = ["%s:%s" % (m["kind"], m["name"]) for m in marks]
    expect(got == list(expected), "epochs %s, expected %s" % (got, list(expected)))
    expect([m["epoch"] for m in marks] == list(range(len(marks))),
           "epoch numbers %s" % [m["epoch"] for m in marks])
    expect(t.summary()["epoch_count"] == len(marks), "summary epoch_count")
    return "%d epochs" % len(marks)


def _opens(t, data_path):
    import os
    st = os.stat(data_path)
    fid = file_id(st.st_dev, st.st_ino)
    begins = [e for e in t.events if e["kind"] == "FileOpen" and e["phase"] == "Begin"]
    ends = {e["span_id"]: e for e in t.events if e["kind"] == "FileOpen" and e["phase"] == "End"}
    return fid, begins, ends


def check_paths(trace_path, data_path, exe_path):
    """--paths: the data file's openat has its path and the file's identity."""
    t = Trace(trace_path)
    expect(t.header["capture_options"]["record_paths"] is True, "record_paths not set")
    fid, begins, ends = _opens(t, data_path)
    mine = [b for b in begins if b["payload"]["path"] == data_path]
    expect(len(mine) == 1, "%d openat Begins with path %s (of %d opens: %s)"
           % (len(mine), data_path, len(begins), [b["payload"]["path"] for b in begins][:8]))
    end = ends.get(mine[0]["span_id"])
    expect(end is not None and end["resource"] == {"domain": "File", "id": fid},
           "the open's End does not name the file: %s" % (short(end) if end else None))
    execs = [e for e in t.events if e["kind"] == "Execve" and e["phase"] == "Begin"]
    expect(any(e["payload"]["path"] == exe_path for e in execs),
           "no Execve Begin with path %s: %s" % (exe_path, [e["payload"]["path"] for e in execs]))
    return "open and exec paths recorded"


def check_paths_all(trace_path, files_dir, n):
    """--paths on a busy machine: every openat Begin carries its path, the n
    files under files_dir (named f1..fn, each opened once by the workload)
    each have exactly one, and nothing was lost."""
    t = Trace(trace_path)
    n = int(n)
    begins = [e for e in t.events if e["kind"] == "FileOpen" and e["phase"] == "Begin"]
    nulls = [b for b in begins if b["payload"].get("path") is None]
    drops = sum(d["count"] for d in t.summary()["drops"])
    expect(not nulls, "%d of %d openat Begins without a path (%d events lost)"
           % (len(nulls), len(begins), drops))
    want = {"%s/f%d" % (files_dir, i) for i in range(1, n + 1)}
    got = [b["payload"]["path"] for b in begins if b["payload"]["path"] in want]
    expect(len(got) == n and set(got) == want,
           "%d opens of the %d files (%d distinct; %d events lost)"
           % (len(got), n, len(set(got)), drops))
    expect(drops == 0, "%d events lost" % drops)
    return "%d opens, every one with its path; the %d files each once; 0 lost" % (len(begins), n)


def check_nopaths(trace_path, data_path, exe_path):
    """Without --paths: no path anywhere; the open still names the file by id."""
    t = Trace(trace_path)
    expect(t.header["capture_options"]["record_paths"] is False, "record_paths set")
    for e in t.events:
        p = e["payload"].get("path")
        expect(p is None, "a path without --paths: %s" % short(e))
    fid, begins, ends = _opens(t, data_path)
    ids = [ends[b["span_id"]]["resource"]["id"] for b in begins if b["span_id"] in ends]
    expect(fid in ids, "no openat End names the data file by its identity")
    with open(trace_path) as f:
        expect(data_path not in f.read(), "the data file's path appears in the trace")
    return "no paths, file known by identity"


def check_process_events(trace_path, pid, min_events):
    """At least min_events getppid spans from process pid (a pre-existing child)."""
    t = Trace(trace_path)
    pid = int(pid)
    evs = t.process(pid)
    gp = [e for e in evs if e["kind"] == "Syscall" and e["phase"] == "End"
          and e["payload"].get("nr") == SYS_GETPPID]
    expect(len(gp) >= int(min_events), "process %d: %d getppid spans, expected >= %s"
           % (pid, len(gp), min_events))
    return "%d getppid spans from %d" % (len(gp), pid)


# ------------------------------------------- big traces, read as a stream
#
# A storm trace has millions of events: these checks read the JSONL once,
# line by line ("-" is stdin, so the dump need not be stored), parse only the
# lines they need and keep counters, not events.

KATRA_NR_I386 = 0x80000000   # SyscallPayload.nr of an i386 (int $0x80) syscall
I386_READ, I386_GETPPID = 3, 64


def stream(path):
    f = sys.stdin if path == "-" else open(path)
    try:
        for line in f:
            yield line
    finally:
        if f is not sys.stdin:
            f.close()


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def check_storm(jsonl_path, wl_path):
    """T threads x N getppid: no Estimated event; every call is either a
    recorded span or counted as lost (2 x spans + dropped >= 2 x calls); never
    more spans than calls."""
    w = workload_lines(wl_path)[0]
    pid, ppid, n, tids = w["pid"], w["ppid"], w["n"], w["tids"]
    calls = n * len(tids)
    begins = {t: 0 for t in tids}
    pairs = {t: 0 for t in tids}
    open_spans = set()
    est, first_est, stray, bad_ret, lone_ends = 0, None, [], 0, 0
    header = summary = None
    for line in stream(jsonl_path):
        if header is None:
            header = json.loads(line)
            expect(header.get("record") == "Header", "first line is not the header")
            continue
        if line.startswith('{"record":"SessionSummary"'):
            summary = json.loads(line)
            continue
        est_line = '"confidence":"Estimated"' in line
        if not est_line and '"nr":110,' not in line and '"nr":110}' not in line:
            continue
        e = json.loads(line)
        if e["record"] != "Event":
            continue
        if e["confidence"] == "Estimated":
            est += 1
            first_est = first_est or e
        if e["process_id"] != pid or e["kind"] != "Syscall" or e["payload"].get("nr") != SYS_GETPPID:
            continue
        tid, key = e["thread_id"], (e["thread_id"], e["span_id"])
        if tid not in begins:
            stray.append(tid)
            continue
        if e["phase"] == "Begin":
            begins[tid] += 1
            open_spans.add(key)
        elif e["phase"] == "End":
            if key in open_spans:
                open_spans.discard(key)
                pairs[tid] += 1
                if e["payload"].get("ret") != ppid:
                    bad_ret += 1
            else:
                lone_ends += 1
    expect(summary is not None, "no SessionSummary at the end of the trace")
    lost = summary["dropped_events"]
    npairs = sum(pairs.values())
    facts = ("%d threads x %d getppid: %d of %d calls recorded as spans (%.2f %% missing), "
             "%d events lost (%.2f %% of %d), %d Estimated"
             % (len(tids), n, npairs, calls, pct(calls - npairs, calls), lost,
                pct(lost, 2 * calls), 2 * calls, est))
    problems = []
    if est:
        problems.append("%d events with confidence Estimated, e.g. %s" % (est, short(first_est)))
    over = {t: b for t, b in begins.items() if b > n}
    if over:
        problems.append("more getppid Begins than calls on threads %s (each made %d)" % (over, n))
    if stray:
        problems.append("%d getppid events on threads the workload did not run them on (%s)"
                        % (len(stray), sorted(set(stray))[:4]))
    if bad_ret:
        problems.append("%d getppid Ends do not return the ppid %d" % (bad_ret, ppid))
    if lone_ends:
        problems.append("%d getppid Ends without their Begin" % lone_ends)
    if 2 * npairs + lost < 2 * calls:
        problems.append("events vanished uncounted: 2 x %d spans + %d dropped = %d < 2 x %d calls"
                        % (npairs, lost, 2 * npairs + lost, calls))
    expect(not problems, "; ".join(problems) + " [" + facts + "]")
    return facts


def check_exitstorm(jsonl_path, wl_path):
    """Every thread of every child has exactly one TaskExit, exactly one of
    them group_dead; the workload's own process exits once."""
    w = workload_lines(wl_path)[0]
    kids = {c["pid"]: set([c["pid"]] + c["tids"]) for c in w["children"]}
    expect(len(kids) == w["rounds"], "workload printed %d children for %d rounds"
           % (len(kids), w["rounds"]))
    exits = {}  # pid -> [(tid, group_dead)]
    est = 0
    summary = None
    for line in stream(jsonl_path):
        if line.startswith('{"record":"SessionSummary"'):
            summary = json.loads(line)
            continue
        if '"confidence":"Estimated"' in line:
            est += 1
        if '"kind":"TaskExit"' not in line:
            continue
        e = json.loads(line)
        if e["record"] == "Event" and e["kind"] == "TaskExit":
            exits.setdefault(e["process_id"], []).append(
                (e["thread_id"], e["payload"]["group_dead"]))
    expect(summary is not None, "no SessionSummary at the end of the trace")
    bad = []
    missing = dup = 0
    for pid, threads in sorted(kids.items()):
        ex = exits.get(pid, [])
        per = {}
        for tid, _ in ex:
            per[tid] = per.get(tid, 0) + 1
        miss = sorted(threads - set(per))
        twice = sorted(t for t, c in per.items() if c > 1)
        alien = sorted(set(per) - threads)
        groups = sum(1 for _, g in ex if g)
        missing += len(miss)
        dup += len(twice)
        if miss or twice or alien or groups != 1:
            bad.append("pid %d: %d of %d threads without TaskExit %s, %d with two or more, "
                       "%d unknown threads, %d group_dead exits"
                       % (pid, len(miss), len(threads), miss[:4], len(twice), len(alien), groups))
    top = [g for _, g in exits.get(w["pid"], []) if g]
    if len(top) != 1:
        bad.append("the workload's own process %d has %d group_dead TaskExits"
                   % (w["pid"], len(top)))
    facts = ("%d children x %d threads: %d thread exits missing, %d duplicated; %d events "
             "dropped, %d Estimated" % (len(kids), w["k"] + 1, missing, dup,
                                        summary["dropped_events"], est))
    expect(not bad, "%d of %d processes wrong, first: %s [%s]"
           % (len(bad), len(kids) + 1, bad[0] if bad else "", facts))
    return facts


def check_execthread(trace_path, wl_path):
    """A non-main thread's execve: one TaskExec on the pid's thread whose
    old_tid is the exec'ing thread; the killed main thread's read and the
    execve itself are closed spans; one group exit."""
    t = Trace(trace_path)
    lines = workload_lines(wl_path)
    before = [x for x in lines if "exec_tid" in x]
    after = [x for x in lines if x.get("phase") == "after"]
    expect(len(before) == 1 and len(after) == 1, "workload printed %s" % lines)
    pid, x = before[0]["pid"], before[0]["exec_tid"]
    expect(after[0]["pid"] == pid and after[0]["tid"] == pid and after[0]["old_tid"] == x,
           "the new image is not the same process: %s" % after[0])
    evs = t.process(pid)
    execs = [e for e in evs if e["kind"] == "TaskExec"]
    expect(len(execs) == 1, "%d TaskExec events in process %d, expected 1" % (len(execs), pid))
    ex = execs[0]
    expect(ex["thread_id"] == pid, "TaskExec on thread %d, expected the pid %d (the exec'ing "
           "thread takes the leader's tid): %s" % (ex["thread_id"], pid, short(ex)))
    expect(ex["payload"]["old_tid"] == x and ex["payload"]["old_tid"] != ex["thread_id"],
           "TaskExec old_tid %s, expected the exec'ing thread %d: %s"
           % (ex["payload"]["old_tid"], x, short(ex)))
    # spans across the exec, by (thread, span_id) as verify pairs them
    ends = {(e["thread_id"], e["span_id"]) for e in evs if e["phase"] == "End"}
    reads = [e for e in evs if e["kind"] == "FileRead" and e["phase"] == "Begin"
             and e["thread_id"] == pid and e["seq"] < ex["seq"]
             and e["payload"].get("fd") == before[0]["pipe_fd"]]
    open_reads = [e for e in reads if (e["thread_id"], e["span_id"]) not in ends]
    expect(not open_reads, "the killed main thread's read is left open: %s" % short(open_reads[0])
           if open_reads else "")
    xb = [e for e in evs if e["kind"] == "Execve" and e["phase"] == "Begin" and e["thread_id"] == x]
    expect(len(xb) == 1, "%d Execve Begins on the exec'ing thread %d, expected 1" % (len(xb), x))
    expect((x, xb[0]["span_id"]) in ends, "the execve span on thread %d has no End on that "
           "thread: %s" % (x, short(xb[0])))
    groups = [e for e in evs if e["kind"] == "TaskExit" and e["payload"]["group_dead"]]
    expect(len(groups) == 1, "%d group_dead TaskExits for %d, expected 1" % (len(groups), pid))
    return ("TaskExec on %d with old_tid %d; main thread's read %s; execve closed"
            % (pid, x, "closed" if reads else "not recorded"))


def check_i386(trace_path, calls):
    """The static i386 program under `-- COMMAND`: exactly `calls` read and
    `calls` getppid, named with their i386 numbers (KATRA_NR_I386 | nr)."""
    t = Trace(trace_path)
    calls = int(calls)
    execs = [e for e in t.events if e["kind"] == "TaskExec"]
    expect(len(execs) == 1, "%d TaskExec events, expected 1 (the command's)" % len(execs))
    pid, exec_seq = execs[0]["process_id"], execs[0]["seq"]
    evs = [e for e in t.process(pid) if e["seq"] > exec_seq]
    rd_nr, gp_nr = KATRA_NR_I386 | I386_READ, KATRA_NR_I386 | I386_GETPPID
    begins = [e for e in evs if e["kind"] == "FileRead" and e["phase"] == "Begin"]
    kinds = {}
    for e in evs:
        if e["phase"] != "End":
            continue
        nr = e["payload"].get("nr")
        kinds.setdefault((e["kind"], nr), 0)
        kinds[(e["kind"], nr)] += 1
    seen = ", ".join("%s nr %#x: %d" % (k, nr or 0, c) for (k, nr), c in sorted(
        kinds.items(), key=lambda kv: -kv[1])[:4])
    expect(len(begins) == calls, "%d FileRead Begins after the exec, expected %d (span Ends "
           "seen: %s)" % (len(begins), calls, seen))
    reads = spans(t, evs, "FileRead")
    for b, e in reads:
        expect(e["payload"].get("nr") == rd_nr and e["payload"].get("ret") == 1,
               "FileRead End %s, expected nr %#x ret 1" % (short(e), rd_nr))
        expect(b["payload"].get("type") == "FileIo" and b["payload"].get("count") == 1,
               "FileRead Begin payload %s, expected a 1-byte FileIo" % b["payload"])
    gp = [(b, e) for b, e in spans(t, evs, "Syscall") if e["payload"].get("nr") == gp_nr]
    expect(len(gp) == calls, "%d Syscall spans with nr %#x (i386 getppid), expected %d (span "
           "Ends seen: %s)" % (len(gp), gp_nr, calls, seen))
    for b, e in gp:
        expect(b["payload"].get("nr") == gp_nr and e["payload"]["ret"] > 0,
               "getppid span %s / %s" % (short(b), short(e)))
    return "%d i386 reads (FileRead) and %d i386 getppid" % (len(reads), len(gp))


def check_select_io(trace_path, wl_path):
    """-e io: the preads exact; getppid, OffCpu and page faults filtered out."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    fid = file_id(w["file_dev"], w["file_ino"])
    for tid in w["tids"]:
        evs = t.thread(tid)
        reads = [b for b, e in spans(t, evs, "FileRead")
                 if b["resource"] == {"domain": "File", "id": fid}]
        expect(len(reads) == w["n"], "thread %d: %d pread64 spans, expected %d"
               % (tid, len(reads), w["n"]))
    gp = [e for e in t.events if e["kind"] == "Syscall" and (e["payload"] or {}).get("nr") == SYS_GETPPID]
    expect(not gp, "%d getppid events with -e io, e.g. %s" % (len(gp), short(gp[0]) if gp else ""))
    for k in ("OffCpu", "Wakeup", "PageFault"):
        n = sum(1 for e in t.events if e["kind"] == k)
        expect(n == 0, "%d %s events with -e io" % (n, k))
    return "%d pread64 spans per thread, no getppid, OffCpu or faults" % w["n"]


def check_select_io_pingpong(trace_path, wl_path):
    """-e io on pingpong: every pipe read blocks, so its enter is written when
    the thread leaves the CPU (no sched probe records it) and its exit,
    maybe on another CPU, closes it: exactly K paired read and K paired write
    spans per thread on the pipes, and no OffCpu or Wakeup."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    k = w["k"]
    for tid, rfd, wfd in ((w["tid_a"], w["pong_fd"][0], w["ping_fd"][1]),
                          (w["tid_b"], w["ping_fd"][0], w["pong_fd"][1])):
        evs = t.thread(tid)
        for kind, fd in (("FileRead", rfd), ("FileWrite", wfd)):
            n = len([b for b, e in spans(t, evs, kind) if (b["payload"] or {}).get("fd") == fd])
            expect(n == k, "thread %d: %d %s spans on fd %d, expected %d" % (tid, n, kind, fd, k))
    for kind in ("OffCpu", "Wakeup"):
        n = sum(1 for e in t.events if e["kind"] == kind)
        expect(n == 0, "%d %s events with -e io" % (n, kind))
    return "%d blocking pipe reads and %d writes per thread, each a closed span" % (k, k)


def check_ktable(trace_path, wl_path, table_size):
    """More syscalls blocked at once than the kernel's in-flight table holds:
    every refused entry is counted (KernelTable, instance 0) and is exactly one
    syscall exit written without its enter (an Instant)."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    n = w["threads"]
    drops = sum(e["payload"]["count"] for e in t.events if e["kind"] == "Drop"
                and e["payload"]["source"] == "KernelTable" and e["payload"]["instance"] == 0)
    summ = sum(d["count"] for d in t.summary()["drops"]
               if d["source"] == "KernelTable" and d["instance"] == 0)
    expect(drops == summ, "Drop events say %d, the summary %d" % (drops, summ))
    expect(drops >= n - int(table_size), "%d refused entries for %d blocked reads and a table of %s"
           % (drops, n, table_size))
    # a thread's first syscall event may be one in flight when the capture
    # started (the workload's gate): not a refused entry
    first = {}
    for e in t.events:
        if e["scope"] == "Linux" and (e["phase"] == "Begin" and e["kind"] not in ("OffCpu", "PageFault")
                                      or (e["payload"] or {}).get("type") == "SyscallReturn"):
            first.setdefault(e["thread_id"], e["seq"])
    orphans = [e for e in t.events if e["phase"] == "Instant" and e["scope"] == "Linux"
               and (e["payload"] or {}).get("type") == "SyscallReturn"
               and not (e["kind"] == "Clone" and e["payload"]["ret"] == 0)
               and first.get(e["thread_id"]) != e["seq"]]
    expect(len(orphans) == drops, "%d syscall exits without their enter, %d entries refused"
           % (len(orphans), drops))
    reads = [e for e in t.process(w["pid"]) if e["kind"] == "FileRead" and e["phase"] == "Begin"]
    expect(len(reads) >= n, "%d read Begins for %d blocked threads" % (len(reads), n))
    return "%d entries refused and counted, each one exit without its enter" % drops


CHECKS = {
    "ktable": check_ktable,
    "select_io": check_select_io,
    "select_io_pingpong": check_select_io_pingpong,
    "process-events": check_process_events,
    "epochs": check_epochs,
    "paths": check_paths,
    "nopaths": check_nopaths,
    "syscalls": check_syscalls,
    "command": check_command,
    "pingpong": check_pingpong,
    "pagefault": check_pagefault,
    "uring": check_uring,
    "forktree": check_forktree,
    "demo": check_demo,
    "prefix": check_prefix,
    "clean": check_clean,
    "header": check_header,
    "summary-json": check_summary_json,
    "paths_all": check_paths_all,
    "storm": check_storm,
    "exitstorm": check_exitstorm,
    "execthread": check_execthread,
    "i386": check_i386,
}


def main(argv, checks=None):
    """Runs check argv[1] of `checks` (CHECKS here; other check files pass
    theirs)."""
    checks = checks or CHECKS
    if len(argv) < 2 or argv[1] not in checks:
        print("usage: %s {%s} ARGS..." % (argv[0], ",".join(checks)), file=sys.stderr)
        return 2
    try:
        print(checks[argv[1]](*argv[2:]))
    except Fail as e:
        print(str(e))
        return 1
    except (KeyError, IndexError, TypeError, ValueError, OSError) as e:
        print("%s: unexpected trace shape: %s: %s" % (argv[1], type(e).__name__, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
