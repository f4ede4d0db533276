#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ground-truth checks of `katra-record -p` attached to the running D3D11
program in the Proton-class root (t_proton_attach), on top of
tests/integration/ktrace.py.

usage: check_attach.py PROG.jsonl PROCS.jsonl PROGRAM.out DATA_DEV DATA_INO PID MEMBERS
  PROG.jsonl: `katra-replay dump --jsonl --pid PID` (PID: the program's host
  pid, the -p target); PROCS.jsonl: `dump --jsonl --kind ProcessInfo` of the
  whole trace; PROGRAM.out: the program's output, its counters last
  ("blocks":B: frame i read 4 KiB at offset 4096 * (i mod B)); MEMBERS: the
  pids whose maps named the session's server directory before and after the
  capture, one per line.

The program's frames in the capture are numbered by its Linux reads of the
data file (the tracepoints are on for the whole capture): consecutive blocks,
none missing.  Then, exactly:
  - the session: the processes named are the server directory's (wineserver
    and the program among them, no X server, no shell);
  - NtReadFile: one span per frame from the first (the capture starts once
    the layers of what exists are on; the second frame when the first one's
    NtReadFile began before the start) to the last Linux read: each with its
    length and offset,
    served by the one Linux read of that block that cites it; no Linux read
    of the data file after the last NtReadFile but its own (the capture ends
    at one instant for every layer);
  - NtSyscall spans of the program, named (Wine 10's dispatcher);
  - VulkanQueuePresent: frame k's present begins between its read and the
    next frame's (the program waits on the frame latency object before each
    read); from the first frame (the frame in flight at the start, or the
    second, as above), one present per frame,
    to the last frame, whose present may still be to come when the capture
    ends (then it is absent, and no present follows the last read).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from ktrace import Fail, Trace, expect, file_id, load_jsonl, short, spans  # noqa: E402
from check import nt_syscalls  # noqa: E402

PROGRAM = "d3d11frames.exe"


def check_members(procs_path, members_path, pid, program=PROGRAM):
    infos = [r for r in load_jsonl(procs_path)
             if r.get("record") == "Event" and r["kind"] == "ProcessInfo"]
    named = {}
    for r in infos:
        named.setdefault(r["process_id"], r)
    with open(members_path) as f:
        truth = {int(x) for x in f.read().split()}
    expect(pid in truth, "the program %d does not map the server directory" % pid)
    expect(set(named) == truth, "processes named %s, expected the server directory's %s "
           "(named, not mapping it: %s; mapping it, not named: %s)"
           % (sorted(named), sorted(truth), sorted(set(named) - truth),
              sorted(truth - set(named))))
    comms = {p: r["payload"]["comm"] for p, r in named.items()}
    servers = [p for p, c in comms.items() if c.startswith("wineserver")]
    expect(len(servers) == 1, "%d wineservers among the members: %s" % (len(servers), comms))
    expect(named[pid]["process_name"] == program and named[pid]["payload"]["origin"] == "Target",
           "the program is named %s" % short(named[pid]))
    expect(named[servers[0]]["process_name"].startswith("wineserver")
           and named[servers[0]]["payload"]["origin"] == "WineSession",
           "wineserver is named %s" % short(named[servers[0]]))
    others = [c for c in comms.values() if c.startswith("Xvfb") or c in ("sh", "bash", "dash")]
    expect(not others, "non-Wine processes in the session: %s" % others)
    return "%d members (wineserver %d, %s %d)" % (len(named), servers[0], program, pid)


def check_attach(trace_path, procs_path, out_path, dev, ino, pid, members_path):
    pid = int(pid)
    members = check_members(procs_path, members_path, pid)
    t = Trace(trace_path, complete=False)  # one process (dump --pid): no summary
    with open(out_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    expect(w["frames"] == w["presents"] == w["reads"] and w["reads"] > 0 and w["blocks"] > 1,
           "the program's own counters disagree: %s" % w)
    nb, length, handle = w["blocks"], w["length"], w["handle"]
    fid = file_id(int(dev), int(ino))
    evs = t.process(pid)
    tids = sorted({e["thread_id"] for e in evs})
    # the frames, by the Linux reads of the data file (all on one thread)
    lin = [x for x in evs if x["kind"] == "FileRead" and x["phase"] == "Begin"
           and x["resource"] == {"domain": "File", "id": fid}]
    expect(len(lin) >= 2, "%d Linux reads of the data file" % len(lin))
    for k, x in enumerate(lin):
        expect(x["payload"]["count"] == length and x["payload"]["offset"] % length == 0,
               "Linux read %d: %s is not a frame's block" % (k, short(x)))
        if k:
            prev = lin[k - 1]["payload"]["offset"] // length
            expect(x["payload"]["offset"] // length == (prev + 1) % nb,
                   "Linux read %d (seq %d, %d ns) reads block %d after block %d (seq %d, %d "
                   "ns): a frame is missing"
                   % (k, x["seq"], x["ts_mono_ns"], x["payload"]["offset"] // length, prev,
                      lin[k - 1]["seq"], lin[k - 1]["ts_mono_ns"]))
    expect(len(lin) < nb, "%d frames in the capture: more than the %d blocks that number "
           "them" % (len(lin), nb))
    frame_of = {x["seq"]: k for k, x in enumerate(lin)}
    # NtReadFile: one per frame from the first the Wine layer saw
    reads = []
    for tid in tids:
        reads += [(b, e) for b, e in spans(t, t.thread(tid), "NtReadFile")
                  if b["payload"]["handle"] == handle]
    reads.sort(key=lambda p: p[0]["seq"])
    expect(reads, "no NtReadFile span on the data file's handle %s (the Wine layer is off)"
           % handle)
    cited = {}
    for x in lin:
        for c in x["causes"]:
            cited.setdefault(c, []).append(x)
    ks = []
    for i, (b, e) in enumerate(reads):
        lx = cited.get(b["seq"], [])
        if not lx and i == len(reads) - 1 and e["confidence"] != "Measured":
            break  # the capture ended before its Linux read (and its End)
        expect(len(lx) == 1, "NtReadFile %d (%s): %d Linux reads of the data file cite it, "
               "expected 1" % (i, short(b), len(lx)))
        x = lx[0]
        k = frame_of[x["seq"]]
        want = {"type": "NtCall", "handle": handle, "length": length,
                "offset": x["payload"]["offset"], "status": None}
        expect(b["payload"] == want, "NtReadFile %d: Begin payload %s, expected %s"
               % (i, b["payload"], want))
        expect(x["thread_id"] == b["thread_id"] and b["seq"] < x["seq"] < e["seq"],
               "NtReadFile %d: its Linux read %s is not inside it" % (i, short(x)))
        if e["confidence"] == "Measured":
            expect(e["payload"]["status"] == 0 and e["payload"]["length"] == length,
                   "NtReadFile %d: End payload %s" % (i, e["payload"]))
        else:  # the capture ended inside it: its End is inferred at the end
            expect(i == len(reads) - 1, "NtReadFile %d of %d has an inferred End: %s"
                   % (i, len(reads), short(e)))
        ks.append(k)
    first = ks[0]
    # the capture starts once the layers of what exists are on (recorder.c):
    # the Wine layer from the first frame, or the second when the first
    # frame's NtReadFile began before the start (its read after it)
    expect(first <= 1, "the first NtReadFile is frame %d's: the Wine layer came late" % first)
    expect(ks == list(range(first, first + len(ks))),
           "the NtReadFile spans are not one per frame from frame %d: frames %s"
           % (first, ks[:5] + ["..."] + ks[-5:]))
    after = len(lin) - 1 - ks[-1]
    expect(after == 0, "%d Linux reads of the data file after the last NtReadFile (frame %d "
           "of %d; the last at %d ns, the last NtReadFile at %d ns): the layers did not end "
           "together" % (after, ks[-1], len(lin) - 1, lin[-1]["ts_mono_ns"],
                         reads[-1][0]["ts_mono_ns"]))
    calls = nt_syscalls(t, tids, pid)
    # presents, by the frame whose read comes last before them
    presents = []
    for tid in tids:
        presents += spans(t, t.thread(tid), "VulkanQueuePresent")
    presents.sort(key=lambda p: p[0]["seq"])
    expect(presents, "no VulkanQueuePresent span (the Vulkan layer is off)")
    lseq = [x["seq"] for x in lin]
    pk = []
    j = 0
    for b, e in presents:
        while j < len(lseq) and lseq[j] < b["seq"]:
            j += 1
        pk.append(j - 1)  # -1: before the first read (the frame before it)
        expect(b["scope"] == "Vulkan" and (e["confidence"] != "Measured"
                                           or e["payload"]["result"] == 0),
               "present %s: scope %s, End %s" % (short(b), b["scope"], short(e)))
    kv, last = pk[0], len(lin) - 1
    # the Vulkan layer too: the first present is that of the frame in flight at
    # the start (-1), of the first frame, or of the second (as above)
    expect(kv <= 1, "the first present is frame %d's: the Vulkan layer came late" % kv)
    expect(pk == list(range(kv, kv + len(pk))),
           "presents are not one per frame from frame %d: by frame %s"
           % (kv, pk[:8] + ["..."] + pk[-8:]))
    in_flight = pk[-1] == last - 1
    expect(pk[-1] == last or in_flight, "the last present is frame %d's, the last frame %d"
           % (pk[-1], last))
    queues = {b["resource"]["id"] for b, e in presents}
    expect(len(queues) == 1, "presents on %d queues, expected 1" % len(queues))
    return ("%s; %d frames in the capture (Linux reads of blocks in order); NtReadFile: frames "
            "%d..%d, each served by the Linux read that cites it, none after; %d NtSyscall "
            "spans; %d VulkanQueuePresent spans, frames %d..%d%s"
            % (members, len(lin), first, ks[-1], len(calls), len(presents), kv, pk[-1],
               " (the last frame's present after the end)" if in_flight else ""))


def main(argv):
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(check_attach(*argv[1:]))
    except Fail as e:
        print("attach: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
