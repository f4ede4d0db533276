#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Wine sessions and the options that steer them: --session on a Linux process
# fails loudly (exit 1, no trace); --no-session on a Wine program traces its
# process tree only (not wineserver, not the other programs of its session);
# `katra-record -- wine third.exe` while a session of that prefix runs brings
# the session in (the command is named third.exe; the running first.exe and
# wineserver: origin WineSession); another prefix's session stays out; -p of a
# launcher script whose child runs a Wine program brings that session too.
# KW_WINE=10 (t_wine10_flags): the prefixes are two entered Proton roots
# (tests/wine/lib.sh), the later programs nsenter into theirs.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
kw_setup

# --session on a process that is not Wine's
kt_busy 1
kt_run_rec --session -p "$BUSY_PID" -d 1 -o "$T/bad.ktrc"
[ "$KT_RC" = 1 ] || kt_fail "--session on a Linux process exited $KT_RC, expected 1"
grep -q "^katra-record: --session: PID $BUSY_PID (forktree) is not a Wine process" "$T/rec.err" ||
	kt_fail "--session on a Linux process: no clear message: $(kt_tail "$T/rec.err" 2)"
[ ! -e "$T/bad.ktrc" ] || kt_fail "--session on a Linux process left a trace file"

kw_start_pair
kw_start "$PFX_B" second.exe
OTHER=$KW_PID
SESSION=$(kw_session_pids "$FIRST" | tr '\n' ,)
OTHERS=$(kw_session_pids "$OTHER" | tr '\n' ,)
SERVER=$(kw_wineserver "$SESSION")
[ -n "$SERVER" ] || kt_fail "no wineserver among the session's processes ($SESSION)"

# --no-session: the tree of first.exe only
kt_run_rec --no-session -p "$FIRST" -d 1 -o "$TRACE"
[ "$KT_RC" = 0 ] || kt_fail "--no-session exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
REST=""
for p in ${SESSION//,/ }; do
	[ "$p" = "$FIRST" ] || REST="$REST$p,"
done
kw_check tree "$TRACE.jsonl" target="$FIRST" absent="$REST$OTHERS$BUSY_PID"

# a command that is a Wine program of a running session (whose processes
# keep the capture going after the command: -d ends it)
rm -f "$TRACE"
kw_wine_argv "$PFX_A" third.exe
kt_run_rec -d 2 -o "$TRACE" -- "${KW_ARGV[@]}" 0.5
[ "$KT_RC" = 0 ] || kt_fail "-- wine third.exe exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
CMD=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") == "Event" and r["kind"] == "ProcessInfo" and \
            r["payload"]["origin"] == "Command":
        print(r["process_id"]); break' "$TRACE.jsonl")
[ -n "$CMD" ] || kt_fail "-- wine third.exe: no ProcessInfo with origin Command"
kw_check command "$TRACE.jsonl" command="$CMD:third.exe" \
	members="$FIRST:first.exe,$SECOND:second.exe" server="$SERVER" absent="$OTHERS$BUSY_PID"

# -p a launcher (a shell whose child is `wine third.exe`): the child's session
# comes in with it
rm -f "$TRACE"
kw_wine_argv "$PFX_A" third.exe
bash -c '"$@" 0 >"$0" 2>&1; :' "$T/launched.out" "${KW_ARGV[@]}" &
LAUNCHER=$!
KT_PIDS="$KT_PIDS $LAUNCHER"
for _ in $(seq 600); do grep -q '^ready' "$T/launched.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^ready' "$T/launched.out" || kt_fail "the launcher's third.exe did not start"
CHILD=$(pgrep -P "$LAUNCHER" | head -n 1)
[ -n "$CHILD" ] || kt_fail "the launcher has no child"
KT_PIDS="$KT_PIDS $CHILD"
kt_run_rec -p "$LAUNCHER" -d 1 -o "$TRACE"
[ "$KT_RC" = 0 ] || kt_fail "-p launcher exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
kw_check launcher "$TRACE.jsonl" target="$LAUNCHER" child="$CHILD:third.exe" \
	members="$FIRST:first.exe,$SECOND:second.exe" server="$SERVER"
