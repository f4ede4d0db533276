#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Overlapped reads that Wine completes later, through the wineserver: a
# mingw program (-p PID, attached while it waits at a gate) issues N
# overlapped ReadFile on a named pipe and M on a loopback TCP socket, all
# pending, then a thread of its own writes their data: exactly N+M NtReadFile
# spans ending STATUS_PENDING, each cited by exactly one later Linux read that
# lands its bytes in the read's buffer (read(2) of the server reply for the
# pipe, recvmsg(2) for the socket).
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
N=6 M=5
kw_uprobe_start ntasync $N $M
kt_open_gate ntasync.exe 30
kt_wait_recorder 0
kt_verify
kt_uptrace wine-async "$TRACE.jsonl" "$T/ntasync.out" "$WL_PID"
