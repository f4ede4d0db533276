#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""katra-record benchmark driver: workloads x tracers, interleaved runs.

One "event" is one tracepoint hit of the workload's ground truth (a syscall
is two: sys_enter and sys_exit).  Every tracer is started on a workload that
waits at a gate; the gate opens once the tracer is live, so only the loop is
timed (the workload times it itself).  See bench/README.md.
"""
import argparse
import collections
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, 'build')
WL = os.path.join(B, 'bench', 'benchwl')
TRACEFS = '/sys/kernel/tracing'

# name: (benchwl args, full size (~1 s untraced), single-threaded)
WORKLOADS = {
    'sys1': (['sys'], 1600000, True),
    'sys2': (['sys', '--threads', '2'], 450000, False),
    'pingpong': (['pingpong'], 200000, False),
    'pagefault': (['pagefault'], 500000, True),
    'uring': (['uring'], 1000000, True),
    # the loss storm: 4 threads x 400,000 getppid at once
    'storm': (['storm', '--threads', '4'], 400000, False),
}
# the storm compares loss side by side: the recorders only
STORM_COLUMNS = {'untraced', 'katra-record', 'trace-cmd', 'perf'}
# threads per workload (the driver waits for them before starting a tracer)
THREADS = {'sys2': 2, 'pingpong': 2, 'storm': 4}
TPS = ['raw_syscalls:sys_enter', 'raw_syscalls:sys_exit', 'sched:sched_switch',
       'sched:sched_waking', 'sched:sched_wakeup_new', 'sched:sched_process_fork',
       'sched:sched_process_exec', 'sched:sched_process_exit', 'exceptions:page_fault_user',
       'io_uring:io_uring_create', 'io_uring:io_uring_submit_req', 'io_uring:io_uring_complete']
# the game workload (bench/workloads/gameloop.c): a 60 Hz frame loop
GL = os.path.join(B, 'bench', 'gameloop')
# floor-noop: what attaching alone costs (the floor under any -e selection)
GAME_COLUMNS = ['untraced', 'katra-record', 'trace-cmd', 'perf', 'bpftrace', 'floor-ringbuf',
                'floor-noop']
GAME_WORKERS = 4
GAME_SEED = 1
# KiB hashed per job: at 8 about half of the workload's CPU time is in the
# kernel (syscalls, faults: 1.0 of 2.0 ms a frame untraced, its getrusage), so
# the tracers' cost stands out of the VM's run-to-run noise; at 32 the hashing
# hid it
GAME_JOB_KIB = 8
# seconds per run: (60 Hz capped, uncapped)
GAME_SECONDS = {'full': (6.0, 3.0), 'quick': (3.0, 1.0)}
# repetitions of the game: the frame figures of one run move by ~10 % with the
# VM's neighbours, so many short interleaved runs (--runs overrides)
GAME_RUNS = {'full': 12, 'quick': 3}
# the uncapped fps figure moves less: fewer, shorter runs
GAME_UNCAPPED_RUNS = {'full': 5, 'quick': 3}
TIMELINE_BIN_NS = 100_000_000
COLUMNS = ['untraced', 'floor-noop', 'floor-clock', 'floor-ringbuf', 'katra-record', 'trace-cmd',
           'perf', 'bpftrace', 'strace']
STRACE_SCALE = 100  # strace runs sys1 only, at 1/100 of its size
# bpftrace's per-event printf costs ~10 us: it runs at 1/10 of each size
SCALE = {'strace': 1 / STRACE_SCALE, 'bpftrace': 0.1}


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True,
                              timeout=120).stdout.strip()
    except Exception:  # noqa: BLE001 - a version string is best effort
        return ''


def stop_or_kill(tool, p):
    """Waits for a tracer told to stop: a SIGINT that came before its
    handler or its poll loop was set is lost (seen: bpftrace asleep in
    epoll_wait after its READY), so it is repeated every 10 s, and a tracer
    still running after a minute is killed (its cell then says why)."""
    for _ in range(6):
        if wait_for(lambda: exited(p), 10):
            p.wait()
            return
        print(f'{type(tool).__name__}: still running 10 s after SIGINT, sent again',
              file=sys.stderr)
        p.send_signal(signal.SIGINT)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()


def wait_for(pred, timeout):
    t_end = time.monotonic() + timeout
    while time.monotonic() < t_end:
        if pred():
            return True
        time.sleep(0.002)
    return False


def exited(proc):
    """Has proc exited?  Never reaps it: wait4 below needs its rusage."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def file_has(path, pat):
    try:
        with open(path, errors='replace') as f:
            return pat in f.read()
    except OSError:
        return False


def reset_tracefs():
    """trace-cmd -k leaves its events and pid filter in place."""
    for rel, val in (('events/enable', '0'), ('set_event_pid', ''), ('tracing_on', '1')):
        try:
            with open(os.path.join(TRACEFS, rel), 'w') as f:
                f.write(val + '\n')
        except OSError:
            pass


class Tool:
    """How to start one tracer on PID, know it is live, stop it and count."""

    def __init__(self, name, d, extra=()):
        self.name, self.d, self.extra = name, d, list(extra)
        stem = re.sub(r'[^A-Za-z0-9_.-]', '_', name)
        self.out = os.path.join(d, stem + '.out')
        self.log = os.path.join(d, stem + '.log')
        self.ready = os.path.join(d, stem + '.ready')

    def argv(self, pid):
        raise NotImplementedError

    def is_ready(self):
        return os.path.exists(self.ready)

    def stop(self, proc):
        if not exited(proc):  # trace-cmd -P stops by itself when PID exits
            proc.send_signal(signal.SIGINT)

    def count(self):
        """-> dict(recorded, lost, bytes)"""
        raise NotImplementedError

    def cleanup(self):
        for p in (self.out, self.log, self.ready):
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            elif os.path.exists(p):
                os.unlink(p)


class Floor(Tool):
    def argv(self, pid):
        kind = self.name.split('-')[1]
        # one 4 MiB ring for all CPUs (drained every 1 ms: floor.c), unless
        # told (extra: RING_BYTES [TICK_US])
        return [os.path.join(B, 'bench', 'floor'), os.path.join(B, 'bench', f'floor-{kind}.bpf.o'),
                str(pid), self.ready] + (self.extra or [str(4 << 20)])

    def count(self):
        with open(self.log) as f:
            j = json.loads([ln for ln in f if ln.startswith('{')][-1])
        if self.name in ('floor-noop', 'floor-clock'):  # no records
            return dict(recorded=None, lost=None, bytes=None)
        return dict(recorded=j['events'], lost=j['dropped'], bytes=j['bytes'])


class Katra(Tool):
    def argv(self, pid):
        self.summary = os.path.join(self.d, 'katra-summary.json')
        # a variant whose first argument is @PATH runs that binary (another
        # build of katra-record, for an A/B of its BPF programs in one run)
        binary, extra = os.path.join(B, 'katra-record'), self.extra
        if extra and extra[0].startswith('@'):
            binary, extra = extra[0][1:], extra[1:]
        return [binary, '-p', str(pid), '-o', self.out, '--force',
                '--ready-file', self.ready, '--summary-json', self.summary] + extra

    def stop(self, proc):
        # it stops by itself once every target has exited; SIGINT if it does not
        if not wait_for(lambda: exited(proc), 10):
            proc.send_signal(signal.SIGINT)

    def count(self):
        with open(self.summary) as f:
            j = json.load(f)
        self.live_ns = j.get('live_after_ns')
        # its own CPU from live to the end: the per-event cost without the
        # one-off setup (BTF parsing, loading and attaching the probes)
        # the recorder's own memory: its peak RSS less what the rings'
        # mappings hold (the kernel maps each ring's pages twice)
        own = None
        if j.get('peak_rss_kib') is not None and j.get('ring_rss_kib') is not None:
            own = j['peak_rss_kib'] - j['ring_rss_kib']
        return dict(recorded=j['events'], lost=j['dropped'], bytes=os.path.getsize(self.out),
                    capture_cpu_ns=j.get('cpu_ns_capture'), own_rss_kib=own,
                    late=j.get('late_events'))

    def cleanup(self):
        super().cleanup()
        if os.path.exists(getattr(self, 'summary', '')):
            os.unlink(self.summary)


class TraceCmd(Tool):
    def argv(self, pid):
        ev = sum((['-e', t] for t in TPS), [])
        # -P filters on thread ids (set_event_pid): name every thread of the
        # process, or only its main thread is traced
        tids = sum((['-P', t] for t in tids_of(pid)), []) or ['-P', str(pid)]
        # 3.1.6 works here only with -d -k (see ARCHITECTURE.md)
        # line-buffered so that "Hit Ctrl^C" (printed once live) shows at once
        return ['stdbuf', '-oL', 'trace-cmd', 'record', '-d', '-k'] + tids + ev + \
            ['-o', self.out]

    def is_ready(self):
        return file_has(self.log, 'Hit Ctrl^C')

    def count(self):
        reset_tracefs()
        with open(self.log, errors='replace') as f:
            log = f.read()
        lost = sum(int(x) for x in re.findall(r'overrun:\s*(\d+)', log))
        n = int(sh(f"trace-cmd report -q -i {self.out} 2>/dev/null | grep -c ': '") or 0)
        return dict(recorded=n, lost=lost, bytes=os.path.getsize(self.out))


class Perf(Tool):
    def argv(self, pid):
        self.ctl, self.ack = self.out + '.ctl', self.out + '.ack'
        for p in (self.ctl, self.ack):
            if not os.path.exists(p):
                os.mkfifo(p)
        ev = sum((['-e', t] for t in TPS), [])
        return ['perf', 'record', '-q', '-D', '-1', '--control', f'fifo:{self.ctl},{self.ack}',
                '-p', str(pid), '-o', self.out] + ev

    def is_ready(self):
        # perf starts disabled; enabling through the control fifo is acked once live
        if not hasattr(self, 'acked'):
            fd = os.open(self.ctl, os.O_WRONLY)
            os.write(fd, b'enable\n')
            os.close(fd)
            fd = os.open(self.ack, os.O_RDONLY)
            os.read(fd, 16)
            os.close(fd)
            self.acked = True
        return True

    def count(self):
        st = sh(f'perf report -i {self.out} --stats 2>/dev/null')
        n = re.search(r'SAMPLE events:\s*(\d+)', st)
        # perf counts LOST records (chunks), not samples; counting the samples
        # they stand for needs `perf report -D` (minutes at full size)
        m = re.search(r'LOST events:\s*(\d+)', st)
        return dict(recorded=int(n.group(1)) if n else 0, lost=None,
                    lost_chunks=int(m.group(1)) if m else 0,
                    bytes=os.path.getsize(self.out))

    def cleanup(self):
        super().cleanup()
        for p in (getattr(self, 'ctl', ''), getattr(self, 'ack', '')):
            if os.path.exists(p):
                os.unlink(p)
        self.__dict__.pop('acked', None)


class Bpftrace(Tool):
    # output on stdout (the log), not -o FILE: bpftrace 0.17 buffers -o and
    # READY would show only at exit
    def argv(self, pid):
        probes = ','.join('tracepoint:' + t for t in TPS)
        prog = (f'BEGIN {{ printf("READY\\n"); }} {probes} /pid == {pid}/ '
                f'{{ printf("%d %d %s\\n", nsecs, tid, probe); }}')
        return ['bpftrace', '-e', prog]

    def is_ready(self):
        return file_has(self.log, 'READY')

    def count(self):
        n = int(sh(f"grep -c '^-*[0-9]* [0-9]* tracepoint:' {self.log}") or 0)
        with open(self.log, errors='replace') as f:
            lost = sum(int(x) for x in re.findall(r'Lost (\d+) events', f.read()))
        return dict(recorded=n, lost=lost, bytes=os.path.getsize(self.log))


class Strace(Tool):
    def argv(self, pid):
        return ['strace', '-f', '-o', self.out, '-p', str(pid)]

    def is_ready(self):
        return file_has(self.log, 'attached')

    def stop(self, proc):
        wait_for(lambda: exited(proc), 10)

    def count(self):
        with open(self.out, errors='replace') as f:
            lines = f.read().splitlines()
        # one line a syscall (enter + exit), "resumed" halves counted once
        n = sum(2 for ln in lines if 'resumed>' not in ln and '+++' not in ln)
        return dict(recorded=n, lost=0, bytes=os.path.getsize(self.out))


class BpftraceCount(Tool):
    """bpftrace counting only: one per-CPU map increment per event."""

    def argv(self, pid):
        probes = ','.join('tracepoint:' + t for t in TPS)
        prog = (f'BEGIN {{ printf("READY\\n"); }} {probes} /pid == {pid}/ '
                f'{{ @[probe] = count(); }}')
        return ['bpftrace', '-e', prog]  # stdout, as Bpftrace

    def is_ready(self):
        return file_has(self.log, 'READY')

    def count(self):
        with open(self.log, errors='replace') as f:
            n = sum(int(x) for x in re.findall(r'^@\[[^\]]*\]: (\d+)', f.read(), re.M))
        # a count cannot be lost (no ring between the probe and the map)
        return dict(recorded=n, lost=None, bytes=None)


TOOLS = {'floor-noop': Floor, 'floor-clock': Floor, 'floor-ringbuf': Floor,
         'katra-record': Katra, 'trace-cmd': TraceCmd, 'perf': Perf, 'bpftrace': Bpftrace, 'strace': Strace}


# katra-record columns: name -> extra arguments.  A variant is one line here
# (or --katra-variant 'NAME=ARGS' on the command line), e.g.
#   'katra-record -e io': ['-e', 'io'],
KATRA_VARIANTS = {
    'katra-record': [],
}


def tids_of(pid):
    try:
        return sorted(os.listdir(f'/proc/{pid}/task'), key=int)
    except OSError:
        return []


def make_tool(col, d, game=False):
    if col in KATRA_VARIANTS:
        return Katra(col, d, KATRA_VARIANTS[col])
    if game and col == 'bpftrace':
        return BpftraceCount(col, d)
    return TOOLS[col](col, d)


def can_run(col):
    """None, or why the column cannot run here."""
    if col in KATRA_VARIANTS:
        col = 'katra-record'
    need = {'katra-record': os.path.join(B, 'katra-record'), 'trace-cmd': 'trace-cmd',
            'perf': 'perf', 'bpftrace': 'bpftrace', 'strace': 'strace'}.get(col)
    if need and not (shutil.which(need) or os.access(need, os.X_OK)):
        return f'{need} not installed'
    return None


def wait_threads(pid, n, timeout=30):
    """Waits until PID has N threads (created before its gate): a tracer
    that takes a thread list (trace-cmd -P) then sees them all."""
    return wait_for(lambda: len(tids_of(pid)) >= n, timeout)


# bpf(BPF_ENABLE_STATS)'s fd: bpf_stats stay on while it is open
BPF_STATS_FD = None
# tracer process groups still running: killed however the driver ends (a
# tracer left behind, e.g. a printing bpftrace, fills the disk)
TRACER_GROUPS = set()


def kill_tracers(*_):
    for pg in list(TRACER_GROUPS):
        try:
            os.killpg(pg, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    TRACER_GROUPS.clear()


def hold_bpf_stats():
    """Keeps bpf_stats on for as long as this process lives: the fd of
    bpf(BPF_ENABLE_STATS), which another process writing 0 to the sysctl
    (another bench's exit puts back what it found) does not turn off.
    -> the fd, or None where the kernel refuses (the sysctl still applies)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(8)  # union bpf_attr .enable_stats.type = BPF_STATS_RUN_TIME (0)
    nr_bpf, bpf_enable_stats = 321, 32  # x86_64
    fd = libc.syscall(nr_bpf, bpf_enable_stats, attr, len(attr)) if platform.machine() == 'x86_64' \
        else -1
    return fd if fd >= 0 else None


# bpf_stats cost each BPF program run two sched_clock() reads (a pvclock read
# in a KVM guest: 11 % of all samples of a traced sys loop here, under
# bpf_trace_run2), which trace-cmd does not pay: the timed runs are made with
# them off, and the programs' run time comes from one more run of each BPF
# column with them on (profile runs, not timed)
STATS_IN_TIMED_RUNS = False
STATS_WAS = '0'


def bpf_stats(on):
    """Turns bpf_stats on (held by an fd, see hold_bpf_stats) or off (the fd
    closed, the sysctl back as the bench found it: another holder keeps them
    on, and the results then say so). -> whether they are on now."""
    global BPF_STATS_FD
    if on:
        sh('sysctl -q kernel.bpf_stats_enabled=1')
        if BPF_STATS_FD is None:
            BPF_STATS_FD = hold_bpf_stats()
    else:
        if BPF_STATS_FD is not None:
            os.close(BPF_STATS_FD)
            BPF_STATS_FD = None
        sh(f'sysctl -q kernel.bpf_stats_enabled={STATS_WAS}')
    return bpf_stats_on()


def bpf_stats_on():
    """Whether bpf_stats are on by the sysctl or our fd (another process's
    fd is not seen)."""
    return sh('sysctl -n kernel.bpf_stats_enabled').strip() == '1' or BPF_STATS_FD is not None


def bpf_column(c):
    """A column whose tracer is BPF programs (their run time is read)."""
    return c.startswith('katra-record') or c.startswith('floor') or c == 'bpftrace'


def prog_ids_held(pid):
    """The BPF program ids PID and its descendants hold (prog_id in the
    /proc/PID/fdinfo of a program's or a link's fd): the tracer's own, never
    another BPF user's, and without bpftool's listing, which comes back cut
    short while other programs load or unload (seen: 2 of 37 programs)."""
    ids, todo = set(), [pid]
    while todo:
        p = todo.pop()
        try:
            for tid in os.listdir(f'/proc/{p}/task'):
                with open(f'/proc/{p}/task/{tid}/children') as f:
                    todo += [int(c) for c in f.read().split()]
            for fd in os.listdir(f'/proc/{p}/fdinfo'):
                with open(f'/proc/{p}/fdinfo/{fd}') as f:
                    m = re.search(r'^prog_id:\s*(\d+)', f.read(), re.M)
                if m:
                    ids.add(int(m.group(1)))
        except OSError:
            continue
    return ids


class HeldProgs:
    """The tracer's programs, each opened by id in this process
    (BPF_PROG_GET_FD_BY_ID): their run_time_ns and run_cnt stay readable
    (/proc/self/fdinfo) after the tracer, which stops by itself once its
    target exits, has let go of them."""

    def __init__(self, pid):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        self.fds = {}
        for i in prog_ids_held(pid):
            attr = ctypes.create_string_buffer(i.to_bytes(4, 'little') + bytes(8))
            fd = libc.syscall(321, 13, attr, 12)  # bpf(BPF_PROG_GET_FD_BY_ID), x86_64
            if fd >= 0:
                self.fds[i] = fd

    def stats(self):
        """id -> (run_time_ns, run_cnt)"""
        got = {}
        for i, fd in self.fds.items():
            try:
                with open(f'/proc/self/fdinfo/{fd}') as f:
                    info = dict(ln.split(':', 1) for ln in f.read().splitlines() if ':' in ln)
                got[i] = (int(info.get('run_time_ns', 0)), int(info.get('run_cnt', 0)))
            except (OSError, ValueError):
                pass
        return got

    def close(self):
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}


def prog_name(prog_id):
    """A program's name (bpftool asked for that id alone), or its id."""
    try:
        out = subprocess.run(['bpftool', '-j', 'prog', 'show', 'id', str(prog_id)],
                             capture_output=True, text=True, timeout=10).stdout
        return json.loads(out).get('name') or f"id {prog_id}"
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return f"id {prog_id}"


def bpf_delta(live, after):
    """name -> [run_time_ns, run_cnt] of the tracer's programs between live
    and after (HeldProgs.stats), those that ran; named while still held."""
    got = {}
    for i, (ns, cnt) in after.items():
        if i not in live or cnt <= live[i][1]:
            continue
        g = got.setdefault(prog_name(i), [0, 0])
        g[0] += ns - live[i][0]
        g[1] += cnt - live[i][1]
    return got


# a program's tracepoint (its name, cut to 15 characters by the kernel) ->
# the workload's ground-truth key for it: how often the program runs for the
# workload.  Programs not named here (fork, exec, exit, the staging flush) are
# counted with all their run time.
PROG_TRUTH = (('sys_enter', 'sys_enter'), ('sys_exit', 'sys_exit'),
              ('sched_swit', 'sched_switch'), ('sched_waki', 'sched_waking'),
              ('page_fault', 'page_fault_user'), ('handle_mm', 'page_fault_user'),
              ('io_uring_sub', 'io_uring_submit_req'), ('io_uring_com', 'io_uring_complete'))


def bpf_ns_in_workload(bpf, truth_by):
    """The programs' run time the workload's own events cost: each program's
    ns per run (run_time_ns / run_cnt, bpf_stats) x how often its tracepoint
    fired for the workload (ground truth), summed.  Runs for other processes
    (the programs see every process's tracepoints) do not count; a program
    without a tracepoint in the truth counts with all its run time."""
    total = 0.0
    for name, (ns, cnt) in bpf.items():
        key = next((k for sub, k in PROG_TRUTH if sub in name), None)
        total += ns / cnt * truth_by.get(key, 0) if key else ns
    return total


# syscall numbers (x86_64) the bench workloads make in their loops
NR_NAME = {0: 'read', 1: 'write', 9: 'mmap', 11: 'munmap', 16: 'ioctl', 17: 'pread64',
           28: 'madvise', 98: 'getrusage', 110: 'getppid', 202: 'futex', 228: 'clock_gettime',
           230: 'clock_nanosleep', 271: 'ppoll', 426: 'io_uring_enter'}


def span_check(trace, calls):
    """The workload's own account of its loops ("calls" of benchwl and gameloop: per
    thread, the syscalls it made, its faults and io_uring requests, in a
    CLOCK_MONOTONIC window) held against what the trace holds in those windows
    (bench/tools/spancount: complete syscall spans by number, fault and
    io_uring events, unpaired returns), never against the recorder's own
    counts.  -> {calls, found, missing, extra, exact, mismatch: [...]}"""
    wins = [f"{c['tid']}:{c['start_mono_ns']}:{c['end_mono_ns']}" for c in calls]
    r = subprocess.run([os.path.join(B, 'bench', 'spancount'), trace] + wins,
                       capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise RuntimeError(f"spancount: {r.stderr.strip()[:200]}")
    got = json.loads(r.stdout)['threads']
    out = {'calls': 0, 'found': 0, 'missing': 0, 'extra': 0, 'mismatch': []}
    for c in calls:
        g = got[str(c['tid'])]
        # syscalls the thread makes in its window without counting them
        # (a workload may list them): neither made nor found
        skip = {str(nr) for nr in c.get('uncounted_nrs', [])}
        want = {NR_NAME.get(int(nr), 'nr ' + nr): v for nr, v in c['syscalls'].items()
                if nr not in skip}
        have = {NR_NAME.get(int(nr), 'nr ' + nr): v for nr, v in g['syscalls'].items()
                if nr not in skip}
        for k in ('faults', 'uring_submit', 'uring_complete'):
            if k in c:  # what the workload does not count is not checked
                want[k], have[k] = c[k], g.get(k, 0)
        have['unpaired returns/entries'] = g['unpaired']
        have['syscalls nr >= 1024'] = g['other_nr']
        for k in sorted(set(want) | set(have)):
            w, h = want.get(k, 0), have.get(k, 0)
            out['calls'] += w
            out['found'] += min(w, h)
            out['missing'] += max(0, w - h)
            out['extra'] += max(0, h - w)
            if w != h:
                out['mismatch'].append(f"tid {c['tid']} {k}: {h} in the trace, {w} made")
    out['exact'] = not out['mismatch']
    return out


def traced(col, cmd, nthreads, d, hook=None, game=False):
    """Starts cmd(GATE) (a workload waiting at GATE = d/gate, with NTHREADS threads once
    parked), col's tracer on it, opens the gate once the tracer is live.
    -> (res, the workload's JSON or None).  hook(tool, res) runs after the
    tracer has stopped and counted, before its files are removed."""
    gate = os.path.join(d, 'gate')
    if os.path.exists(gate):
        os.unlink(gate)
    wlo = open(os.path.join(d, 'wl.json'), 'w+')
    w = subprocess.Popen(cmd(gate), stdout=wlo, stderr=subprocess.DEVNULL)
    wait_threads(w.pid, nthreads)
    res = {}
    tool = None
    if col == 'untraced':
        open(gate, 'w').close()
    else:
        tool = make_tool(col, d, game)
        tool.cleanup()
        if col == 'trace-cmd':
            time.sleep(0.5)  # let freed BPF programs leave /proc/kallsyms
        log = open(tool.log, 'w')
        t0 = time.monotonic()
        stat = os.path.join(d, 'runstat.json')
        if os.path.exists(stat):
            os.unlink(stat)
        p = subprocess.Popen([os.path.join(B, 'bench', 'runstat'), stat] + tool.argv(w.pid),
                             stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        TRACER_GROUPS.add(p.pid)
        ok = wait_for(lambda: tool.is_ready() or exited(p), 30)
        res['live_ms'] = (time.monotonic() - t0) * 1e3
        if not ok or exited(p):
            w.kill()
            w.wait()
            if not exited(p):
                p.kill()
            p.wait()
            log.close()
            wlo.close()
            with open(tool.log, errors='replace') as f:
                tail = f.read().strip().splitlines()[-1:] or ['no output']
            return {'error': f'not live: {tail[0][:120]}'}, None
        held = HeldProgs(p.pid)
        progs_live = held.stats()
        open(gate, 'w').close()
    w.wait()
    if tool:
        # each program's run time while the workload ran (bpf_stats)
        res['bpf'] = bpf_delta(progs_live, held.stats())
        held.close()
    wlo.seek(0)
    try:
        truth = json.loads(wlo.read())
    except ValueError:
        truth = None
    wlo.close()
    if truth is None:
        res['error'] = f'workload exited {w.returncode} without its JSON'
    if tool:
        tool.stop(p)
        stop_or_kill(tool, p)
        try:  # helpers a failed tracer left behind (trace-cmd's per-CPU readers)
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        TRACER_GROUPS.discard(p.pid)
        log.close()
        if os.path.exists(stat):
            with open(stat) as f:
                ru = json.load(f)
            res['cpu_ns'] = ru['utime_ns'] + ru['stime_ns']
            res['rss_kib'] = ru['maxrss_kib']
        try:
            res.update(tool.count())
        except Exception as e:  # noqa: BLE001 - the cell says why
            res['error'] = f'count failed: {e}'
        # the ground truth, exact: the workload's own calls against the trace
        # (not with -e: a selection leaves calls out on purpose)
        if isinstance(tool, Katra) and '-e' not in tool.extra and truth and \
                truth.get('calls') and 'error' not in res:
            try:
                res['spans'] = span_check(tool.out, truth['calls'])
            except Exception as e:  # noqa: BLE001 - the cell says why
                res['error'] = f'span check failed: {e}'
        if isinstance(tool, Katra) and getattr(tool, 'live_ns', None):
            res['live_reported_ms'] = tool.live_ns / 1e6
        if hook and 'error' not in res:
            try:
                hook(tool, res)
            except Exception as e:  # noqa: BLE001 - a plot's data is best effort
                print(f'bench: {col}: {e}', file=sys.stderr)
        tool.cleanup()
    return res, truth


def run_one(col, wl, n, d):
    args, _, single = WORKLOADS[wl]
    nth = 1 if single else THREADS.get(wl, 2)
    res, truth = traced(col, lambda g: [WL] + args + ['--gate', g, str(n)], nth, d)
    if truth is not None and 'error' not in res:
        res.update(elapsed_ns=truth['elapsed_ns'], truth=truth['total'], truth_by=truth['events'])
    return res


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spans_over(runs):
    """The trace against the workload's own calls (katra-record) over runs:
    the worst run, never a median, so that one run's mismatch shows."""
    sp = [r['spans'] for r in runs if r.get('spans')]
    if not sp:
        return None
    return {'runs': len(sp), 'exact_runs': sum(x['exact'] for x in sp),
            'calls': max(x['calls'] for x in sp),
            'missing_max': max(x['missing'] for x in sp),
            'extra_max': max(x['extra'] for x in sp),
            'mismatch': next((x['mismatch'][:4] for x in sp if x['mismatch']), [])}


def summarize(runs, base_ns_per_event, base_truth, profile=None):
    """base_truth: the untraced run's events at this column's size; the
    denominator of added ns, so that switches a tracer causes (strace's
    ptrace stops) do not count as workload events.  profile: the column's
    untimed run with bpf_stats on, whose programs' run time stands for every
    timed run's (made with them off)."""
    ok = [r for r in runs if 'error' not in r]
    if profile and 'error' not in profile and profile.get('bpf'):
        ok = [dict(r, bpf=profile['bpf'], truth_by=r.get('truth_by') or profile.get('truth_by'))
              for r in ok]
    if not ok:
        return {'error': runs[0].get('error', 'no run') if runs else 'not run'}
    s = {'runs': len(ok)}
    for k in ('elapsed_ns', 'truth', 'recorded', 'lost', 'lost_chunks', 'bytes', 'cpu_ns', 'rss_kib',
              'live_ms', 'live_reported_ms', 'capture_cpu_ns', 'own_rss_kib', 'late'):
        s[k] = med([r.get(k) for r in ok])
    s['lost_max'] = max((r.get('lost') or 0) for r in ok)
    added = [(r['elapsed_ns'] - base_ns_per_event * base_truth) / base_truth for r in ok]
    slow = [r['elapsed_ns'] / (base_ns_per_event * base_truth) for r in ok]
    s['added_ns'] = {'median': med(added), 'min': min(added), 'max': max(added)}
    s['slowdown'] = {'median': med(slow), 'min': min(slow), 'max': max(slow)}
    # the tracer's BPF programs: run time per run each (name -> ns), and
    # all of them together per workload event
    progs = collections.defaultdict(list)
    for r in ok:
        for name, (ns, cnt) in r.get('bpf', {}).items():
            progs[name].append(ns / cnt)
    if progs:
        s['bpf_ns_per_run'] = {n: med(v) for n, v in sorted(progs.items())}
        s['bpf_ns_per_event'] = med([sum(ns for ns, _ in r['bpf'].values()) / base_truth
                                     for r in ok if r.get('bpf')])
        # the added cost the programs' own run time does not explain: added
        # ns/event - (each program's ns per run x its runs for the workload)
        # / events, per run
        own = [(a, bpf_ns_in_workload(r['bpf'], r.get('truth_by') or {}) / base_truth)
               for a, r in zip(added, ok) if r.get('bpf')]
        if own:
            s['bpf_workload_ns_per_event'] = med([b for _, b in own])
            s['unexplained_ns'] = spread([a - b for a, b in own])
    if spans_over(ok):
        s['spans'] = spans_over(ok)
    rec = s['recorded']
    if rec:
        s['bytes_per_event'] = s['bytes'] / rec if s['bytes'] else None
        s['cpu_ns_per_event'] = s['cpu_ns'] / rec if s['cpu_ns'] is not None else None
        if s.get('capture_cpu_ns') is not None:
            s['capture_cpu_ns_per_event'] = s['capture_cpu_ns'] / rec
            # per run: its cpu_ns_capture over its own events (the table of
            # the recorder's own CPU, print_recorder_cpu)
            s['capture_cpu_ns_per_event_runs'] = spread(
                [r['capture_cpu_ns'] / r['recorded'] for r in ok
                 if r.get('capture_cpu_ns') is not None and r.get('recorded')])
        s['loss_pct'] = 100.0 * (s['lost'] or 0) / (rec + (s['lost'] or 0))
        # recorded + lost - ground truth: the tracer also sees what the
        # workload does outside its loop (gate, thread exit, result output);
        # shown, never accepted as a check (the spans above are the check)
        s['extra'] = rec + (s['lost'] or 0) - s['truth']
    return s


def fmt_spans(sp, lost):
    """The trace held against the workload's own calls."""
    told = f"recorder says lost {lost or 0:.0f}"
    if sp['exact_runs'] == sp['runs']:
        return (f"trace = workload's calls, {sp['calls']:.0f} exactly "
                f"({sp['runs']} of {sp['runs']} runs; {told})")
    return (f"**trace != workload's calls in {sp['runs'] - sp['exact_runs']} of {sp['runs']} "
            f"runs: missing up to {sp['missing_max']:.0f}, extra up to {sp['extra_max']:.0f} "
            f"of {sp['calls']:.0f}** ({told}; " + '; '.join(sp['mismatch']) + ')')


def fmt(s, col):
    if 'error' in s:
        return 'n/a: ' + s['error']
    if col == 'untraced':
        return f"{s['elapsed_ns'] / 1e6:.0f} ms"
    a = s['added_ns']
    out = f"+{a['median']:.0f} ns/ev [{a['min']:.0f}..{a['max']:.0f}] x{s['slowdown']['median']:.2f}"
    if s.get('recorded') is not None:
        lost = (f"{s['lost_chunks']:.0f} LOST chunks" if s.get('lost_chunks') is not None
                else f"lost {s['lost'] or 0:.0f}")
        out += f"; {s['recorded']:.0f}/{s['truth']:.0f} ev, {lost}"
        if s.get('bytes_per_event'):
            out += f", {s['bytes_per_event']:.0f} B/ev"
    if s.get('cpu_ns_per_event') is not None:
        out += f", cpu {s['cpu_ns_per_event']:.0f} ns/ev"
        if s.get('capture_cpu_ns_per_event') is not None:
            out += f" ({s['capture_cpu_ns_per_event']:.0f} after live)"
    if s.get('bpf_ns_per_event'):
        busiest = sorted(s['bpf_ns_per_run'].items(), key=lambda kv: -kv[1])[:3]
        out += f", bpf {s['bpf_ns_per_event']:.0f} ns/ev (" + \
            ', '.join(f'{n} {v:.0f}' for n, v in busiest) + ' ns/run)'
    if s.get('unexplained_ns'):
        u = s['unexplained_ns']
        out += f", **unexplained {u['median']:+.0f} ns/ev [{u['min']:.0f}..{u['max']:.0f}]**"
    if s.get('spans'):
        out += '; ' + fmt_spans(s['spans'], s.get('lost'))
    if s.get('rss_kib'):
        out += f", rss {s['rss_kib'] / 1024:.1f} MiB"
    if s.get('live_ms') is not None:
        out += f", live {s['live_ms']:.0f} ms"
    return out


def print_unexplained(res, wls, cols):
    """Per workload and BPF column: added ns/event, the programs' own run
    time for the workload's events (bpf_stats), and what is left."""
    bcols = [c for c in cols if any(res[wl].get(c, {}).get('unexplained_ns') for wl in wls)]
    if not bcols:
        return
    print("### Added cost not explained by the programs' run time (ns/event: added - "
          "bpf_stats ns per run x the workload's runs of each program, median of runs)\n")
    print('| workload | ' + ' | '.join(bcols) + ' |\n|---|' + '---|' * len(bcols))
    for wl in wls:
        cells = []
        for c in bcols:
            x = res[wl].get(c, {})
            u = x.get('unexplained_ns')
            cells.append(f"{u['median']:+.0f} [{u['min']:.0f}..{u['max']:.0f}] (added "
                         f"{x['added_ns']['median']:.0f}, programs "
                         f"{x['bpf_workload_ns_per_event']:.0f})" if u else '-')
        print(f'| {wl} | ' + ' | '.join(cells) + ' |')
    print()


RECORDER_CPU_TARGET_NS = 45


def print_recorder_cpu(res, wls, cols):
    """Per workload and katra-record column: the recorder's own CPU per
    event once live (its --summary-json cpu_ns_capture / its events, per
    run) beside the added cost."""
    kcols = [c for c in cols if c.startswith('katra-record') and
             any(res[wl].get(c, {}).get('capture_cpu_ns_per_event_runs') for wl in wls)]
    if not kcols:
        return
    print(f"### The recorder's own CPU per event once live (cpu_ns_capture / events, "
          f"median [min..max] of runs; target <= {RECORDER_CPU_TARGET_NS} ns)\n")
    print('| workload | ' + ' | '.join(kcols) + ' |\n|---|' + '---|' * len(kcols))
    for wl in wls:
        cells = []
        for c in kcols:
            x = res[wl].get(c, {})
            u = x.get('capture_cpu_ns_per_event_runs')
            cells.append(f"{u['median']:.0f} [{u['min']:.0f}..{u['max']:.0f}] (added "
                         f"{x['added_ns']['median']:.0f})" if u else '-')
        print(f'| {wl} | ' + ' | '.join(cells) + ' |')
    print()


def targets(res):
    """PASS/FAIL of the targets (bench/README.md) on this run's figures."""
    t = []

    def cell(wl, col):
        return res[wl].get(col, {})

    def add(name, ok, detail):
        t.append({'target': name, 'result': 'PASS' if ok else 'FAIL', 'detail': detail})

    k, tc, fn = cell('sys1', 'katra-record'), cell('sys1', 'trace-cmd'), cell('sys1', 'floor-noop')
    if 'added_ns' in k and 'added_ns' in tc:
        a, b = k['added_ns']['median'], tc['added_ns']['median']
        add('sys1 added ns/event <= trace-cmd', a <= b, f'{a:.0f} vs {b:.0f}')
    else:
        add('sys1 added ns/event <= trace-cmd', False, 'katra-record or trace-cmd did not run')
    if 'added_ns' in k and 'added_ns' in fn:
        a, b = k['added_ns']['median'], fn['added_ns']['median']
        add('stretch: sys1 within 1.5x floor-noop', a <= 1.5 * b, f'{a:.0f} vs 1.5x{b:.0f}')
    # below trace-cmd on every workload (sys1's row is above)
    for wl in [w for w in WORKLOADS if w != 'sys1']:
        a, b = cell(wl, 'katra-record').get('added_ns'), cell(wl, 'trace-cmd').get('added_ns')
        add(f'{wl} added ns/event <= trace-cmd', bool(a and b) and a['median'] <= b['median'],
            f"{a['median']:.0f} vs {b['median']:.0f}" if a and b
            else 'katra-record or trace-cmd did not run')
    fc = cell('sys1', 'floor-clock').get('added_ns')
    add('sys1 added ns/event <= floor-clock + 40', bool(fc and 'added_ns' in k)
        and k['added_ns']['median'] <= fc['median'] + 40,
        f"{k['added_ns']['median']:.0f} vs {fc['median']:.0f} + 40" if fc and 'added_ns' in k
        else 'katra-record or floor-clock did not run')
    # a floor that dropped records wrote fewer than one per event: its figure
    # is then below a record's cost, and the row says so instead of passing
    ku, fr = cell('uring', 'katra-record'), cell('uring', 'floor-ringbuf')
    if 'added_ns' in ku and 'added_ns' in fr:
        a, b, fl = ku['added_ns']['median'], fr['added_ns']['median'], fr.get('lost_max') or 0
        add('uring added ns/event <= floor-ringbuf (the floor keeping every record)',
            a <= b and not fl, f'{a:.0f} vs {b:.0f}' + (f'; the floor lost up to {fl:.0f} records a run'
                                                         if fl else '; the floor lost 0'))
    else:
        add('uring added ns/event <= floor-ringbuf (the floor keeping every record)', False,
            'katra-record or floor-ringbuf did not run')
    u = k.get('unexplained_ns')
    add("sys1: added cost beyond the programs' bpf_stats run time <= 20 ns/event",
        bool(u) and u['median'] <= 20, f"{u['median']:.0f} ns" if u else 'no bpf_stats')

    def exact(c):
        """Every run's trace holds exactly the workload's calls (its own
        count, not the recorder's), and the recorder says so too."""
        sp = c.get('spans')
        if not sp:
            return False, c.get('error', 'no span check')
        ok = sp['exact_runs'] == sp['runs'] and not c.get('lost')
        return ok, (f"{sp['exact_runs']} of {sp['runs']} runs exact, missing up to "
                    f"{sp['missing_max']:.0f}, extra up to {sp['extra_max']:.0f} of "
                    f"{sp['calls']:.0f} calls; recorder says lost {c.get('lost')}")
    for wl, (_, _, single) in WORKLOADS.items():
        if single and wl != 'storm':
            add(f"{wl}: zero lost (the trace holds every call, every run)",
                *exact(cell(wl, 'katra-record')))
    add('sys2: zero lost (the trace holds every call, every run)', *exact(cell('sys2', 'katra-record')))
    # the per-event cost: CPU from live to the end (setup is a one-off; the
    # total, setup included, is in each cell too)
    cpu = [res[wl]['katra-record'].get('capture_cpu_ns_per_event') for wl in res
           if res[wl].get('katra-record', {}).get('capture_cpu_ns_per_event') is not None]
    add('recorder CPU <= 100 ns/event after live (worst workload)', bool(cpu) and max(cpu) <= 100,
        f'{max(cpu):.0f}' if cpu else 'no data')
    for wl in res:
        u = res[wl].get('katra-record', {}).get('capture_cpu_ns_per_event_runs')
        if u:
            add(f'{wl}: recorder CPU <= {RECORDER_CPU_TARGET_NS} ns/event after live (median)',
                u['median'] <= RECORDER_CPU_TARGET_NS,
                f"{u['median']:.0f} [{u['min']:.0f}..{u['max']:.0f}]")
    st = {c: cell('storm', c) for c in ('katra-record', 'trace-cmd', 'perf')}
    k = st['katra-record']
    if k.get('recorded') is not None:
        others = ', '.join(f"{c} {st[c]['loss_pct']:.2f} %" for c in ('trace-cmd', 'perf')
                           if st[c].get('loss_pct') is not None)
        ok, why = exact(k)
        add('storm (4 x 400k getppid): zero lost (the trace holds every call, every run)', ok,
            why + (f' (side by side, as they report it: {others})' if others else ''))
        add('storm: 0 invented times (no late or Estimated events)', not k.get('late'),
            f"{k.get('late') or 0:.0f} late")
    else:
        add('storm (4 x 400k getppid): zero lost', False, k.get('error', 'did not run'))
    own = [res[wl]['katra-record'].get('own_rss_kib') for wl in res
           if res[wl].get('katra-record', {}).get('own_rss_kib') is not None]
    add("recorder's own peak RSS (rings excluded) <= 32 MiB", bool(own) and max(own) <= 32 * 1024,
        f'{max(own) / 1024:.1f} MiB' if own else 'no data')
    rss = [res[wl]['katra-record'].get('rss_kib') for wl in res
           if res[wl].get('katra-record', {}).get('rss_kib')]
    # katra-record's rings share a 64 MiB budget (at most 32 MiB per CPU);
    # the kernel maps a BPF ring's data pages twice (so records never wrap)
    # and pre-populates both mappings, so each ring shows in RSS twice
    ncpu = os.cpu_count() or 2
    ring_kib = min(64 * 1024, ncpu * 32 * 1024) * 2
    add('recorder peak RSS <= 32 MiB + rings', bool(rss) and max(rss) <= 32 * 1024 + ring_kib,
        f'{max(rss) / 1024:.1f} MiB (rings {ring_kib / 1024:.0f} MiB)' if rss else 'no data')
    live = [res[wl]['katra-record'].get('live_ms') for wl in res
            if res[wl].get('katra-record', {}).get('live_ms') is not None]
    add('capture live within 300 ms', bool(live) and max(live) <= 300,
        f'max {max(live):.0f} ms' if live else 'no data')
    add('capture live within 50 ms (every workload, median of its runs)',
        bool(live) and max(live) <= 50, f'max {max(live):.0f} ms' if live else 'no data')
    bpe = [res[wl]['katra-record'].get('bytes_per_event') for wl in res]
    add('bytes per event reported for every workload', all(bpe),
        ', '.join(f'{x:.0f}' if x else '-' for x in bpe))
    return t



# ---------------------------------------------------------------- the game

def game_cmd(uncapped, seconds):
    def cmd(gate):
        a = [GL, '--gate', gate, '--workers', str(GAME_WORKERS), '--seed', str(GAME_SEED),
             '--job-kib', str(GAME_JOB_KIB), '--duration', str(seconds)]
        return a + ['--uncapped'] if uncapped else a
    return cmd


def katra_timeline(tool, res):
    """The recorder's own view of the run, from its trace: Counter records
    (EventsRecorded, EventsDropped per ring), Drop events, and events per
    100 ms (from the events' timestamps: the counters come once a second)."""
    p = subprocess.Popen([os.path.join(B, 'katra-replay'), 'dump', '--jsonl', tool.out],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bins, counters, drops, start_mono = collections.Counter(), [], [], None
    for ln in p.stdout:
        if ln.startswith('{"record":"Event"'):
            i = ln.find('"ts_mono_ns":') + 13
            ts = int(ln[i:ln.find(',', i)])
            bins[ts // TIMELINE_BIN_NS] += 1
            if '"kind":"Drop"' in ln:
                j = json.loads(ln)
                drops.append([ts, j['payload'].get('instance'), j['payload'].get('count')])
        elif ln.startswith('{"record":"Counter"'):
            j = json.loads(ln)
            if j['kind'] in ('EventsRecorded', 'EventsDropped'):
                counters.append([j['ts_mono_ns'], j['kind'], j['instance'], j['value']])
        elif ln.startswith('{"record":"Header"'):
            start_mono = json.loads(ln).get('start_mono_ns')
            # the JSONL writes 64-bit values as decimal strings (exact for jq)
            start_mono = int(start_mono) if start_mono is not None else None
    p.wait()
    n = max(bins) + 1 if bins else 0
    res['timeline'] = {'bin_ns': TIMELINE_BIN_NS, 'events': [bins.get(i, 0) for i in range(n)],
                       'counters': counters, 'drops': drops, 'start_mono_ns': start_mono}


def game_run(col, uncapped, seconds, d, timeline=False):
    hook = katra_timeline if timeline else None
    res, t = traced(col, game_cmd(uncapped, seconds), GAME_WORKERS + 4, d, hook, game=True)
    if t is not None and 'error' not in res:
        res.update({k: t[k] for k in ('frames', 'fps', 'missed', 'elapsed_ns', 'work_ns',
                                      'pacing_ns', 'syscalls', 'syscalls_total', 'total',
                                      'events', 'frame_work_ns', 'start_mono_ns')})
        res['truth'] = t['total']
        if t.get('cpu_ns') and t.get('frames'):
            # the headline: the frame loop's own CPU (user + sys of all its
            # threads over the counted window, their getrusage) per frame
            res['wl_cpu_per_frame_ns'] = (t['cpu_ns']['user'] + t['cpu_ns']['sys']) / t['frames']
            if res.get('bpf'):
                # the programs' run time for the workload's own events
                res['bpf_per_frame_ns'] = bpf_ns_in_workload(res['bpf'], t['events']) / t['frames']
    return res


# the game also runs katra-record with -e io (cost as a choice), and
# with the drain at the normal policy (what the SCHED_IDLE drain saves)
GAME_VARIANTS = {'katra-record -e io': ['-e', 'io'],
                 'katra-record drain normal': ['--drain-policy', 'normal']}


def game_columns(a):
    for name, args in GAME_VARIANTS.items():
        KATRA_VARIANTS.setdefault(name, args)
    cols = GAME_COLUMNS + [v for v in KATRA_VARIANTS if v not in GAME_COLUMNS]
    if a.columns:
        want = a.columns.split(',')
        cols = [c for c in cols if c in want]
    return ['untraced'] + [c for c in cols if c != 'untraced']


def spread(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {'median': statistics.median(xs), 'min': min(xs), 'max': max(xs)}


QS = ('p50', 'p99', 'p999', 'max')


def game_summarize(rows, cols):
    """rows[col] = list of runs, index = repetition.  Ratios are taken to the
    untraced run of the same repetition, then the median over repetitions."""
    base = rows['untraced']
    out = {}
    for c in cols:
        runs = rows[c]
        ok = [(r, base[i]) for i, r in enumerate(runs)
              if 'error' not in r and i < len(base) and 'error' not in base[i]]
        if not ok:
            out[c] = {'error': runs[0].get('error', 'no run') if runs else 'not run'}
            continue
        s = {'runs': len(ok)}
        s['work_ms'] = {q: spread([r['work_ns'][q] / 1e6 for r, _ in ok]) for q in QS}
        s['ratio'] = {q: spread([r['work_ns'][q] / u['work_ns'][q] for r, u in ok]) for q in QS}
        s['excess'] = {q: s['ratio'][q]['median'] - 1 for q in QS}
        # the workload's own CPU per frame, to the untraced run's: the probes'
        # in-context cost, without wall time's scheduling noise
        cpu_ok = [(r, u) for r, u in ok if r.get('wl_cpu_per_frame_ns')
                  and u.get('wl_cpu_per_frame_ns')]
        s['cpu_ratio'] = spread([r['wl_cpu_per_frame_ns'] / u['wl_cpu_per_frame_ns']
                                 for r, u in cpu_ok])
        # CPU per frame added (to the untraced run of the same repetition),
        # and what of it the programs' own run time does not explain
        s['cpu_added_us'] = spread([(r['wl_cpu_per_frame_ns'] - u['wl_cpu_per_frame_ns']) / 1e3
                                    for r, u in cpu_ok])
        s['cpu_unexplained_us'] = spread([
            (r['wl_cpu_per_frame_ns'] - u['wl_cpu_per_frame_ns'] - r['bpf_per_frame_ns']) / 1e3
            for r, u in cpu_ok if r.get('bpf_per_frame_ns') is not None])
        s['bpf_per_frame_us'] = med([r.get('bpf_per_frame_ns', 0) / 1e3 for r, _ in cpu_ok
                                     if r.get('bpf_per_frame_ns') is not None])
        s['pacing_p99_us'] = spread([r['pacing_ns']['p99'] / 1e3 for r, _ in ok])
        s['missed'] = spread([r['missed'] for r, _ in ok])
        s['fps'] = spread([r['fps'] for r, _ in ok])
        s['fps_cost_pct'] = spread([100 * (1 - r['fps'] / u['fps']) for r, u in ok])
        for k in ('truth', 'recorded', 'lost', 'lost_chunks', 'cpu_ns', 'rss_kib', 'live_ms'):
            s[k] = med([r.get(k) for r, _ in ok])
        s['lost_max'] = max((r.get('lost') or 0) for r, _ in ok) \
            if any(r.get('lost') is not None for r, _ in ok) else None
        if spans_over([r for r, _ in ok]):
            s['spans'] = spans_over([r for r, _ in ok])
        s['cpu_pct'] = med([100 * r['cpu_ns'] / r['elapsed_ns'] for r, _ in ok
                            if r.get('cpu_ns') is not None])
        s['events_per_s'] = med([r['truth'] / r['elapsed_ns'] * 1e9 for r, _ in ok])
        s['cpu_per_frame_us'] = med([r['wl_cpu_per_frame_ns'] / 1e3 for r, _ in ok
                                     if r.get('wl_cpu_per_frame_ns')])
        out[c] = s
    return out


def fmt_ratio(x):
    return f"x{x['median']:.2f} [{x['min']:.2f}..{x['max']:.2f}]"


def fmt_cpu_frame(s, c):
    """-> [CPU per frame, its excess over untraced, the excess the
    programs' run time does not explain] (cells of the game table)."""
    us = s.get('cpu_per_frame_us')
    cells = [f"{us:.0f} us" if us is not None else '-']
    if c == 'untraced':
        return cells + ['-', '-']
    r, a, u = s.get('cpu_ratio'), s.get('cpu_added_us'), s.get('cpu_unexplained_us')
    cells.append(f"{100 * (r['median'] - 1):+.1f} % [{100 * (r['min'] - 1):+.1f}.."
                 f"{100 * (r['max'] - 1):+.1f}], {a['median']:+.0f} us" if r and a else '-')
    cells.append(f"{u['median']:+.0f} us [{u['min']:.0f}..{u['max']:.0f}] (programs "
                 f"{s['bpf_per_frame_us']:.0f} us)" if u else '-')
    return cells


def game_table(gs, cols, uncapped):
    if uncapped:
        print('| column | workload CPU/frame | fps | fps cost | frame work p50 | tracer CPU | lost |')
        print('|---|---|---|---|---|---|---|')
    else:
        print('| column | **workload CPU/frame** | CPU excess | of it not the programs\' run time | '
              'work p50 | p99 | p99.9 | max | pacing p99 | missed | '
              'recorded / truth, lost | tracer CPU | peak RSS |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for c in cols:
        s = gs.get(c, {})
        if 'error' in s:
            print(f"| {c} | n/a: {s['error']} |")
            continue
        cpu = (f"{s['cpu_ns'] / 1e6:.0f} ms ({s['cpu_pct']:.1f} % of a CPU)"
               if s.get('cpu_ns') is not None else '-')
        if s.get('lost_chunks') is not None:
            lost = f"{s['lost_chunks']:.0f} LOST chunks"
        elif s.get('lost') is not None:
            lost = f"lost {s['lost']:.0f} (max {s['lost_max']:.0f})"
        else:
            lost = 'lost n/a'
        head = fmt_cpu_frame(s, c)
        if uncapped:
            f = s['fps']
            cost = '-' if c == 'untraced' else \
                f"{s['fps_cost_pct']['median']:.1f} % [{s['fps_cost_pct']['min']:.1f}..{s['fps_cost_pct']['max']:.1f}]"
            print(f"| {c} | {head[0]}{'' if c == 'untraced' else ', ' + head[1]} | "
                  f"{f['median']:.0f} [{f['min']:.0f}..{f['max']:.0f}] | {cost} | "
                  f"{s['work_ms']['p50']['median']:.2f} ms | {cpu} | "
                  f"{'-' if c == 'untraced' else lost} |")
            continue
        if c == 'untraced':
            cells = head + [f"{s['work_ms'][q]['median']:.2f} ms" for q in QS]
        else:
            cells = head + [fmt_ratio(s['ratio'][q]) for q in QS]
        rec = '-' if c == 'untraced' else (
            (f"{s['recorded']:.0f} / {s['truth']:.0f}, " if s.get('recorded') is not None
             else '') + lost + ('; ' + fmt_spans(s['spans'], s.get('lost_max'))
                                if s.get('spans') else ''))
        rss = f"{s['rss_kib'] / 1024:.1f} MiB" if s.get('rss_kib') else '-'
        print(f"| {c} | " + ' | '.join(cells) +
              f" | {s['pacing_p99_us']['median']:.0f} us | {s['missed']['median']:.0f} | {rec} | "
              f"{'-' if c == 'untraced' else cpu} | {rss} |")


def game_targets(gs):
    t = []

    def add(name, ok, detail):
        t.append({'target': name, 'result': 'PASS' if ok else 'FAIL', 'detail': detail})

    k, tc, fl = (gs.get(c, {}) for c in ('katra-record', 'trace-cmd', 'floor-ringbuf'))
    have = {n: 'excess' in x for n, x in (('katra-record', k), ('trace-cmd', tc),
                                           ('floor-ringbuf', fl))}

    # the headline: the workload's own CPU per frame, excess over
    # untraced in the same repetition (median of repetitions)
    def cpu_x(x):
        return x['cpu_ratio']['median'] - 1 if x.get('cpu_ratio') else None
    kc, tcc, flc = (cpu_x(x) for x in (k, tc, fl))
    name = "game CPU/frame: katra-record's excess <= trace-cmd's"
    add(name, kc is not None and tcc is not None and kc <= tcc,
        f'{100 * kc:+.1f} % vs {100 * tcc:+.1f} %' if kc is not None and tcc is not None
        else 'katra-record or trace-cmd did not run')
    name = "game CPU/frame: katra-record's excess <= floor-ringbuf's + 2 points"
    add(name, kc is not None and flc is not None and kc <= flc + 0.02,
        f'{100 * kc:+.1f} % vs {100 * flc:+.1f} % + 2' if kc is not None and flc is not None
        else 'katra-record or floor-ringbuf did not run')
    for q in ('p50', 'p99'):
        name = f'game {q}: katra-record excess <= 0.4 x trace-cmd\'s'
        if have['katra-record'] and have['trace-cmd']:
            a, b = k['excess'][q], tc['excess'][q]
            add(name, a <= 0.4 * b, f'{a:.3f} vs 0.4 x {b:.3f} = {0.4 * b:.3f}')
        else:
            add(name, False, 'katra-record or trace-cmd did not run')
    for q in ('p50', 'p99'):
        name = f'game {q}: katra-record excess <= 1.25 x floor-ringbuf\'s'
        if have['katra-record'] and have['floor-ringbuf']:
            a, b = k['excess'][q], fl['excess'][q]
            add(name, a <= 1.25 * b, f'{a:.3f} vs 1.25 x {b:.3f} = {1.25 * b:.3f}')
        else:
            add(name, False, 'katra-record or floor-ringbuf did not run')
    name = 'game: katra-record worst-frame excess <= p99 excess + 0.1'
    if have['katra-record']:
        a, b = k['excess']['max'], k['excess']['p99']
        add(name, a <= b + 0.1, f'{a:.3f} vs {b:.3f} + 0.1')
    else:
        add(name, False, 'katra-record did not run')
    # lost: the trace against the workload's own calls, every run, and the
    # recorder's own count at 0 too
    name = 'game: katra-record 0 lost at 60 Hz (the trace holds every call, every run)'
    sp = k.get('spans')
    add(name, have['katra-record'] and k.get('lost_max') == 0 and bool(sp)
        and sp['exact_runs'] == sp['runs'],
        (f"{sp['exact_runs']} of {sp['runs']} runs exact, missing up to {sp['missing_max']:.0f}, "
         f"extra up to {sp['extra_max']:.0f} of {sp['calls']:.0f}; recorder says lost max "
         f"{k.get('lost_max')}" if sp else f"no span check; recorder says lost max {k.get('lost_max')}")
        if have['katra-record'] else 'did not run')
    # what the floors allow: no tracer on these attach points costs less than
    # floor-noop (attached, returns at once) or writes a record per event for
    # less than floor-ringbuf, so a target below them cannot be met here
    def info(name, a, b, of):
        t.append({'target': name, 'result': 'INFO',
                  'detail': f"{a:.3f} = {a / b:.2f} x {of + ' ' if of else ''}{b:.3f}" if b
                  else f'{a:.3f} vs {b:.3f}'})

    noop = gs.get('floor-noop', {})
    for floor, x, ref, rname, target in (
            ('floor-noop', noop, tc, "trace-cmd's", '0.4 x trace-cmd\'s'),
            ('floor-ringbuf', fl, tc, "trace-cmd's", '0.4 x trace-cmd\'s'),
            ('floor-noop', noop, k, "katra-record's", "0.3 x the full capture's")):
        if 'excess' in x and 'excess' in ref:
            for q in ('p50', 'p99'):
                info(f"(floor) game {q}: {floor}'s excess vs {target}", x['excess'][q],
                     ref['excess'][q], rname)

    # the other comparisons on the workload's own CPU per frame (in-context
    # cost: probes and the syscall slow path, not the tracer's process)
    noc = cpu_x(noop)
    ioc = cpu_x(gs.get('katra-record -e io', {}))
    for name, a, b in (
            ("floor-noop's workload CPU/frame excess vs katra-record's", noc, kc),
            ("katra-record -e io's workload CPU/frame excess vs the full capture's", ioc, kc)):
        if a is not None and b is not None:
            info(f'(cpu) game: {name}', a, b, '')
    io = gs.get('katra-record -e io', {})
    for q in ('p50', 'p99'):
        name = f"game {q}: katra-record -e io excess <= 0.3 x the full capture's"
        if have['katra-record'] and 'excess' in io:
            a, b = io['excess'][q], k['excess'][q]
            add(name, a <= 0.3 * max(b, 0.0), f'{a:.3f} vs 0.3 x {b:.3f} = {0.3 * b:.3f}')
        else:
            add(name, False, 'katra-record -e io did not run')
    return t


def pipeline_scaling(runs):
    """The merge's cost per event and memory with 2, 16 and 128 synthetic
    rings (build/pipeline-bench: the real pipeline and writer, no kernel).
    Memory is the bench process's own VmHWM (program, libc, writer,
    pipeline): not ru_maxrss, which a child inherits from this driver across
    exec (results up to 2026-11-30 show the driver's ~80 MiB there)."""
    out, got = {}, {n: [] for n in (2, 16, 128)}
    # interleaved: the VM's speed drifts over minutes (2 rings measured 45
    # then 66-87 ns in one evening), and a ratio of two runs minutes apart
    # showed the drift, not the merge
    for _ in range(runs):
        for rings in got:
            r = subprocess.run([os.path.join(B, 'pipeline-bench'), '2000000', '/dev/shm',
                                str(rings)], capture_output=True, text=True)
            if r.returncode == 0:
                got[rings].append(json.loads(r.stdout))
    for rings, rs in got.items():
        if rs:
            out[rings] = {'ns_per_event': med([x['ns_per_event'] for x in rs]),
                          'peak_rss_kib': max(x['peak_rss_kib'] for x in rs)}
    t = []
    if 2 in out and 128 in out:
        a, b = out[128]['ns_per_event'], out[2]['ns_per_event']
        t.append({'target': 'pipeline: cost per event at 128 rings <= 1.3 x at 2 rings',
                  'result': 'PASS' if a <= 1.3 * b else 'FAIL',
                  'detail': f'{a:.1f} vs 1.3 x {b:.1f} ns'})
        m = max(x['peak_rss_kib'] for x in out.values())
        t.append({'target': 'pipeline: its own memory <= 32 MiB (any ring count)',
                  'result': 'PASS' if m <= 32 * 1024 else 'FAIL', 'detail': f'{m / 1024:.1f} MiB'})
    return out, t


def run_game(a, runs, d, t_start, uncapped_runs=None):
    cols = game_columns(a)
    why = {c: can_run(c) for c in cols}
    if not os.access(GL, os.X_OK):
        why = {c: f'{GL} not built' for c in cols}
    capped_s, uncapped_s = a.game_seconds or GAME_SECONDS['quick' if a.quick else 'full']
    raw = {}
    for mode, secs in (('capped', capped_s), ('uncapped', uncapped_s)):
        if secs <= 0:
            continue
        raw[mode] = {c: [] for c in cols}
        for i in range(runs if mode == 'capped' else (uncapped_runs or runs)):
            # interleaved, and rotated so that no column always follows the same one
            live = [c for c in cols if not why[c]]
            for c in live[i % len(live):] + live[:i % len(live)]:
                tl = mode == 'capped' and c == 'katra-record' and i == runs - 1
                r = game_run(c, mode == 'uncapped', secs, d, timeline=tl)
                for _ in range(2):  # trace-cmd fails while kallsyms changes size
                    if c != 'trace-cmd' or 'error' not in r:
                        break
                    time.sleep(1)
                    r = game_run(c, mode == 'uncapped', secs, d, timeline=tl)
                raw[mode][c].append(r)
                msg = r.get('error') or (f"cpu/frame {r.get('wl_cpu_per_frame_ns', 0) / 1e3:.0f} us, "
                                         f"p50 {r['work_ns']['p50'] / 1e6:.2f} ms, "
                                         f"p99 {r['work_ns']['p99'] / 1e6:.2f} ms, "
                                         f"{r['fps']:.0f} fps")
                print(f'[{time.monotonic() - t_start:6.1f}s] game {mode} run {i + 1} {c}: {msg}',
                      file=sys.stderr)
        if not STATS_IN_TIMED_RUNS:  # the programs' run time per frame: one untimed run each
            bpf_stats(True)
            for c in cols:
                if why[c] or not bpf_column(c):
                    continue
                r = game_run(c, mode == 'uncapped', secs, d)
                per = r.get('bpf_per_frame_ns')
                for x in raw[mode][c]:
                    if 'error' not in x and per is not None:
                        x['bpf_per_frame_ns'] = per
                print(f'[{time.monotonic() - t_start:6.1f}s] game {mode} profile run {c} '
                      f'(bpf_stats on): ' + (r.get('error') or f'programs {(per or 0) / 1e3:.0f} '
                                             'us/frame'), file=sys.stderr)
            bpf_stats(False)
    out = {'columns': cols, 'workers': GAME_WORKERS, 'seed': GAME_SEED, 'hz': 60,
           'seconds': {'capped': capped_s, 'uncapped': uncapped_s}, 'runs': runs,
           'not_run': {c: w for c, w in why.items() if w}, 'raw': raw}
    for mode in raw:
        out[mode] = game_summarize(raw[mode], [c for c in cols if not why[c]])
        for c in cols:
            if why[c]:
                out[mode][c] = {'error': why[c]}
    out['targets'] = game_targets(out['capped']) if 'capped' in out else []
    return out


def print_game(g):
    cols = g['columns']
    if 'capped' in g:
        c = g['capped'].get('untraced', {})
        eps = f", ~{c['events_per_s'] / 1e3:.0f}k events/s" if c.get('events_per_s') else ''
        print(f"### game: 60 Hz frame loop, {g['workers']} workers, {g['seconds']['capped']:g} s "
              f"a run{eps}. Headline: the workload's own CPU per frame (user + sys of its "
              f"threads, their getrusage; stable where wall time is not), its excess over "
              f"untraced in the same repetition, and the part of it the programs' bpf_stats "
              f"run time does not explain; beside it the wall-clock frame work time, as a ratio "
              f"to untraced in the same repetition. Median [min..max] of {g['runs']}\n")
        game_table(g['capped'], cols, False)
        print()
    if 'uncapped' in g:
        print(f"### game --uncapped ({g['seconds']['uncapped']:g} s a run): the fps each tracer "
              f"costs\n")
        game_table(g['uncapped'], cols, True)
        print()
    if g.get('targets'):
        print('### Targets (game)\n\n| target | result | detail |\n|---|---|---|')
        for t in g['targets']:
            print(f"| {t['target']} | {t['result']} | {t['detail']} |")
        print()


def machine():
    """The host a run measured: the same code costs 152 ns per event on one
    host CPU of this machine kind and 590-745 on another, so every
    results file names it."""
    ver = {
        'katra-record': sh(f'{B}/katra-record --version 2>&1'),
        'trace-cmd': sh('trace-cmd --version 2>&1 | grep -m1 version'),
        'perf': sh('perf --version 2>&1'),
        'bpftrace': sh('bpftrace --version 2>&1'),
        'strace': sh('strace --version 2>&1 | head -1'),
    }
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
    vdir = '/sys/devices/system/cpu/vulnerabilities'
    vuln = {}
    if os.path.isdir(vdir):
        for n in sorted(os.listdir(vdir)):
            try:
                with open(os.path.join(vdir, n)) as f:
                    vuln[n] = f.read().strip()
            except OSError:
                pass
    smt = sh('cat /sys/devices/system/cpu/smt/control 2>/dev/null')
    return {'kernel': platform.release(), 'cpus': os.cpu_count(), 'cpu_model': cpu,
            'host': platform.node(), 'pti': vuln.get('meltdown', ''),
            'vulnerabilities': vuln, 'smt': smt or 'unknown',
            'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), 'tools': ver}


def print_machine(m):
    print('### Host\n\n| | |\n|---|---|')
    print(f"| date | {m['date']} |")
    print(f"| CPU | {m['cpu_model']} ({m['cpus']} CPUs, SMT {m['smt']}) |")
    print(f"| kernel | {m['kernel']} |")
    for n, v in m['vulnerabilities'].items():
        print(f'| {n} | {v} |')
    if 'bpf_stats_in_timed_runs' in m:
        print('| bpf_stats in the timed runs | ' + (
            'on (every BPF program run also pays two sched_clock reads)'
            if m['bpf_stats_in_timed_runs'] else
            'off (the programs\' run time: one more untimed run of each BPF column)') + ' |')
    print()


def katra_variant(spec):
    """--katra-variant 'NAME=ARGS': a katra-record column run with ARGS (a
    first argument @PATH: that katra-record binary)."""
    name, eq, args = spec.partition('=')
    if not eq or not name.startswith('katra-record'):
        raise argparse.ArgumentTypeError("want 'katra-record...=ARGS', e.g. "
                                         "'katra-record -e io=-e io'")
    return name.strip(), args.split()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--quick', action='store_true',
                    help='3 runs, 1/10 sizes, game 3 s + 1 s a run, a few minutes')
    ap.add_argument('--runs', type=int)
    ap.add_argument('--only', help='comma-separated workloads: ' + ','.join(WORKLOADS) + ',game')
    ap.add_argument('--columns', help='comma-separated columns')
    ap.add_argument('--katra-variant', type=katra_variant, action='append', default=[],
                    metavar='NAME=ARGS', help="one more katra-record column, e.g. "
                    "'katra-record -e io=-e io' (repeatable)")
    ap.add_argument('--game-seconds', type=lambda x: tuple(float(v) for v in x.split(',')),
                    metavar='CAPPED,UNCAPPED', help='game seconds a run (0: skip that mode)')
    ap.add_argument('--stats-in-timed-runs', action='store_true',
                    help='keep bpf_stats on in the timed runs too (the old way: every BPF '
                    'program run pays two sched_clock reads; for comparison)')
    ap.add_argument('--out', default=os.path.join(ROOT, 'bench', 'results', 'latest.json'))
    a = ap.parse_args()
    import atexit
    atexit.register(kill_tracers)
    # per-program run time in `bpftool prog show` (bpf_stats): on for the
    # bench, back as it was after
    global STATS_WAS, STATS_IN_TIMED_RUNS
    STATS_WAS = sh('sysctl -n kernel.bpf_stats_enabled').strip() or '0'
    STATS_IN_TIMED_RUNS = a.stats_in_timed_runs
    if bpf_stats(STATS_IN_TIMED_RUNS) != STATS_IN_TIMED_RUNS:
        print('bench: bpf_stats stay on (kernel.bpf_stats_enabled=1 set by someone else): '
              'the timed runs pay their cost', file=sys.stderr)
    atexit.register(lambda: sh(f'sysctl -q kernel.bpf_stats_enabled={STATS_WAS}'))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: (kill_tracers(), sys.exit(128 + s)))
    for name, args in a.katra_variant:
        KATRA_VARIANTS[name] = args
    runs = a.runs or (3 if a.quick else 5)
    scale = 0.1 if a.quick else 1.0
    wls = a.only.split(',') if a.only else list(WORKLOADS) + ['game']
    bad = [w for w in wls if w not in WORKLOADS and w != 'game']
    if bad:
        ap.error(f"unknown workload {','.join(bad)}")
    do_game = 'game' in wls
    wls = [w for w in wls if w != 'game']
    cols = a.columns.split(',') if a.columns else \
        COLUMNS + [v for v in KATRA_VARIANTS if v not in COLUMNS]
    if 'untraced' not in cols:
        cols = ['untraced'] + cols
    why = {c: can_run(c) for c in cols}
    d = tempfile.mkdtemp(prefix='katra-bench-')
    raw = {wl: {c: [] for c in cols} for wl in wls}
    prof = {wl: {} for wl in wls}
    reset_tracefs()
    t_start = time.monotonic()
    for wl in wls:
        n = int(WORKLOADS[wl][1] * scale)
        for i in range(runs):  # interleaved: A B C ... A B C ...
            for c in cols:
                if why[c]:
                    continue
                if c == 'strace' and wl != 'sys1':
                    continue
                if wl == 'storm' and c not in STORM_COLUMNS:
                    continue
                r = run_one(c, wl, max(1, int(n * SCALE.get(c, 1))), d)
                for _ in range(2):  # trace-cmd fails while kallsyms changes size
                    if c != 'trace-cmd' or 'error' not in r:
                        break
                    time.sleep(1)
                    r = run_one(c, wl, max(1, int(n * SCALE.get(c, 1))), d)
                raw[wl][c].append(r)
                print(f'[{time.monotonic() - t_start:6.1f}s] {wl} run {i + 1} {c}: '
                      + (r.get('error') or f"{r['elapsed_ns'] / 1e6:.0f} ms"), file=sys.stderr)
        if not STATS_IN_TIMED_RUNS:  # the programs' run time: one untimed run each, stats on
            bpf_stats(True)
            for c in cols:
                if why[c] or not bpf_column(c) or (wl == 'storm' and c not in STORM_COLUMNS):
                    continue
                r = run_one(c, wl, max(1, int(n * SCALE.get(c, 1))), d)
                prof[wl][c] = r
                print(f'[{time.monotonic() - t_start:6.1f}s] {wl} profile run {c} (bpf_stats on): '
                      + (r.get('error') or f"{r['elapsed_ns'] / 1e6:.0f} ms"), file=sys.stderr)
            bpf_stats(False)
    size = 'quick' if a.quick else 'full'
    game = run_game(a, a.runs or GAME_RUNS[size], d, t_start,
                    a.runs or GAME_UNCAPPED_RUNS[size]) if do_game else None
    pipe, pipe_targets = pipeline_scaling(runs)
    shutil.rmtree(d, ignore_errors=True)
    res = {}
    for wl in wls:
        ok = [r for r in raw[wl]['untraced'] if 'error' not in r]
        base = med([r['elapsed_ns'] / r['truth'] for r in ok])
        truth = med([r['truth'] for r in ok])
        res[wl] = {'untraced_ns_per_event': base, 'untraced_events': truth}
        for c in cols:
            if why[c]:
                res[wl][c] = {'error': why[c]}
            elif c == 'strace' and wl != 'sys1':
                res[wl][c] = {'error': 'smallest size only (sys1)'}
            elif wl == 'storm' and c not in STORM_COLUMNS:
                res[wl][c] = {'error': 'the storm compares the recorders only'}
            else:
                res[wl][c] = summarize(raw[wl][c], base, truth * SCALE.get(c, 1),
                                       prof[wl].get(c))
    tg = targets(res) if set(wls) == set(WORKLOADS) else []
    print(f"\n## katra-record bench ({'quick' if a.quick else 'full'}, {runs} runs, "
          f"median [min..max]; event = one tracepoint hit of the ground truth)\n")
    host = machine()
    host['bpf_stats_in_timed_runs'] = STATS_IN_TIMED_RUNS
    print_machine(host)
    for wl in wls:
        print(f'### {wl} (untraced {res[wl]["untraced_ns_per_event"]:.0f} ns/event)\n')
        print('| column | result |\n|---|---|')
        for c in cols:
            print(f'| {c} | {fmt(res[wl][c], c)} |')
        print()
    print_unexplained(res, wls, cols)
    print_recorder_cpu(res, wls, cols)
    if tg:
        print('### Targets\n\n| target | result | detail |\n|---|---|---|')
        for t in tg:
            print(f"| {t['target']} | {t['result']} | {t['detail']} |")
        print()
    if pipe:
        print('### The merge with many rings (build/pipeline-bench, 2 M pairs)\n')
        print('| rings | ns per event | peak RSS (VmHWM) |\n|---|---|---|')
        for rings, x in pipe.items():
            print(f"| {rings} | {x['ns_per_event']:.1f} | {x['peak_rss_kib'] / 1024:.1f} MiB |")
        print()
        if pipe_targets:
            print('| target | result | detail |\n|---|---|---|')
        for t in pipe_targets:
            print(f"| {t['target']} | {t['result']} | {t['detail']} |")
        print()
    if game:
        print_game(game)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, 'w') as f:
        json.dump({'machine': host, 'quick': a.quick, 'runs': runs, 'scale': scale,
                   'sizes': {w: int(WORKLOADS[w][1] * scale) for w in wls},
                   'column_scale': SCALE, 'katra_variants': KATRA_VARIANTS,
                   'results': res, 'targets': tg, 'raw': raw, 'game': game,
                   'pipeline': {str(k): v for k, v in pipe.items()}, 'pipeline_targets': pipe_targets,
                   'wall_s': time.monotonic() - t_start}, f, indent=1)
    print(f'\nwrote {a.out}', file=sys.stderr)
    if game:
        try:
            import plots  # bench/plots.py; needs python3-matplotlib
        except ImportError as e:
            print(f'bench: no plots ({e}; ci/install-deps.sh --bench installs it)',
                  file=sys.stderr)
        else:
            for p in plots.game_plots(game, os.path.dirname(a.out)):
                print(f'wrote {p}', file=sys.stderr)


if __name__ == '__main__':
    main()
