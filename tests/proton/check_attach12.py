#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ground-truth checks of `katra-record -p` attached to the running D3D12
program in the Proton-class root (t_proton_d3d12_attach), on top of
tests/integration/ktrace.py and check.py.

usage: check_attach12.py PROG.jsonl PROCS.jsonl PROGRAM.out DATA_DEV DATA_INO PID MEMBERS
  as check_attach.py; the program (d3d12frames.c with STOP) was told to stop
  during the capture and exited inside it: the capture holds its last frame
  and its final flush Present.

The program's frames in the capture are numbered by its Linux reads of the
data file (consecutive blocks, none missing, the last one the program's last
frame by its own count).  Then, exactly, from the first frame after the
attach (frame 0 or, when the capture began inside frame 0's call, frame 1):
  - the session's processes (check_attach.check_members);
  - NtReadFile: one span per frame to the last, each with its length and
    offset, served by the one Linux read of that block that cites it;
  - NtWait on the fence's event: one per frame to the last (between its read
    and the next; from the frame in flight at the start, or the first or
    second), status 0, those that blocked citing the NtSetEvent that
    released them (check.check_fence_wait);
  - VulkanQueuePresent: one per frame, in order, from the frame in flight at
    the start or the one before it (place_presents), or the first or second,
    to the last, and the flush's if Wine's
    dxgi presented it before the swapchain's release; frame k's present
    begins after its read and ends before frame k + 2's read (the frame
    latency object that the program waits on before each read is set once
    the present before the one that armed it is done);
  - VulkanQueueSubmit: 5 per frame (check.py check_d3d12 says which), all on
    the presenting queue: after frame k's read (k >= 1, frame k - 1's present
    in the capture) the capture holds exactly 5 per frame from frame k and
    the flush's (1, and 2 more if it was presented), not counting frame k -
    1's blit (the presenting thread's last submit before that present), or
    one more: frame k - 1's latency fence Signal, which dxgi submits after
    that present, before or after the program's next read;
  - a Frame epoch right after each present's End (and after a present in
    flight at the start), named "frame N (pid P, swapchain 0xS)", N counting
    from 1, one swapchain.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from ktrace import Fail, Trace, expect, file_id, measured, short, spans  # noqa: E402
from check import SUBMITS_PER_FRAME, check_fence_wait, nt_syscalls, thread_events  # noqa: E402
from check_attach import check_members  # noqa: E402

PROGRAM = "d3d12frames.exe"


def frames_by_reads(evs, w, fid, pid):
    """The program's Linux reads of the data file, one per frame, in order."""
    nb, length = w["blocks"], w["length"]
    lin = [x for x in evs if x["kind"] == "FileRead" and x["phase"] == "Begin"
           and x["resource"] == {"domain": "File", "id": fid}]
    expect(len(lin) >= 3, "%d Linux reads of the data file" % len(lin))
    for k, x in enumerate(lin):
        expect(x["payload"]["count"] == length and x["payload"]["offset"] % length == 0
               and x["thread_id"] == pid,
               "Linux read %d: %s is not a frame's block" % (k, short(x)))
        if k:
            prev = lin[k - 1]["payload"]["offset"] // length
            expect(x["payload"]["offset"] // length == (prev + 1) % nb,
                   "Linux read %d (seq %d) reads block %d after block %d: a frame is missing"
                   % (k, x["seq"], x["payload"]["offset"] // length, prev))
    expect(len(lin) < nb, "%d frames in the capture: more than the %d blocks that number "
           "them" % (len(lin), nb))
    expect(lin[-1]["payload"]["offset"] // length == (w["frames"] - 1) % nb,
           "the last Linux read is of block %d, the program's last frame's is %d: the "
           "capture ended before the program did"
           % (lin[-1]["payload"]["offset"] // length, (w["frames"] - 1) % nb))
    return lin


def frame_before(lin, seq):
    """The frame whose read is the last before seq (-1: none)."""
    k = -1
    while k + 1 < len(lin) and lin[k + 1]["seq"] < seq:
        k += 1
    return k


def check_reads(t, tids, lin, w):
    handle, length = w["handle"], w["length"]
    reads = []
    for tid in tids:
        reads += [(b, e) for b, e in spans(t, thread_events(t, tid), "NtReadFile")
                  if b["payload"]["handle"] == handle]
    reads.sort(key=lambda p: p[0]["seq"])
    cited = {}
    for x in lin:
        for c in x["causes"]:
            cited.setdefault(c, []).append(x)
    frame_of = {x["seq"]: k for k, x in enumerate(lin)}
    ks = []
    for i, (b, e) in enumerate(reads):
        measured(b, e)
        lx = cited.get(b["seq"], [])
        expect(len(lx) == 1, "NtReadFile %d (%s): %d Linux reads of the data file cite it, "
               "expected 1" % (i, short(b), len(lx)))
        x = lx[0]
        want = {"type": "NtCall", "handle": handle, "length": length,
                "offset": x["payload"]["offset"], "status": None}
        expect(b["payload"] == want, "NtReadFile %d: Begin payload %s, expected %s"
               % (i, b["payload"], want))
        expect(x["thread_id"] == b["thread_id"] and b["seq"] < x["seq"] < e["seq"]
               and e["payload"]["status"] == 0 and e["payload"]["length"] == length,
               "NtReadFile %d: %s, its Linux read %s" % (i, short(e), short(x)))
        ks.append(frame_of[x["seq"]])
    expect(ks and ks[0] <= 1 and ks == list(range(ks[0], len(lin))),
           "the NtReadFile spans are not one per frame from frame 0 or 1 to the last (%d): "
           "frames %s" % (len(lin) - 1, ks[:5] + ["..."] + ks[-5:]))
    return ks[0]


def check_waits(t, tids, lin, w, pid):
    by_seq = {e["seq"]: e for e in t.events}
    waits, file_reads = [], {}
    for tid in tids:
        evs = thread_events(t, tid)
        waits += [(b, e) for b, e in spans(t, evs, "NtWait")
                  if b["payload"]["handle"] == w["fence_event"]]
        file_reads[tid] = [x for x in evs if x["kind"] == "FileRead" and x["phase"] == "Begin"]
    waits.sort(key=lambda p: p[0]["seq"])
    ks = [frame_before(lin, b["seq"]) for b, e in waits]
    expect(ks and -1 <= ks[0] <= 1 and ks == list(range(ks[0], len(lin))),
           "the NtWait spans on the fence's event %s are not one per frame from frame -1, 0 or 1 "
           "to the last (%d): frames %s"
           % (w["fence_event"], len(lin) - 1, ks[:5] + ["..."] + ks[-5:]))
    blocked = 0
    for i, (b, e) in enumerate(waits):
        check_fence_wait(by_seq, file_reads, pid, i, b, e)
        blocked += len(e["causes"]) > 1
    return ks[0], blocked


def place_presents(lin, presents, flushes):
    """The ways [(first frame, flushed)] the presents, in order, can be those
    of frames first..last and then the flush's if flushed, each frame's
    beginning after its read and ending before the read two frames on.  The
    first one's frame is -2 (dxgi's worker a frame behind when the capture
    began: its present after the read of the frame in flight), -1, 0 or 1:
    where it begins before frame 0's read, it can be -2 or -1, and then the
    flush's present present or not (the count alone cannot tell: the
    submits do, check_submits)."""
    last = len(lin) - 1
    k0 = frame_before(lin, presents[0][0]["seq"])
    ways = []
    for first in (k0 - 1, k0):
        flushed = len(presents) - (last - first + 1)
        if first < -2 or first > 1 or not 0 <= flushed <= flushes:
            continue
        ok = True
        for j, (b, e) in enumerate(presents[:last - first + 1]):
            k = first + j
            ok &= (k < 0 or lin[k]["seq"] < b["seq"]) and \
                (k + 2 > last or e["seq"] < lin[k + 2]["seq"])
        if ok:
            ways.append((first, flushed))
    expect(ways, "%d presents do not fall one per frame from frame -2, -1, 0 or 1 to the last "
           "(%d), each after its read and done before the read two frames on, and the flush's "
           "(first ones by frame: %s)"
           % (len(presents), last, [frame_before(lin, b["seq"]) for b, e in presents[:6]]))
    return ways


def check_submits(lin, presents, submits, w, kv, flushed):
    """The submits after each frame's read (check.py check_d3d12: per frame
    ExecuteCommandLists, the program's fence Signal and dxgi's present fence
    Signal, made by the program's thread before its fence wait, which ends
    before the next read; dxgi's blit and latency fence Signal, on either
    side of the next read: the blit is the presenting thread's last submit
    before the present, the Signal comes after the present, by that thread
    or (vkd3d deferring it while dxgi holds the queue) by another).  Returns
    how many frames had the latency Signal of the frame before after them."""
    last = len(lin) - 1
    sseq = sorted(b["seq"] for b, e in submits)
    flush = w["flushes"] + 2 * flushed
    late = 0
    for k in range(max(1, kv + 1), last + 1):
        b = presents[k - 1 - kv][0]
        blit = [s for s, tid in ((x["seq"], x["thread_id"]) for x, e in submits)
                if tid == b["thread_id"] and s < b["seq"]]
        expect(blit and blit[-1] > lin[k - 1]["seq"],
               "frame %d's present %s: no blit submit by its thread after the frame's read"
               % (k - 1, short(b)))
        after = sum(1 for s in sseq if s > lin[k]["seq"]) - (blit[-1] > lin[k]["seq"])
        want = SUBMITS_PER_FRAME * (last - k + 1) + flush
        expect(after in (want, want + 1),
               "%d VulkanQueueSubmit after frame %d's read (frame %d's blit not counted), "
               "expected %d (%d per frame from it, the flush's %d) or one more (frame %d's "
               "latency fence Signal)" % (after, k, k - 1, want, SUBMITS_PER_FRAME, flush, k - 1))
        late += after == want + 1
    return late


def check_frames(t, pid, presents, instants):
    """One Frame epoch right after each present, numbered from 1, one swapchain."""
    epochs = [r for r in t.body if r["record"] == "EpochMarker" and r["kind"] == "Frame"
              and "(pid %d," % pid in r["name"]]
    ends = sorted([e["seq"] for b, e in presents] + [x["seq"] for x in instants])
    expect([r["seq"] for r in epochs] == [s + 1 for s in ends],
           "%d Frame epochs of pid %d, %d presents: not one right after each"
           % (len(epochs), pid, len(ends)))
    names = [re.fullmatch(r"frame (\d+) \(pid %d, swapchain (0x[0-9a-f]+)\)" % pid, r["name"])
             for r in epochs]
    expect(all(names) and [int(m.group(1)) for m in names] == list(range(1, len(epochs) + 1))
           and len({m.group(2) for m in names}) == 1,
           "Frame epochs named %s ... %s" % ([r["name"] for r in epochs[:2]],
                                            [r["name"] for r in epochs[-2:]]))
    return len(epochs)


def check_attach12(trace_path, procs_path, out_path, dev, ino, pid, members_path):
    pid = int(pid)
    members = check_members(procs_path, members_path, pid, PROGRAM)
    t = Trace(trace_path, complete=False)  # one process (dump --pid): no summary
    with open(out_path) as f:
        w = json.loads(f.read().strip().splitlines()[-1])
    expect(w["frames"] == w["presents"] == w["reads"] == w["executes"] == w["fence_waits"]
           and w["flushes"] == 1 and w["blocks"] > 1,
           "the program's own counters disagree: %s" % w)
    evs = t.process(pid)
    tids = sorted({e["thread_id"] for e in evs})
    lin = frames_by_reads(evs, w, file_id(int(dev), int(ino)), pid)
    last = len(lin) - 1
    kr = check_reads(t, tids, lin, w)
    kw, blocked = check_waits(t, tids, lin, w, pid)
    calls = nt_syscalls(t, tids, pid)
    presents, submits, instants = [], [], []
    for tid in tids:
        presents += spans(t, thread_events(t, tid), "VulkanQueuePresent")
        submits += spans(t, thread_events(t, tid), "VulkanQueueSubmit")
        instants += [x for x in thread_events(t, tid)
                     if x["kind"] == "VulkanQueuePresent" and x["phase"] == "Instant"]
    presents.sort(key=lambda p: p[0]["seq"])
    expect(presents, "no VulkanQueuePresent span (the Vulkan layer is off)")
    queue = presents[0][0]["resource"]
    for b, e in presents + submits:
        measured(b, e)
        expect(b["scope"] == "Vulkan" and e["payload"]["result"] == 0 and b["resource"] == queue,
               "%s: scope %s, result %s, not on the presenting queue"
               % (short(b), b["scope"], e["payload"]["result"]))
    expect(all(x["seq"] < presents[0][0]["seq"] for x in instants) and len(instants) <= 1,
           "presents without their Begin: %s" % [short(x) for x in instants])
    failed = None
    for kv, flushed in place_presents(lin, presents, w["flushes"]):
        try:
            late = check_submits(lin, presents, submits, w, kv, flushed)
            break
        except Fail as e:
            failed = failed or e
    else:
        raise failed
    epochs = check_frames(t, pid, presents, instants)
    return ("%s; %d frames in the capture (Linux reads of blocks in order, the last the "
            "program's); NtReadFile: frames %d..%d, each served by the Linux read citing it; "
            "NtWait on the fence's event: frames %d..%d, %d blocked, each citing its "
            "NtSetEvent; %d VulkanQueuePresent: frames %d..%d, the flush's %s; "
            "VulkanQueueSubmit: %d, 5 per frame from each frame's read (the latency Signal of "
            "the frame before after it in %d); %d Frame epochs, one after each present; %d NtSyscall"
            % (members, len(lin), kr, last, kw, last, blocked, len(presents), kv, last,
               "among them" if flushed else "dropped", len(submits), late, epochs, len(calls)))


def main(argv):
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(check_attach12(*argv[1:]))
    except Fail as e:
        print("attach12: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
