#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Where the kernel has uprobe_multi links (Linux 6.6), the recorder attaches
# the layers' uprobes as one link per program and file and releases them
# itself at the capture's end: nothing outlives it.  Checked with
# `katra-record -- vksubmit` (lavapipe; the drivers probed before the command
# runs), the test being the children's subreaper: at the moment the recorder
# has exited and been reaped, no process is left (no katra-linger holding
# links, no process of the capture), the header says uprobe_multi, and the
# uprobes worked: exactly K VulkanQueueSubmit spans (vulkan-submit).  Skips
# where the kernel has no uprobe_multi links (the perf-event path and
# katra-linger: t_uprobe_fallback, t_exit_linger).  Before the recorder
# released them itself, a katra-linger child held the links for 1.5 s
# after the recorder's exit (vkcube, 2 CPUs).
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vksubmit"
K=30
python3 - "$REC" "$TRACE" "$T" "$KT_ROOT/build/uprobe/vksubmit" $K <<'PY' >"$T/check.out" 2>&1
import ctypes, os, subprocess, sys, time

rec, trace, tmp, prog, k = sys.argv[1:6]
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(36, 1, 0, 0, 0):  # PR_SET_CHILD_SUBREAPER
    sys.exit("cannot become a subreaper: errno %d" % ctypes.get_errno())
started, gate = tmp + "/started", tmp + "/gate"
with open(tmp + "/vksubmit.out", "w") as out, open(tmp + "/rec.err", "w") as err:
    r = subprocess.Popen([rec, "-o", trace, "--", prog, started, gate, k],
                         stdout=out, stderr=err)
    for _ in range(6000):
        if os.path.exists(started) or r.poll() is not None:
            break
        time.sleep(0.01)
    open(gate, "w").close()
    try:
        rc = r.wait(timeout=120)
    except subprocess.TimeoutExpired:
        r.kill()
        sys.exit("katra-record still running 120 s later")
# the recorder is reaped: what it left is reparented here by now
me, left = os.getpid(), []
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        with open("/proc/%s/stat" % d) as f:
            st = f.read()
    except OSError:
        continue
    comm, rest = st.split("(", 1)[1].rsplit(")", 1)
    if int(rest.split()[1]) == me:
        left.append("%s (%s, state %s)" % (d, comm, rest.split()[0]))
for p in left:
    os.kill(int(p.split()[0]), 9)
if rc:
    sys.exit("katra-record exited %d" % rc)
if left:
    sys.exit("left when katra-record had exited: %s" % ", ".join(left))
print("nothing left behind")
PY
py=$?
"$REPLAY" dump "$TRACE" 2>/dev/null | grep -q 'uprobe_multi: this kernel has no uprobe_multi links' &&
	kt_skip "this kernel has no uprobe_multi links"
[ "$py" = 0 ] || kt_fail "$(kt_tail "$T/check.out"): $(kt_tail "$T/rec.err")"
kt_verify
grep -q '"uprobe links: uprobe_multi, one per program and file' "$TRACE.jsonl" ||
	kt_fail "the header does not say uprobe_multi: $(grep -o '"uprobe links[^"]*"' "$TRACE.jsonl")"
kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/vksubmit.out"
