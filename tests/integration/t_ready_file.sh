#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --ready-file says this capture is live, nothing else: a stale one is removed
# when the recorder starts (held here before it is live: its standard output,
# the trace, is a full pipe) and the file is removed at exit.  -p with
# -- COMMAND is a usage error.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
echo stale >"$T/ready"
python3 - "$REC" "$T" "$BUSY_PID" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
import fcntl, os, signal, subprocess, sys, time
rec, tmp, busy = sys.argv[1:4]
ready = os.path.join(tmp, "ready")
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
os.set_blocking(w, False)
try:
    while True:
        os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(w, True)
p = subprocess.Popen([rec, "-q", "-o", "-", "--ready-file", ready, "-p", busy],
                     stdout=w, stderr=open(os.path.join(tmp, "rec.err"), "w"))
os.close(w)

def blocked_writing():
    for tid in os.listdir("/proc/%d/task" % p.pid):
        try:
            if open("/proc/%d/task/%s/wchan" % (p.pid, tid)).read().endswith("pipe_write"):
                return True
        except OSError:
            pass
    return False

for _ in range(4000):  # it writes the trace's header before it is live
    if blocked_writing() or p.poll() is not None:
        break
    time.sleep(0.005)
assert p.poll() is None, "katra-record exited %s: %s" % (p.returncode, open(os.path.join(tmp, "rec.err")).read())
assert blocked_writing(), "katra-record never blocked writing its header"
assert not os.path.exists(ready), "a stale ready file is still there while the capture is not live"
def drain():
    while os.read(r, 65536):
        pass
import threading
threading.Thread(target=drain, daemon=True).start()
for _ in range(4000):
    if os.path.exists(ready):
        break
    time.sleep(0.005)
got = open(ready).read().strip()
assert got == str(p.pid), "the ready file says %r, expected %d" % (got, p.pid)
p.send_signal(signal.SIGTERM)
assert p.wait(timeout=30) == 0, "exit %s" % p.returncode
assert not os.path.exists(ready), "the ready file is left after exit"
print("stale ready file removed at start, ours at exit")
PY
kt_note "$(kt_tail "$T/check.out")"

kt_run_rec -p "$BUSY_PID" -o "$T/both.ktrc" -- sleep 1
[ "$KT_RC" = 2 ] || kt_fail "-p with -- COMMAND: exit $KT_RC, expected 2"
grep -q "exclude each other" "$T/rec.err" || kt_fail "-p with --: $(kt_tail "$T/rec.err")"
[ ! -e "$T/both.ktrc" ] || kt_fail "-p with --: a trace was written"
true
