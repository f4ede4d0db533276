#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A root process in a root of its own that it cannot leave (a mount
# namespace of its own, chroot, every capability dropped: vkjail, which
# checks that it cannot leave) maps a file named like the Vulkan loader;
# its root's ELF interpreter (the path katra-vkresolve's PT_INTERP names) is
# a stand-in that leaves the root and writes a marker on the host when it
# runs with CAP_SYS_CHROOT.  The recorder runs katra-vkresolve for that root
# (so the stand-in runs), but with no more power than the process has: no
# marker on the host, the stand-in says it stayed inside (its chroot failed
# with EPERM), the capture ends normally and the trace says what became of
# the Vulkan layer for that process (the header's notes, or the summary's
# probes_failed when it came after the header).  Once with the process as the command,
# once attached with -p.  Before, the resolver ran chrooted with host root
# and the stand-in wrote the marker.
. "$(dirname "$0")/lib.sh"
kt_require
[ "$(uname -m)" = x86_64 ] || kt_skip "the stand-in interpreter is x86-64 code"
command -v gcc >/dev/null 2>&1 || kt_skip "no gcc"
VKR=$KT_ROOT/build/katra-vkresolve
[ -x "$VKR" ] || kt_skip "katra-vkresolve is missing (no libvulkan-dev)"
LOADER=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
[ -f "$LOADER" ] || kt_skip "no $LOADER (libvulkan1)"
INTERP=$(readelf -l "$VKR" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ -n "$INTERP" ] || kt_fail "no PT_INTERP in $VKR"
MARK=$T/escaped
gcc -O2 -o "$T/vkjail" "$KT_ROOT/tests/uprobe/vkjail.c" 2>"$T/cc.err" ||
	kt_fail "cannot build vkjail: $(kt_tail "$T/cc.err")"
gcc -O2 -static -nostdlib -fno-stack-protector -fno-builtin -DMARKER="\"$MARK\"" \
	-o "$T/interp" "$KT_ROOT/tests/uprobe/vkjail_interp.c" 2>"$T/cc.err" ||
	kt_fail "cannot build the stand-in interpreter: $(kt_tail "$T/cc.err")"
R=$T/root
mkdir -p "$R$(dirname "$INTERP")" "$R$(dirname "$LOADER")"
cp "$T/interp" "$R$INTERP"
cp -L "$LOADER" "$R$LOADER"

# jail_check HOW: after a capture of vkjail (its pid in $R/ready)
jail_check()
{
	local how=$1 pid
	[ ! -e "$MARK" ] || kt_fail "$how: the stand-in interpreter left the root with host root: $(cat "$MARK")"
	[ -s "$R/ran" ] || kt_fail "$how: the stand-in interpreter never ran (katra-vkresolve not run for the root): $(kt_tail "$T/rec.err" 2)"
	grep -q '^confined: chroot: errno 1$' "$R/ran" ||
		kt_fail "$how: the stand-in interpreter says: $(cat "$R/ran")"
	pid=$(head -n 1 "$R/ready")
	kt_verify
	python3 - "$TRACE.jsonl" "$pid" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$how: $(kt_tail "$T/check.out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head, last = json.loads(lines[0]), json.loads(lines[-1])
# said in the header when it came before it, in the summary's probes_failed
# when after
said = (head.get("notes") or []) + (last.get("probes_failed") or [])
want = "vulkan drivers of process %s: " % sys.argv[2]
got = [n for n in said if want in n]
if not got:
    print("nothing says what became of the Vulkan layer for process %s: %s" % (sys.argv[2], said))
    sys.exit(1)
print(got[0])
PY
}

# jail_wait: until the stand-in has run (either way), at most 30 s
jail_wait()
{
	for _ in $(seq 600); do
		[ -e "$R/ran" ] || [ -e "$MARK" ] && return 0
		sleep 0.05
	done
}

# jail_ready PID ERR: until vkjail is ready (20 s), while PID (it, or the
# recorder running it) runs; ERR: PID's stderr
jail_ready()
{
	for _ in $(seq 400); do
		[ -e "$R/ready" ] && return 0
		kt_is_running "$1" || kt_fail "exited before vkjail was ready: $(kt_tail "$2" 2)"
		sleep 0.05
	done
	kt_fail "vkjail not ready within 20 s: $(kt_tail "$2" 2)"
}

# 1. the command
TRACE=$T/cmd.ktrc
timeout -k 5 90 "$REC" -o "$TRACE" -- "$T/vkjail" "$R" "$LOADER" 60 >"$T/vkjail.out" \
	2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
jail_ready "$REC_PID" "$T/rec.err"
jail_wait
touch "$R/end"
kt_wait_recorder 0
jail_check command
kt_note "$(kt_tail "$T/check.out")"

# 2. attached with -p
rm -f "$R/ran" "$R/ready" "$R/end"
TRACE=$T/attach.ktrc
"$T/vkjail" "$R" "$LOADER" 60 >"$T/vkjail.out" 2>"$T/vkjail.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
jail_ready "$WL_PID" "$T/vkjail.err"
rm -f "$T/ready"
kt_record -p "$WL_PID"
jail_wait
touch "$R/end"
kt_wait_workload 20
kt_wait_recorder 0
jail_check "-p"
kt_note "$(kt_tail "$T/check.out")"
