#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kt-timeout: 600
# SIGINT, SIGTERM and SIGKILL to `katra-record -- COMMAND` at 20 moments of
# its start-up each (spread over 0 .. 1.3 x the time it takes to be live, by
# its --ready-file) and once it is live, then SIGKILL again while the paused
# child sits where its parent-death signal is armed but it does not wait yet
# (KATRA_TEST_ARMED_MS widens that moment to 300 ms), then SIGKILL while the
# Vulkan resolver runs as the command's user (-u nobody; a stand-in that
# hangs, KATRA_TEST_VKRESOLVE).  The test is the children's subreaper, so
# whatever the recorder leaves is reparented here and seen (stopped, running,
# or a zombie nobody reaped).  After each recorder's exit:
#  - SIGINT, SIGTERM: no process of the command is left, none reparented here;
#    a trace that exists verifies, and one exists when the signal came after
#    the capture was live;
#  - SIGKILL: nothing stopped; a child never released exits by itself; a
#    released one runs the command (it outlives the recorder, as with -d);
#    the resolver ends too.
. "$(dirname "$0")/lib.sh"
kt_require
SLEEP=$(command -v sleep)
python3 - "$REC" "$REPLAY" "$T" "$SLEEP" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
import ctypes, os, signal, subprocess, sys, time

rec, replay, tmp, sleep_bin = sys.argv[1:5]
PR_SET_CHILD_SUBREAPER = 36
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0):
    print("cannot become a subreaper: errno %d" % ctypes.get_errno())
    sys.exit(1)
rec_real = os.path.realpath(rec)
sleep_real = os.path.realpath(sleep_bin)


def state_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def comm_of(pid):
    """its name; a zombie's too"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split("(", 1)[1].rsplit(")", 1)[0]
    except OSError:
        return None


def exe_of(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


def our_children():
    kids = []
    for t in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/children" % t) as f:
                kids += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return kids


def with_marker(marker):
    """pids anywhere whose argv holds marker (a stray outside our subtree)"""
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(d))
            except OSError:
                pass
    return found


def reap(pid, hang_guard_s=10):
    """waits for pid, a child of ours (it must end by itself); the guard
    only keeps a broken build from hanging the test"""
    for _ in range(hang_guard_s * 100):
        got, st = os.waitpid(pid, os.WNOHANG)
        if got == pid:
            return True
        time.sleep(0.01)
    return False


def settle(pid, hang_guard_s=10):
    """a fork of the recorder, a child of ours by now: "ended" once it ended
    by itself (reaped), "exec" once it runs the command (released: its exec
    may still be on its way when its parent dies)"""
    for _ in range(hang_guard_s * 100):
        got, st = os.waitpid(pid, os.WNOHANG)
        if got == pid:
            return "ended"
        if exe_of(pid) == sleep_real:
            return "exec"
        time.sleep(0.01)
    return "stuck"


def kill_reap(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def start(marker, env=None):
    link = os.path.join(tmp, marker)
    os.symlink(sleep_bin, link)
    ready = os.path.join(tmp, marker + ".ready")
    trace = os.path.join(tmp, marker + ".ktrc")
    p = subprocess.Popen([rec, "-q", "-o", trace, "--ready-file", ready, "--", link, "30"],
                         stdout=subprocess.DEVNULL,
                         stderr=open(os.path.join(tmp, marker + ".err"), "w"),
                         env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return p, ready, trace


def time_to_live(env=None):
    marker = "katra-stk-%d-cal-%d" % (os.getpid(), time.monotonic_ns())
    p, ready, _ = start(marker, env)
    t0 = time.monotonic()
    while not os.path.exists(ready) and p.poll() is None:
        time.sleep(0.002)
    live = time.monotonic() - t0
    p.send_signal(signal.SIGTERM)
    p.wait()
    for k in our_children():
        kill_reap(k)
    return live


def one(sig, delay, tag, env=None):
    """one interrupted start-up; returns what went wrong ([] if nothing)"""
    marker = "katra-stk-%d-%s" % (os.getpid(), tag)
    what = "%s at %s" % (signal.Signals(sig).name,
                         "live" if delay is None else "%.0f ms" % (delay * 1000))
    p, ready, trace = start(marker, env)
    if delay is None: # once live, whatever the start-up took
        while not os.path.exists(ready) and p.poll() is None:
            time.sleep(0.002)
    else:
        time.sleep(delay)
    live = os.path.exists(ready)
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return ["%s: katra-record still running 60 s later" % what]
    bad = []
    # the recorder is reaped: what it left is reparented here by now (its
    # perf-event uprobe links' holder too, katra-linger, which ends by
    # itself: linger.c; with uprobe_multi links, 6.6+, there is none)
    released = 0
    for k in our_children():
        st, exe = state_of(k), exe_of(k)
        if st == "T":
            bad.append("%s: pid %d left stopped (state T, exe %s)" % (what, k, exe))
            kill_reap(k)
        elif exe == sleep_real and st not in ("Z", "X"):
            if sig != signal.SIGKILL:
                bad.append("%s: the command (pid %d) left running (exit %s)" % (what, k, rc))
            released += 1 # SIGKILL: released before the recorder died, it runs
            kill_reap(k)
        else:
            # a fork of the recorder, never released, or the links' holder
            # (katra-linger): it must end by itself; after SIGINT/SIGTERM the
            # recorder ends and reaps its command itself, so anything else
            # reparented here (a zombie too) was left behind
            if sig != signal.SIGKILL and comm_of(k) != "katra-linger":
                bad.append("%s: pid %d (%s, state %s) left behind (exit %s)"
                           % (what, k, comm_of(k), st, rc))
            end = settle(k)
            if end == "exec" and sig == signal.SIGKILL:
                released += 1
            elif end != "ended":
                bad.append("%s: pid %d (state %s, exe %s) %s after the recorder died"
                           % (what, k, state_of(k), exe_of(k),
                              "ran the command" if end == "exec" else "still there 10 s"))
            if end != "ended":
                kill_reap(k)
    stray = with_marker(marker)
    if stray:
        bad.append("%s: %s still running with the command's argv" % (what, stray))
        for k in stray:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
    if sig == signal.SIGKILL and live and not released:
        bad.append("%s: the capture was live, yet the command did not outlive the "
                   "recorder" % what)
    if sig != signal.SIGKILL:
        if live and not os.path.exists(trace):
            bad.append("%s (live): no trace written (exit %s)" % (what, rc))
        if os.path.exists(trace):
            v = subprocess.run([replay, "verify", trace], capture_output=True, text=True)
            if v.returncode:
                bad.append("%s: katra-replay verify rejects the trace: %s"
                           % (what, (v.stdout + v.stderr).strip()[-200:]))
        os.unlink(trace) if os.path.exists(trace) else None
    counts[(sig, live)] = counts.get((sig, live), 0) + 1
    return bad


counts = {}
bad = []
live_s = max(time_to_live(), time_to_live())
delays = [live_s * 1.3 * i / 19 for i in range(20)]
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
    for i, d in enumerate(delays + [None]):
        bad += one(sig, d, "%d-%d" % (sig, i))

# the moment between the parent-death signal's arming and the wait, made
# 300 ms long: a SIGKILL there must not leave the child stopped
env = dict(os.environ, KATRA_TEST_ARMED_MS="300")
armed_live = time_to_live(env)
for i in range(10):
    bad += one(signal.SIGKILL, armed_live * i / 9, "armed-%d" % i, env)

# the Vulkan resolver, run during the start-up as the command's user (-u):
# a stand-in that hangs; SIGKILL to the recorder while it runs must end it
# too (its parent-death signal, which setuid clears, armed after it)
icds = [f for d in ("/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d")
        if os.path.isdir(d) for f in os.listdir(d) if f.endswith(".json")]
helper_runs = 0
if icds:
    os.chmod(tmp, 0o711) # the command and the stand-in run as nobody
    pub = os.path.join(tmp, "pub")
    os.mkdir(pub)
    os.chmod(pub, 0o1777)
    hung = os.path.join(tmp, "hung-vkresolve")
    with open(hung, "w") as f:
        f.write('#!/bin/sh\necho $$ >"%s/hung.$$"\nexec sleep 600\n' % pub)
    os.chmod(hung, 0o755)
    env = dict(os.environ, KATRA_TEST_VKRESOLVE=hung)
    for i in range(3):
        marker = "katra-stk-%d-vk-%d" % (os.getpid(), i)
        link = os.path.join(tmp, marker)
        os.symlink(sleep_bin, link)
        p = subprocess.Popen([rec, "-q", "-u", "nobody", "-o", os.path.join(tmp, marker + ".ktrc"),
                              "--", link, "30"], stdout=subprocess.DEVNULL,
                             stderr=open(os.path.join(tmp, marker + ".err"), "w"), env=env)
        helper = None
        for _ in range(3000): # the hang guard: 30 s
            got = [f for f in os.listdir(pub) if f.startswith("hung.")]
            if got or p.poll() is not None:
                break
            time.sleep(0.01)
        if got:
            os.unlink(os.path.join(pub, got[0]))
            helper = int(got[0].split(".")[1])
        p.kill()
        p.wait()
        if helper is None:
            bad.append("-u nobody: the stand-in resolver never ran (exit %s)" % p.returncode)
        helper_runs += 1
        for k in our_children():
            if reap(k): # the resolver, the paused command: both end by themselves
                continue
            if k == helper:
                bad.append("SIGKILL while katra-vkresolve runs as nobody: it is still "
                           "running (pid %d, state %s)" % (k, state_of(k)))
            else:
                bad.append("SIGKILL while katra-vkresolve runs: pid %d (state %s, exe %s) "
                           "left" % (k, state_of(k), exe_of(k)))
            kill_reap(k)

if bad:
    print("\n".join(bad))
    print("%d problems in %d interrupted start-ups; the first: %s" % (
        len(bad), sum(counts.values()), bad[0]))
    sys.exit(1)
print("live after %.0f ms; %s; armed window: live after %.0f ms; nothing left behind" % (
    live_s * 1000, ", ".join("%s %s: %d" % (signal.Signals(s).name, "live" if l else "starting", n)
                             for (s, l), n in sorted(counts.items())), armed_live * 1000)
    + "; SIGKILL while katra-vkresolve runs as nobody: %d" % helper_runs)
PY
kt_note "$(kt_tail "$T/check.out")"
