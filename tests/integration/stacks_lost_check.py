#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every call stack the probe lost is counted in the trace (t_stacks_lost).

usage: stacks_lost_check.py TRACE.jsonl SLOTS_LOST RING_LOST
SLOTS_LOST and RING_LOST: the probe's own counters, as katra-record said
them on stderr.  With --stack-threshold 0 every OffCpu span and every
syscall span that returned (a Measured End; execve aside) took a stack, so
StackOf records + Drop(Stacks) counts == those spans exactly; the Drop events
and the summary's drops hold the counters exactly, by instance (0 slots, 1
ring)."""
import json
import sys


def main():
    path, slots, ring = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    begins, spans, stacks = {}, 0, 0
    ev_drops, sum_drops, dropped_events = {}, {}, None
    other_drops = 0
    for line in open(path):
        r = json.loads(line)
        rec = r.get("record")
        if rec == "StackOf":
            stacks += 1
        elif rec == "SessionSummary":
            dropped_events = r["dropped_events"]
            for d in r["drops"]:
                if d["source"] == "Stacks":
                    sum_drops[d["instance"]] = sum_drops.get(d["instance"], 0) + d["count"]
        elif rec == "Event":
            p = r.get("payload") or {}
            if r["kind"] == "Drop":
                if p.get("source") == "Stacks":
                    ev_drops[p["instance"]] = ev_drops.get(p["instance"], 0) + p["count"]
                else:
                    other_drops += p["count"]
            elif r["phase"] == "Begin":
                begins[r["span_id"]] = r
            elif r["phase"] == "End":
                b = begins.pop(r["span_id"], None)
                if b is None or r.get("confidence") != "Measured":
                    continue
                if r["kind"] == "Execve" or p.get("nr") in (59, 322):
                    continue
                spans += 1
    want = {i: n for i, n in ((0, slots), (1, ring)) if n}
    errs = []
    if ring == 0:
        errs.append("the stack ring never overflowed: nothing was tested")
    if other_drops:
        errs.append("%d events lost besides the stacks: the spans cannot be counted" % other_drops)
    if ev_drops != want:
        errs.append("Drop(Stacks) events by instance %s, the probe's counters %s" % (ev_drops, want))
    if sum_drops != want:
        errs.append("summary drops(Stacks) by instance %s, the probe's counters %s" % (sum_drops, want))
    if dropped_events != other_drops + slots + ring:
        errs.append("dropped_events %s, expected %d" % (dropped_events, other_drops + slots + ring))
    if stacks + slots + ring != spans:
        errs.append("%d StackOf + %d lost != %d spans that took a stack" % (stacks, slots + ring, spans))
    if errs:
        print("; ".join(errs))
        sys.exit(1)
    print("%d spans: %d stacks written, %d lost (%d slots, %d ring)" % (spans, stacks, slots + ring,
                                                                       slots, ring))


if __name__ == "__main__":
    main()
