#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Overlapped writes that Wine completes later: a mingw program (-p PID,
# attached while it waits at a gate) issues K overlapped WriteFile on a named
# pipe, none of which fits the pipe's buffer, so all pend until a reader
# thread reads them: exactly K NtWriteFile spans ending STATUS_PENDING, each
# linked to exactly one completion.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
K=5
kw_uprobe_start ntwrite $K
kt_open_gate ntwrite.exe 30
kt_wait_recorder 0
kt_verify
kt_uptrace wine-write "$TRACE.jsonl" "$T/ntwrite.out" "$WL_PID"
