#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The strace oracle: per thread and per syscall, katra-record's spans equal
what strace -f printed for the same run (the workload ran under strace inside
the capture).  usage: oracle_check.py TRACE.jsonl STRACE.txt"""
import collections
import json
import re
import sys

HDR = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"


def syscall_names():
    names = {}
    with open(HDR) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
            if m:
                names[int(m.group(2))] = m.group(1)
    return names


def strace_counts(path):
    counts = collections.defaultdict(collections.Counter)
    first = None
    for line in open(path):
        m = re.match(r"(\d+)\s+(.*)", line)
        if not m:
            continue
        tid, rest = int(m.group(1)), m.group(2)
        if rest.startswith(("<...", "+++", "---")):
            continue
        m = re.match(r"(\w+)\(", rest)
        if not m:
            continue
        if first is None:
            first = tid
        counts[tid][m.group(1)] += 1
    return first, counts


def katra_counts(path, names, main_tid):
    evs = [json.loads(l) for l in open(path)]
    evs = [e for e in evs if e.get("record") == "Event"]
    ends = {}
    for e in evs:
        if e["phase"] == "End" and e["span_id"] is not None:
            ends[(e["thread_id"], e["span_id"])] = e
    # the main thread's own calls start at the execve that strace's child made
    # (before it, that pid ran strace's set-up code, which strace does not show)
    start_seq = 0
    execs = [e["seq"] for e in evs if e["kind"] == "TaskExec" and e["thread_id"] == main_tid]
    if execs:
        begins = [e["seq"] for e in evs if e["thread_id"] == main_tid and e["kind"] == "Execve"
                  and e["phase"] == "Begin" and e["seq"] < execs[0]]
        start_seq = begins[-1] if begins else execs[0]
    counts = collections.defaultdict(collections.Counter)
    for e in evs:
        if e["phase"] != "Begin" or e["scope"] != "Linux" or e["kind"] in ("OffCpu", "PageFault"):
            continue
        if e["thread_id"] == main_tid and e["seq"] < start_seq:
            continue
        end = ends.get((e["thread_id"], e["span_id"]))
        name = end.get("syscall") if end else None
        if not name:
            p = end["payload"] if end and (end["payload"] or {}).get("type") == "SyscallReturn" \
                else e["payload"] or {}
            nr = p.get("nr")
            name = names.get(nr, "nr%s" % nr) if nr is not None else e["kind"].lower()
        counts[e["thread_id"]][name] += 1
    return counts


def main(argv):
    names = syscall_names()
    main_tid, sc = strace_counts(argv[2])
    if main_tid is None:
        print("strace printed no syscall")
        return 1
    kc = katra_counts(argv[1], names, main_tid)
    problems, total = [], 0
    for tid in sorted(sc):
        for name in sorted(set(sc[tid]) | set(kc.get(tid, {}))):
            s, k = sc[tid][name], kc.get(tid, collections.Counter())[name]
            total += s
            if s != k:
                problems.append("thread %d %s: strace %d, katra %d" % (tid, name, s, k))
    if problems:
        print("%d differences (of %d calls in %d threads): %s"
              % (len(problems), total, len(sc), "; ".join(problems[:12])))
        return 1
    print("%d syscalls in %d threads: katra-record and strace agree per thread and syscall"
          % (total, len(sc)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
