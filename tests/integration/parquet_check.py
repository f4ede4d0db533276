#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks katra-replay export --parquet with DuckDB against katra-replay stats.

usage: parquet_check.py single DIR TRACE        one run: every table against stats
       parquet_check.py many DIR TRACE...       one SQL statement over all runs
       parquet_check.py frames DIR TRACE        frames per swapchain against stats --per-frame,
                                                cpu_ns against the trace's own intervals,
                                                gpu_ns against its GpuJobDone row
       parquet_check.py frame_path DIR TRACE    frame_path against report --frames --json
       parquet_check.py calls DIR TRACE         the calls table against stats --calls
Environment: REPLAY (katra-replay), DUCKDB_QUERY (tests/parquet/duckdb-query.mjs).
Counts, sums, minima and maxima must be equal; stats's p50/p99 are nearest
ranks reported as the middle of a log-linear bucket (user/replay/util/histo.c),
so the check takes DuckDB's exact nearest-rank value through the same bucket
and requires the same number."""
import json
import os
import subprocess
import sys

REPLAY = os.environ.get("REPLAY", "build/katra-replay")
QUERY = os.environ.get("DUCKDB_QUERY", "tests/parquet/duckdb-query.mjs")
SUB_BITS, SUB = 5, 32


def fail(msg):
    print("parquet_check: " + msg, file=sys.stderr)
    sys.exit(1)


def duck(*sqls):
    p = subprocess.run(["node", QUERY, *sqls], capture_output=True, text=True)
    if p.returncode:
        errs = [l for l in p.stderr.splitlines() if "Error" in l]
        fail("duckdb: " + (errs[0] if errs else p.stderr.strip()[-300:]))
    out, cur = [], []
    for line in p.stdout.splitlines():
        if line == "---":
            out.append(cur)
            cur = []
        else:
            cur.append(json.loads(line))
    return out


def stats(trace):
    p = subprocess.run([REPLAY, "stats", "--json", "--overview", "--syscalls", "--off-cpu",
                        "--calls", trace], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail("stats %s exited %d: %s" % (trace, p.returncode, p.stderr))
    return json.loads(p.stdout)


def bucket(v):
    """histo.c's bucket_of, bucket_range: (lo, width)"""
    if v < 2 * SUB:
        return v, 1
    e = v.bit_length() - 1
    shift = e - SUB_BITS
    b = 2 * SUB + (e - SUB_BITS - 1) * SUB + ((v >> shift) - SUB)
    e2 = (b - 2 * SUB) // SUB + SUB_BITS + 1
    sub = (b - 2 * SUB) % SUB
    width = 1 << (e2 - SUB_BITS)
    return (SUB + sub) << (e2 - SUB_BITS), width


def rank(count, permille):
    return count // 1000 * permille + (count % 1000 * permille + 999) // 1000


def as_stats(exact, mn, mx, count, permille):
    """What kr_histo_percentile reports when the nearest-rank value is exact."""
    r = rank(count, permille)
    if r <= 1:
        return mn
    if r >= count:
        return mx
    lo, width = bucket(exact)
    return min(max(lo + (width - 1) // 2, mn), mx)


def glob(d, table):
    return ("read_parquet('%s/%s/**/*.parquet', hive_partitioning = true, "
            "hive_types_autocast = false)" % (d, table))


def check_single(d, trace):
    st = stats(trace)
    runs, kinds, sysc, off, ranks, procs, thr = duck(
        "select * exclude (notes) from %s" % glob(d, "runs"),
        "select kind, count(*) n, sum(dur_ns) total, min(dur_ns) mn, max(dur_ns) mx "
        "from %s group by kind" % glob(d, "spans"),
        "select name, count(*) calls, count(*) filter (where error) errors, sum(dur_ns) total, "
        "max(dur_ns) mx from %s where is_syscall group by name" % glob(d, "spans"),
        "select o.tid, o.reason, o.state, s.name syscall, count(*) n, sum(o.dur_ns) total, "
        "max(o.dur_ns) mx from %s o left join %s s on s.run = o.run and s.tid = o.tid and "
        "s.span_id = o.syscall_span_id group by all" % (glob(d, "offcpu"), glob(d, "spans")),
        # the exact nearest-rank durations at p50 and p99, per kind
        "select kind, rn, dur_ns from (select kind, dur_ns, row_number() over (partition by "
        "kind order by dur_ns) rn, count(*) over (partition by kind) n from %s) where "
        "rn = greatest(1, ceil(n * 0.5)::bigint) or rn = greatest(1, ceil(n * 0.99)::bigint)"
        % glob(d, "spans"),
        "select pid, threads, events, name from %s" % glob(d, "processes"),
        "select pid, tid, events from %s" % glob(d, "threads"))
    if len(runs) != 1:
        fail("%d runs rows, want 1" % len(runs))
    run = runs[0]
    for k, v in st["labels"].items():
        if run.get(k) != v:
            fail("label %s: partition says %r, stats %r" % (k, run.get(k), v))
    for k in ("records", "events"):
        if int(run[k]) != st[k]:
            fail("runs.%s %s, stats %s" % (k, run[k], st[k]))
    # complete: read to its end, and it ends with its SessionSummary
    if run["complete"] != (st["complete"] and st["session_summary"]):
        fail("runs.complete %s, stats complete %s, session_summary %s" %
             (run["complete"], st["complete"], st["session_summary"]))
    sd = st["drops"]["summary_dropped_events"]
    if (None if run["summary_dropped_events"] is None else int(run["summary_dropped_events"])) != sd:
        fail("runs.summary_dropped_events %s, stats %s" % (run["summary_dropped_events"], sd))
    bk = st["spans"]["by_kind"]
    got = {r["kind"]: r for r in kinds}
    if set(got) != set(bk):
        fail("span kinds: parquet %s, stats %s" % (sorted(got), sorted(bk)))
    exact = {}
    for r in ranks:
        exact.setdefault(r["kind"], {})[int(r["rn"])] = int(r["dur_ns"])
    for k, s in bk.items():
        g = got[k]
        mine = (int(g["n"]), int(g["total"]), int(g["mn"]), int(g["mx"]))
        theirs = (s["count"], s["total_ns"], s["min_ns"], s["max_ns"])
        if mine != theirs:
            fail("spans %s: count/total/min/max %s, stats %s" % (k, mine, theirs))
        for pm, key in ((500, "p50_ns"), (990, "p99_ns")):
            r = max(1, rank(s["count"], pm))
            want = as_stats(exact[k][r], s["min_ns"], s["max_ns"], s["count"], pm)
            if want != s[key]:
                fail("spans %s %s: DuckDB's rank %d is %d -> %d, stats %d" %
                     (k, key, r, exact[k][r], want, s[key]))
    got = {r["name"]: r for r in sysc}
    rows = {r["syscall"]: r for r in st["syscalls"]["rows"]}
    if set(got) != set(rows):
        fail("syscall names: parquet %s, stats %s" % (sorted(got), sorted(rows)))
    for n, s in rows.items():
        g = got[n]
        mine = (int(g["calls"]), int(g["errors"]), int(g["total"]), int(g["mx"]))
        if mine != (s["calls"], s["errors"], s["total_ns"], s["max_ns"]):
            fail("syscall %s: %s, stats %s" % (n, mine, (s["calls"], s["errors"], s["total_ns"],
                                                          s["max_ns"])))
    want = {}
    for s in st["off_cpu"]:
        key = (s["thread_id"], s["reason"], s["state"], s["syscall"])
        want[key] = (s["count"], s["total_ns"], s["max_ns"])
    mine = {(int(r["tid"]), r["reason"], r["state"], r["syscall"]):
            (int(r["n"]), int(r["total"]), int(r["mx"])) for r in off}
    if mine != want:
        diff = set(mine.items()) ^ set(want.items())
        fail("off-CPU rows differ from stats --off-cpu: %s" % sorted(diff, key=str)[:6])
    (drops,) = duck("select origin, source, sum(count) as n, count(*) as rows from %s "
                    "group by all" % glob(d, "drops"))
    mine = {(r["origin"], r["source"]): int(r["n"]) for r in drops}
    want = {("summary", k): v for k, v in st["drops"]["summary_by_source"].items()}
    want.update({("event", k): v for k, v in st["drops"]["events_by_source"].items()})
    if mine != want:
        fail("drops: parquet %s, stats %s" % (sorted(mine.items()), sorted(want.items())))
    ev_rows = sum(int(r["rows"]) for r in drops if r["origin"] == "event")
    if ev_rows != st["drops"]["drop_events"] or int(run["drop_events"]) != ev_rows:
        fail("drop events: %d rows, runs.drop_events %s, stats %d" %
             (ev_rows, run["drop_events"], st["drops"]["drop_events"]))
    tp = {p["process_id"]: p for p in st["processes"]}
    if {int(p["pid"]): (int(p["threads"]), int(p["events"]), p["name"]) for p in procs} != \
            {k: (p["threads"], p["events"], p["name"]) for k, p in tp.items()}:
        fail("processes differ from stats")
    if {(int(t["pid"]), int(t["tid"])): int(t["events"]) for t in thr} != \
            {(t["process_id"], t["thread_id"]): t["events"] for t in st["threads"]}:
        fail("threads differ from stats")
    print("ok: %d span kinds, %d syscalls, %d off-CPU rows, %d processes, %d threads, "
          "losses %s" % (len(bk), len(rows), len(off), len(procs), len(thr),
                         run["summary_dropped_events"]))


def check_many(d, traces):
    # one statement across every run: per build and run, spans and their time
    (rows,) = duck(
        "select r.build, r.seq, r.run, r.trace, r.events, r.summary_dropped_events, "
        "count(s.dur_ns) spans, coalesce(sum(s.dur_ns), 0) total, "
        "count(*) filter (where s.kind = 'FileRead') reads "
        "from %s r left join %s s using (run) group by all" % (glob(d, "runs"), glob(d, "spans")))
    if len(rows) != len(traces):
        fail("%d runs in the answer, want %d" % (len(rows), len(traces)))
    by_trace = {r["trace"]: r for r in rows}
    for t in traces:
        st = stats(t)
        r = by_trace.get(t)
        if not r:
            fail("%s: not in the answer" % t)
        if r["build"] != st["labels"]["build"] or r["seq"] != st["labels"]["seq"]:
            fail("%s: labels %s/%s, stats %s" % (t, r["build"], r["seq"], st["labels"]))
        bk = st["spans"]["by_kind"]
        want = (st["events"], sum(v["count"] for v in bk.values()),
                sum(v["total_ns"] for v in bk.values()), bk.get("FileRead", {}).get("count", 0),
                st["drops"]["summary_dropped_events"])
        mine = (int(r["events"]), int(r["spans"]), int(r["total"]), int(r["reads"]),
                None if r["summary_dropped_events"] is None else int(r["summary_dropped_events"]))
        if mine != want:
            fail("%s: events/spans/total/reads/dropped %s, stats %s" % (t, mine, want))
    print("ok: %d runs, one query" % len(rows))



def check_calls(d, trace):
    rows = stats(trace)["calls"]["rows"]
    (got,) = duck("select layer, name, count(*) n, count(*) filter (where error) errors, "
                  "sum(dur_ns) total, max(dur_ns) mx from %s group by all" % glob(d, "calls"))
    mine = {(r["layer"], r["name"]): (int(r["n"]), int(r["errors"]), int(r["total"]), int(r["mx"]))
            for r in got}
    want = {(r["layer"], r["name"]): (r["calls"], r["errors"], r["total_ns"], r["max_ns"])
            for r in rows}
    if mine != want or not want:
        fail("calls: parquet %s, stats %s" % (sorted(mine.items()), sorted(want.items())))
    print("ok: %d call names: %s" % (len(want), ", ".join(sorted(n for _, n in want))))


def check_frames(d, trace):
    p = subprocess.run([REPLAY, "stats", "--json", "--per-frame", trace], capture_output=True,
                       text=True)
    if p.returncode:
        fail("stats --per-frame exited %d: %s" % (p.returncode, p.stderr))
    tracks = json.loads(p.stdout)["per_frame"]["tracks"]
    rows, ranks = duck(
        "select pid, swapchain, count(*) n, max(frame_ns) mx "
        "from %s group by all" % glob(d, "frames"),
        # stats --per-frame's ranks: k = ceil(n * pct / 100), exact
        "select pid, swapchain, rn, frame_ns from (select pid, swapchain, frame_ns, "
        "row_number() over (partition by pid, swapchain order by frame_ns) rn, "
        "count(*) over (partition by pid, swapchain) n from %s) where "
        "rn = greatest(1, ceil(n * 50 / 100)::bigint) or rn = greatest(1, ceil(n * 99 / 100)::bigint)"
        % glob(d, "frames"))
    got = {(int(r["pid"]), int(r["swapchain"])): r for r in rows}
    exact = {}
    for r in ranks:
        exact.setdefault((int(r["pid"]), int(r["swapchain"])), {})[int(r["rn"])] = int(r["frame_ns"])
    want = {(t["process_id"], int(t["swapchain"], 16)): t for t in tracks if t["frames"]}
    if set(got) != set(want):
        fail("frame tracks: parquet %s, stats %s" % (sorted(got), sorted(want)))
    for k, t in want.items():
        g, n = got[k], t["frames"]
        ft = t["frame_time_ns"]
        if int(g["n"]) != n:
            fail("frames of %s: %s, stats %d" % (k, g["n"], n))
        mine = (int(g["n"]), exact[k][max(1, (n * 50 + 99) // 100)],
                exact[k][max(1, (n * 99 + 99) // 100)], int(g["mx"]))
        if mine != (n, ft["p50"], ft["p99"], ft["max"]):
            fail("frames of %s: count/p50/p99/max %s, stats %s" %
                 (k, mine, (n, ft["p50"], ft["p99"], ft["max"])))
    check_frame_gpu(d, tracks)
    check_frame_cpu(d, trace)
    print("ok: %d swapchains, %s frames" % (len(want), [t["frames"] for t in want.values()]))


def check_frame_gpu(d, tracks):
    """gpu_ns: per track, the frames with one, their sum and maximum equal
    stats --per-frame's GpuJobDone row (frames_seen, total_ns, max); none
    where the row is absent (no GPU jobs in the trace)."""
    (rows,) = duck("select pid, swapchain, count(gpu_ns) n, coalesce(sum(gpu_ns), 0) s, "
                   "coalesce(max(gpu_ns), 0) mx from %s group by all" % glob(d, "frames"))
    got = {(int(r["pid"]), int(r["swapchain"])): (int(r["n"]), int(r["s"]), int(r["mx"]))
           for r in rows}
    for t in tracks:
        if not t["frames"]:
            continue
        k = (t["process_id"], int(t["swapchain"], 16))
        job = [r for r in t["rows"] if r["layer"] == "gpu" and r["kind"] == "GpuJobDone"]
        want = (0, 0, 0)
        if job:
            want = (job[0]["frames_seen"], job[0]["total_ns"], job[0]["time_per_frame_ns"]["max"])
        if got.get(k, (0, 0, 0)) != want:
            fail("frames of %s: gpu_ns count/sum/max %s, stats --per-frame %s" %
                 (k, got.get(k), want))


def check_frame_path(d, trace):
    """frame_path against report --frames --json (every frame listed: --top
    100 with at most 100 frames): per frame, the rows add up to the critical
    path's length_ns, per layer to by_type_ns, per thread to by_thread
    (other_threads_ns: the rest), exactly."""
    p = subprocess.run([REPLAY, "report", "--frames", "--json", "--top", "100", trace],
                       capture_output=True, text=True)
    if p.returncode:
        fail("report --frames exited %d: %s" % (p.returncode, p.stderr))
    fr = json.loads(p.stdout)["frames"]
    (rows,) = duck("select pid, swapchain, frame, tid, layer, sum(ns) ns from %s "
                   "group by all" % glob(d, "frame_path"))
    got = {}
    for r in rows:
        got.setdefault(int(r["frame"]), []).append(r)
    if fr["frames"] > 100:
        fail("report lists only 100 of %d frames" % fr["frames"])
    want = {s["frame"]: s["critical_path"] for s in fr["slowest"] if s["critical_path"]}
    if not want or set(got) != set(want):
        fail("frame_path frames %s, report --frames's %s" % (sorted(got), sorted(want)))
    track = fr["track"]
    for n, cp in want.items():
        rs = got[n]
        if any((int(r["pid"]), int(r["swapchain"])) != (track["pid"], int(track["swapchain"], 16))
               for r in rs):
            fail("frame %d: rows of another track: %s" % (n, rs[:2]))
        total = sum(int(r["ns"]) for r in rs)
        if total != cp["length_ns"]:
            fail("frame %d: frame_path sum %d, critical path length_ns %d" % (n, total, cp["length_ns"]))
        layers = {}
        for r in rs:
            layers[r["layer"]] = layers.get(r["layer"], 0) + int(r["ns"])
        if {k: v for k, v in cp["by_type_ns"].items() if v} != {k: v for k, v in layers.items() if v}:
            fail("frame %d: per layer %s, report %s" % (n, layers, cp["by_type_ns"]))
        threads = {}
        for r in rs:
            threads[int(r["tid"])] = threads.get(int(r["tid"]), 0) + int(r["ns"])
        listed = {t["tid"]: t["ns"] for t in cp["by_thread"]}
        if any(threads.get(t) != v for t, v in listed.items()) or \
                sum(v for t, v in threads.items() if t not in listed) != cp["other_threads_ns"]:
            fail("frame %d: per thread %s, report %s + others %d" %
                 (n, threads, listed, cp["other_threads_ns"]))
    print("ok: frame_path of %d frames equals report --frames" % len(want))


def check_frame_cpu(d, trace):
    """cpu_ns by intervals: each thread of the process alive from its first
    event to its TaskExit, less its OffCpu spans (an unended one: to the
    end), intersected with the frame; summed over the threads."""
    p = subprocess.run([REPLAY, "dump", "--jsonl", trace], capture_output=True, text=True)
    first, pid_of, exits, offs, open_off = {}, {}, {}, {}, {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        if r.get("record") != "Event":
            continue
        tid, ts = r["thread_id"], int(r["ts_mono_ns"])
        if tid not in first:
            first[tid], pid_of[tid] = ts, r["process_id"]
        if r["kind"] == "OffCpu" and r["phase"] == "Begin":
            open_off[tid] = ts
        elif r["kind"] == "OffCpu" and r["phase"] == "End" and tid in open_off:
            offs.setdefault(tid, []).append((open_off.pop(tid), ts))
        elif r["kind"] == "TaskExit" and tid not in exits:
            exits[tid] = ts
    big = 1 << 62
    for tid, b in open_off.items():
        offs.setdefault(tid, []).append((b, big))
    (rows,) = duck("select pid, frame, start_ns, end_ns, cpu_ns from %s" % glob(d, "frames"))
    if not rows or any(r["cpu_ns"] is None for r in rows):
        fail("frames: cpu_ns missing: %s" % rows[:3])
    for r in rows:
        pid, a, b = int(r["pid"]), int(r["start_ns"]), int(r["end_ns"])
        cpu = 0
        for tid, f in first.items():
            if pid_of[tid] != pid:
                continue
            lo, hi = max(a, f), min(b, exits.get(tid, big))
            if hi <= lo:
                continue
            on = hi - lo
            for ob, oe in offs.get(tid, []):
                on -= max(0, min(hi, oe) - max(lo, ob))
            cpu += max(on, 0)
        if cpu != int(r["cpu_ns"]):
            fail("frame %s: cpu_ns %s, by the trace's intervals %d" % (r["frame"], r["cpu_ns"], cpu))
        if cpu > (b - a) * len([t for t in first if pid_of[t] == pid]):
            fail("frame %s: cpu_ns %d above the frame times the threads" % (r["frame"], cpu))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "single":
        check_single(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "calls":
        check_calls(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "frames":
        check_frames(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "frame_path":
        check_frame_path(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "many":
        check_many(sys.argv[2], sys.argv[3:])
    else:
        fail(__doc__)
