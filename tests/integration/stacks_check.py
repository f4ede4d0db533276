#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""--stacks on tests/workloads/stackchains: katra-replay stats --stacks --json
names each known chain in order, every time, with its kernel frames
(stacks_check.py STATS.json ROUNDS); every StackOf of the trace cites an
OffCpu span exactly: its thread's Begin at begin_ns, whose End is
duration_ns later (stacks_check.py cite TRACE.jsonl); the timer samples of
`stackchains spin` name its chain (stacks_check.py oncpu STATS.json PERIOD_NS
LEAST).  `stacks_check.py flipbid SRC DST` writes a copy of the ELF file SRC
whose build id differs by one byte and prints that build id."""
import json
import re
import subprocess
import sys

CHAIN = ["chain_b", "chain_a", "main"]
# the leaf, and kernel frames its interval off the CPU must show
LEAVES = {
    "leaf_sleep": ["do_nanosleep"],
    "leaf_read": ["__x64_sys_pread64"],
    "leaf_fault": ["handle_mm_fault", "asm_exc_page_fault"],
}


def fn(frame):
    """'chain_b+0x1b (stackchains)' -> 'chain_b'"""
    return frame.split(" ")[0].split("+")[0]


def cite(path):
    begins, ends, cites = {}, {}, []
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == "StackOf":
            cites.append(r)
        elif r.get("record") == "Event" and r["scope"] == "Linux":
            # OffCpu, or a syscall's span (its kind: Sleep, FileRead, ...)
            site = "OffCpu" if r["kind"] == "OffCpu" else "Syscall"
            if r["kind"] in ("PageFault", "Wakeup"):
                continue
            if r["phase"] == "Begin":
                begins[(site, r["thread_id"], r["ts_mono_ns"])] = r["span_id"]
            elif r["phase"] == "End":
                ends[(r["thread_id"], r["span_id"])] = r["ts_mono_ns"]
    if not cites:
        sys.exit("no StackOf record")
    for c in cites:
        span = begins.get((c["site"], c["thread_id"], c["begin_ns"]))
        if span is None:
            sys.exit("StackOf %s: no %s Begin of thread %d at %d"
                     % (c, c["site"], c["thread_id"], c["begin_ns"]))
        end = ends.get((c["thread_id"], span))
        if end != c["begin_ns"] + c["duration_ns"]:
            sys.exit("StackOf %s: its span ends at %s, not begin_ns + duration_ns"
                     % (c, end))
    sites = sorted(set(c["site"] for c in cites))
    if sites != ["OffCpu", "Syscall"]:
        sys.exit("StackOf sites %s, not OffCpu and Syscall" % sites)
    print("%d StackOf records, each its span's exact Begin and End" % len(cites))


SPIN = ["spin_leaf", "spin_b", "spin_a", "main"]


def oncpu(path, period_ns, least):
    """stats --stacks --on-cpu --json of `stackchains spin`: every stack is a
    timer sample's weighing its period, and 80 % of the samples or more name
    main -> spin_a -> spin_b -> spin_leaf in order, untruncated"""
    total = chain = 0
    for st in json.load(open(path))["stacks"]:
        if st["site"] != "Sample":
            sys.exit("stack %d: site %s under --on-cpu" % (st["stack"], st["site"]))
        if st["total_ns"] != st["count"] * period_ns:
            sys.exit("stack %d: %d samples weigh %d ns, not %d each"
                     % (st["stack"], st["count"], st["total_ns"], period_ns))
        names = [fn(f) for f in st["frames"]]
        total += st["count"]
        if "spin_leaf" in names and not st["truncated"]:
            i = names.index("spin_leaf")
            chain += st["count"] if names[i:i + 4] == SPIN else 0
    if total < least:
        sys.exit("%d samples, want %d or more" % (total, least))
    if chain * 5 < total * 4:
        sys.exit("%d of %d samples name main -> spin_a -> spin_b -> spin_leaf, "
                 "want 80 %% or more" % (chain, total))
    print("%d of %d samples name the spin chain in order" % (chain, total))


def views(report, export, rounds):
    """report's critical path: a hop blocked in Sleep or FileRead has the
    line 'at ... <- leaf <- chain_b <- chain_a' under it; export --stacks:
    the rounds' Sleep and FileRead slices, `rounds` each, carry
    'leaf;chain_b;chain_a;main' in args.stack"""
    lines = open(report).read().split("\n")
    hops = 0
    for i, line in enumerate(lines):
        for kind, leaf in (("Sleep", "leaf_sleep"), ("FileRead", "leaf_read")):
            # a hop: "  0.011180202        3.061  21255(stackchains)  blocked in ..."
            if not re.match(r"^  \d+\.\d{9} +\d+\.\d{3}  .*  blocked in %s\b" % kind, line):
                continue
            want = "%s <- chain_b <- chain_a" % leaf
            if not (lines[i + 1].strip().startswith("at ") and want in lines[i + 1]):
                sys.exit("report: hop %r without 'at ... %s' under it: %r"
                         % (line.strip(), want, lines[i + 1]))
            hops += 1
    if hops < 2:
        sys.exit("report: %d hops blocked in Sleep or FileRead on the path" % hops)
    seen = {"Sleep": 0, "FileRead": 0}
    for ev in json.load(open(export))["traceEvents"]:
        leaf = {"Sleep": "leaf_sleep", "FileRead": "leaf_read"}.get(ev.get("name"))
        stack = ev.get("args", {}).get("stack", "")
        if leaf and "chain_a" in stack:
            if "%s;chain_b;chain_a;main" % leaf not in stack:
                sys.exit("export: %s slice with stack %s" % (ev["name"], stack))
            seen[ev["name"]] += 1
    if seen != {"Sleep": rounds, "FileRead": rounds}:
        sys.exit("export: slices with their chain %s, want %d each" % (seen, rounds))
    print("report: %d hops with their chain; export: %s" % (hops, seen))


def flipbid(src, dst):
    out = subprocess.run(["readelf", "-n", src], capture_output=True, text=True).stdout
    bid = bytes.fromhex(out.split("Build ID:")[1].split()[0])
    data = bytearray(open(src, "rb").read())
    if data.count(bid) != 1:
        sys.exit("the build id is not one place in " + src)
    at = data.find(bid)
    data[at] ^= 0xff
    open(dst, "wb").write(data)
    print(data[at:at + len(bid)].hex())


def main():
    if sys.argv[1] == "flipbid":
        flipbid(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "cite":
        cite(sys.argv[2])
        return
    if sys.argv[1] == "views":
        views(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    if sys.argv[1] == "oncpu":
        oncpu(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    doc = json.load(open(sys.argv[1]))
    rounds = int(sys.argv[2])
    seen = {(site, leaf): 0 for leaf in LEAVES for site in ("OffCpu", "Syscall")}
    for st in doc["stacks"]:
        names = [fn(f) for f in st["frames"]]
        if not any(n in names for n in CHAIN[:2] + list(LEAVES)):
            continue  # the workload's set-up, the loader
        leaves = [n for n in names if n in LEAVES]
        if len(leaves) != 1:
            sys.exit("stack %d: the chain without its leaf (or with two): %s"
                     % (st["stack"], " <- ".join(names)))
        leaf = leaves[0]
        i = names.index(leaf)
        if names[i:i + 4] != [leaf] + CHAIN:
            sys.exit("stack %d: %s not called from main -> chain_a -> chain_b: %s"
                     % (st["stack"], leaf, " <- ".join(names)))
        if st["truncated"]:
            sys.exit("stack %d: truncated: %s" % (st["stack"], " <- ".join(names)))
        # the leaf's other calls may block too (leaf_fault's fadvise): the
        # intervals off the CPU counted are those of its cause; a syscall's
        # stack has no kernel frames
        kernel = [fn(k) for k in st["kernel"]]
        if st["site"] == "Syscall":
            if kernel:
                sys.exit("stack %d: a syscall's stack with kernel frames" % st["stack"])
            seen[("Syscall", leaf)] += st["count"]
        elif all(k in kernel for k in LEAVES[leaf]):
            seen[("OffCpu", leaf)] += st["count"]
    for (site, leaf), n in seen.items():
        if n < rounds:
            sys.exit("%s: %d %s spans with its stack%s, %d rounds"
                     % (leaf, n, site, " in " + " <- ".join(LEAVES[leaf])
                        if site == "OffCpu" else "", rounds))
    print("every chain named in order: " +
          ", ".join("%s %s %d" % (site, leaf, n) for (site, leaf), n in sorted(seen.items())))


main()
