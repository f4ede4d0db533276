#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of bench/workloads/gameloop's JSON (t_gameloop.sh).  No timing is
asserted: only what the counts and the structure must be.

usage: gameloop_check.py one FILE FRAMES WORKERS [uncapped]
       gameloop_check.py same FILE_A FILE_B      (same seed: same job-side counts)
       gameloop_check.py differ FILE_A FILE_B    (other seed: other checksum)"""
import json
import sys

KINDS = ['futex', 'ioctl', 'write', 'read', 'pread64', 'clock_gettime', 'mmap', 'munmap',
         'io_uring_enter', 'ppoll', 'clock_nanosleep', 'getrusage']


def expect(cond, msg):
    if not cond:
        print(f'FAIL: {msg}')
        sys.exit(1)


def load(path):
    with open(path) as f:
        text = f.read()
    expect(text.count('\n') == 1 and text.endswith('}\n'), f'{path}: not one JSON line')
    try:
        return json.loads(text)
    except ValueError as e:
        expect(False, f'{path}: invalid JSON: {e}')


def one(path, frames, workers, uncapped=False):
    j = load(path)
    frames, workers = int(frames), int(workers)
    expect(j['workload'] == 'gameloop', 'workload name')
    expect(j['frames'] == frames, f"frames {j['frames']}, expected {frames}")
    expect(j['workers'] == workers, f"workers {j['workers']}, expected {workers}")
    expect(j['uncapped'] is uncapped, f"uncapped {j['uncapped']}")
    jobs_pf = j['jobs_per_frame']
    expect(jobs_pf == 16 * workers, f'jobs per frame {jobs_pf}, expected 16 x {workers}')
    w, p = j['frame_work_ns'], j['pacing_err_ns']
    expect(len(w) == frames and len(p) == frames, f'{len(w)}/{len(p)} per-frame values')
    expect(all(x > 0 for x in w), 'a frame with no work time')
    s = j['work_ns']
    expect(s['max'] == max(w), f"work max {s['max']} != max of the array {max(w)}")
    expect(0 < s['p50'] <= s['p99'] <= s['p999'] <= s['max'], f'work percentiles {s}')
    expect(j['pacing_ns']['max'] == max(p), 'pacing max != max of the array')
    if uncapped:
        expect(not any(p), 'uncapped: a pacing error')
        expect(j['missed'] == 0, 'uncapped: missed frames')
    else:
        expect(0 <= j['missed'] <= frames, f"missed {j['missed']}")
    expect(j['elapsed_ns'] >= sum(w), 'elapsed shorter than the frames\' work')
    expect(j['end_mono_ns'] - j['start_mono_ns'] == j['elapsed_ns'], 'start/end vs elapsed')

    sc, d = j['syscalls'], j['deterministic']
    expect(sorted(sc) == sorted(KINDS), f'syscall kinds {sorted(sc)}')
    expect(j['syscalls_total'] == sum(sc.values()), 'syscalls_total != sum of the kinds')
    jobs, churn = d['jobs'], d['churn']
    expect(jobs == frames * jobs_pf, f'{jobs} jobs, expected {frames} x {jobs_pf}')
    expect(d['submits'] == frames, f"{d['submits']} submits seen by the driver, expected {frames}")
    expect(sc['ioctl'] == 4 * frames, f"ioctl {sc['ioctl']}, expected 4 a frame")
    # a submit a frame + the quit command; the driver reads each
    expect(sc['write'] == frames + 1, f"write {sc['write']}, expected {frames + 1}")
    expect(sc['read'] == frames + 1, f"read {sc['read']}, expected {frames + 1}")
    expect(sc['clock_gettime'] == 2 * jobs, f"clock_gettime {sc['clock_gettime']} != 2 x jobs")
    expect(sc['mmap'] == churn and sc['munmap'] == churn, f'mmap/munmap {sc["mmap"]}/'
           f'{sc["munmap"]}, churn {churn}')
    expect(0 < churn < jobs, f'churn {churn} of {jobs} jobs')
    # 6 asset reads a job, 2 streaming reads a tick
    extra = sc['pread64'] - 6 * jobs
    expect(extra >= 0 and extra % 2 == 0, f"pread64 {sc['pread64']} vs 6 x {jobs} jobs")
    expect(sc['io_uring_enter'] >= extra // 2, 'one io_uring_enter per streaming tick')
    # main: one wake a frame + one at the end; each worker waits at least once
    expect(sc['futex'] >= frames + 1, f"futex {sc['futex']} < frames + 1")
    # every thread reads its rusage twice: main, workers, driver, streaming, audio
    expect(sc['getrusage'] == 2 * (workers + 4), f"getrusage {sc['getrusage']}")
    expect(sc['ppoll'] >= 1, 'the audio thread never polled')
    u = j['io_uring']
    expect(u['submitted'] == u['completed'], f'io_uring {u}')
    expect(u['submitted'] >= 4, 'no io_uring read')
    expect(j['page_faults'] >= 16 * churn, f"page faults {j['page_faults']} < 16 x churn {churn}")
    e = j['events']
    expect(e['sys_enter'] == e['sys_exit'] == j['syscalls_total'], 'sys_enter/exit != syscalls')
    expect(e['page_fault_user'] == j['page_faults'], 'page_fault_user != page_faults')
    cs = j['ctx_switches']
    expect(e['sched_switch'] == cs['voluntary'] + cs['involuntary'], 'sched_switch')
    expect(j['total'] == sum(e.values()), f"total {j['total']} != sum of events {sum(e.values())}")
    if not uncapped:
        # main sleeps for every frame it did not miss
        expect(sc['clock_nanosleep'] >= frames - j['missed'], 'clock_nanosleep < paced frames')


def same(a, b):
    ja, jb = load(a), load(b)
    expect(ja['deterministic'] == jb['deterministic'],
           f"same seed, different jobs: {ja['deterministic']} vs {jb['deterministic']}")
    for k in ('ioctl', 'mmap', 'munmap', 'clock_gettime', 'write', 'read'):
        expect(ja['syscalls'][k] == jb['syscalls'][k], f'same seed, different {k} count')


def differ(a, b):
    ja, jb = load(a), load(b)
    expect(ja['deterministic']['checksum'] != jb['deterministic']['checksum'],
           'another seed, the same checksum')


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'one':
        one(args[0], args[1], args[2], len(args) > 3 and args[3] == 'uncapped')
    elif cmd == 'same':
        same(*args)
    elif cmd == 'differ':
        differ(*args)
    else:
        expect(False, f'unknown check {cmd}')
    print('ok')
