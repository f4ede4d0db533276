#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-record -- wine PROGRAM.exe: the wineserver's request names
# (WineServerRequests) are read from the wineserver binary beside the
# launcher by the uprobes worker before the command runs, never by the drain
# (a whole-file read of up to 256 MiB, once at SCHED_IDLE).  strace
# without -f follows the recorder's main thread alone (the drain): it must
# open neither /proc/PID/exe nor a wineserver binary, and the trace must hold
# the table.  KW_WINE=10 (t_wine10_server_names): katra-record -- enter.sh
# (Wine 10 chrooted in the Proton root), whose wineserver is the root's.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
command -v strace >/dev/null 2>&1 || kt_skip "no strace"
EXE=$KT_ROOT/build/uprobe/ntio.exe
kw_uprobe_setup "$EXE"
head -c 65536 /dev/urandom >"$T/data"
touch "$T/gate"
TRACE=$T/trace.ktrc
CMD=(wine "$EXE")
if [ "$KW_WINE" = 10 ]; then
	# the root's wineserver (no launcher here): its names are read once it runs
	cp "$EXE" "$T/"
	CMD=("$KT_ROOT/tests/proton/enter.sh" "$KW_PROTON/root" "$T" /mnt/ntio.exe)
fi
timeout -k 5 120 strace -o "$T/strace.log" -e trace=open,openat "$REC" -o "$TRACE" -- \
	"${CMD[@]}" "$(kw_win "$T/started")" "$(kw_win "$T/gate")" "$(kw_win "$T/data")" 2 1 1 \
	>"$T/ntio.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record exited $rc: $(kt_tail "$T/rec.err")"
grep -q 'WineServerRequests=' "$T/rec.err" ||
	kt_fail "no WineServerRequests event: $(grep 'events by kind' "$T/rec.err")"
read_by_drain=$(grep -E '"/proc/[0-9]+/exe"|wineserver' "$T/strace.log" | head -n 2 | tr '\n' ' ')
[ -z "$read_by_drain" ] || kt_fail "the drain read the wineserver binary: $read_by_drain"
kt_note "request names read off the drain; $(grep -o 'WineServerRequests=[0-9]*' "$T/rec.err")"

# A process named wineserver while /bin/sh still runs Debian's wineserver
# script (before it execs wineserver64): no server yet, and /bin/sh is no
# file to read.  The script sleeps, so the drain names it while it runs.
mkdir -p "$T/bin"
printf '#!/bin/sh\nsleep 2\n' >"$T/bin/wineserver"
chmod +x "$T/bin/wineserver"
timeout -k 5 60 strace -o "$T/strace2.log" -e trace=open,openat "$REC" -o "$T/script.ktrc" -- \
	"$T/bin/wineserver" >/dev/null 2>"$T/rec2.err" ||
	kt_fail "katra-record -- wineserver script: $(kt_tail "$T/rec2.err")"
"$REPLAY" dump --jsonl "$T/script.ktrc" | grep -q '"comm":"wineserver"' ||
	kt_fail "the script's process is not named wineserver in the trace"
read_by_drain=$(grep -E '"/proc/[0-9]+/exe"' "$T/strace2.log" | head -n 1)
[ -z "$read_by_drain" ] || kt_fail "the drain read the script's interpreter as a wineserver: $read_by_drain"
