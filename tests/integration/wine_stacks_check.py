#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""--stacks through Wine (t_wine_stacks): katra-replay stats --stacks --json
of tests/wine/stackchain.exe's capture has, at each site, stacks whose
frames read, in this order: kernel frames, ntdll.so (Wine's Unix side, below
the syscall dispatcher; its last frame the dispatcher, named
__wine_syscall_dispatcher), then Windows frames, the program's first four being
leaf, chain_b, chain_a, main, untruncated; the Syscall site's count is ROUNDS
exactly (one NtDelayExecution's select each) and the OffCpu site's at least
ROUNDS.  A frame of the program is named by its symbol (--symbols) or, as
"stackchain.exe+0xADDR", by the function of `nm -n` holding ADDR.
usage: wine_stacks_check.py STATS.json NM.txt ROUNDS"""
import json
import sys

CHAIN = ["leaf", "chain_b", "chain_a", "main"]
EXE = "stackchain.exe"
DISPATCHER = "__wine_syscall_dispatcher"


def name(frame):
    """'chain_b+0x1b (stackchain.exe)' -> 'chain_b'"""
    return frame.split(" ")[0].split("+")[0]


def main():
    stats = json.load(open(sys.argv[1]))
    rounds = int(sys.argv[2])
    counts = {"OffCpu": 0, "Syscall": 0}
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
        counts[s["site"]] += s["count"]
    if counts["Syscall"] != rounds or counts["OffCpu"] < rounds:
        print("stacks of the chain: %s (want Syscall %d, OffCpu >= %d); stacks naming %s: %s"
              % (counts, rounds, rounds, EXE, seen[:6]))
        return 1
    print("chain named in order above ntdll.so: %s" % counts)
    return 0


sys.exit(main())
