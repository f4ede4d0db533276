#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of katra-replay compare and export on real captures (stdlib only).

usage: analysis_checks.py CHECK ARGS...   (see CHECKS at the bottom)

Traces are read as `katra-replay dump --jsonl` output.  A failed check prints
one line saying what differs and exits 1.
"""
import json
import sys

SYS_GETPPID = 110
LINK_SOURCES = {"Wakeup", "TaskFork", "TaskExec", "IoUringSubmit"}


class Fail(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


def load_jsonl(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    return lines[0], lines[1:]


def events(recs):
    return [r for r in recs if r["record"] == "Event"]


def nr_of(e):
    return e["payload"].get("nr")


# ---- compare ----

def check_compare_same(json_path):
    c = json.load(open(json_path))
    expect(c["equivalent"], f"two runs of the same workload differ: {c['threads']}")
    expect(c["structural_equal"] and c["causal_equal"], "a hash differs")
    expect(abs(c["equivalence_percent"] - 100.0) < 1e-9,
           f"equivalence {c['equivalence_percent']} %, not 100")
    expect(c["a"]["compared"] > 0, "nothing was compared")


def check_compare_extra(json_path, b_jsonl, n_reads, after):
    """B = A plus one pread after the `after`-th getppid: compare must name it."""
    n_reads, after = int(n_reads), int(after)
    c = json.load(open(json_path))
    expect(not c["equivalent"], "the run with one more pread compares equivalent")
    expect(not c["structural_equal"], "the structural hashes are equal")
    differ = [t for t in c["threads"] if t["differs"]]
    expect(len(differ) == 1, f"{len(differ)} threads differ, expected 1")
    t = differ[0]
    expect(c["b"]["compared"] == c["a"]["compared"] + 2,
           f"B compared {c['b']['compared']} events, A {c['a']['compared']}: expected 2 more")
    expect(t["matched"] == t["a"]["events"], f"matched {t['matched']} of {t['a']['events']}")
    want = 200.0 * c["a"]["compared"] / (c["a"]["compared"] + c["b"]["compared"])
    expect(abs(c["equivalence_percent"] - want) < 1e-3,
           f"equivalence {c['equivalence_percent']}, expected {want}")
    d = t["first_divergence"]
    a, b = d["a"], d["b"]
    expect(a and a["kind"] == "Syscall" and a["phase"] == "Begin" and a.get("nr") == SYS_GETPPID,
           f"A side of the divergence is {a}, expected getppid's Begin")
    expect(b and b["kind"] == "FileRead" and b["phase"] == "Begin" and b.get("nr") is None,
           f"B side of the divergence is {b}, expected a FileRead Begin")
    # in B, that event is the extra pread: after exactly n_reads preads and
    # `after` getppids of its thread
    _, recs = load_jsonl(b_jsonl)
    evs = events(recs)
    ev = next((e for e in evs if e["seq"] == b["seq"]), None)
    expect(ev is not None, f"B has no event with seq {b['seq']}")
    expect(ev["kind"] == "FileRead" and ev["phase"] == "Begin" and
           ev["payload"].get("offset") == 0 and ev["payload"].get("count") == 1,
           f"B's seq {b['seq']} is not the extra pread: {ev}")
    mine = [e for e in evs if e["thread_id"] == ev["thread_id"] and e["seq"] < ev["seq"]]
    # the workload's preads read 1 byte (ld.so's own preads read more)
    preads = sum(1 for e in mine if e["kind"] == "FileRead" and e["phase"] == "Begin" and
                 e["payload"].get("offset") is not None and e["payload"].get("count") == 1)
    getppids = sum(1 for e in mine if e["phase"] == "End" and nr_of(e) == SYS_GETPPID)
    expect(preads == n_reads, f"{preads} preads before the divergence, expected {n_reads}")
    expect(getppids == after, f"{getppids} getppids before the divergence, expected {after}")


# ---- export ----

def load_export(path):
    with open(path) as f:
        d = json.load(f)
    expect(isinstance(d.get("traceEvents"), list), "no traceEvents array")
    return d


def nesting(evs):
    """X slices of each thread nest (sorted as viewers sort: start, then longer first)."""
    by_thread = {}
    for e in evs:
        if e["ph"] == "X":
            by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    for key, xs in by_thread.items():
        xs.sort(key=lambda e: (round(e["ts"] * 1000), -round(e["dur"] * 1000)))
        stack = []
        for e in xs:
            b, en = round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)
            while stack and stack[-1][1] <= b and not (stack[-1][1] == b and en == b):
                stack.pop()
            if stack:
                expect(en <= stack[-1][1],
                       f"thread {key}: '{e['name']}' [{b}, {en}] ns crosses the end of "
                       f"'{stack[-1][2]}' [{stack[-1][0]}, {stack[-1][1]}]")
            stack.append((b, en, e["name"]))


def check_export(json_path, jsonl_path):
    d = load_export(json_path)
    evs = d["traceEvents"]
    header, recs = load_jsonl(jsonl_path)
    tev = events(recs)
    for e in evs:
        expect(e["ph"] in ("X", "i", "C", "M"), f"unexpected phase {e['ph']}")
        if e["ph"] != "M":
            expect(isinstance(e["ts"], (int, float)) and e["ts"] >= 0, f"bad ts in {e}")
        if e["ph"] == "X":
            expect(e["dur"] >= 0, f"negative dur in {e}")
    nesting(evs)
    # one slice per span of the trace (anchors and link sources are 0-length
    # extras), but for a dead thread's off-CPU time: its final switch-out and
    # the Inferred End after it are no slice (a dead thread is not off the
    # CPU), until a fork reuses the tid
    exited, after_exit = set(), 0
    for e in sorted(tev, key=lambda e: e["seq"]):
        if e["kind"] == "TaskFork":
            exited.discard(e["payload"].get("child_tid"))
        if e["kind"] == "OffCpu" and e["thread_id"] in exited:
            after_exit += e["phase"] == "End"
        elif e["kind"] == "TaskExit":
            exited.add(e["thread_id"])
    spans = sum(1 for e in tev if e["phase"] == "End") - after_exit
    expect(d.get("otherData", {}).get("events_after_exit", 0) >= after_exit,
           f"export left out {d.get('otherData', {}).get('events_after_exit')} events after "
           f"exit, the trace has {after_exit} off-CPU spans after one")
    xs = [e for e in evs if e["ph"] == "X" and e.get("cat") != "flow" and
          not (e.get("flow_out") and e["name"] in LINK_SOURCES)]
    expect(len(xs) == spans, f"{len(xs)} slices for {spans} spans")
    # off-CPU slices carry the reason of their Begin
    begins = {e["seq"]: e for e in tev if e["kind"] == "OffCpu" and e["phase"] == "Begin"}
    offcpu = [e for e in xs if e["name"].startswith("off-CPU")]
    expect(offcpu, "no off-CPU slice")
    for e in offcpu:
        st = begins[e["args"]["seq"]]["payload"]["prev_state"]
        want = "off-CPU: blocked" if st else "off-CPU: preempted"
        expect(e["name"] == want, f"seq {e['args']['seq']}: '{e['name']}', prev_state {st}")
    # every cause on another thread is an arrow, and every arrow has both ends
    by_seq = {e["seq"]: e for e in tev}
    cross = sum(1 for e in tev for c in e["causes"]
                if c in by_seq and by_seq[c]["thread_id"] != e["thread_id"])
    outs = {}
    for e in evs:
        if e.get("flow_out"):
            outs[e["bind_id"]] = e
    ins = [e for e in evs if e.get("flow_in")]
    expect(len(ins) == cross, f"{len(ins)} flow arrows for {cross} causes across threads")
    for e in ins:
        src = outs.get(e["bind_id"])
        expect(src is not None, f"flow_in {e['bind_id']} has no flow_out")
        expect(src["ts"] <= e["ts"], f"flow {e['bind_id']} goes back in time")
        expect((src["pid"], src["tid"]) != (e["pid"], e["tid"]),
               f"flow {e['bind_id']} stays on its thread")
    expect(cross > 0, "the demo has wakeups across threads, and no arrow was drawn")
    # names: every process with events has one
    named = {e["pid"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
    pids = {e["pid"] for e in evs if e["ph"] != "M"}
    expect(pids <= named, f"processes without a name: {sorted(pids - named)}")
    epochs = sum(1 for r in recs if r["record"] == "EpochMarker")
    glob = [e for e in evs if e["ph"] == "i" and e.get("s") == "g"]
    expect(len(glob) == epochs, f"{len(glob)} global instants for {epochs} epochs")
    other = d["otherData"]
    expect(other["flows_lost"] == 0 and other["span_table_full"] == 0,
           f"losses in otherData: {other}")


def check_export_pid(json_path, pid, recorder_pid):
    evs = load_export(json_path)["traceEvents"]
    pids = {e["pid"] for e in evs}
    expect(pids <= {int(pid), int(recorder_pid)}, f"--pid {pid} exported pids {sorted(pids)}")
    expect(any(e["ph"] == "X" and e["pid"] == int(pid) for e in evs), f"no slice of {pid}")


def check_export_window(json_path, from_s, to_s):
    lo, hi = float(from_s) * 1e6, float(to_s) * 1e6
    evs = load_export(json_path)["traceEvents"]
    xs = [e for e in evs if e["ph"] == "X"]
    expect(xs, "nothing in the window")
    for e in evs:
        if e["ph"] == "M":
            continue
        expect(lo - 1e-3 <= e["ts"] <= hi + 1e-3, f"{e['name']} at {e['ts']} us is outside")
        if e["ph"] == "X":
            expect(e["ts"] + e["dur"] <= hi + 1e-3, f"{e['name']} ends after --to")
    expect(any(e.get("args", {}).get("clipped") for e in xs), "no slice was cut at a bound")


CHECKS = {
    "compare_same": check_compare_same,
    "compare_extra": check_compare_extra,
    "export": check_export,
    "export_pid": check_export_pid,
    "export_window": check_export_window,
}


def main(argv):
    if len(argv) < 2 or argv[1] not in CHECKS:
        print(f"usage: {argv[0]} {{{','.join(CHECKS)}}} ARGS...", file=sys.stderr)
        return 2
    try:
        CHECKS[argv[1]](*argv[2:])
    except Fail as e:
        print(f"{argv[1]}: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
