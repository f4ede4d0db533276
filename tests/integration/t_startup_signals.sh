#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A stop signal at any moment of the start-up of `-- COMMAND` leaves no
# process behind: SIGINT to the recorder 0, 20, 50, 100, 150 and 300 ms
# after it starts (three times each), and SIGKILL while the command waits
# paused (PR_SET_PDEATHSIG).  The command is found by its pid and by a marker
# in its argv (the name of a symlink to sleep), and the exit status must be
# SIGINT's: the recorder killed by it, or the command's (130).
. "$(dirname "$0")/lib.sh"
kt_require
SLEEP=$(command -v sleep)
python3 - "$REC" "$T" "$SLEEP" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
import os, signal, subprocess, sys, time

rec, tmp, sleep_bin = sys.argv[1:4]


def with_marker(marker):
    """pids of live (non-zombie) processes whose argv holds marker"""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv = f.read()
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in argv and state not in ("Z", "X"):
            found.append((int(d), state))
    return found


def children_of(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def gone(marker, kids):
    """waits (5 s at most: a killed process goes at once) until nothing with
    marker is alive; returns what is left"""
    left = []
    for _ in range(100):
        left = with_marker(marker) + [(k, "?") for k in kids if os.path.exists("/proc/%d" % k)
                                      and marker.encode() in open("/proc/%d/cmdline" % k, "rb").read()]
        if not left:
            return []
        time.sleep(0.05)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def start(marker):
    link = os.path.join(tmp, marker)
    os.symlink(sleep_bin, link)
    # SIGINT at its default action, as in a terminal (a background shell job
    # would inherit it ignored)
    return subprocess.Popen([rec, "-q", "-o", os.path.join(tmp, marker + ".ktrc"), "--", link, "3"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, marker + ".err"), "w"),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


bad = []
n = 0
for delay_ms in (0, 20, 50, 100, 150, 300):
    for rep in range(3):
        marker = "katra-startup-%d-%d-%d" % (os.getpid(), delay_ms, rep)
        p = start(marker)
        kids = set()
        end = time.monotonic() + delay_ms / 1000.0
        while time.monotonic() < end:
            kids.update(children_of(p.pid))
            time.sleep(0.002)
        kids.update(children_of(p.pid))
        p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
            bad.append("SIGINT at %d ms: katra-record still running 30 s later" % delay_ms)
        left = gone(marker, kids)
        if left:
            bad.append("SIGINT at %d ms: left behind %s" % (delay_ms, left))
        if rc not in (-signal.SIGINT, 128 + signal.SIGINT):
            bad.append("SIGINT at %d ms: exit %s (%s)" % (delay_ms, rc,
                       open(os.path.join(tmp, marker + ".err")).read().strip()[-200:]))
        n += 1
        if bad:
            break
    if bad:
        break

# SIGKILL (no handler runs) while the command waits paused: the kernel ends it
for rep in range(0 if bad else 3):
    marker = "katra-startup-%d-kill-%d" % (os.getpid(), rep)
    p = start(marker)
    paused = None
    for _ in range(2000):
        for k in children_of(p.pid):
            try:
                st = open("/proc/%d/stat" % k).read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if st == "T":
                paused = k
        if paused or p.poll() is not None:
            break
        time.sleep(0.005)
    if not paused:
        p.kill()
        p.wait()
        gone(marker, [])
        bad.append("SIGKILL run %d: never saw the command paused" % rep)
        continue
    p.kill()
    p.wait()
    left = gone(marker, [paused])
    if left:
        bad.append("SIGKILL while paused: left behind %s" % left)
    n += 1

if bad:
    print("; ".join(bad[:4]) + (" (and %d more)" % (len(bad) - 4) if len(bad) > 4 else ""))
    sys.exit(1)
print("%d interrupted start-ups, no process left behind" % n)
PY
kt_note "$(kt_tail "$T/check.out")"
