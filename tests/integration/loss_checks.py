#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of what a capture loses and counts (stdlib only): its end with
threads inside syscalls, and tables that must shrink.

usage: loss_checks.py CHECK ARGS...   (see CHECKS at the bottom)

Traces are read as `katra-replay dump --jsonl` output (ktrace.py's reader).
A failed check prints one line saying what differs and exits 1.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktrace  # noqa: E402
from ktrace import Trace, expect, short, workload_lines  # noqa: E402

SYS_READ = 0


def is_syscall_begin(e):
    return (e["scope"] == "Linux" and e["phase"] == "Begin"
            and e["kind"] not in ("OffCpu", "PageFault"))


# an End is a syscall's when its Begin is (an Inferred End has no payload)


def is_return(e):
    return (e["payload"] or {}).get("type") == "SyscallReturn"


def check_endblock(trace_path, wl_path):
    """Threads in syscalls at the capture's end: every syscall Begin has one
    End, each blocked thread exactly its one read (End Inferred), no exit
    without its enter after a thread's first syscall event, nothing lost."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    s = t.summary()
    expect(s["dropped_events"] == 0, "%d events lost (drops %s): the check needs none"
           % (s["dropped_events"], s["drops"]))
    evs = t.process(w["pid"])
    begins = {e["span_id"]: e for e in evs if is_syscall_begin(e)}
    ends = {}
    for e in evs:
        if e["phase"] == "End" and e["scope"] == "Linux" and e["kind"] not in ("OffCpu", "PageFault"):
            expect(e["span_id"] not in ends, "two Ends of span %d" % e["span_id"])
            ends[e["span_id"]] = e
    lone = [b for k, b in begins.items() if k not in ends]
    expect(not lone, "%d syscall Begins without their End, first: %s"
           % (len(lone), short(lone[0]) if lone else ""))
    stray = [e for k, e in ends.items() if k not in begins]
    expect(not stray, "%d syscall Ends without their Begin, first: %s"
           % (len(stray), short(stray[0]) if stray else ""))
    for tid in w["blockers"]:
        reads = [b for b in begins.values() if b["thread_id"] == tid
                 and b["payload"].get("nr", SYS_READ) == SYS_READ and b["kind"] == "FileRead"]
        expect(len(reads) == 1, "blocked thread %d: %d read Begins, expected 1" % (tid, len(reads)))
        end = ends[reads[0]["span_id"]]
        expect(end["confidence"] == "Inferred",
               "blocked thread %d: its read's End is %s, expected Inferred at the capture's end"
               % (tid, end["confidence"]))
    # an exit written without its enter is one in flight when the capture
    # started (a thread's first syscall event) or a Begin that vanished
    first = {}
    for e in evs:
        if is_syscall_begin(e) or is_return(e):
            first.setdefault(e["thread_id"], e["seq"])
    orphans = [e for e in evs if e["phase"] == "Instant" and is_return(e)
               and first.get(e["thread_id"]) != e["seq"]]
    expect(not orphans, "%d syscall exits without their enter (Begins that vanished), "
           "first: %s" % (len(orphans), short(orphans[0]) if orphans else ""))
    churn = sum(1 for b in begins.values() if b["thread_id"] in set(w["churners"]))
    expect(churn > 0, "no syscall of the looping threads recorded")
    return ("%d syscall spans, all closed; %d blocked reads ended Inferred; %d spans of the "
            "looping threads; no exit without its enter" % (len(begins), len(w["blockers"]), churn))


def check_shrink(trace_path, wl_path):
    """More processes, one after the other, than the process table holds:
    each one named (its ProcessInfo) and counted, no table full."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    s = t.summary()
    kids = [c["pid"] for c in w["children"]]
    expect(len(kids) == w["rounds"], "workload printed %d children for %d rounds"
           % (len(kids), w["rounds"]))
    expect(s["dropped_events"] == 0, "%d events or links lost (drops %s)"
           % (s["dropped_events"], s["drops"]))
    named = {e["resource"]["id"] for e in t.events if e["kind"] == "ProcessInfo"}
    unnamed = [p for p in kids if p not in named]
    expect(not unnamed, "%d of %d processes without a ProcessInfo, first %s"
           % (len(unnamed), len(kids), unnamed[:3]))
    expect(s["processes_seen"] == len(kids) + 1, "processes_seen %d, expected %d"
           % (s["processes_seen"], len(kids) + 1))
    return "%d processes one after the other, each named and counted, nothing lost" % len(kids)


def check_maxloss_links(trace_path, json_path, stderr_path):
    """Links lost, no event: the summary JSON keeps them apart and stderr
    names them links."""
    t = Trace(trace_path)
    s = t.summary()
    links = sum(d["count"] for d in s["drops"] if d["source"] == "KernelTable")
    expect(links > 0 and links == s["dropped_events"],
           "expected only KernelTable drops, got %s" % s["drops"])
    with open(json_path) as f:
        j = json.load(f)
    expect(j["dropped"] == s["dropped_events"], "summary json dropped %s, trace %d"
           % (j["dropped"], s["dropped_events"]))
    expect(j.get("events_lost") == 0 and j.get("links_lost") == links
           and j.get("runs_skipped") == 0,
           "summary json events_lost %s links_lost %s runs_skipped %s, expected 0, %d, 0"
           % (j.get("events_lost"), j.get("links_lost"), j.get("runs_skipped"), links))
    expect(j["loss_pct"] == 0, "loss_pct %s with no event lost" % j["loss_pct"])
    with open(stderr_path) as f:
        err = f.read()
    expect("events lost" not in err, "stderr says events lost: %s" % err.strip())
    expect("%d causal links lost" % links in err, "stderr does not say the %d links lost: %s"
           % (links, err.strip()))
    return "%d links lost, 0 events: --max-loss 0 passes, each counted as a link" % links


CHECKS = {
    "endblock": check_endblock,
    "shrink": check_shrink,
    "maxloss_links": check_maxloss_links,
}


if __name__ == "__main__":
    sys.exit(ktrace.main(sys.argv, CHECKS))
