#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Wine layer's BPF programs are loaded when first needed, not at start:
# a capture of a process that never maps Wine's ntdll.so holds (by its file
# descriptors, /proc/PID/fdinfo: prog_id) the core programs and the Vulkan
# layer's, and none of the Wine layer's (up_Nt*, up_nt_syscall*, ur_nt*,
# up_wine_server_call*, ur_server*, up_unix_call*: most of the verifier's time
# at start-up).  The Wine tests (t_wine_nt, t_wine_command, ...) check that
# they are there, exactly, when Wine is.  Before: all 25 were loaded at start
# (~0.1 s of the ~0.27 s to go live on this kind of machine).
. "$(dirname "$0")/lib.sh"
kt_require
command -v bpftool >/dev/null || kt_skip "no bpftool"
sleep 120 &
SLEEPER=$!
KT_PIDS="$KT_PIDS $SLEEPER"
kt_record -p "$SLEEPER"
python3 - "$REC_PID" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out" 3)"
import json, os, subprocess, sys

pid = sys.argv[1]
ids = set()
for fd in os.listdir("/proc/%s/fdinfo" % pid):
    try:
        with open("/proc/%s/fdinfo/%s" % (pid, fd)) as f:
            for line in f:
                if line.startswith("prog_id:"):
                    ids.add(int(line.split()[1]))
    except OSError:
        pass
names = set()
for i in ids:
    out = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(i)],
                         capture_output=True, text=True)
    if out.returncode == 0:
        names.add(json.loads(out.stdout).get("name", ""))
print("programs held:", " ".join(sorted(names)))
core = [n for n in names if n in ("tpb_sys_enter", "raw_sys_enter")]
vk = [n for n in names if n.startswith("up_vkQueuePrese")]
wine = sorted(n for n in names if n.startswith(("up_Nt", "up_nt_", "ur_nt", "up_wine_server",
                                                "ur_server", "up_unix_call")))
if not core:
    sys.exit("no sys_enter program among those katra-record holds: %s" % sorted(names))
if not vk:
    sys.exit("the Vulkan layer's programs are not loaded at start: %s" % sorted(names))
if wine:
    sys.exit("Wine layer programs loaded with no Wine process traced: %s" % " ".join(wine))
print("core and Vulkan programs loaded, none of the Wine layer's")
PY
kill "$SLEEPER"
kt_wait_recorder 0
kt_note "$(tail -n 1 "$T/check.out")"
