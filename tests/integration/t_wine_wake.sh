#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A wait's link to what released it, through the wineserver: a mingw
# program (-p PID, attached while it waits at a gate) has a thread wait K
# times on an auto-reset event that its main thread sets K times, then K
# times on a semaphore that it releases K times, each set or release made
# only once the waiter is blocked in Wine's wait for the server's wake-up.
# Exactly K NtWait spans on each, each End citing the WineServerCall of one
# of the K NtSetEvent (NtReleaseSemaphore) calls (K distinct ones), and a
# Linux read inside each wait citing the wineserver's write that woke it;
# katra-replay report's critical path from the waiter crosses the
# wineserver to the setter (message hops).
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
K=8
kw_uprobe_start ntwait $K
kt_open_gate ntwait.exe 30
kt_wait_recorder 0
kt_verify
kt_uptrace wine-wake "$TRACE.jsonl" "$T/ntwait.out" "$WL_PID"
