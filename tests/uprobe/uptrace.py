#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ground-truth checks of the Wine and Vulkan layers (uprobes), on top of
tests/integration/ktrace.py (same trace reader and helpers).

usage: uptrace.py CHECK ARGS...
  wine-nt TRACE.jsonl NTIO.json PID|auto DATA_DEV DATA_INO
  wine-async TRACE.jsonl NTASYNC.json PID
  wine-wake TRACE.jsonl NTWAIT.json PID
  wine-write TRACE.jsonl NTWRITE.json PID
  vulkan-submit TRACE.jsonl VKSUBMIT.json
  vulkan-present TRACE.jsonl VKPRESENT.json
  vulkan-frames TRACE.jsonl FRAMES.json VKPRESENT.json   (report --frames --json)
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from ktrace import Fail, Trace, expect, file_id, measured, short, spans  # noqa: E402

STATUS_PENDING = 0x103
SYS_READ, SYS_PREAD64, SYS_RECVMSG = 0, 17, 47


def caused_by(t, seq):
    """Events that name seq among their causes."""
    return [e for e in t.events if seq in e["causes"]]


def span_pairs(t, evs, kind, scope):
    out = spans(t, evs, kind)
    for b, e in out:
        expect(b["scope"] == scope and e["scope"] == scope,
               "%s: scope %s, expected %s" % (kind, b["scope"], scope))
        measured(b, e)
    return out


def check_wine_nt(trace_path, truth_path, pid, dev, ino):
    """N NtReadFile (plain + overlapped) and M NtWait spans of the program,
    exact, each read served by a Linux read of the data file that cites it;
    wine_server_call spans inside them; unix calls between the markers."""
    t = Trace(trace_path)
    with open(truth_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    fid = file_id(int(dev), int(ino))
    if pid == "auto":  # -- wine ntio.exe: the command's process (wine keeps its pid)
        named = {e["process_id"] for e in t.events if e["kind"] == "ProcessInfo"
                 and e["payload"]["origin"] == "Command"}
        expect(len(named) == 1, "%d processes of origin Command, expected 1" % len(named))
        pid = named.pop()
    pid = int(pid)
    notes = t.header["notes"]
    late = any(n.startswith("layer wine off: ") and "probed when one does" in n for n in notes)
    if late:
        # a command with no Wine launcher here (enter.sh: a chrooted Wine):
        # nothing mapped ntdll.so when the header was written; the summary
        # names the probes attached once the program did
        attached = t.summary()["probes_attached"]
        expect("uprobe ntdll.so:NtReadFile" in attached,
               "header says 'layer wine off' and the summary names no NtReadFile probe: %s"
               % attached)
    else:
        expect(any(n.startswith("layer wine: ") and "ntdll.so" in n for n in notes),
               "no 'layer wine: N uprobes on .../ntdll.so' note in the header: %s" % notes)
    evs = t.process(pid)
    expect(evs, "no events of process %d" % pid)
    handles = {w["plain_handle"], w["ovl_handle"]}
    reads = []
    for tid in sorted({e["thread_id"] for e in evs}):
        reads += [(b, e) for b, e in span_pairs(t, t.thread(tid), "NtReadFile", "WindowsFacing")
                  if b["payload"]["handle"] in handles]
    reads.sort(key=lambda p: p[0]["seq"])
    expect(len(reads) == len(w["reads"]), "%d NtReadFile spans on the program's handles, "
           "expected %d" % (len(reads), len(w["reads"])))
    pending = 0
    for i, ((b, e), r) in enumerate(zip(reads, w["reads"])):
        want = {"type": "NtCall", "handle": r["handle"], "length": r["length"],
                "offset": r["offset"], "status": None}
        expect(b["payload"] == want, "read %d: Begin payload %s, expected %s"
               % (i, b["payload"], want))
        expect(b["resource"] == {"domain": "WinHandle", "id": r["handle"]},
               "read %d: resource %s" % (i, b["resource"]))
        status = STATUS_PENDING if r["pending"] else 0
        pending += r["pending"]
        expect(e["payload"]["status"] == status and e["payload"]["handle"] == r["handle"],
               "read %d: End payload %s, expected status %#x" % (i, e["payload"], status))
        if not r["pending"]:
            expect(e["payload"]["length"] == r["got"], "read %d: End length %d, ReadFile got %d"
                   % (i, e["payload"]["length"], r["got"]))
        # the Linux read that served it names the NtReadFile Begin as a cause
        lin = [x for x in caused_by(t, b["seq"])
               if x["kind"] == "FileRead" and x["phase"] == "Begin"
               and x["resource"] == {"domain": "File", "id": fid}]
        expect(len(lin) == 1, "read %d (%s): %d Linux reads of the data file cite it, expected 1"
               % (i, short(b), len(lin)))
        x = lin[0]
        expect(x["thread_id"] == b["thread_id"] and b["seq"] < x["seq"] < e["seq"],
               "read %d: its Linux read is not inside the span" % i)
        expect(x["payload"]["count"] == r["length"], "read %d: Linux read of %d bytes, "
               "expected %d" % (i, x["payload"]["count"], r["length"]))
        if r["offset"] is not None:
            expect(x["payload"]["offset"] == r["offset"], "read %d: Linux read at %s, expected "
                   "offset %d" % (i, x["payload"]["offset"], r["offset"]))
        # a file's read lands inside the call: no completion cites it later
        later = [y for y in caused_by(t, b["seq"]) if y["seq"] > e["seq"]]
        expect(not later, "read %d: %d events after its End cite it: %s"
               % (i, len(later), [short(y) for y in later[:2]]))
    waits = []
    for tid in sorted({e["thread_id"] for e in evs}):
        waits += [(b, e) for b, e in span_pairs(t, t.thread(tid), "NtWait", "WindowsFacing")
                  if b["payload"].get("handle") == w["wait_handle"]]
    expect(len(waits) == w["waits"], "%d NtWait spans on handle %d, expected %d"
           % (len(waits), w["wait_handle"], w["waits"]))
    for b, e in waits:
        expect(b["payload"] == {"type": "Wait", "handle": w["wait_handle"], "count": 1,
                                "timeout_ns": 1000000000},
               "NtWait Begin payload %s" % b["payload"])
        expect(e["payload"]["status"] == 0, "NtWait End status %s, expected 0 (WAIT_OBJECT_0)"
               % e["payload"]["status"])
    # wine_server_call spans: paired, and those inside a read cite it
    server = []
    for tid in sorted({e["thread_id"] for e in evs}):
        server += span_pairs(t, t.thread(tid), "WineServerCall", "WineProton")
    read_begins = {b["seq"] for b, e in reads}
    in_reads = [b for b, e in server if set(b["causes"]) & read_begins]
    expect(in_reads, "no WineServerCall span cites an NtReadFile Begin")
    msg = ("%d NtReadFile spans (%d pending), each served by a Linux read that cites it; "
           "%d NtWait spans; %d WineServerCall spans (%d inside reads)"
           % (len(reads), pending, len(waits), len(server), len(in_reads)))
    if w.get("unix_calls"):
        msg += "; " + check_unix_calls(t, evs, w["unix_calls"])
    return msg


def check_wine_async(trace_path, truth_path, pid):
    """N overlapped reads on a named pipe and M on a socket, all pending:
    exactly N+M NtReadFile spans whose End says STATUS_PENDING, each named by
    exactly one Linux read that lands data in its buffer after it returned
    (pipes: the read(2) of the server reply, sockets: recvmsg(2)), with the
    bytes ReadFile got; no other event cites them."""
    t = Trace(trace_path)
    with open(truth_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    pid = int(pid)
    evs = t.process(pid)
    expect(evs, "no events of process %d" % pid)
    handles = {w["pipe_handle"], w["socket_handle"]}
    reads = []
    for tid in sorted({e["thread_id"] for e in evs}):
        reads += [(b, e) for b, e in span_pairs(t, t.thread(tid), "NtReadFile", "WindowsFacing")
                  if b["payload"]["handle"] in handles]
    reads.sort(key=lambda p: p[0]["seq"])
    expect(len(reads) == len(w["reads"]), "%d NtReadFile spans on the pipe and the socket, "
           "expected %d" % (len(reads), len(w["reads"])))
    cited = {}
    for x in t.events:
        for c in x["causes"]:
            cited.setdefault(c, []).append(x)
    kinds = {}
    for i, ((b, e), r) in enumerate(zip(reads, w["reads"])):
        expect(r["pending"], "read %d: ReadFile did not pend (the test needs it to)" % i)
        expect(b["payload"]["handle"] == r["handle"] and b["payload"]["length"] == r["length"],
               "read %d: Begin payload %s, expected handle %d length %d"
               % (i, b["payload"], r["handle"], r["length"]))
        expect(e["payload"]["status"] == STATUS_PENDING and e["payload"]["length"] == 0,
               "read %d: End payload %s, expected STATUS_PENDING" % (i, e["payload"]))
        outside = [x for x in cited.get(b["seq"], []) if x["seq"] > e["seq"]]
        expect(len(outside) == 1, "read %d (%s): %d events after its End cite it, expected 1 "
               "(its completion): %s" % (i, short(b), len(outside),
                                         [short(x) for x in outside[:3]]))
        c = outside[0]
        expect(c["scope"] == "Linux" and c["phase"] == "End" and c["process_id"] == pid,
               "read %d: its completion is not a Linux syscall End of the process: %s"
               % (i, short(c)))
        expect(c["payload"]["ret"] == r["got"], "read %d: its completion returned %d, "
               "ReadFile got %d" % (i, c["payload"]["ret"], r["got"]))
        nr = c["payload"]["nr"]
        want = SYS_READ if r["handle"] == w["pipe_handle"] else SYS_RECVMSG
        expect(nr == want, "read %d: completed by syscall %d, expected %d" % (i, nr, want))
        kinds[nr] = kinds.get(nr, 0) + 1
    npipe = sum(1 for r in w["reads"] if r["handle"] == w["pipe_handle"])
    return ("%d pending NtReadFile spans (%d on a named pipe, %d on a socket), each completed "
            "by exactly one later Linux read that cites it (read: %d, recvmsg: %d)"
            % (len(reads), npipe, len(reads) - npipe, kinds.get(SYS_READ, 0),
               kinds.get(SYS_RECVMSG, 0)))


def nt_name(b):
    return b["payload"].get("name") if b["kind"] == "NtSyscall" else b["kind"]


def report_path(trace_jsonl, tid):
    """The hops of katra-replay report's critical path ending on thread tid
    (the trace beside its JSONL dump)."""
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build",
                       "katra-replay")
    trace = trace_jsonl[:-len(".jsonl")] if trace_jsonl.endswith(".jsonl") else trace_jsonl
    out = subprocess.run([exe, "report", "--json", "--tid", str(tid), trace], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)["capture"]["critical_path"]["hops"]


def check_wine_wake(trace_path, truth_path, pid):
    """A thread waits K times on an event that another thread sets K times,
    then K times on a semaphore that thread releases K times, each set or
    release made while the waiter is blocked: exactly K NtWait spans on each,
    each End citing (after its Begin) the WineServerCall Begin of a distinct
    NtSetEvent / NtReleaseSemaphore of the other thread (the server call
    inside it); inside each wait a Linux read whose End cites a write Begin
    of the wineserver (another process).  Every NtWait End of the process
    that cites more than its Begin cites a WineServerCall of another
    thread.  katra-replay report's critical path from the waiter's last
    event crosses the wineserver to the setter: a message hop on the setter
    read by the server, the server running, a message hop on the server read
    by the waiter."""
    t = Trace(trace_path)
    with open(truth_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    pid = int(pid)
    k = w["sets"]
    expect(k > 0 and w["releases"] == k and w["waits"] == 2 * k,
           "the program made %d waits, %d sets, %d releases" % (w["waits"], k, w["releases"]))
    by_seq = {e["seq"]: e for e in t.events}
    evs = t.process(pid)
    expect(evs, "no events of process %d" % pid)
    objects = {w["event_handle"]: "NtSetEvent", w["semaphore_handle"]: "NtReleaseSemaphore"}
    waits, released = {h: [] for h in objects}, 0
    for tid in sorted({e["thread_id"] for e in evs}):
        for b, e in span_pairs(t, t.thread(tid), "NtWait", "WindowsFacing"):
            extra = [c for c in e["causes"] if c != b["seq"]]
            for c in extra:
                x = by_seq.get(c)
                expect(x is not None and x["kind"] == "WineServerCall" and x["phase"] == "Begin"
                       and x["process_id"] == pid and x["thread_id"] != tid and x["seq"] < e["seq"],
                       "NtWait End %s cites %s, not another thread's WineServerCall Begin"
                       % (short(e), short(x) if x else c))
            released += bool(extra)
            if b["payload"]["handle"] in waits:
                waits[b["payload"]["handle"]].append((b, e, extra))
    for h, name in objects.items():
        expect(len(waits[h]) == k, "%d NtWait spans on handle %d, expected %d"
               % (len(waits[h]), h, k))
        cited = set()
        for i, (b, e, extra) in enumerate(waits[h]):
            expect(len(extra) == 1, "wait %d on %d (%s): cites %d releasing calls, expected 1"
                   % (i, h, short(e), len(extra)))
            sc = by_seq[extra[0]]
            outer = [by_seq[c] for c in sc["causes"] if c in by_seq and
                     by_seq[c]["thread_id"] == sc["thread_id"] and by_seq[c]["phase"] == "Begin"]
            expect(any(nt_name(o) == name for o in outer),
                   "wait %d on %d: the server call it cites (%s) is inside %s, not an %s"
                   % (i, h, short(sc), [short(o) for o in outer], name))
            cited.add(sc["seq"])
            inside = [x for x in t.thread(b["thread_id"]) if b["seq"] < x["seq"] < e["seq"]
                      and x["scope"] == "Linux" and x["phase"] == "End"
                      and any(c in by_seq and by_seq[c]["process_id"] not in (0, pid)
                              for c in x["causes"])]
            expect(inside, "wait %d on %d: no Linux read inside it cites the wineserver's write"
                   % (i, h))
            srv = [by_seq[c] for c in inside[-1]["causes"] if by_seq[c]["process_id"] != pid]
            expect(srv[0]["scope"] == "Linux" and srv[0]["phase"] == "Begin",
                   "wait %d on %d: its wake-up read cites %s" % (i, h, short(srv[0])))
        expect(len(cited) == k, "the %d waits on %d cite %d distinct server calls"
               % (k, h, len(cited)))
    waiter = waits[w["event_handle"]][0][0]["thread_id"]
    setter = by_seq[waits[w["event_handle"]][0][2][0]]["thread_id"]
    hops = report_path(trace_path, waiter)
    crossed = [i for i in range(2, len(hops)) if hops[i]["type"] == "message"
               and hops[i]["read_by"] == waiter and hops[i]["pid"] != pid
               and hops[i - 1]["type"] == "running" and hops[i - 1]["tid"] == hops[i]["tid"]
               and hops[i - 2]["type"] == "message" and hops[i - 2]["tid"] == setter
               and hops[i - 2]["read_by"] == hops[i]["tid"]]
    expect(crossed, "report's critical path from the waiter %d does not cross the wineserver "
           "to the setter %d: %s" % (waiter, setter,
                                     [(x["type"], x["tid"]) for x in hops[-12:]]))
    return ("%d NtWait spans on an event and %d on a semaphore, each citing the WineServerCall "
            "of a distinct NtSetEvent / NtReleaseSemaphore and a wake-up read citing the "
            "wineserver's write; %d NtWait spans of the process released by another thread"
            % (k, k, released))


def check_wine_write(trace_path, truth_path, pid):
    """K overlapped writes on a named pipe, all pending, each waited for
    (GetOverlappedResult on its own event) while blocked until a reader
    thread reads its message: exactly K NtWriteFile spans on the pipe whose
    End says STATUS_PENDING, each named by exactly one event after its End:
    the End of the NtWait on that write's event (status 0) on the writing
    thread; and that NtWait End cites the reader thread's NtReadFile Begin
    (the read whose request released it through the wineserver), K distinct
    reads."""
    t = Trace(trace_path)
    with open(truth_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    pid = int(pid)
    by_seq = {e["seq"]: e for e in t.events}
    evs = t.process(pid)
    expect(evs, "no events of process %d" % pid)
    writes = []
    for tid in sorted({e["thread_id"] for e in evs}):
        writes += [(b, e) for b, e in span_pairs(t, t.thread(tid), "NtWriteFile", "WindowsFacing")
                   if b["payload"]["handle"] == w["pipe_handle"]]
    writes.sort(key=lambda p: p[0]["seq"])
    expect(len(writes) == len(w["writes"]), "%d NtWriteFile spans on the pipe, expected %d"
           % (len(writes), len(w["writes"])))
    cited = {}
    for x in t.events:
        for c in x["causes"]:
            cited.setdefault(c, []).append(x)
    readers = set()
    for i, ((b, e), r) in enumerate(zip(writes, w["writes"])):
        expect(r["pending"], "write %d: WriteFile did not pend (the test needs it to)" % i)
        expect(b["payload"]["length"] == r["length"], "write %d: Begin payload %s, expected "
               "length %d" % (i, b["payload"], r["length"]))
        expect(e["payload"]["status"] == STATUS_PENDING and e["payload"]["length"] == 0,
               "write %d: End payload %s, expected STATUS_PENDING" % (i, e["payload"]))
        outside = [x for x in cited.get(b["seq"], []) if x["seq"] > e["seq"]]
        expect(len(outside) == 1, "write %d (%s): %d events after its End cite it, expected 1 "
               "(its completion): %s" % (i, short(b), len(outside),
                                         [short(x) for x in outside[:3]]))
        c = outside[0]
        wb = by_seq[c["causes"][0]]
        expect(c["kind"] == "NtWait" and c["phase"] == "End" and c["thread_id"] == b["thread_id"]
               and wb["payload"]["handle"] == r["event"] and c["payload"]["status"] == 0,
               "write %d: its completion is not the NtWait on its event %d: %s (Begin %s)"
               % (i, r["event"], short(c), short(wb)))
        rel = [by_seq[x] for x in c["causes"][1:] if by_seq[x]["kind"] == "NtReadFile"]
        expect(len(rel) == 1 and rel[0]["thread_id"] != b["thread_id"]
               and rel[0]["phase"] == "Begin",
               "write %d: its wait is not released by the reader's NtReadFile: causes %s"
               % (i, [short(by_seq[x]) for x in c["causes"]]))
        readers.add(rel[0]["seq"])
    expect(len(readers) == len(writes), "the %d waits are released by %d distinct reads"
           % (len(writes), len(readers)))
    return ("%d pending NtWriteFile spans on a named pipe, each completed by exactly one NtWait "
            "on its event, released by a distinct NtReadFile of the reader thread"
            % len(writes))


def check_unix_calls(t, evs, k):
    """k WinToUnix spans between NtDelayExecution markers of 7 and 9 ms, one
    (library handle, function index) pair."""
    def marker(ms):
        m = [e for e in evs if e["kind"] == "NtDelayExecution" and e["phase"] == "Begin"
             and e["payload"].get("timeout_ns") == ms * 1000000]
        expect(len(m) == 1, "%d NtDelayExecution Begins of %d ms, expected 1" % (len(m), ms))
        return m[0]
    a, z = marker(7), marker(9)
    calls = [(b, e) for b, e in span_pairs(t, t.thread(a["thread_id"]), "WinToUnix", "WineProton")
             if a["seq"] < b["seq"] < z["seq"]]
    expect(len(calls) == k, "%d WinToUnix spans between the markers, expected %d"
           % (len(calls), k))
    keys = {(b["resource"]["id"], b["payload"]["request"]) for b, e in calls}
    expect(len(keys) == 1, "the unix calls name %d (library, function) pairs, expected 1: %s"
           % (len(keys), sorted(keys)))
    for b, e in calls:
        expect(e["payload"]["status"] == 0, "unix call status %s" % e["payload"]["status"])
    lib, idx = keys.pop()
    return "%d WinToUnix spans (library %#x, function %d)" % (k, lib, idx)


VK_SUBOPTIMAL_KHR = 1000001003


def vulkan_program(trace_path, truth_path, kinds):
    """The trace, the program's printed ground truth, and its spans of each
    kind in kinds (all its threads, in seq order); the driver's entry points
    must be the ones probed."""
    t = Trace(trace_path)
    with open(truth_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    notes = t.header["notes"]
    expect(any(n.startswith("layer vulkan: ") and "libvulkan.so" not in n for n in notes),
           "no 'layer vulkan: N uprobes on DRIVER' note (the driver's entry points): %s" % notes)
    evs = t.process(w["pid"])
    expect(evs, "no events of process %d" % w["pid"])
    out = {k: [] for k in kinds}
    for tid in sorted({e["thread_id"] for e in evs}):
        th = t.thread(tid)
        for k in kinds:
            out[k] += span_pairs(t, th, k, "Vulkan")
    for k in kinds:
        out[k].sort(key=lambda p: p[0]["seq"])
    return t, w, out


def queue_spans(spans_, kind, queue, n):
    """Exactly n spans of kind, all on queue (handle and resource), each
    naming one submit info / one swapchain."""
    mine = [(b, e) for b, e in spans_ if b["payload"]["handle"] == queue]
    expect(len(spans_) == len(mine), "%d %s spans on another queue"
           % (len(spans_) - len(mine), kind))
    expect(len(mine) == n, "%d %s spans, expected %d" % (len(mine), kind, n))
    for b, e in mine:
        expect(b["payload"] == {"type": "Vulkan", "handle": queue, "count": 1,
                                "result": None}, "%s Begin payload %s" % (kind, b["payload"]))
        expect(b["resource"] == {"domain": "VulkanQueue", "id": queue},
               "%s resource %s" % (kind, b["resource"]))
        expect(e["payload"]["handle"] == queue and e["payload"]["count"] == 1,
               "%s End payload %s" % (kind, e["payload"]))
    return mine


def check_vulkan_submit(trace_path, truth_path):
    """K VulkanQueueSubmit spans on the program's queue, exact, VK_SUCCESS;
    its fence waits as VulkanFenceWait spans."""
    t, w, s = vulkan_program(trace_path, truth_path, ("VulkanQueueSubmit", "VulkanFenceWait"))
    mine = queue_spans(s["VulkanQueueSubmit"], "VulkanQueueSubmit", w["queue"], w["submits"])
    for b, e in mine:
        expect(e["payload"]["result"] == 0, "submit result %s" % e["payload"]["result"])
    waits = s["VulkanFenceWait"]
    dev_waits = [(b, e) for b, e in waits if b["payload"]["handle"] == w["device"]]
    expect(len(dev_waits) == w["submits"], "%d VulkanFenceWait spans on the device, expected %d"
           % (len(dev_waits), w["submits"]))
    return "%d VulkanQueueSubmit spans on queue %#x, %d fence waits" % (
        len(mine), w["queue"], len(dev_waits))


def check_vulkan_present(trace_path, truth_path):
    """K VulkanQueueSubmit and P VulkanQueuePresent spans on the program's
    queue, exact; submits VK_SUCCESS; each present of one swapchain, with the
    VkResult the program got (VK_SUCCESS or VK_SUBOPTIMAL_KHR), in order; its
    K fence waits as K VulkanFenceWait spans on its device, and its P
    vkAcquireNextImageKHR as P VulkanAcquireNextImage spans on its
    swapchain, each End with the image index the program got, in order."""
    t, w, s = vulkan_program(trace_path, truth_path, ("VulkanQueueSubmit", "VulkanQueuePresent",
                                                      "VulkanFenceWait", "VulkanAcquireNextImage"))
    subs = queue_spans(s["VulkanQueueSubmit"], "VulkanQueueSubmit", w["queue"], w["submits"])
    for b, e in subs:
        expect(e["payload"]["result"] == 0, "submit result %s" % e["payload"]["result"])
    pres = queue_spans(s["VulkanQueuePresent"], "VulkanQueuePresent", w["queue"], w["presents"])
    got = [e["payload"]["result"] for b, e in pres]
    expect(got == w["present_results"], "present results %s, the program got %s"
           % (got, w["present_results"]))
    expect(all(r in (0, VK_SUBOPTIMAL_KHR) for r in got), "present results %s" % got)
    # each frame's submit comes before its present; the spans do not overlap
    # (presents are outer calls: the driver's own submits inside them are not
    # written)
    for b, e in pres:
        expect(any(se["seq"] < b["seq"] for sb, se in subs), "a present before any submit")
        for sb, se in subs:
            expect(se["seq"] < b["seq"] or sb["seq"] > e["seq"],
                   "submit span %d overlaps present span %d" % (sb["seq"], b["seq"]))
    waits = [(b, e) for b, e in s["VulkanFenceWait"] if b["payload"]["handle"] == w["device"]]
    expect(len(waits) == w["submits"], "%d VulkanFenceWait spans on the device, "
           "expected %d (the program's fence waits)" % (len(waits), w["submits"]))
    acq = [(b, e) for b, e in s["VulkanAcquireNextImage"]
           if b["payload"]["handle"] == w["swapchain"]]
    got_idx = [e["payload"]["count"] for b, e in acq]
    expect(got_idx == w["acquired"] and all(e["payload"]["handle"] == w["swapchain"] and
                                            e["payload"]["result"] in (0, VK_SUBOPTIMAL_KHR)
                                            for b, e in acq),
           "VulkanAcquireNextImage on the swapchain: images %s, the program acquired %s"
           % (got_idx, w["acquired"]))
    tagged = check_frames(t, w, pres)
    return "%d VulkanQueueSubmit + %d VulkanQueuePresent spans on queue %#x (results %s), " \
        "%d fence waits, %d acquires (images %s); %d Frame epochs, %d events tagged with " \
        "their frame" % (len(subs), len(pres), w["queue"], sorted(set(got)), len(waits), len(acq),
                         sorted(set(got_idx)), len(pres), tagged)


def check_frames(t, w, pres):
    """Each present ends a frame: exactly one Frame epoch per present, named
    "frame N (pid P, swapchain 0xS)", N = 1, 2, ... right after its End;
    the present's Begin and End carry N in request_id, and every event of the
    process between Frame epochs N and N + 1 (the recorder's own Katra-scope
    records aside) carries N + 1, up to its exit (group_dead TaskExit), after
    which none does.  Returns how many events carry a frame."""
    frames = [r for r in t.body if r["record"] == "EpochMarker" and r["kind"] == "Frame"]
    expect(len(frames) == len(pres), "%d Frame epochs, expected %d (one per present)"
           % (len(frames), len(pres)))
    for n, (m, (b, e)) in enumerate(zip(frames, pres), 1):
        want = "frame %d (pid %d, swapchain %#x)" % (n, w["pid"], w["swapchain"])
        expect(m["name"] == want, "Frame epoch %d named %r, expected %r" % (n, m["name"], want))
        expect(m["seq"] == e["seq"] + 1, "Frame epoch %r at seq %d, its present's End at %d"
               % (want, m["seq"], e["seq"]))
        expect(b["request_id"] == n and e["request_id"] == n, "present %d: request_id %s / %s"
               % (n, b["request_id"], e["request_id"]))
    bounds = [m["seq"] for m in frames] + [float("inf")]
    exits = [e["seq"] for e in t.process(w["pid"])
             if e["kind"] == "TaskExit" and e["payload"]["group_dead"]]
    expect(len(exits) == 1, "%d group_dead TaskExit of the program" % len(exits))
    tagged = 0
    for ev in t.process(w["pid"]):
        if ev["scope"] == "Katra" or ev["kind"] == "VulkanQueuePresent":
            continue
        if ev["seq"] < bounds[0] or ev["seq"] > exits[0]:  # before the first present, gone
            expect(ev["request_id"] is None, "%s seq %d outside the frames: request_id %s"
                   % (ev["kind"], ev["seq"], ev["request_id"]))
            continue
        n = next(i for i, s in enumerate(bounds) if ev["seq"] < s)
        expect(ev["request_id"] == n + 1, "%s seq %d after frame %d: request_id %s, expected %d"
               % (ev["kind"], ev["seq"], n, ev["request_id"], n + 1))
        tagged += 1
    return tagged


def check_vulkan_frames(trace_path, report_path, truth_path):
    """katra-replay report --frames --json: the program's P presents make
    P - 1 frames, its track; the slowest frames first, each one's critical
    path ending at the End of the present that ended it."""
    t = Trace(trace_path)
    with open(truth_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    with open(report_path) as f:
        r = json.load(f)["frames"]
    p = w["presents"]
    expect(r["track"] == {"pid": w["pid"], "swapchain": "%#x" % w["swapchain"]},
           "track %s, expected pid %d swapchain %#x" % (r["track"], w["pid"], w["swapchain"]))
    expect(r["presents"] == p and r["frames"] == p - 1, "%d presents, %d frames; expected %d, %d"
           % (r["presents"], r["frames"], p, p - 1))
    expect(r["other_tracks"] == 0, "%d other tracks" % r["other_tracks"])
    frames = {int(m["name"].split()[1]): m for m in t.body
              if m["record"] == "EpochMarker" and m["kind"] == "Frame"}
    slow = r["slowest"]
    expect(slow and len(slow) == min(10, p - 1), "%d slowest frames listed" % len(slow))
    lengths = [s["length_ns"] for s in slow]
    expect(lengths == sorted(lengths, reverse=True), "slowest frames not longest first: %s"
           % lengths)
    expect(r["frame_time_ns"]["max"] == lengths[0], "max %d, slowest %d"
           % (r["frame_time_ns"]["max"], lengths[0]))
    for s in slow:
        n = s["frame"]
        expect(2 <= n <= p, "frame %d listed" % n)
        expect(s["start_ns"] == frames[n - 1]["ts_mono_ns"] and
               s["end_ns"] == frames[n]["ts_mono_ns"], "frame %d: %d..%d, epochs at %d..%d"
               % (n, s["start_ns"], s["end_ns"], frames[n - 1]["ts_mono_ns"],
                  frames[n]["ts_mono_ns"]))
        end = t.by_seq[frames[n]["seq"] - 1]
        cp = s["critical_path"]
        expect(cp and cp["end_seq"] == end["seq"] and end["kind"] == "VulkanQueuePresent",
               "frame %d: path ends at %s, its present's End is seq %d"
               % (n, cp and cp["end_seq"], end["seq"]))
    return "report --frames: %d frames, p50 %d ns, max %d ns (frame %d)" % (
        r["frames"], r["frame_time_ns"]["p50"], lengths[0], slow[0]["frame"])


def check_partial(trace_path, pid):
    """A stand-in ntdll.so with NtReadFile and wine_server_call only: the
    others named as not attached, 5 reads and 5 server calls recorded."""
    t = Trace(trace_path)
    pid = int(pid)
    notes = t.header["notes"]
    missing = ["NtWriteFile", "NtCreateFile", "NtWaitForSingleObject", "NtWaitForMultipleObjects",
               "NtDelayExecution", "NtMapViewOfSection", "NtAllocateVirtualMemory",
               "NtCreateUserProcess"]
    for name in missing:
        expect(any(n.startswith("probe not attached: ntdll.so:%s: no such symbol in " % name)
                   for n in notes), "no 'probe not attached: ntdll.so:%s: ...' note: %s"
               % (name, notes))
    expect(any(n.startswith("probe not attached: ntdll.so:__wine_unix_call: ") for n in notes),
           "no note for the unix call dispatcher: %s" % notes)
    expect(any(n.startswith("layer wine: 4 uprobes on ") for n in notes),
           "no 'layer wine: 4 uprobes on' note: %s" % notes)
    # the stand-in without a dispatcher: no convention, so no function probes
    for name in ["NtReadFile", "wine_server_call"]:
        expect(any(n.startswith("probe not attached: ntdll.so:%s: the calling convention is "
                                "unknown: no syscall dispatcher in " % name)
                   and "/nodisp/" in n for n in notes),
               "no 'ntdll.so:%s: the calling convention is unknown' note for the stand-in "
               "without a dispatcher: %s" % (name, notes))
    s = t.summary()
    for name in ("NtReadFile", "wine_server_call"):
        for how in ("uprobe", "uretprobe"):
            expect("%s ntdll.so:%s" % (how, name) in s["probes_attached"],
                   "summary probes_attached lacks %s ntdll.so:%s" % (how, name))
    evs = t.process(pid)
    tids = sorted({e["thread_id"] for e in evs})
    reads, server = [], []
    for tid in tids:
        reads += span_pairs(t, t.thread(tid), "NtReadFile", "WindowsFacing")
        server += span_pairs(t, t.thread(tid), "WineServerCall", "WineProton")
    expect(len(reads) == 5, "%d NtReadFile spans, expected 5" % len(reads))
    expect(len(server) == 5, "%d WineServerCall spans, expected 5" % len(server))
    for (b, e), (sb, se) in zip(reads, server):
        expect(b["payload"] == {"type": "NtCall", "handle": 0x44, "length": 64, "offset": 4096,
                                "status": None}, "NtReadFile Begin payload %s" % b["payload"])
        expect(e["payload"] == {"type": "NtCall", "handle": 0x44, "length": 32, "offset": 4096,
                                "status": 0}, "NtReadFile End payload %s" % e["payload"])
        expect(sb["payload"] == {"type": "WineServerCall", "request": 42, "status": None},
               "server call Begin payload %s" % sb["payload"])
        expect(se["payload"]["status"] == 0, "server call status %s" % se["payload"]["status"])
        expect(b["seq"] in sb["causes"] and b["seq"] < sb["seq"] < se["seq"] < e["seq"],
               "the server call is not inside its read, citing it")
    return "9 probes named as not attached; 5 NtReadFile + 5 WineServerCall spans, exact"


CHECKS = {
    "partial": check_partial,
    "wine-nt": check_wine_nt,
    "wine-async": check_wine_async,
    "wine-wake": check_wine_wake,
    "wine-write": check_wine_write,
    "vulkan-submit": check_vulkan_submit,
    "vulkan-present": check_vulkan_present,
    "vulkan-frames": check_vulkan_frames,
}


def main(argv):
    if len(argv) < 2 or argv[1] not in CHECKS:
        print("usage: uptrace.py {%s} ARGS..." % ",".join(CHECKS), file=sys.stderr)
        return 2
    try:
        print(CHECKS[argv[1]](*argv[2:]))
    except Fail as e:
        print(str(e))
        return 1
    except (KeyError, IndexError, TypeError, ValueError, OSError) as e:
        print("%s: unexpected trace shape: %s: %s" % (argv[1], type(e).__name__, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
