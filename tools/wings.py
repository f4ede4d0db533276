#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The house in wings, checked: in user/record and user/replay no
file calls into a file that calls back into it (an import circle, from the
objects' symbols: build/obj/...), every arrow between wings points the way
the wings' READMEs allow (from both #includes and symbols), and no file in
user/ or bpf/ is over 800 lines (the generated syscall table aside).
Prints one PASS/FAIL line per check, then "N passed, N failed"."""
import collections
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# user/pe/ (the PE file reader): below both record and replay
PE = 'pe/(top)'
# user/symbols/ (frames named from ELF and PE files): below both too
SYMBOLS = 'symbols/(top)'
# what each wing may call (its own files always)
ALLOWED = {
    'record/(top)': {'record/targets', 'record/uprobes', 'record/drain', 'record/pipeline',
                     'record/emit', 'record/kernel', 'record/syscalls', 'record/table',
                     'record/procfs', 'record/stacks'},
    'record/drain': {'record/pipeline', 'record/kernel'},
    'record/targets': {'record/emit', 'record/table', 'record/procfs'},
    'record/uprobes': {'record/kernel', 'record/procfs', PE},
    'record/pipeline': {'record/emit'},
    'record/emit': {'record/syscalls', 'record/table'},
    'record/kernel': {'record/syscalls'},
    'record/syscalls': set(),
    'record/table': set(),
    'record/procfs': set(),
    # the Windows half: the PE unwinder and its file reader
    'record/stacks': {'record/procfs', 'record/peunwind', 'record/uprobes', PE, SYMBOLS},
    # the Windows x64 unwinder: the PE header parser and COFF symbol walk
    'record/peunwind': {'record/uprobes', PE},
    'replay/dump': {SYMBOLS, 'replay/stats', 'replay/names', 'replay/util'},
    # --per-frame: every frame's sides from report's frame walk (frame_sides.h)
    'replay/stats': {SYMBOLS, 'replay/report', 'replay/names', 'replay/util'},
    'replay/report': {SYMBOLS, 'replay/names', 'replay/util'},
    # frame slices' args: every frame's sides (report/frame_sides.h)
    'replay/export': {SYMBOLS, 'replay/tables', 'replay/report', 'replay/names', 'replay/util'},
    'replay/tables': {'replay/stats', 'replay/report', 'replay/parquet', 'replay/names',
                      'replay/util'},
    'replay/parquet': set(),
    'replay/compare': {'replay/stats', 'replay/names', 'replay/util'},
    'replay/names': {'replay/util', PE, SYMBOLS},
    'replay/util': set(),
}


def wing(rel):
    """user/record/emit/emit.c -> record/emit; user/record/cli.c -> record/(top)"""
    p = rel.split('/')
    return p[1] + '/' + (p[2] if len(p) > 3 else '(top)')


def symbols():
    """file -> the files whose functions it calls (from the built objects)"""
    objs = glob.glob(os.path.join(ROOT, 'build/obj/user/re*/**/*.o'), recursive=True)
    defs, und = {}, {}
    for o in objs:
        rel = os.path.relpath(o, os.path.join(ROOT, 'build/obj'))[:-2] + '.c'
        if not os.path.exists(os.path.join(ROOT, rel)):
            continue  # an object of a file since moved or removed
        und[rel] = set()
        for line in subprocess.check_output(['nm', o], text=True).splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBR':
                defs[f[2]] = rel
            elif len(f) == 2 and f[0] == 'U':
                und[rel].add(f[1])
    g = collections.defaultdict(set)
    for a, us in und.items():
        for u in us:
            b = defs.get(u)
            if b and b != a:
                g[a].add(b)
    return g, len(objs)


def includes():
    g = collections.defaultdict(set)
    for f in glob.glob(os.path.join(ROOT, 'user/re*/**/*.[ch]'), recursive=True):
        rel = os.path.relpath(f, ROOT)
        for x in re.findall(r'#include "([^"]+)"', open(f).read()):
            for cand in (os.path.join(os.path.dirname(rel), x), 'user/' + x):
                if os.path.exists(os.path.join(ROOT, cand)):
                    g[rel].add(os.path.normpath(cand))
                    break
    return g


def circles(g):
    idx, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        idx[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in idx:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in list(g):
        if v not in idx:
            visit(v)
    return out


def main():
    passed = failed = 0

    def check(name, problems):
        nonlocal passed, failed
        if problems:
            failed += 1
            print('FAIL %s: %s' % (name, '; '.join(problems[:8])))
        else:
            passed += 1
            print('PASS %s' % name)

    sym, nobj = symbols()
    if not nobj:
        print('FAIL wings: no objects under build/obj/user (run make first)')
        print('0 passed, 1 failed')
        return 1
    check('no import circle between files (calls)',
          [' <-> '.join(c) for c in circles(sym)])
    bad = []
    for kind, g in (('calls', sym), ('includes', includes())):
        for a, bs in sorted(g.items()):
            for b in sorted(bs):
                wa, wb = wing(a), wing(b)
                if wa != wb and wb not in ALLOWED.get(wa, set()):
                    bad.append('%s %s %s (%s -> %s)' % (a, kind, b, wa, wb))
    check('arrows between wings point down', bad)
    long = []
    for pat in ('user/**/*.[ch]', 'bpf/*.[ch]', 'include/**/*.h'):
        for f in glob.glob(os.path.join(ROOT, pat), recursive=True):
            rel = os.path.relpath(f, ROOT)
            n = sum(1 for _ in open(f))
            if n > 800:
                long.append('%s: %d lines' % (rel, n))
    check('no file over 800 lines in user/, bpf/, include/', long)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
