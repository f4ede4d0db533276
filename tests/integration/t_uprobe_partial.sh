#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A Wine build whose ntdll.so lacks most of the probed functions (another
# version, a stripped build): a stand-in ntdll.so under .../wine/x86_64-unix/
# exporting only NtReadFile and wine_server_call, loaded by a process traced
# with -p.  Each uprobe that cannot attach is named in the header's notes
# ("probe not attached: ntdll.so:NAME: REASON"), the capture goes on, and the
# two that attach record exactly the 5 calls made (handle, length, offset,
# status; the server call inside each read cites it).  A second stand-in
# with no syscall dispatcher, loaded beside it, gets no NT function probe:
# its calling convention cannot be read from its code, and is never assumed.
. "$(dirname "$0")/lib.sh"
kt_require
command -v gcc >/dev/null 2>&1 || kt_skip "no gcc"
mkdir -p "$T/lib/wine/x86_64-unix"
gcc -O1 -shared -fPIC -o "$T/lib/wine/x86_64-unix/ntdll.so" "$KT_ROOT/tests/uprobe/fake_ntdll.c" \
	2>"$T/cc.err" || kt_fail "cannot build the stand-in ntdll.so: $(kt_tail "$T/cc.err")"
mkdir -p "$T/nodisp/wine/x86_64-unix"
gcc -O1 -shared -fPIC -DNO_DISPATCHER -o "$T/nodisp/wine/x86_64-unix/ntdll.so" \
	"$KT_ROOT/tests/uprobe/fake_ntdll.c" 2>"$T/cc.err" ||
	kt_fail "cannot build the stand-in without a dispatcher: $(kt_tail "$T/cc.err")"
python3 -c '
import ctypes, os, sys, time
lib = ctypes.CDLL(sys.argv[1])
ctypes.CDLL(sys.argv[4])  # mapped, never called
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.02)
print(lib.call_read(5))
' "$T/lib/wine/x86_64-unix/ntdll.so" "$T/started" "$T/gate" "$T/nodisp/wine/x86_64-unix/ntdll.so" \
	>"$T/py.out" 2>"$T/py.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
for _ in $(seq 200); do
	[ -e "$T/started" ] && break
	sleep 0.05
done
[ -e "$T/started" ] || kt_fail "the loader process did not start: $(kt_tail "$T/py.err")"
kt_record -p "$WL_PID"
touch "$T/gate"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
python3 "$KT_ROOT/tests/uprobe/uptrace.py" partial "$TRACE.jsonl" "$WL_PID" \
	>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
