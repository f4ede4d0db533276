#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Loads a Chrome trace-event JSON (katra-replay export) into speedscope,
served from its own files (its npm package's dist/release, the way its
`speedscope FILE` command does it: a file:// page plus a generated script
that calls speedscope.loadFileFromBase64), in headless Chromium, and checks
what the page reports:

  - speedscope says it imported the file as a Trace Event Format profile,
    with no import error, no exception, no alert;
  - it lists one profile per thread that has slices in the JSON, each named
    as speedscope names them from the JSON's process_name / thread_name
    metadata.

Writes two screenshots to OUT_DIR: the list of threads (profiles), and the
busiest thread's timeline.  Prints one line per finding; exits 0 when every
check passed, 1 otherwise.

usage: speedscope_check.py --speedscope DIST_DIR --chromium PATH JSON OUT_DIR
"""
import argparse
import base64
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402


def expected_profiles(events):
    """(pid, tid) -> the profile name speedscope gives a thread with slices."""
    procs, threads, slices = {}, {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") in ("X", "B", "E"):
            key = (e["pid"], e["tid"])
            slices[key] = slices.get(key, 0) + e.get("dur", 0)
    names = {}
    for (pid, tid) in slices:
        p, t = procs.get(pid), threads.get((pid, tid))
        if p is not None and t is not None:
            names[(pid, tid)] = f"{p} (pid {pid}), {t} (tid {tid})"
        elif p is not None:
            names[(pid, tid)] = f"{p} (pid {pid}, tid {tid})"
        elif t is not None:
            names[(pid, tid)] = f"{t} (pid {pid}, tid {tid})"
        else:
            names[(pid, tid)] = f"pid {pid}, tid {tid}"
    return names, slices


def click(b, x, y):
    for typ in ("mousePressed", "mouseReleased"):
        b.call("Input.dispatchMouseEvent",
               {"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--speedscope", required=True)
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--opens-busiest", action="store_true",
                    help="the profile speedscope opens first must be the busiest thread's")
    ap.add_argument("json")
    ap.add_argument("out_dir")
    a = ap.parse_args()

    raw = open(a.json, "rb").read()
    events = json.loads(raw)["traceEvents"]
    want, weight = expected_profiles(events)
    os.makedirs(a.out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="katra-speedscope-")
    loader = os.path.join(tmp, "load.js")
    with open(loader, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" % (
            json.dumps(os.path.basename(a.json)), json.dumps(base64.b64encode(raw).decode())))
    index = os.path.join(os.path.abspath(a.speedscope), "index.html")
    failures = []

    b = Browser(a.chromium, os.path.join(tmp, "profile"))
    try:
        b.open_page()
        b.navigate("file://" + index + "#localProfilePath=" + loader)
        text = ""
        for _ in range(120):
            time.sleep(0.25)
            text = b.eval("document.body ? document.body.innerText : ''") or ""
            if "(pid " in text or "Something went wrong" in text:
                break
        b.pump(0.5)
        opened = b.eval("document.body ? document.body.innerText : ''") or ""
        # the profile list: a click on the profile name in the toolbar opens it
        click(b, 800, 10)
        time.sleep(1)
        listing = b.eval("document.body.innerText") or ""
        b.screenshot(os.path.join(a.out_dir, "speedscope-threads.png"))
        # the busiest thread's timeline
        ranked = sorted(want, key=lambda k: (k[0], k[1]))
        busiest = max(weight, key=weight.get)
        row = ranked.index(busiest)
        rows = b.eval("""(() => {
            const out = [];
            for (const el of document.querySelectorAll('*')) {
                if (el.children.length === 0 && /\\(pid \\d+/.test(el.textContent)) {
                    const r = el.getBoundingClientRect();
                    out.push([el.textContent, r.x + r.width / 2, r.y + r.height / 2]);
                }
            }
            return out;
        })()""") or []
        target = [r for r in rows if r[0] == want[busiest]]
        if target:
            click(b, target[-1][1], target[-1][2])
            time.sleep(1.5)
        b.screenshot(os.path.join(a.out_dir, "speedscope-main-thread.png"))
        shown = b.eval("document.body.innerText") or ""
        log = b.console()
    finally:
        b.close()

    for line in log:
        print("page:", line)
    if not any("Importing as Trace Event Format profile" in l for l in log):
        failures.append("speedscope did not say 'Importing as Trace Event Format profile'")
    for bad in ("Failed to load format", "Unrecognized format", "exception:", "dialog:",
                "was still open at end of profile", "Tried to end"):
        hits = [l for l in log if bad in l]
        if hits:
            failures.append(f"speedscope reported: {hits[0]}")
    if "Something went wrong" in text:
        failures.append("speedscope shows 'Something went wrong'")
    n = len(want)
    if f"(1/{n})" not in text:
        failures.append(f"expected {n} profiles, '(1/{n})' is not in the toolbar: {text!r}")
    for key, name in sorted(want.items()):
        if name in listing:
            print(f"profile: {name}")
        else:
            failures.append(f"profile '{name}' is not listed")
    busiest_name = want[busiest]
    if a.opens_busiest and busiest_name not in opened:
        failures.append(f"speedscope opened another profile than the busiest thread's "
                        f"'{busiest_name}': {opened[:200]!r}")
    elif a.opens_busiest:
        print(f"opens on: {busiest_name}")
    if not target:
        failures.append(f"could not find the row of '{want[busiest]}' to open it")
    elif want[busiest] not in shown:
        failures.append(f"the toolbar does not show '{want[busiest]}' after choosing it")
    else:
        print(f"opened: {want[busiest]} (row {row + 1})")
    for f in failures:
        print("FAIL:", f)
    print(f"{n} profiles, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
