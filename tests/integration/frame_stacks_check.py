#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""t_frame_stacks: report --frames --json of vkpresent with a slow and a
spinning frame.

  frame_stacks_check.py FRAMES.json SLOW SLOW_MS SPIN

Frame SLOW is listed first (the slowest), at least SLOW_MS long, and its
longest hop is blocked in Sleep with a stack naming slow_a, slow_b,
frame_slow, main one after the other (innermost first: the whole stack, not
only its innermost frames).  Frame SPIN is listed,
and its hop with the most timer samples is a running one whose stack names
spin_a, spin_b, frame_spin the same way.

  frame_stacks_check.py unnamed FRAMES.json

No hop of any frame names slow_a or spin_a (the binary was not found)."""
import json
import re
import sys


def names(hop):
    # "slow_a+0x19 (vkpresent)" or "slow_a": the function's name alone
    return [re.split(r"[+ ]", f, maxsplit=1)[0] for f in hop.get("stack", [])]


def chain(hop, want):
    got = names(hop)
    for i in range(len(got) - len(want) + 1):
        if got[i:i + len(want)] == want:
            return True
    return False


def hops(frame):
    return (frame.get("critical_path") or {}).get("hops", [])


def main():
    if sys.argv[1] == "unnamed":
        slowest = json.load(open(sys.argv[2]))["frames"]["slowest"]
        named = [n for f in slowest for h in hops(f) for n in names(h)
                 if n in ("slow_a", "spin_a")]
        sys.exit("named without the binary: %s" % named if named else 0)
    path, slow, slow_ms, spin = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    slowest = json.load(open(path))["frames"]["slowest"]
    if not slowest:
        sys.exit("no frames listed")
    first = slowest[0]
    if first["frame"] != slow:
        sys.exit("frame %d listed first (%d ns), not frame %d"
                 % (first["frame"], first["length_ns"], slow))
    if first["length_ns"] < slow_ms * 1000000:
        sys.exit("frame %d is %d ns, shorter than its sleep" % (slow, first["length_ns"]))
    if not hops(first):
        sys.exit("frame %d has no critical path hops" % slow)
    longest = max(hops(first), key=lambda h: h["ns"])
    want = ["slow_a", "slow_b", "frame_slow", "main"]
    if longest["type"] != "blocked" or longest.get("kind") != "Sleep" or not chain(longest, want):
        sys.exit("frame %d: longest hop %s %s %d ns, stack %s: not blocked in Sleep under %s"
                 % (slow, longest["type"], longest.get("kind"), longest["ns"],
                    longest.get("stack"), " <- ".join(want)))
    spun = [f for f in slowest if f["frame"] == spin]
    if not spun:
        sys.exit("frame %d is not listed" % spin)
    sampled = max(hops(spun[0]), key=lambda h: h.get("stack_samples", 0))
    want_spin = ["spin_a", "spin_b", "frame_spin"]
    if sampled["type"] != "running" or not chain(sampled, want_spin):
        sys.exit("frame %d: most sampled hop %s %d ns (%d samples), stack %s: not running in %s"
                 % (spin, sampled["type"], sampled["ns"], sampled.get("stack_samples", 0),
                    sampled.get("stack"), " <- ".join(want_spin)))
    print("frame %d first, %.3f ms, its %.3f ms Sleep at %s; frame %d %.3f ms, %d samples at %s"
          % (slow, first["length_ns"] / 1e6, longest["ns"] / 1e6, " <- ".join(longest["stack"]),
             spin, spun[0]["length_ns"] / 1e6, sampled["stack_samples"],
             " <- ".join(sampled["stack"])))


main()
