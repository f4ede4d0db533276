#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Plots of the game bench (bench.py's "game" results) as PNGs.

    python3 bench/plots.py [bench/results/latest.json [OUTDIR]]

redraws them from a results file; bench.py calls game_plots() after a run.
  game-frametime-cdf.png    frame work time CDF per tracer (and its tail)
  game-ratio.png            p50/p99 frame work time ratio to untraced per
                            tracer, median and min..max over repetitions,
                            with the targets; fps cost when uncapped
  game-katra-timeline.png   katra-record's events/s and drops over one run
"""
import json
import os
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# one colour per tracer, the same on every chart
COLOR = {'untraced': '#222222', 'katra-record': '#d62728', 'trace-cmd': '#1f77b4',
         'perf': '#9467bd', 'bpftrace': '#8c564b', 'floor-ringbuf': '#2ca02c',
         'floor-noop': '#7f7f7f'}
EXTRA = ['#ff7f0e', '#e377c2', '#17becf', '#bcbd22']


def color(c, cols):
    if c in COLOR:
        return COLOR[c]
    others = [x for x in cols if x not in COLOR]
    return EXTRA[others.index(c) % len(EXTRA)]


def frames(game, mode, c):
    """Every frame's work time (ms) of every good run of column c."""
    out = []
    for r in game['raw'].get(mode, {}).get(c, []):
        out += [x / 1e6 for x in r.get('frame_work_ns', [])]
    return sorted(out)


def plot_cdf(game, path):
    cols = [c for c in game['columns'] if frames(game, 'capped', c)]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 5.2))
    summ = game['capped']
    xmax = 0
    for c in cols:
        xs = frames(game, 'capped', c)
        n = len(xs)
        ys = [(i + 1) / n for i in range(n)]
        s = summ.get(c, {})
        if c == 'untraced':
            lab = f"untraced (p50 {s['work_ms']['p50']['median']:.2f} ms, " \
                  f"p99 {s['work_ms']['p99']['median']:.2f} ms)"
        else:
            lab = f"{c} (p50 x{s['ratio']['p50']['median']:.2f}, " \
                  f"p99 x{s['ratio']['p99']['median']:.2f})"
        lw = 2.6 if c in ('katra-record', 'untraced') else 1.6
        a1.plot(xs, ys, color=color(c, cols), lw=lw, label=lab)
        a2.plot(xs, [1 - y + 1 / n for y in ys], color=color(c, cols), lw=lw)
        xmax = max(xmax, xs[min(n - 1, int(0.98 * n))])
    a1.set_xlim(0, xmax * 1.15)
    a1.set_ylim(0, 1.01)
    a1.set_xlabel('frame work time (ms): frame start -> jobs done + submit (98 % of frames shown)')
    a1.set_ylabel('fraction of frames at or below')
    a1.set_title('Frame work time CDF (left is better)')
    a1.grid(alpha=0.3)
    for y in (0.5, 0.99):
        a1.axhline(y, color='#999999', lw=0.8, ls=':')
    a1.legend(loc='lower right', fontsize=8.5)
    a2.set_yscale('log')
    a2.set_xlabel('frame work time (ms)')
    a2.set_ylabel('fraction of frames slower (log)')
    a2.set_title('The tail: p99 at 1e-2, p99.9 at 1e-3, the last point is the worst frame')
    for y in (1e-2, 1e-3):
        a2.axhline(y, color='#999999', lw=0.8, ls=':')
    a2.grid(alpha=0.3, which='both')
    n_frames = len(frames(game, 'capped', 'untraced'))
    fig.suptitle(f"What tracing does to a 60 Hz game's frame work time "
                 f"({game['workers']} workers, {game['runs']} interleaved runs of "
                 f"{game['seconds']['capped']:g} s, {n_frames} frames per tracer)", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_ratio(game, path):
    summ = game['capped']
    cols = [c for c in game['columns'] if c != 'untraced' and 'ratio' in summ.get(c, {})]
    unc = game.get('uncapped', {})
    ucols = [c for c in game['columns'] if c != 'untraced' and 'fps_cost_pct' in unc.get(c, {})]
    ntg = len(game.get('targets', []))
    fig, axes = plt.subplots(1, 2 if ucols else 1, figsize=(13 if ucols else 8, 5.2 + 0.16 * ntg),
                             gridspec_kw={'width_ratios': [2, 1]} if ucols else None)
    ax = axes[0] if ucols else axes
    w = 0.38
    labels = []
    for i, c in enumerate(cols):
        for j, (q, hatch) in enumerate((('p50', None), ('p99', '//'))):
            r = summ[c]['ratio'][q]
            x = i + (j - 0.5) * w
            ax.bar(x, r['median'], w * 0.92, color=color(c, cols), alpha=0.55 if j == 0 else 0.95,
                   hatch=hatch, edgecolor='white')
            ax.errorbar(x, r['median'], yerr=[[r['median'] - r['min']], [r['max'] - r['median']]],
                        color='black', capsize=4, lw=1.2)
            labels.append((x, r['median']))
    ax.axhline(1.0, color='black', lw=1)
    # the targets, drawn where katra-record's bars must stay below
    if 'katra-record' in cols:
        k = cols.index('katra-record')
        for ref, f, ls in (('trace-cmd', 0.4, '--'), ('floor-ringbuf', 1.25, ':')):
            if ref in cols:
                for j, q in enumerate(('p50', 'p99')):
                    y = 1 + f * summ[ref]['excess'][q]
                    x = k + (j - 0.5) * w
                    ax.plot([x - w / 2, x + w / 2], [y, y], color='black', ls=ls, lw=1.6)
        ax.plot([], [], color='black', ls='--', label="target: 1 + 0.4 x trace-cmd's excess")
        ax.plot([], [], color='black', ls=':', label="target: 1 + 1.25 x floor-ringbuf's excess")
    handles, _ = ax.get_legend_handles_labels()
    handles = [Patch(facecolor='#bbbbbb', label='p50 (light)'),
               Patch(facecolor='#555555', hatch='//', edgecolor='white', label='p99 (hatched)')] \
        + handles
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=20, ha="right")
    lo = min([summ[c]['ratio'][q]['min'] for c in cols for q in ('p50', 'p99')] + [1.0])
    hi = max([summ[c]['ratio'][q]['max'] for c in cols for q in ('p50', 'p99')] + [1.0])
    # one wild repetition must not flatten the rest: clip far outliers, say so
    mid = max([summ[c]['ratio'][q]['median'] for c in cols for q in ('p50', 'p99')] + [1.0])
    top = min(hi, 1 + 2 * (mid - 1) + 0.3)
    bottom = max(0, min(0.95, lo - 0.05))
    ax.set_ylim(bottom, top + (top - bottom) * 0.3)
    for x, m in labels:  # the medians, inside the bars' feet
        ax.text(x, bottom + (top - bottom) * 0.02, f'{m:.2f}', ha='center', va='bottom',
                fontsize=8.5, fontweight='bold', color='white' if m > bottom + 0.1 else 'black')
    for i, c in enumerate(cols):
        for j, q in enumerate(('p50', 'p99')):
            r = summ[c]['ratio'][q]
            if r['max'] > top + (top - bottom) * 0.3:
                ax.annotate(f"max {r['max']:.2f}", (i + (j - 0.5) * w, top + (top - bottom) * 0.27),
                            ha='center', va='top', fontsize=7.5, color='#444444')
    ax.set_ylabel('frame work time / untraced, same repetition')
    head = ', '.join(f"{c} +{100 * summ[c]['excess']['p50']:.0f} % / +{100 * summ[c]['excess']['p99']:.0f} %"
                     for c in cols if c in ('katra-record', 'trace-cmd', 'floor-ringbuf'))
    ax.set_title('Frame work time / untraced at 60 Hz (lower is better), median and min..max\n'
                 f'p50 / p99 excess: {head}'.replace('+-', '-'), fontsize=10.5)
    ax.legend(handles=handles, fontsize=8.5, loc='upper left')
    ax.grid(axis='y', alpha=0.3)
    tg = game.get('targets', [])
    if tg:
        txt = '\n'.join(f"{t['result']}  {t['target']}: {t['detail']}" for t in tg)
        fig.text(0.01, 0.01, txt, ha='left', va='bottom', fontsize=8, family='monospace')
    if ucols:
        a2 = axes[1]
        for i, c in enumerate(ucols):
            r = unc[c]['fps_cost_pct']
            a2.bar(i, r['median'], 0.6, color=color(c, ucols))
            a2.errorbar(i, r['median'], yerr=[[r['median'] - r['min']], [r['max'] - r['median']]],
                        color='black', capsize=4, lw=1.2)
            a2.text(i, max(r['max'], 0) + 0.5, f"{r['median']:.0f} %", ha='center',
                    va='bottom', fontsize=8.5)
        a2.axhline(0, color='black', lw=1)
        a2.set_xticks(range(len(ucols)))
        a2.set_xticklabels(ucols, rotation=30, ha='right')
        base = unc.get('untraced', {}).get('fps', {}).get('median')
        a2.set_title(f"--uncapped: fps lost (untraced {base:.0f} fps)" if base else
                     '--uncapped: fps lost')
        a2.set_ylabel('% of untraced fps lost (lower is better)')
        a2.grid(axis='y', alpha=0.3)
    # the targets' text takes ~0.135 in a line at 8 pt: the charts end above it
    fig.tight_layout(rect=(0, (0.135 * ntg + 0.1) / (5.2 + 0.16 * ntg), 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def katra_timeline_run(game):
    for r in reversed(game['raw'].get('capped', {}).get('katra-record', [])):
        if r.get('timeline'):
            return r
    return None


def plot_timeline(game, path):
    r = katra_timeline_run(game)
    if not r:
        return False
    tl = r['timeline']
    b = tl['bin_ns'] / 1e9
    ev = tl['events']
    fig, ax = plt.subplots(figsize=(13, 4.8))
    loop = None
    if tl.get('start_mono_ns') and r.get('start_mono_ns'):
        t0 = (int(r['start_mono_ns']) - int(tl['start_mono_ns'])) / 1e9
        loop = (t0, t0 + r['elapsed_ns'] / 1e9)
    # whole bins inside the frame loop only: a bin cut by its start or end
    # would read as a dip
    keep = [i for i in range(len(ev)) if loop is None and 0 < i < len(ev) - 1 or
            loop is not None and i * b >= loop[0] and (i + 1) * b <= loop[1]]
    xs = [(i + 0.5) * b for i in keep]
    ev = [ev[i] for i in keep]
    ax.plot(xs, [n / b for n in ev], color=COLOR['katra-record'], lw=1.2,
            label=f'events/s written ({b * 1e3:.0f} ms bins, from the events\' timestamps)')
    rec = sorted((c[0], c[3]) for c in tl['counters'] if c[1] == 'EventsRecorded')
    prev = (0, 0)
    cx, cy = [], []
    for ts, v in rec:
        if ts > prev[0]:
            cx.append((prev[0] + ts) / 2e9)
            cy.append((v - prev[1]) / ((ts - prev[0]) / 1e9))
        prev = (ts, v)
    if cx:
        ax.plot(cx, cy, 'o', color='black', ms=6,
                label='events/s from the EventsRecorded counters (one a second)')
    ax.set_xlabel('seconds since the capture started')
    ax.set_ylabel('events/s')
    ax.set_ylim(0, None)
    ax.grid(alpha=0.3)
    # the workload's frames, placed by CLOCK_MONOTONIC
    if loop:
        ax.axvspan(loop[0], loop[1], color='#dddddd', alpha=0.5, label='the frame loop')
    a2 = ax.twinx()
    dropped = {}
    for ts, kind, inst, v in sorted(c for c in tl['counters'] if c[1] == 'EventsDropped'):
        dropped.setdefault(ts, 0)
        dropped[ts] += v
    dx = [t / 1e9 for t in sorted(dropped)]
    dy = [dropped[t] for t in sorted(dropped)]
    total = (dy[-1] if dy else 0) + 0
    drop_ev = sum(d[2] or 0 for d in tl.get('drops', []))
    if dx:
        a2.step(dx, dy, where='post', color='#1f77b4', lw=2,
                label='events dropped, cumulative (EventsDropped counters, all rings)')
    for d in tl.get('drops', []):
        a2.axvline(d[0] / 1e9, color='#1f77b4', lw=0.8, ls='--')
    if not max(dy or [0]) and not drop_ev:
        a2.text(0.01, 0.04, 'no event dropped in this run', transform=a2.transAxes,
                color='#1f77b4', fontsize=10, fontweight='bold')
    a2.set_ylabel('events dropped (cumulative)', color='#1f77b4')
    a2.set_ylim(0, max(10, max(dy or [0]) * 1.2, drop_ev * 1.2))
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = a2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8.5, loc='lower center')
    ax.set_title(f"katra-record during one 60 Hz game run: {r.get('recorded', 0):.0f} events "
                 f"written, {r.get('lost') or 0:.0f} lost (summary); drops in the trace: "
                 f"{max(total, drop_ev):.0f}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def game_plots(game, outdir):
    """Writes the PNGs; returns their paths."""
    os.makedirs(outdir, exist_ok=True)
    out = []
    if 'capped' in game:
        p = os.path.join(outdir, 'game-frametime-cdf.png')
        plot_cdf(game, p)
        out.append(p)
        p = os.path.join(outdir, 'game-ratio.png')
        plot_ratio(game, p)
        out.append(p)
        p = os.path.join(outdir, 'game-katra-timeline.png')
        if plot_timeline(game, p):
            out.append(p)
    return out


if __name__ == '__main__':
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'results', 'latest.json')
    with open(src) as f:
        g = json.load(f)['game']
    for p in game_plots(g, sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(src)):
        print(p)
