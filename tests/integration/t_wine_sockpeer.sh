#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Session discovery's second way: the processes holding a unix
# socket whose peer the session's wineserver holds.  On a real session (two
# programs and Wine's helpers, untraced, settled), `katra-record -p <first>`
# finds the same members both ways: its header note says N by server dir, N
# by wineserver socket peer (naming wineserver) and N by both, N being the
# session the maps show from outside.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
kw_setup
kw_start_pair
# the helpers (services.exe, winedevice.exe, ...) start a while after the
# first program: wait until the session stays the same for a second
prev="" SESSION=""
for _ in $(seq 30); do
	SESSION=$(kw_session_pids "$FIRST" | sort -n | tr '\n' ,)
	[ -n "$SESSION" ] && [ "$SESSION" = "$prev" ] && break
	prev=$SESSION
	sleep 1
done
[ "$SESSION" = "$prev" ] || kt_fail "the session of $FIRST did not settle: $SESSION"
SERVER=$(kw_wineserver "$SESSION")
[ -n "$SERVER" ] || kt_fail "no wineserver in the session of $FIRST: $SESSION"
kt_run_rec -p "$FIRST" -d 1 -o "$TRACE"
[ "$KT_RC" = 0 ] || kt_fail "-p $FIRST exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
AFTER=$(kw_session_pids "$FIRST" | sort -n | tr '\n' ,)
[ "$AFTER" = "$SESSION" ] || kt_fail "the session changed during the capture: $SESSION -> $AFTER"
kw_check sockpeer "$TRACE.jsonl" target="$FIRST" server="$SERVER" \
	dir="$(kw_server_dir "$FIRST")" session="$SESSION"
