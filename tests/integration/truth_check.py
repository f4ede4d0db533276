#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks that a trace holds no event that did not happen:
interrupt wakers, uprobe trampoline syscalls, refused page faults, enters of
blocked syscalls on a shared CPU.  Each compares with the workload's own
count.  usage: truth_check.py CHECK TRACE.jsonl WORKLOAD.out [ARGS...]"""
import sys

from ktrace import Trace, expect, short, spans, workload_lines

SYS_READ, SYS_WRITE, SYS_GETPPID, SYS_URETPROBE = 0, 1, 110, 335
NO_SYSCALL = 0xffffffff  # orig_ax -1: the uretprobe trampoline's exit (6.11)


def wakeups_of(t, tid):
    return [e for e in t.events if e["kind"] == "Wakeup"
            and e["payload"].get("target_tid") == tid]


def check_irqwake(trace_path, wl_path):
    """K sleeps, each ended by one wakeup, every one from thread 0."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    k, sleeper, spinner = w["k"], w["sleeper"], w["spinner"]
    expect(not t.summary()["dropped_events"], "%d events lost" % t.summary()["dropped_events"])
    sleeps = spans(t, t.thread(sleeper), "Sleep")
    expect(len(sleeps) == k, "%d Sleep spans on the sleeper, expected %d" % (len(sleeps), k))
    # the wakeups inside each sleep (others, outside: its creation, glibc's
    # start-up lock for a thread created with an affinity)
    wk = wakeups_of(t, sleeper)
    blamed, counts = {}, []
    for b, e in sleeps:
        inside = [x for x in wk if b["seq"] < x["seq"] < e["seq"]]
        counts.append(len(inside))
        for x in inside:
            if x["thread_id"] != 0:
                blamed[x["thread_id"]] = blamed.get(x["thread_id"], 0) + 1
    expect(not blamed, "wakeups ending the sleeps name a waker %s (the spinner is %d)"
           % (blamed, spinner))
    two = [i for i, n in enumerate(counts) if n > 1]
    expect(not two, "%d of the %d sleeps ended by more than one wakeup (sleep %d)"
           % (len(two), k, two[0] if two else 0))
    # Every sleep ends by exactly one wakeup.  On this machine kind there is
    # a class of threads in whose context the kernel runs no tracepoint probe
    # (seen with ftrace: none of their syscalls or switch-outs is traced), so
    # a timer that expires while one of them is current is not seen: the
    # recorder writes that wakeup Inferred, from thread 0, at the sleeper's
    # switch-in.
    none = counts.count(0)
    expect(not none, "%d of the %d sleeps have no wakeup (sleep %d)"
           % (none, k, counts.index(0) if none else 0))
    inferred = [x for x in wk if x["confidence"] == "Inferred"]
    for x in inferred:
        expect(x["thread_id"] == 0 and x["payload"]["target_tid"] == sleeper,
               "inferred wakeup %s" % short(x))
    expect(len(inferred) * 10 <= k, "%d of the %d wakeups inferred: most of the timers unseen"
           % (len(inferred), k))
    # each one seen says it came from an interrupt: no process is named
    seen = [x for b, e in sleeps for x in wk
            if b["seq"] < x["seq"] < e["seq"] and x["confidence"] != "Inferred"]
    want = {"type": "WakeupOutside", "waker_pid": 0, "waker_tid": 0, "waker_comm": "",
            "context": "Interrupt"}
    for x in seen:
        got = {f: x["payload"].get(f) for f in want}
        expect(got == want, "timer wakeup not written as an interrupt's: %s" % short(x))
    return ("%d sleeps, each ended by one timer wakeup from thread 0 (%d inferred: not seen; "
            "%d WakeupOutside, context Interrupt)" % (k, len(inferred), len(seen)))

def check_outwake(trace_path, wl_path, waker_path):
    """K reads woken by an untraced process: K WakeupOutside naming it."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    wk = workload_lines(waker_path)[0]
    k, tid = w["k"], w["tid"]
    expect(not t.summary()["dropped_events"], "%d events lost" % t.summary()["dropped_events"])
    reads = [b for b, e in spans(t, t.thread(tid), "FileRead")]
    expect(len(reads) == k, "%d reads on the reader, expected %d" % (len(reads), k))
    want = {"type": "WakeupOutside", "target_tid": tid, "target_pid": w["pid"],
            "waker_pid": wk["pid"], "waker_tid": wk["tid"], "waker_comm": wk["comm"],
            "context": "Task"}
    mine = [x for x in wakeups_of(t, tid) if x["payload"].get("waker_pid") == wk["pid"]]
    expect(len(mine) == k, "%d wakeups name the waker (pid %d), expected %d"
           % (len(mine), wk["pid"], k))
    for x in mine:
        got = {f: x["payload"].get(f) for f in want}
        expect(got == want and x["thread_id"] == 0 and x["process_id"] == 0
               and x["confidence"] == "Measured", "wakeup %s, expected %s on thread 0"
               % (short(x), want))
    return "%d reads, each woken by %s (pid %d), named in %d WakeupOutside" % (
        k, wk["comm"], wk["pid"], len(mine))


def check_uprobed(trace_path, wl_path):
    """N uprobed calls between N getppid: no trampoline syscalls, exact counts."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    n, tid = w["n"], w["tid"]
    evs = t.process(w["pid"])
    fake = [e for e in evs if e["payload"].get("nr") in (SYS_URETPROBE, NO_SYSCALL)
            and e["payload"].get("type") in ("Syscall", "SyscallReturn")]
    expect(not fake, "%d trampoline syscall events (nr 335 / 4294967295): %s"
           % (len(fake), short(fake[0]) if fake else ""))
    mine = t.thread(tid)
    reads = [b for b, e in spans(t, mine, "NtReadFile")]
    expect(len(reads) == n, "%d NtReadFile spans, expected %d (the uprobes did not fire?)"
           % (len(reads), n))
    gp = [(b, e) for b, e in spans(t, mine, "Syscall")
          if b["payload"] == {"type": "Syscall", "nr": SYS_GETPPID}]
    expect(len(gp) == n, "%d getppid spans, expected %d" % (len(gp), n))
    for b, e in gp:
        expect(e["payload"] == {"type": "SyscallReturn", "nr": SYS_GETPPID, "ret": w["ppid"]},
               "getppid End payload %s" % e["payload"])
    odd = [e for e in mine if e["kind"] == "Syscall" and e["phase"] == "Instant"]
    expect(not odd, "%d Syscall Instants on the thread: %s"
           % (len(odd), short(odd[0]) if odd else ""))
    return "%d NtReadFile + %d getppid spans, no trampoline syscall" % (n, n)


def check_blockring(trace_path, wl_path):
    """K blocking reads and K writes per thread, each a Begin/End pair."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    k = w["k"]
    for tid, fd in zip(w["tids"], w["fds"]):
        evs = t.thread(tid)
        lone = [e for e in evs if e["kind"] in ("FileRead", "FileWrite")
                and e["phase"] == "Instant"]
        expect(not lone, "thread %d: %d reads/writes without their Begin: %s"
               % (tid, len(lone), short(lone[0]) if lone else ""))
        reads = [(b, e) for b, e in spans(t, evs, "FileRead")
                 if b["payload"].get("fd") == fd and e["payload"].get("nr") == SYS_READ]
        expect(len(reads) == k, "thread %d: %d read spans on fd %d, expected %d"
               % (tid, len(reads), fd, k))
        writes = [(b, e) for b, e in spans(t, evs, "FileWrite")
                  if e["payload"].get("nr") == SYS_WRITE]
        expect(len(writes) == k, "thread %d: %d write spans, expected %d"
               % (tid, len(writes), k))
    return "%d threads on one CPU: %d read + %d write spans each" % (len(w["tids"]), k, k)


def check_refused(trace_path, wl_path):
    """N refused faults between N+1 getppid, in order, each an instant at
    its own time; M ordinary faults, none longer than the measured part."""
    t = Trace(trace_path)
    w = workload_lines(wl_path)[0]
    n, m, ro, lo, hi = w["n"], w["m"], w["ro"], w["start"], w["end"]
    order, ordinary, opened = [], 0, {}
    for e in t.thread(w["tid"]):
        if e["kind"] == "Syscall" and e["phase"] == "Begin" \
                and e["payload"] == {"type": "Syscall", "nr": SYS_GETPPID}:
            order.append("G")
        elif e["kind"] == "PageFault" and e["payload"]["address"] == ro:
            expect(e["phase"] == "Instant", "a refused fault as a %s: %s" % (e["phase"], short(e)))
            order.append("F")
        elif e["kind"] == "PageFault" and lo <= e["payload"]["address"] < hi:
            if e["phase"] in ("Begin", "Instant"):
                ordinary += 1
            if e["phase"] == "Begin":
                opened[e["span_id"]] = e
            elif e["phase"] == "End":
                b = opened.pop(e["span_id"], None)
                expect(b is not None, "a PageFault End without its Begin: %s" % short(e))
                d = e["ts_mono_ns"] - b["ts_mono_ns"]
                expect(d <= w["loop_ns"], "a PageFault span of %d ns, the whole loop took %d ns: %s"
                       % (d, w["loop_ns"], short(b)))
    want = "GF" * n + "G"
    got = "".join(order)
    expect(got == want, "getppid (G) and refused faults (F) in time order: %d G, %d F, first "
           "difference at %d: %s" % (got.count("G"), got.count("F"),
                                     next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                                          min(len(got), len(want))), got[:60]))
    expect(ordinary == m, "%d ordinary faults in the mapping, expected %d" % (ordinary, m))
    expect(not opened, "%d ordinary faults without their End" % len(opened))
    return "%d refused faults in place between %d getppid, %d ordinary faults" % (n, n + 1, m)


CHECKS = {
    "irqwake": check_irqwake,
    "outwake": check_outwake,
    "uprobed": check_uprobed,
    "blockring": check_blockring,
    "refused": check_refused,
}



if __name__ == "__main__":
    # ktrace.py's runner, with these checks beside its own
    import ktrace
    ktrace.CHECKS.update(CHECKS)
    sys.exit(ktrace.main(sys.argv))
