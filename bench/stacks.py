#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The cost of call stacks (part of `make bench`): `benchwl pingpong N` (two
threads handing a byte over pipes, a voluntary switch per read) timed by
itself, medians of RUNS interleaved runs, under:

  untraced            no tracer
  katra               katra-record (no stacks)
  katra-stacks        katra-record --stacks (every switch-out copies registers,
                      kernel stack id and 16 KiB of user stack; off-CPU
                      intervals of 1 ms or more are written and unwound later)
  katra-stacks-99hz   the same with --sample-hz 99
  perf-dwarf-switch   perf record -e sched:sched_switch --call-graph dwarf,16384
                      (a user stack copy at every switch: the same stacks)
  perf-dwarf-99hz     perf record -e cpu-clock -F 99 --call-graph dwarf,16384

Each column's added ns per round = (its loop time - untraced) / N.
usage: bench/stacks.py [--quick] [--runs R] [--rounds N]   (root; figures
also in bench/results/stacks-latest.json)"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC = os.path.join(ROOT, "build/katra-record")
WL = os.path.join(ROOT, "build/bench/benchwl")


def columns(out):
    rec = [REC, "-q", "--force", "-o", os.path.join(out, "t.ktrc")]
    perf = ["perf", "record", "-q", "-o", os.path.join(out, "perf.data")]
    return {
        "untraced": [],
        "katra": rec + ["--"],
        "katra-stacks": rec + ["--stacks", "--"],
        "katra-stacks-99hz": rec + ["--stacks", "--sample-hz", "99", "--"],
        "perf-dwarf-switch": perf + ["-e", "sched:sched_switch", "--call-graph",
                                     "dwarf,16384", "--"],
        "perf-dwarf-99hz": perf + ["-e", "cpu-clock", "-F", "99", "--call-graph",
                                   "dwarf,16384", "--"],
    }


def one(cmd, rounds):
    """the workload's own loop time (ns) under cmd, or None"""
    p = subprocess.run(cmd + [WL, "pingpong", str(rounds)], capture_output=True, text=True,
                       timeout=300)
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)["elapsed_ns"]
    sys.stderr.write("bench/stacks.py: %s: exit %d: %s\n"
                     % (" ".join(cmd[:3]) or "untraced", p.returncode, p.stderr[-300:]))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--rounds", type=int)
    a = ap.parse_args()
    runs = a.runs or (3 if a.quick else 7)
    rounds = a.rounds or (2000 if a.quick else 20000)
    if os.geteuid():
        sys.exit("bench/stacks.py: needs root (BPF, perf)")
    out = tempfile.mkdtemp(prefix="katra-bench-stacks.")
    try:
        cols = columns(out)
        if not shutil.which("perf"):
            cols = {k: v for k, v in cols.items() if not k.startswith("perf")}
        got = {k: [] for k in cols}
        for _ in range(runs):  # interleaved: the load's drift hits every column
            for name, cmd in cols.items():
                ns = one(cmd, rounds)
                if ns is not None:
                    got[name].append(ns)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    base = statistics.median(got["untraced"]) if got["untraced"] else None
    res = {"workload": "benchwl pingpong %d" % rounds, "runs": runs, "columns": {}}
    print("\n### call stacks: benchwl pingpong %d, medians of %d runs\n" % (rounds, runs))
    print("| column | loop ms (median) | min-max ms | added ns / round |")
    print("|---|---|---|---|")
    for name, v in got.items():
        if not v:
            print("| %s | failed | | |" % name)
            continue
        med = statistics.median(v)
        added = (med - base) / rounds if base is not None else None
        res["columns"][name] = {"median_ns": med, "runs_ns": v, "added_ns_per_round": added}
        print("| %s | %.1f | %.1f-%.1f | %s |" % (name, med / 1e6, min(v) / 1e6, max(v) / 1e6,
                                             "%.0f" % added if added is not None else "?"))
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench/results/stacks-latest.json"), "w") as f:
        json.dump(res, f, indent=1)


main()
