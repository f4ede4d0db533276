#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The drain does none of the uprobes layer's slow work: a traced
# process (-p) that loads the Vulkan loader during the capture gets its maps
# read, the driver's ELF files read, katra-vkresolve run and the probes
# attached, all by the uprobes worker thread.  strace follows the recorder's
# main thread alone (the drain; -p TID, no -f): it must not open
# /proc/PID/maps nor any library, nor fork, between the gate and the end.
# Before, the drain did all of it itself (at SCHED_IDLE, by default).
. "$(dirname "$0")/lib.sh"
kt_require
command -v strace >/dev/null 2>&1 || kt_skip "no strace"
kt_lavapipe "$KT_ROOT/build/uprobe/vkpresent"
# the resolver, through a stand-in that gives its pid (its end: the
# recorder has the resolver's whole output; the end of the capture would
# kill a resolver still running)
printf '#!/bin/sh\necho $$ >"%s.tmp"\nmv "%s.tmp" "%s"\n"%s"\n' "$T/resolver.pid" \
	"$T/resolver.pid" "$T/resolver.pid" "$KT_ROOT/build/katra-vkresolve" >"$T/vkresolve"
chmod 755 "$T/vkresolve"
python3 -c '
import ctypes, os, sys, time
open(sys.argv[1], "w").close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.02)
ctypes.CDLL("libvulkan.so.1")
open(sys.argv[3], "w").close()
while not os.path.exists(sys.argv[4]):
    time.sleep(0.02)
' "$T/started" "$T/gate" "$T/loaded" "$T/end" >"$T/py.out" 2>"$T/py.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
kt_wait_started python3 "$WL_PID"
KATRA_TEST_VKRESOLVE=$T/vkresolve kt_record -p "$WL_PID"
# the drain waits in epoll_wait at least every 10 ms: once strace shows one,
# it is attached
strace -p "$REC_PID" -e trace=openat,open,execve,clone,clone3,fork,vfork,epoll_wait \
	-o "$T/strace.log" 2>"$T/strace.err" &
STRACE_PID=$!
KT_PIDS="$KT_PIDS $STRACE_PID"
for _ in $(seq 400); do
	grep -q epoll_wait "$T/strace.log" 2>/dev/null && break
	kt_is_running "$STRACE_PID" || kt_fail "strace exited: $(kt_tail "$T/strace.err")"
	sleep 0.05
done
grep -q epoll_wait "$T/strace.log" || kt_fail "strace did not attach within 20 s"
touch "$T/gate"
for _ in $(seq 600); do
	[ -s "$T/resolver.pid" ] && ! kt_is_running "$(cat "$T/resolver.pid")" && break
	sleep 0.05
done
[ -s "$T/resolver.pid" ] && ! kt_is_running "$(cat "$T/resolver.pid")" ||
	kt_fail "katra-vkresolve did not run (and end) within 30 s of the loader's mapping"
touch "$T/end"
kt_wait_workload 20
kt_wait_recorder 0
kill "$STRACE_PID" 2>/dev/null
wait "$STRACE_PID" 2>/dev/null
# its own /proc reads (a target's stat, pid_max) are the drain's business,
# and so is a thread started at the end (the uprobe links handed to a child
# process from a thread of its own: the fork is not on the drain)
slow=$(grep -E '/maps"|/environ"|\.so[."]|execve\(|clone3?\(|fork\(' "$T/strace.log" |
	grep -v CLONE_THREAD | head -n 3 | tr '\n' ' ')
[ -z "$slow" ] || kt_fail "the drain did the uprobes' work itself: $slow"
kt_verify
grep -q 'uprobe libvulkan_lvp.so:vkQueueSubmit' "$TRACE.jsonl" ||
	kt_fail "the summary names no uprobe on libvulkan_lvp.so:vkQueueSubmit"
kt_note "the drain read no maps, no library, forked nothing; $(grep -c epoll_wait "$T/strace.log") waits seen"
