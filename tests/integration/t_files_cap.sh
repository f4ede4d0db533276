#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Each new inode a traced process maps under a probed name costs the
# recorder a read and a parse: a capture probes a bounded number of files
# (UP_FILES_MAX; KATRA_TEST_UP_FILES_MAX=2 here), says so once in the
# header's notes, and goes on.  A process maps three copies of Wine's
# ntdll.so, each its own inode: two are probed, the third is named as not.
. "$(dirname "$0")/lib.sh"
kt_require
wine=/usr/lib/x86_64-linux-gnu/wine
[ -r "$wine/x86_64-unix/ntdll.so" ] || kt_skip "no Debian Wine (wine64): its ntdll.so is the bait"
for t in a b c; do
	mkdir -p "$T/$t/wine/x86_64-unix" || kt_fail "mkdir"
	cp "$wine/x86_64-unix/ntdll.so" "$T/$t/wine/x86_64-unix/ntdll.so"
done
python3 - "$T" >"$T/map.out" 2>&1 <<'PY' &
import mmap, os, signal, sys, time
t = sys.argv[1]
maps = []
for d in "abc":
    fd = os.open("%s/%s/wine/x86_64-unix/ntdll.so" % (t, d), os.O_RDONLY)
    maps.append(mmap.mmap(fd, 4096, prot=mmap.PROT_READ))
open("%s/started" % t, "w").close()
time.sleep(60)
PY
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
for _ in $(seq 200); do
	[ -e "$T/started" ] && break
	sleep 0.05
done
[ -e "$T/started" ] || kt_fail "the mapping process did not start: $(kt_tail "$T/map.out")"
KATRA_TEST_UP_FILES_MAX=2 kt_record -p "$WL_PID" --no-session
sleep 0.3
kill -INT "$REC_PID"
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$T" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
notes, t = json.loads(open(sys.argv[1]).readline())["notes"], sys.argv[2]
capped = [n for n in notes if "not probed (more than 2 files probed in one capture)" in n]
assert len(capped) == 1, "no single note of the cap: %s" % [n for n in notes if "uprobes" in n]
probed = [n for n in notes if "NtSyscall at the dispatcher" in n]
assert len(probed) == 2, "expected 2 ntdll.so probed: %s" % probed
PY
kt_note "2 of 3 ntdll.so probed, the cap said once"
