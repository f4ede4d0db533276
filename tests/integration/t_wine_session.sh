#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -p <a Wine program> traces its whole Wine session: two programs of
# one prefix started untraced, `katra-record -p <first> -d 3`: the second one,
# wineserver and Wine's helpers (services.exe, ...) are traced and named
# (ProcessInfo origin WineSession, the Windows image name); a third program
# started in that prefix during the capture is found (origin WineJoined); an
# unrelated session (another prefix, running the same second.exe) and an
# unrelated Linux process are not traced; the trace verifies.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
kw_setup

kw_start_pair
kw_start "$PFX_B" second.exe
OTHER=$KW_PID
kt_busy 1

# every member seen from before START until the capture is live: one that
# comes and goes around the recorder's start is named WineSession by its
# scan of /proc though neither START nor AFTER holds it
kw_poll_session()
{
	while [ ! -e "$T/poll.stop" ]; do
		kw_session_pids "$1" >>"$T/seen"
		sleep 0.02
	done
}
: >"$T/seen"
kw_poll_session "$FIRST" &
POLL=$!
KT_PIDS="$KT_PIDS $POLL"

DIR=$(kw_server_dir "$FIRST")
[ -n "$DIR" ] || kt_fail "first.exe ($FIRST) maps no wineserver directory"
START=$(kw_session_pids "$FIRST" | tr '\n' ,)
OTHERS=$(kw_session_pids "$OTHER" | tr '\n' ,)
SERVER=$(kw_wineserver "$START")
[ -n "$SERVER" ] || kt_fail "no wineserver among the session's processes ($START)"
case ",$OTHERS," in *",$SERVER,"*) kt_fail "both prefixes share wineserver $SERVER" ;; esac

kt_record -p "$FIRST" -d 3 --summary-json "$T/summary.json"
touch "$T/poll.stop"
wait "$POLL"
SEEN=$(sort -un "$T/seen" | tr '\n' ,)
sleep 0.5
# joins while the capture runs: its own `wine`, not a child of anything traced
kw_start "$PFX_A" third.exe 1
THIRD=$KW_PID
kt_wait "$THIRD" 10 || kt_fail "third.exe still running after 10 s"
kt_wait_recorder 0
AFTER=$(kw_session_pids "$FIRST" | tr '\n' ,)
kt_verify
kw_check session "$TRACE.jsonl" target="$FIRST:first.exe" members="$SECOND:second.exe" \
	server="$SERVER" joined="$THIRD:third.exe" dir="$DIR" start="$START" after="$AFTER" seen="$SEEN" \
	absent="$OTHERS$BUSY_PID" summary="$T/summary.json"
