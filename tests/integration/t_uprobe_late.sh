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
# sys_enter and sys_exit are verified on a thread, in an object of their own
# (probes_split.c): no program is loaded twice, and all of them together
# reference one array of rings, one .rodata, one .bss, one of each table.
. "$(dirname "$0")/lib.sh"
kt_require
command -v bpftool >/dev/null || kt_skip "no bpftool"
sleep 120 &
SLEEPER=$!
KT_PIDS="$KT_PIDS $SLEEPER"
kt_record -p "$SLEEPER"
python3 - "$REC_PID" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out" 3)"
import collections, json, os, subprocess, sys

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
def show(kind, i):
    out = subprocess.run(["bpftool", "-j", kind, "show", "id", str(i)],
                         capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else {}

progs = collections.defaultdict(list)
maps = set()
for i in ids:
    p = show("prog", i)
    if p:
        progs[p.get("name", "")].append(i)
        maps.update(p.get("map_ids", []))
names = set(progs)
print("programs held:", " ".join(sorted(names)))
twice = {n: v for n, v in progs.items() if len(v) > 1}
if twice:
    sys.exit("programs loaded more than once: %s" % twice)
map_names = collections.Counter(show("map", m).get("name", "?") for m in maps)
many = {n: c for n, c in map_names.items() if c > 1}
if many:
    sys.exit("the programs use more than one map of a name: %s" % many)
if not {"rings", "katra_bp.rodata", "katra_bp.bss"} <= set(map_names):
    sys.exit("the programs' maps lack the rings, .rodata or .bss: %s" % sorted(map_names))
core = [n for n in names if n in ("tpb_sys_enter", "raw_sys_enter")] and \
       [n for n in names if n in ("tpb_sys_exit", "raw_sys_exit")]
vk = [n for n in names if n.startswith("up_vkQueuePrese")]
wine = sorted(n for n in names if n.startswith(("up_Nt", "up_nt_", "ur_nt", "up_wine_server",
                                                "ur_server", "up_unix_call")))
if not core:
    sys.exit("no sys_enter or sys_exit program among those katra-record holds: %s"
             % sorted(names))
if not vk:
    sys.exit("the Vulkan layer's programs are not loaded at start: %s" % sorted(names))
if wine:
    sys.exit("Wine layer programs loaded with no Wine process traced: %s" % " ".join(wine))
print("core and Vulkan programs loaded, none of the Wine layer's; each once, on one set "
      "of %d maps" % len(maps))
PY
kill "$SLEEPER"
kt_wait_recorder 0
kt_note "$(tail -n 1 "$T/check.out")"
