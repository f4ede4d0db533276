#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ground-truth checks of a Proton-class run (tests/proton/), on top of
tests/integration/ktrace.py.

usage: check.py d3d11 TRACE.jsonl PROGRAM.out DATA_DEV DATA_INO
       check.py unixnames[-attached] TRACE.jsonl PROGRAM.out DUMP.txt STATS.json EXPORT.json
  (unixnames: see check_unixnames)
  (TRACE.jsonl: `katra-replay dump --jsonl --pid` of the program)
  The D3D11 program's own counters (the last line of PROGRAM.out, JSON):
  exactly `reads` NtReadFile spans of the program on its data file's handle,
  each with the length and offset it asked for and the status and length it
  got, each served by one Linux read of the data file that cites it; NtSyscall
  spans of the program (the other NT calls, at Wine 10's dispatcher), paired
  and named; exactly `presents` VulkanQueuePresent spans on the root's driver
  (the program renders its frames only once the Vulkan layer is attached),
  each VK_SUCCESS, on one queue, and at least as many queue submits.

usage: check.py d3d12names TRACE.jsonl PROGRAM.out DUMP.txt STATS.json EXPORT.json
  (check_d3d12names: the D3D12 calls by name in dump, stats, export)

usage: check.py d3d12 TRACE.jsonl PROGRAM.out DATA_DEV DATA_INO
  The D3D12 program (d3d12frames.c, Wine's d3d12 on vkd3d): the same reads,
  NtSyscall spans and presents, and its final flush Present's if Wine's dxgi
  presented it before the swapchain's release (first output line: "presents
  K", the count); exactly 5 VulkanQueueSubmit spans per ExecuteCommandLists
  (check_d3d12 says which) and the flush's, all on the presenting queue;
  exactly `fence_waits` NtWait spans on the fence's event `fence_event`, each
  status 0; those that blocked (read their wait pipe) and only those cite
  their release: a wineserver call made in another thread's NtSetEvent.
  The D3D12 calls themselves (scope D3d12Vkd3d, check_d3d12_calls): exactly
  `executes` D3d12ExecuteCommandLists on `queue`; frame i's D3d12QueueSignal
  of `fence` to i and D3d12FenceSetEventOnCompletion of `fence` at i on
  `fence_event`, S_OK; its one D3d12FenceSignal to N + 1 (`cpu_signals`);
  3 queue Signals per frame in all (dxgi's two); each
  fence wait cites its frame's SetEventOnCompletion; each VulkanQueueSubmit
  made inside an ExecuteCommandLists reaches it through its causes.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from ktrace import Fail, Trace, expect, file_id, measured, short, spans  # noqa: E402

PROGRAM = "d3d11frames.exe"
PROGRAM12 = "d3d12frames.exe"
# vkQueueSubmit calls per D3D12 frame on Wine 10 + vkd3d + dxgi (check_d3d12)
SUBMITS_PER_FRAME = 5


def thread_events(t, tid):
    """tid's events in order, every thread's gathered at the first call
    (t.thread scans the whole trace each time)."""
    if not hasattr(t, "threads"):
        t.threads = {}
        for e in t.events:
            t.threads.setdefault(e["thread_id"], []).append(e)
    return t.threads.get(tid, [])


def nt_syscalls(t, tids, pid):
    """The NtSyscall spans of process pid (threads tids): some, each named."""
    calls = []
    for tid in tids:
        calls += spans(t, thread_events(t, tid), "NtSyscall")
    expect(calls, "no NtSyscall spans in process %d (Wine's syscall dispatcher unprobed)" % pid)
    unnamed = [b for b, e in calls if not b["payload"].get("name")]
    expect(not unnamed, "%d of %d NtSyscall spans carry no name: %s"
           % (len(unnamed), len(calls), short(unnamed[0]) if unnamed else ""))
    return calls


def program(trace_path, out_path, name):
    """The trace (one process), the program's counters and its pid and threads."""
    t = Trace(trace_path, complete=False)  # one process (dump --pid): no summary
    with open(out_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    expect(w["frames"] == w["presents"] == w["reads"] and w["reads"] > 0,
           "the program's own counters disagree: %s" % w)
    pids = {e["process_id"] for e in t.events if e.get("process_name") == name}
    expect(len(pids) == 1, "%d processes named %s, expected 1" % (len(pids), name))
    pid = pids.pop()
    tids = sorted({e["thread_id"] for e in t.process(pid)})
    return t, w, pid, tids


def check_reads(t, w, tids, fid):
    """Exactly w["reads"] NtReadFile spans on the data file's handle, each with
    the length and offset 0 asked and the status and length got, each served by
    one Linux read of the data file (fid) inside it that cites it."""
    handle = w["handle"]
    reads = []
    for tid in tids:
        reads += [(b, e) for b, e in spans(t, thread_events(t, tid), "NtReadFile")
                  if b["payload"]["handle"] == handle]
    reads.sort(key=lambda p: p[0]["seq"])
    expect(len(reads) == w["reads"], "%d NtReadFile spans on the data file's handle %s, "
           "expected %d (the program's reads)" % (len(reads), handle, w["reads"]))
    # the Linux reads of the data file, by the spans they cite
    cited = {}
    for x in t.events:
        if x["kind"] == "FileRead" and x["phase"] == "Begin" \
                and x["resource"] == {"domain": "File", "id": fid}:
            for c in x["causes"]:
                cited.setdefault(c, []).append(x)
    for i, (b, e) in enumerate(reads):
        measured(b, e)
        want = {"type": "NtCall", "handle": handle, "length": w["length"], "offset": 0,
                "status": None}
        expect(b["scope"] == "WindowsFacing", "read %d: scope %s" % (i, b["scope"]))
        expect(b["payload"] == want, "read %d: Begin payload %s, expected %s"
               % (i, b["payload"], want))
        expect(e["payload"]["status"] == 0 and e["payload"]["length"] == w["length"],
               "read %d: End payload %s, expected status 0 and length %d"
               % (i, e["payload"], w["length"]))
        lin = cited.get(b["seq"], [])
        expect(len(lin) == 1, "read %d (%s): %d Linux reads of the data file cite it, "
               "expected 1" % (i, short(b), len(lin)))
        x = lin[0]
        expect(x["thread_id"] == b["thread_id"] and b["seq"] < x["seq"] < e["seq"]
               and x["payload"]["count"] == w["length"] and x["payload"]["offset"] == 0,
               "read %d: its Linux read %s is not the program's (inside, %d bytes at 0)"
               % (i, short(x), w["length"]))
    return reads


def check_presents(t, w, tids, extra=0):
    """Exactly w["presents"] VulkanQueuePresent spans (up to `extra` more),
    each VK_SUCCESS, on one queue; returns them and the process's
    VulkanQueueSubmit spans."""
    presents, submits = [], []
    for tid in tids:
        presents += spans(t, thread_events(t, tid), "VulkanQueuePresent")
        submits += spans(t, thread_events(t, tid), "VulkanQueueSubmit")
    expect(w["presents"] <= len(presents) <= w["presents"] + extra,
           "%d VulkanQueuePresent spans, expected %d (the program's presents)%s"
           % (len(presents), w["presents"], " or %d more" % extra if extra else ""))
    for b, e in presents:
        measured(b, e)
        expect(b["scope"] == "Vulkan" and e["payload"]["result"] == 0,
               "present %s: scope %s, result %s" % (short(b), b["scope"], e["payload"]["result"]))
    queues = {b["resource"]["id"] for b, e in presents}
    expect(len(queues) == 1, "presents on %d queues, expected 1" % len(queues))
    return presents, submits


def check_d3d11(trace_path, out_path, dev, ino):
    t, w, pid, tids = program(trace_path, out_path, PROGRAM)
    reads = check_reads(t, w, tids, file_id(int(dev), int(ino)))
    calls = nt_syscalls(t, tids, pid)
    names = {b["payload"]["name"] for b, e in calls}
    presents, submits = check_presents(t, w, tids)
    expect(len(submits) >= len(presents), "%d VulkanQueueSubmit spans for %d presents"
           % (len(submits), len(presents)))
    return ("%s (pid %d): %d NtReadFile spans of %d bytes on handle %s, each served by the "
            "Linux read that cites it; %d NtSyscall spans, %d distinct calls; %d "
            "VulkanQueuePresent spans on the root's driver, %d submits"
            % (PROGRAM, pid, len(reads), w["length"], w["handle"], len(calls), len(names),
               len(presents), len(submits)))


SUBMITS = {"vkQueueSubmit", "vkQueueSubmit2", "vkQueueSubmit2KHR"}


def check_unixnames(trace_path, out_path, dump_path, stats_path, export_path, attached=False):
    """The Vulkan calls through winevulkan's thunks, by name: the program's
    WinToUnix spans on winevulkan.so's handle (the one table of the process
    that names vkQueuePresentKHR) named by its WineUnixCallNames table, with
    exact counts against ground truth counted apart: one vkQueuePresentKHR
    thunk per frame the program presented (its own counter), each holding the
    one present the driver's uprobe saw (the driver's present cites it), and
    each driver submit inside a vkQueueSubmit* thunk.  And the outputs name
    them: in `dump --jsonl` (TRACE) as "unix_call", in `dump` (DUMP: its
    text lines of the program's WinToUnix), every
    call of that handle whose index the table names prints the name (before
    the table too), the others the number alone; in `stats --calls --json`
    (STATS) the row of vkQueuePresentKHR counts the frames; in `export`
    (EXPORT, --pid of the program) as many slices are named
    "WinToUnix vkQueuePresentKHR".  ATTACHED (a -p capture of a run under
    way): the program's own counter spans more than the capture, so the
    thunks count the driver's presents instead: one each, but for a present
    whose thunk began before the capture did (the first) and a thunk the
    capture ended in before its present (the last)."""
    t = Trace(trace_path, complete=False)
    with open(out_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    pids = {e["process_id"] for e in t.events if e.get("process_name") == PROGRAM}
    expect(len(pids) == 1, "%d processes named %s, expected 1" % (len(pids), PROGRAM))
    pid = pids.pop()
    evs = t.process(pid)
    tables = [e for e in evs if e["kind"] == "WineUnixCallNames"]
    vk = [e for e in tables if "vkQueuePresentKHR" in e["payload"]["names"]]
    expect(len(vk) == 1, "%d WineUnixCallNames tables of process %d name vkQueuePresentKHR "
           "(of %d), expected 1" % (len(vk), pid, len(tables)))
    handle, names = int(vk[0]["resource"]["id"]), vk[0]["payload"]["names"]
    expect(vk[0]["resource"]["domain"] == "WinHandle" and vk[0]["thread_id"] == pid
           and vk[0]["phase"] == "Instant" and vk[0]["scope"] == "WineProton",
           "the table's event: %s" % short(vk[0]))

    def name(b):
        i = b["payload"]["request"]
        return names[i] if int(b["resource"]["id"]) == handle and i < len(names) else ""

    tids = sorted({e["thread_id"] for e in evs})
    unix, presents, submits = [], [], []
    for tid in tids:
        unix += spans(t, t.thread(tid), "WinToUnix")
        presents += spans(t, t.thread(tid), "VulkanQueuePresent")
        submits += spans(t, t.thread(tid), "VulkanQueueSubmit")
    mine = [(b, e) for b, e in unix if int(b["resource"]["id"]) == handle]
    # dump --jsonl: the same name as "unix_call", where the table names it
    bad = [x for x in evs if x["kind"] == "WinToUnix" and x["payload"].get("type") ==
           "WineServerCall" and x.get("unix_call") != (name(x) or None)]
    expect(not bad, "dump --jsonl: %d WinToUnix events whose unix_call is not their table's "
           "name: %s" % (len(bad), short(bad[0]) if bad else ""))
    thunks = [b for b, e in mine if name(b) == "vkQueuePresentKHR"]
    by_seq = {b["seq"]: b for b, e in unix}
    first_thunk = min((b["seq"] for b in thunks), default=None)
    held = []
    for what, calls, want in (("present", presents, {"vkQueuePresentKHR"}),
                              ("submit", submits, SUBMITS)):
        for b, e in calls:
            outer = [by_seq[c] for c in b["causes"] if c in by_seq]
            if attached and not outer and (first_thunk is None or b["seq"] < first_thunk):
                continue  # its thunk began before the capture
            expect(len(outer) == 1 and name(outer[0]) in want,
                   "the driver's %s %s is inside %s, not one %s thunk" % (
                       what, short(b), [short(x) for x in outer], "/".join(sorted(want))))
            if what == "present":
                held.append(outer[0]["seq"])
    expect(len(held) == len(set(held)), "presents share a thunk")
    empty = [b for b in thunks if b["seq"] not in set(held)]
    if attached:
        last = max(b["seq"] for b in thunks) if thunks else None
        expect(len(presents) - len(held) <= 1 and all(b["seq"] == last for b in empty),
               "%d presents, %d inside vkQueuePresentKHR thunks; thunks without one: %s"
               % (len(presents), len(held), [short(b) for b in empty]))
    else:
        expect(len(thunks) == w["presents"] == len(presents) and not empty,
               "%d vkQueuePresentKHR thunks, %d presents counted by the program, %d by the "
               "driver's uprobe" % (len(thunks), w["presents"], len(presents)))
    # dump's text: every call of that handle named where the table names it
    seen = named = 0
    with open(dump_path) as f:
        for line in f:
            m = re.search(r"res=WinHandle:(0x[0-9a-f]+) WineServerCall\{request=(\d+)(\(([^)]*)\))?",
                          line)
            if " WinToUnix " not in line or not m or int(m.group(1), 16) != handle:
                continue
            i, shown = int(m.group(2)), m.group(4)
            want = names[i] if i < len(names) and names[i] else None
            expect(shown == want, "dump names index %d %s, the table %s: %s"
                   % (i, shown, want, line.strip()))
            seen += " WinToUnix Begin " in line
            named += shown is not None
    # (an End the recorder inferred, at the capture's end, has no payload)
    expect(seen == len(mine), "dump shows %d Begin lines of the handle's calls, the trace %d "
           "spans" % (seen, len(mine)))
    with open(stats_path) as f:
        rows = [r for r in json.load(f)["calls"]["rows"] if r["kind"] == "WinToUnix"
                and r.get("handle") == handle and r["name"] == "WinToUnix vkQueuePresentKHR"]
    expect(len(rows) == 1 and rows[0]["calls"] == len(thunks),
           "stats --calls: rows %s, expected one of %d calls" % (rows, len(thunks)))
    with open(export_path) as f:
        slices = [x for x in json.load(f)["traceEvents"]
                  if x.get("name") == "WinToUnix vkQueuePresentKHR" and x.get("pid") == pid]
    # attached: a thunk in flight when the capture began returns without its
    # call seen: the recorder writes that return as an Instant (status, index),
    # which export draws as an instant of the same name
    in_flight = [e for e in evs if e["kind"] == "WinToUnix" and e["phase"] == "Instant"
                 and e["payload"].get("type") == "WineServerCall" and name(e) == "vkQueuePresentKHR"]
    expect(attached or not in_flight, "a capture from the start has thunks in flight at its start")
    expect(len(slices) == len(thunks) + len(in_flight), "export: %d slices named WinToUnix "
           "vkQueuePresentKHR, expected %d (+ %d in flight at the start)"
           % (len(slices), len(thunks), len(in_flight)))
    return ("%d of %d winevulkan calls named (%d distinct names, %d named by the table); %d "
            "vkQueuePresentKHR thunks = the %s presents, each holding one; %d driver submits "
            "each inside a vkQueueSubmit* thunk; dump, stats and export name them"
            % (sum(1 for b, e in mine if name(b)), len(mine), len({name(b) for b, e in mine} - {""}),
               sum(1 for x in names if x), len(thunks),
               "driver's" if attached else "program's and the driver's", len(submits)))


def check_unixnames_attached(*args):
    return check_unixnames(*args, attached=True)


def check_d3d12(trace_path, out_path, dev, ino):
    t, w, pid, tids = program(trace_path, out_path, PROGRAM12)
    expect(w["executes"] == w["fence_waits"] == w["frames"],
           "the program's own counters disagree: %s" % w)
    reads = check_reads(t, w, tids, file_id(int(dev), int(ino)))
    calls = nt_syscalls(t, tids, pid)
    # the frames' presents, and the flush's if it came before the swapchain's
    # release (d3d12frames.c): the one after them (the worker presents in order)
    presents, submits = check_presents(t, w, tids, w["flushes"])
    flushed = len(presents) - w["presents"]
    # Each ExecuteCommandLists is one vkQueueSubmit, but not the only one: per
    # frame vkd3d also submits each queue Signal (an empty submit signalling
    # a timeline semaphore): the program's fence, and Wine's dxgi's present
    # fence and frame latency fence; and dxgi's present worker submits the
    # blit to the Vulkan swapchain image (VKD3D_DEBUG=trace on this stack:
    # per frame ExecuteCommandLists, Signal x3, plus the worker's submit).
    # Which thread submits varies (while dxgi holds the Vulkan queue, vkd3d
    # queues the ops and the releasing thread submits them): the total is exact.
    # The flush Present signals the present fence (1), and if it was presented
    # its worker blitted and signalled the latency fence (2 more).
    want = SUBMITS_PER_FRAME * w["executes"] + w["flushes"] + 2 * flushed
    expect(len(submits) == want, "%d VulkanQueueSubmit spans, expected %d (%d per frame: "
           "ExecuteCommandLists, three queue Signals, dxgi's blit; the flush's %d)"
           % (len(submits), want, SUBMITS_PER_FRAME, want - SUBMITS_PER_FRAME * w["executes"]))
    for b, e in submits:
        measured(b, e)
        expect(b["scope"] == "Vulkan" and e["payload"]["result"] == 0
               and b["resource"] == presents[0][0]["resource"],
               "submit %s: scope %s, result %s, not on the presenting queue"
               % (short(b), b["scope"], e["payload"]["result"]))
    waits = check_fence_waits(t, w, tids, pid)
    d3d12 = check_d3d12_calls(t, w, tids, waits, flushed)
    linked = [e for b, e in waits if len(e["causes"]) > 2]
    print("presents %d" % len(presents))
    return ("%s (pid %d): %d NtWait on the fence's event, each status 0, %d blocked, each "
            "citing the NtSetEvent that released it; %d VulkanQueuePresent (the flush's "
            "%s); %d VulkanQueueSubmit (%d per frame); %d NtReadFile of %d bytes, each "
            "served by the Linux read citing it; %d NtSyscall; %s"
            % (PROGRAM12, pid, len(waits), len(linked), len(presents),
               "among them" if flushed else "dropped", len(submits), SUBMITS_PER_FRAME,
               len(reads), w["length"], len(calls), d3d12))


def d3d12_spans(t, tids, kind):
    out = []
    for tid in tids:
        out += spans(t, thread_events(t, tid), kind)
    return sorted(out, key=lambda s: s[0]["seq"])


def check_d3d12_calls(t, w, tids, waits, flushed):
    """The program's D3D12 calls, exact against its counters (d3d12frames.c:
    frame i signals `fence` to i on `queue`, then asks for `fence_event` at
    i), and what they link to."""
    by_seq = {e["seq"]: e for e in t.events}
    n, queue, fence = w["frames"], w["queue"], w["fence"]
    p = lambda e, k: int(e["payload"][k])  # noqa: E731 (addresses are strings)

    def mine(b, e, kind):
        measured(b, e)
        expect(b["scope"] == "D3d12Vkd3d" and b["resource"]["domain"] == "D3d12Object"
               and int(b["resource"]["id"]) == p(b, "object"),
               "%s %s: scope %s, resource %s" % (kind, short(b), b["scope"], b["resource"]))
    execs = d3d12_spans(t, tids, "D3d12ExecuteCommandLists")
    expect(len(execs) == w["executes"], "%d D3d12ExecuteCommandLists spans, expected %d"
           % (len(execs), w["executes"]))
    for b, e in execs:
        mine(b, e, "ExecuteCommandLists")
        expect(p(b, "object") == queue and b["payload"]["count"] == 1
               and e["payload"]["result"] is None,
               "ExecuteCommandLists %s: not 1 list on queue %#x" % (short(b), queue))
    signals = d3d12_spans(t, tids, "D3d12QueueSignal")
    ours = [(b, e) for b, e in signals if p(b, "fence") == fence]
    expect([b["payload"]["value"] for b, e in ours] == list(range(1, n + 1)),
           "the program's fence signalled to %s, expected 1..%d"
           % ([b["payload"]["value"] for b, e in ours], n))
    # per frame dxgi signals its present fence from the program's Present and
    # its frame latency fence from its worker (check_d3d12's submits), and
    # the flush Present its present fence (and the latency fence if presented)
    want = 3 * n + w["flushes"] + flushed
    expect(len(signals) == want, "%d D3d12QueueSignal spans, expected %d (3 per frame)"
           % (len(signals), want))
    for b, e in signals:
        mine(b, e, "Signal")
        expect(p(b, "object") == queue and e["payload"]["result"] == 0,
               "Signal %s / %s: not S_OK on queue %#x" % (short(b), short(e), queue))
    sets = [(b, e) for b, e in d3d12_spans(t, tids, "D3d12FenceSetEventOnCompletion")
            if p(b, "object") == fence]
    expect([(b["payload"]["value"], p(b, "event")) for b, e in sets]
           == [(i, w["fence_event"]) for i in range(1, n + 1)],
           "SetEventOnCompletion on the program's fence: %s, expected values 1..%d on event %d"
           % ([(b["payload"]["value"], p(b, "event")) for b, e in sets], n, w["fence_event"]))
    for i, (b, e) in enumerate(sets):
        mine(b, e, "SetEventOnCompletion")
        expect(p(b, "fence") == fence and e["payload"]["result"] == 0,
               "SetEventOnCompletion %s: not S_OK" % short(e))
        wb, we = waits[i]
        cites = [c for c in we["causes"] if by_seq.get(c, {}).get("kind") ==
                 "D3d12FenceSetEventOnCompletion"]
        expect(cites == [b["seq"]] and b["seq"] < wb["seq"],
               "fence wait %d cites SetEventOnCompletion %s, expected frame %d's (seq %d)"
               % (i, cites, i + 1, b["seq"]))
    # the CPU's Signal of the fence after the last frame: it returns through
    # the function it tail-calls (d3d12_fence_signal), whose ret is its exit
    cpu = d3d12_spans(t, tids, "D3d12FenceSignal")
    expect(w["cpu_signals"] == 1 and len(cpu) == 1 and p(cpu[0][0], "object") == fence
           and cpu[0][0]["payload"]["value"] == n + 1 and cpu[0][1]["payload"]["result"] == 0,
           "D3d12FenceSignal spans %s, expected one of the program's fence to %d, S_OK"
           % ([short(b) + " / " + short(e) for b, e in cpu], n + 1))
    mine(*cpu[0], "FenceSignal")
    # a submit made inside an ExecuteCommandLists (vkd3d submits inline
    # unless dxgi holds the Vulkan queue; then a later call flushes the ops
    # queued meanwhile, its own among them: two submits) reaches it:
    # submit -> WinToUnix -> ExecuteCommandLists
    nested = 0
    for b, e in execs:
        inside = [x for x in thread_events(t, b["thread_id"])
                  if x["kind"] == "VulkanQueueSubmit" and x["phase"] == "Begin"
                  and b["seq"] < x["seq"] < e["seq"]]
        for x in inside:
            up = [by_seq.get(c) for c in x["causes"]]
            expect(any(u and u["kind"] == "WinToUnix" and b["seq"] in u["causes"] for u in up),
                   "submit %s inside ExecuteCommandLists %s does not reach it" % (short(x), short(b)))
            nested += 1
    return ("%d D3d12ExecuteCommandLists (%d submits inside them), %d D3d12QueueSignal (%d of "
            "the program's fence, 1..%d), %d SetEventOnCompletion on it, each cited by its "
            "frame's fence wait; its CPU Signal to %d" % (len(execs), nested, len(signals),
                                                          len(ours), n, len(sets), n + 1))


def check_fence_waits(t, w, tids, pid):
    """Exactly w["fence_waits"] NtWait spans on the fence's event, one handle,
    status 0 (the event signalled).  A wait that blocked (it read a second
    pipe after the select request's reply: its wait pipe, the wineserver's
    wake-up) ends citing what released it: another thread's WineServerCall
    made in its NtSetEvent (vkd3d's fence thread); one whose event was
    already set (the fence had passed: the reply said so) cites nothing more."""
    by_seq = {e["seq"]: e for e in t.events}
    waits, file_reads = [], {}
    for tid in tids:
        evs = thread_events(t, tid)
        waits += [(b, e) for b, e in spans(t, evs, "NtWait")
                  if b["payload"]["handle"] == w["fence_event"]]
        file_reads[tid] = [x for x in evs if x["kind"] == "FileRead" and x["phase"] == "Begin"]
    expect(len(waits) == w["fence_waits"], "%d NtWait spans on the fence's event %s, "
           "expected %d (the program's fence waits)"
           % (len(waits), w["fence_event"], w["fence_waits"]))
    for i, (b, e) in enumerate(waits):
        check_fence_wait(by_seq, file_reads, pid, i, b, e)
    return waits


def check_fence_wait(by_seq, file_reads, pid, i, b, e):
    """Fence wait i (b, e): one handle, status 0, citing what released it if
    and only if it blocked (check_fence_waits); file_reads: each thread's
    FileRead Begins."""
    measured(b, e)
    expect(b["scope"] == "WindowsFacing" and b["payload"]["count"] == 1
           and e["payload"]["status"] == 0,
           "fence wait %d: %s / %s, expected one handle, status 0" % (i, short(b), short(e)))
    fds = {x["payload"]["fd"] for x in file_reads[b["thread_id"]]
           if b["seq"] < x["seq"] < e["seq"]}
    blocked = len(fds) > 1
    # besides its release, the End cites the SetEventOnCompletion that
    # registered the event (check_d3d12_calls)
    released = [c for c in e["causes"][1:] if by_seq.get(c, {}).get("kind") !=
                "D3d12FenceSetEventOnCompletion"]
    expect(blocked == (len(released) > 0),
           "fence wait %d: %s, but its End cites %s" % (
               i, "read its wait pipe (blocked)" if blocked else "did not block", e["causes"]))
    for c in released:
        x = by_seq.get(c)
        expect(x is not None and x["kind"] == "WineServerCall" and x["phase"] == "Begin"
               and x["process_id"] == pid and x["thread_id"] != b["thread_id"],
               "fence wait %d: released by %s, not another thread's wineserver call"
               % (i, short(x) if x else c))
        nt = [by_seq.get(p) for p in x["causes"]]
        expect(any(n and n["kind"] == "NtSyscall" and n["payload"]["name"] == "NtSetEvent"
                   for n in nt),
               "fence wait %d: released by %s, which no NtSetEvent made" % (i, short(x)))


def check_d3d12names(trace_path, out_path, dump_path, stats_path, export_path):
    """The program's D3D12 calls by name: `dump --kind` (DUMP, its text) prints
    each D3d12ExecuteCommandLists, D3d12QueueSignal and
    D3d12FenceSetEventOnCompletion Begin of the trace (TRACE.jsonl, the
    program's events) once, with its payload; `stats --calls --json` (STATS)
    has the row "D3d12ExecuteCommandLists" in layer "d3d12" with the
    program's `executes` calls (the program is the session's one D3D12
    user); `export` (EXPORT, --pid of the program) has `executes` slices of
    that name."""
    t = Trace(trace_path, complete=False)
    with open(out_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    kinds = ("D3d12ExecuteCommandLists", "D3d12QueueSignal", "D3d12FenceSetEventOnCompletion")
    want = {k: sum(1 for e in t.events if e["kind"] == k and e["phase"] == "Begin")
            for k in kinds}
    expect(want["D3d12ExecuteCommandLists"] == w["executes"],
           "%d D3d12ExecuteCommandLists Begins, the program made %d"
           % (want["D3d12ExecuteCommandLists"], w["executes"]))
    got = {k: 0 for k in kinds}
    with open(dump_path) as f:
        for line in f:
            m = re.search(r" D3d12Vkd3d (D3d12\w+) Begin .* res=D3d12Object:0x[0-9a-f]+ D3d12\{", line)
            if m and m.group(1) in got:
                got[m.group(1)] += 1
    expect(got == want, "dump --kind shows %s Begins, the trace has %s" % (got, want))
    with open(stats_path) as f:
        rows = [r for r in json.load(f)["calls"]["rows"] if r.get("layer") == "d3d12"]
    ecl = [r for r in rows if r["name"] == "D3d12ExecuteCommandLists"]
    expect(len(ecl) == 1 and ecl[0]["calls"] == w["executes"] and not ecl[0]["errors"],
           "stats --calls: layer d3d12 rows %s, expected D3d12ExecuteCommandLists %d calls"
           % (rows, w["executes"]))
    with open(export_path) as f:
        doc = json.load(f)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    slices = [e for e in evs if e.get("name") == "D3d12ExecuteCommandLists" and e.get("ph") == "X"]
    expect(len(slices) == w["executes"], "export: %d D3d12ExecuteCommandLists slices, expected %d"
           % (len(slices), w["executes"]))
    return ("dump names %s; stats --calls: D3d12ExecuteCommandLists %d calls (layer d3d12); "
            "export: %d slices" % (got, ecl[0]["calls"], len(slices)))


CHECKS = {"d3d11": check_d3d11, "d3d12": check_d3d12, "unixnames": check_unixnames,
          "unixnames-attached": check_unixnames_attached, "d3d12names": check_d3d12names}


def main(argv):
    if len(argv) < 2 or argv[1] not in CHECKS:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(CHECKS[argv[1]](*argv[2:]))
    except Fail as e:
        print("%s: %s" % (argv[1], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
