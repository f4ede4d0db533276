#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks `katra-replay stats --per-frame --json` against the trace itself.

Usage: perframe_check.py STATS.json EVENTS.jsonl PID N

STATS.json: stats --per-frame --json of the whole trace; EVENTS.jsonl:
dump --jsonl --pid PID of the same trace (the program's events and every
epoch); N: the frames the program presented (its own counter).

- the program's swapchain is one track of N presents and N - 1 frames, each
  holding exactly one present (a present's Begin follows the epoch of the
  one before it, on the same thread);
- every call row of that track holds exactly the calls that the recorder
  numbered with a complete frame's number in their Begin's request_id
  (format/SPEC.md section 10, Frames: the frame in progress, N + 1 after
  present N; a present's own Begin carries N, the frame it ends, and the
  first present ends none), with the same total time: stats places calls by
  the Frame epochs' windows, the recorder by its own count, independently.
  Calls with no number are before the first present, those numbered past
  the last frame after it.
"""
import collections
import json
import sys


# EventKind NtReadFile .. VulkanFenceWait, NtSyscall, the D3D12 calls and the
# Vulkan semaphore waits and acquires
# (format/SPEC.md 5.2)
CALL_KINDS = {"NtReadFile", "NtWriteFile", "NtCreateFile", "NtWait", "NtDelayExecution",
              "NtMapViewOfSection", "NtAllocateVirtualMemory", "NtCreateUserProcess",
              "WineServerCall", "WinToUnix", "VulkanQueueSubmit", "VulkanQueuePresent",
              "VulkanFenceWait", "NtSyscall", "D3d12ExecuteCommandLists", "D3d12QueueSignal",
              "D3d12QueueWait", "D3d12FenceSetEventOnCompletion", "D3d12FenceSignal",
              "VulkanSemaphoreWait", "VulkanAcquireNextImage"}


def fail(msg):
    print(msg)
    sys.exit(1)


def main():
    stats_path, events_path, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    doc = json.load(open(stats_path))
    tracks = [t for t in doc["per_frame"]["tracks"] if t["process_id"] == pid]
    if len(tracks) != 1:
        fail(f"{len(tracks)} tracks of process {pid}, not 1")
    t = tracks[0]
    if (t["presents"], t["frames"]) != (n, n - 1):
        fail(f"{t['presents']} presents and {t['frames']} frames, not {n} and {n - 1}")
    # a unix call's row is its library's (its handle): two may share an index
    rows = {(r["kind"], r["number"], r.get("handle", 0)): r for r in t["rows"]}
    present = rows.get(("VulkanQueuePresent", 0, 0))
    got = present and (present["frames_seen"], present["calls"], present["calls_per_frame"])
    if got != (n - 1, n - 1, {"p50": 1, "max": 1}):
        fail(f"presents per frame (frames seen, calls, per frame): {got}")
    if t["slowest"][0]["length_ns"] != t["frame_time_ns"]["max"]:
        fail("the slowest frame is not the longest")
    # the kinds stats counts as calls (kr_call_kind, user/replay/stats/
    # stats_calls.c), not read from its overall table: that table holds at
    # most KR_MAX_CALL_ROWS (process, call) rows, and a Wine 10 session with
    # a D3D12 program fills it before its first Vulkan call (2,119 rows seen)
    call_kinds = CALL_KINDS
    # the number naming a call within its kind is in its Begin's payload
    numbered = {"NtSyscall": "number", "WineServerCall": "request"}
    opened, calls, ns = {}, collections.Counter(), collections.Counter()
    before = after = 0
    for line in open(events_path):
        e = json.loads(line)
        if (e["record"] != "Event" or e["process_id"] != pid or e["kind"] not in call_kinds
                or e["span_id"] is None):
            continue
        key = (e["thread_id"], e["span_id"])
        if e["phase"] == "Begin":
            opened[key] = e
            continue
        b = opened.pop(key, None) if e["phase"] == "End" else None
        if b is None:
            continue
        frame = b["request_id"]
        if frame is None or int(frame) < 2:
            before += 1
            continue
        if int(frame) > n:
            after += 1
            continue
        field = numbered.get(b["payload"]["type"])
        row = (b["kind"], b["payload"][field] if field else 0,
               int(b["resource"]["id"]) if b["kind"] == "WinToUnix" else 0)
        calls[row] += 1
        ns[row] += e["ts_mono_ns"] - b["ts_mono_ns"]
    diffs = []
    for row in sorted(set(calls) | set(rows), key=str):
        have = (rows[row]["calls"], rows[row]["total_ns"]) if row in rows else (0, 0)
        want = (calls[row], ns[row])
        if have != want:
            diffs.append(f"{row[0]} {row[1]} {row[2]:#x}: stats {have}, request_id {want}")
    if diffs:
        fail(f"{len(diffs)} rows differ from the recorder's frame numbers: " + "; ".join(diffs[:3]))
    if (t["calls_before_first_present"], t["calls_after_last_present"]) != (before, after):
        fail(f"calls before/after: stats {t['calls_before_first_present']}/"
             f"{t['calls_after_last_present']}, request_id {before}/{after}")
    print(f"{n - 1} frames, one present in each; {sum(calls.values())} calls in {len(calls)} rows "
          f"placed as request_id numbers them ({before} before, {after} after)")


main()
