#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where a tracer's added wall time goes on `benchwl uring` (or another
single-thread benchwl kind): interleaved runs of several columns, each run
giving the loop's wall ms, the worker's switches in the loop (its getrusage),
the workload's CPU time (perf stat task-clock: wall - task-clock is the time
it was runnable or interrupted but not running), its migrations, the
interrupts during the loop (/proc/interrupts: CAL, RES, TLB, IWI, LOC per
CPU) and the tracer's threads' switches and CPU ticks.  With --sched, one
system-wide sched_switch record per run says how long each of the tracer's
threads ran on the workload's CPU while the workload waited there.

  bench/tools/uring_ab.py [--sched] [--kind uring] COLUMNS RUNS N
  COLUMNS: comma-separated, each untraced, floor-ringbuf (as bench.py loads
  it: one 4 MiB ring, drained every 1 ms), katra (build/katra-record) or
  NAME=BINARY[:ARG...] (another katra-record build, with its arguments), e.g.
  untraced,floor-ringbuf,main=/tmp/katra-record-main,katra; NAME=RING_BYTES
  or NAME=RING_BYTES:TICK_US with NAME floor-* (floor-ringbuf with another
  ring size or drain period, e.g. floor-32m=33554432:1000).  A column
  prefixed stop+ (stop+katra, stop+big=BINARY:--buffer-size:1G) has its
  tracer stopped (SIGSTOP, every thread) from live to the loop's end: the
  programs run with no consumer (rings large enough, or it loses records
  and its programs get cheaper), so that the workload's task-clock with and
  without the recorder's threads running can be compared

Root; run after `make` and `make -C bench`.  Timing on a shared machine:
note the load it prints and compare only interleaved columns."""
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench as Bn  # noqa: E402  (bench/bench.py: the tools and the workload)

SW_RE = re.compile(r'\s*\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:\s+prev_comm=(.*?) prev_pid=(\d+) '
                   r'prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)')


def irqs():
    out = {}
    with open('/proc/interrupts') as f:
        ncpu = len(f.readline().split())
        for ln in f:
            p = ln.split()
            if p[0].rstrip(':') in ('TLB', 'CAL', 'RES', 'LOC', 'IWI'):
                out[p[0].rstrip(':')] = [int(x) for x in p[1:1 + ncpu]]
    return out


def threads(pid):
    """tid -> (voluntary, involuntary switches, utime + stime ticks)"""
    got = {}
    for t in Bn.tids_of(pid):
        try:
            s = open(f'/proc/{pid}/task/{t}/status').read()
            st = open(f'/proc/{pid}/task/{t}/stat').read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        v = int(re.search(r'^voluntary_ctxt_switches:\s*(\d+)', s, re.M).group(1))
        nv = int(re.search(r'^nonvoluntary_ctxt_switches:\s*(\d+)', s, re.M).group(1))
        got[t] = (v, nv, int(st[11]) + int(st[12]))
    return got


def on_its_cpu(data, wl, tracer_tids):
    """From a sched_switch record: ms the workload was switched out while
    runnable, and per tracer thread the ms it ran on that CPU meanwhile."""
    txt = subprocess.run(['perf', 'script', '-i', data, '-F', 'cpu,time,event,trace'],
                         capture_output=True, text=True).stdout
    ran, since, out_cpu, t_out, off = collections.Counter(), {}, None, None, 0.0
    for ln in txt.splitlines():
        m = SW_RE.match(ln)
        if not m:
            continue
        cpu, t, _, prev, pstate, _, nxt = m.groups()
        t = float(t)
        if out_cpu == cpu and cpu in since and prev in tracer_tids:
            ran[prev] += (t - since[cpu]) * 1e3
        if prev == wl and pstate.startswith('R'):
            out_cpu, t_out = cpu, t
        since[cpu] = t
        if nxt == wl:
            off += (t - t_out) * 1e3 if t_out else 0
            out_cpu = t_out = None
    return off, dict(ran)


def one(col, kind, n, d, sched):
    stop = col.startswith('stop+')
    col = col[len('stop+'):] if stop else col
    gate = os.path.join(d, 'gate')
    wlo = open(os.path.join(d, 'wl.json'), 'w+')
    w = subprocess.Popen([Bn.WL, kind, '--gate', gate, str(n)], stdout=wlo,
                         stderr=subprocess.DEVNULL)
    Bn.wait_threads(w.pid, 1)
    name, p, tool = ('stop+' if stop else '') + col.split('=')[0], None, None
    if col != 'untraced':
        spec = col.split('=', 1)[1].split(':') if '=' in col else []
        if col.startswith('floor'):
            tool = Bn.Floor('floor-ringbuf' if spec else col, d, spec)
        else:
            tool = Bn.Katra(name, d, ['@' + spec[0]] + spec[1:] if spec else [])
        tool.cleanup()
        log = open(tool.log, 'w')
        p = subprocess.Popen(tool.argv(w.pid), stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        if not Bn.wait_for(lambda: tool.is_ready() or Bn.exited(p), 30) or Bn.exited(p):
            w.kill()
            sys.exit(f'uring_ab: {col} did not get live')
        time.sleep(0.2)
    pf = os.path.join(d, 'perf.txt')
    ps = subprocess.Popen(['perf', 'stat', '-x,', '-e', 'context-switches,cpu-migrations,task-clock',
                           '-p', str(w.pid), '-o', pf], stderr=subprocess.DEVNULL)
    if sched:
        sr = subprocess.Popen(['perf', 'record', '-q', '-a', '-e', 'sched:sched_switch', '-o',
                               os.path.join(d, 'sched.data')], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    time.sleep(0.05)
    if stop and p:
        os.killpg(p.pid, signal.SIGSTOP)
    t0, i0 = threads(p.pid) if p else {}, irqs()
    open(gate, 'w').close()
    w.wait()
    i1, t1 = irqs(), threads(p.pid) if p else {}
    if stop and p:
        os.killpg(p.pid, signal.SIGCONT)
    for q in ([ps, sr] if sched else [ps]):
        q.send_signal(signal.SIGINT)
        q.wait()
    wlo.seek(0)
    j = json.loads(wlo.read())
    wlo.close()
    os.unlink(gate)
    r = dict(col=name, ms=j['elapsed_ns'] / 1e6, sw=j['events']['sched_switch'])
    for ln in open(pf):
        q = ln.strip().split(',')
        if len(q) > 2 and q[2] in ('cpu-migrations', 'task-clock'):
            r[q[2]] = float(q[0]) if q[0].replace('.', '').isdigit() else None
    r['irq'] = {k: [b - a for a, b in zip(i0[k], i1[k])] for k in i1}
    r['thr'] = {t: tuple(b - a for a, b in zip(t0.get(t, (0, 0, 0)), v)) for t, v in t1.items()}
    if sched:
        r['off_ms'], r['ran_ms'] = on_its_cpu(os.path.join(d, 'sched.data'), str(w.pid), set(t1))
    if tool:
        tool.stop(p)
        p.wait()
        log.close()
        if isinstance(tool, Bn.Katra):
            s = json.load(open(tool.summary))
            r['lost'] = s.get('dropped')
            r['cpu_capture_ms'] = (s.get('cpu_ns_capture') or 0) / 1e6
        else:
            c = tool.count()
            r['lost'] = f"{c['lost']}/{c['recorded'] + c['lost']}" if c['lost'] is not None else None
        tool.cleanup()
    return r


def main():
    args = sys.argv[1:]
    sched = '--sched' in args
    args = [a for a in args if a != '--sched']
    kind = 'uring'
    if args[:1] == ['--kind']:
        kind, args = args[1], args[2:]
    if len(args) != 3:
        sys.exit(__doc__)
    cols, runs, n = args[0].split(','), int(args[1]), int(args[2])
    print('load', open('/proc/loadavg').read().strip(), time.strftime('%H:%M:%S'), flush=True)
    with tempfile.TemporaryDirectory(prefix='uring-ab-') as d:
        for i in range(runs):
            for c in cols:
                x = one(c, kind, n, d, sched)
                irq = ' '.join(f"{k}={'/'.join(map(str, v))}" for k, v in sorted(x['irq'].items())
                               if any(v))
                th = ' '.join(f'{t}:{v[0]}v{v[1]}i{v[2]}t' for t, v in sorted(x['thr'].items()))
                extra = ''
                if sched:
                    extra = f" off={x['off_ms']:.1f}ms tracer-there=" + \
                        ','.join(f'{t}:{v:.1f}' for t, v in sorted(x['ran_ms'].items()))
                print(f"{i} {x['col'][:19]:19s} {x['ms']:7.1f}ms sw={x['sw']} "
                      f"task-clock={x.get('task-clock') or 0:.1f}ms mig={x.get('cpu-migrations')} "
                      f"lost={x.get('lost')} rec-cpu={x.get('cpu_capture_ms', 0):.0f}ms{extra} | "
                      f"{irq} | {th}", flush=True)
    print('load', open('/proc/loadavg').read().strip(), time.strftime('%H:%M:%S'), flush=True)


if __name__ == '__main__':
    main()
