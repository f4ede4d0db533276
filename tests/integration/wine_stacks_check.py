#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""--stacks through Wine (t_wine_stacks): katra-replay stats --stacks --json
of tests/wine/stackchain.exe's capture has, at each site, stacks whose
frames read, in this order: kernel frames, ntdll.so (Wine's Unix side, below
the syscall dispatcher; its last frame the dispatcher, named
__wine_syscall_dispatcher), then Windows frames, the program's first four being
leaf, chain_b, chain_a, main, untruncated (an OffCpu one with kernel frames).
Counted by round, not by stack: each of the ROUNDS Sleeps is an
NtDelayExecution span (EVENTS: the trace's StackOf and NtDelayExecution
records, dump --jsonl), and exactly ROUNDS of them hold a Syscall stack of
the chain (at most one of its select) and an OffCpu one; no stack of the
chain is outside them.  A round may hold two of each: Wine's NtDelayExecution
yields first (NtYieldExecution's sched_yield), and on a loaded machine the
yield alone can be off the CPU past the threshold, its own stack of the same
chain; when it takes most of the Sleep the select's is then below it.
A frame of the program is named by its symbol (--symbols) or, as
"stackchain.exe+0xADDR", by the function of `nm -n` holding ADDR.
usage: wine_stacks_check.py STATS.json ROUNDS EVENTS.jsonl"""
import json
import sys

CHAIN = ["leaf", "chain_b", "chain_a", "main"]
EXE = "stackchain.exe"
DISPATCHER = "__wine_syscall_dispatcher"
YIELD = "NtYieldExecution"


def name(frame):
    """'chain_b+0x1b (stackchain.exe)' -> 'chain_b'"""
    return frame.split(" ")[0].split("+")[0]


def spans_of(path):
    """{tid: [(begin, end)]} of NtDelayExecution, and the StackOf records"""
    begins, spans, cites = {}, {}, []
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == "StackOf":
            cites.append(r)
        elif r.get("kind") == "NtDelayExecution" and r["phase"] == "Begin":
            begins[r["span_id"]] = (r["thread_id"], r["ts_mono_ns"])
        elif r.get("kind") == "NtDelayExecution" and r["phase"] == "End":
            tid, b = begins.pop(r["span_id"], (r["thread_id"], None))
            if b is not None:
                spans.setdefault(tid, []).append((b, r["ts_mono_ns"]))
    return spans, cites


def main():
    stats = json.load(open(sys.argv[1]))
    rounds = int(sys.argv[2])
    spans, cites = spans_of(sys.argv[3])
    chain = {}  # stack id -> (site, the select's: not the yield's)
    seen = []
    for s in stats["stacks"]:
        frames = s["frames"]
        exe = [i for i, f in enumerate(frames) if f.endswith("(" + EXE + ")")]
        if not exe:
            continue
        names = [name(frames[i]) for i in exe[:4]]
        seen.append((s["site"], names, s["truncated"], frames[:exe[0]]))
        if names != CHAIN or s["truncated"]:
            continue
        below = frames[:exe[0]]
        unix = [i for i, f in enumerate(below) if f.endswith("(ntdll.so)")]
        if not unix or any(f.endswith("(ntdll.so)") for f in below[unix[-1] + 1:]
                           if not f.endswith(".dll)")):
            continue
        if name(below[unix[-1]]) != DISPATCHER:
            continue
        if s["site"] == "OffCpu" and not s["kernel"]:
            continue
        chain[s["stack"]] = (s["site"], not any(name(f) == YIELD for f in below))
    held = {"OffCpu": set(), "Syscall": set()}
    selects = {}
    for c in cites:
        if c["stack_id"] not in chain:
            continue
        site, select = chain[c["stack_id"]]
        if c["site"] != site:
            continue
        span = [sp for sp in spans.get(c["thread_id"], [])
                if sp[0] <= c["begin_ns"] <= sp[1]]
        if not span:
            print("a %s stack of the chain outside every NtDelayExecution: %s" % (site, c))
            return 1
        held[site].add((c["thread_id"], span[0]))
        if site == "Syscall" and select:
            selects[span[0]] = selects.get(span[0], 0) + 1
    counts = {site: len(v) for site, v in held.items()}
    if counts["Syscall"] != rounds or counts["OffCpu"] != rounds or \
            any(n > 1 for n in selects.values()):
        print("Sleeps holding a stack of the chain: %s (want %d each); selects a Sleep: %s; "
              "stacks naming %s: %s"
              % (counts, rounds, sorted(selects.values()), EXE, seen[:6]))
        return 1
    print("chain named in order above ntdll.so in every Sleep: %s" % counts)
    return 0


sys.exit(main())
