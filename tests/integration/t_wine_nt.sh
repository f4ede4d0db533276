#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Windows-facing and Wine layers by uprobes on Wine's ntdll.so: a mingw
# program under Debian's Wine (-p PID, attached while it waits at a gate) does
# N ReadFile (plain and overlapped), M WaitForSingleObject and K gethostname:
# exactly N NtReadFile spans with its handles, lengths, offsets and statuses
# (STATUS_PENDING for the overlapped ones), each served by a Linux read of the
# data file that cites it; M NtWait spans; wine_server_call spans inside the
# reads; K WinToUnix spans (ws2_32's unix calls) between two markers.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
N_PLAIN=20 N_OVL=10 M=15 K=12
head -c 65536 /dev/urandom >"$T/data"
kw_uprobe_start ntio "$(kw_win "$T/data")" $N_PLAIN $N_OVL $M $K
grep -q 'x86_64-unix/ntdll.so' "/proc/$WL_PID/maps" || kt_fail "process $WL_PID does not map ntdll.so"
kt_open_gate ntio.exe 30
kt_wait_recorder 0
kt_verify
read -r dev ino < <(stat -c '%d %i' "$T/data")
kt_uptrace wine-nt "$TRACE.jsonl" "$T/ntio.out" "$WL_PID" "$dev" "$ino"
