#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-record -- wine PROGRAM.exe: Wine's ntdll.so is found beside the `wine`
# launcher and probed before the command runs (nothing maps it yet), so the
# program's NT calls are all recorded: the same exact checks as t_wine_nt
# (N NtReadFile spans served by Linux reads that cite them, M NtWait spans).
# KW_WINE=10 (t_wine10_command): katra-record -- enter.sh ... (Wine 10 in
# the Proton root), the root's ntdll.so probed once the program maps it.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
EXE=$KT_ROOT/build/uprobe/ntio.exe
kw_uprobe_setup "$EXE"
head -c 65536 /dev/urandom >"$T/data"
CMD=(wine "$EXE")
if [ "$KW_WINE" = 10 ]; then
	# katra-record -- enter.sh ... (the command a Proton launch is): no
	# launcher here to probe before it runs; the root's ntdll.so is probed
	# once the program maps it, which katra-record says on stderr
	cp "$EXE" "$T/"
	CMD=("$KT_ROOT/tests/proton/enter.sh" "$KW_PROTON/root" "$T" /mnt/ntio.exe)
fi
# the program waits at the gate until it is opened below: then every NT call
# of the loop is made with the capture live
"$REC" --ready-file "$T/ready" -o "$TRACE" -- "${CMD[@]}" "$(kw_win "$T/started")" \
	"$(kw_win "$T/gate")" "$(kw_win "$T/data")" 6 4 5 >"$T/ntio.out" 2>"$T/rec.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
for _ in $(seq 600); do
	[ -e "$T/started" ] && break
	kt_is_running "$REC_PID" || kt_fail "katra-record exited before the program started: $(kt_tail "$T/rec.err" 2)"
	sleep 0.05
done
[ -e "$T/started" ] || kt_fail "ntio.exe did not start within 30 s"
PID=auto
if [ "$KW_WINE" = 10 ]; then
	KW_ENTER=$(pgrep -P "$REC_PID" | head -n 1)
	KT_PIDS="$KT_PIDS $KW_ENTER"
	kw_root_track "$KW_ENTER" "$T/rec.err"
	# the Command is enter.sh; the program is its child
	PID=$(kw_root_pid ntio.exe)
	[ -n "$PID" ] || kt_fail "no process ntio.exe under enter.sh ($KW_ENTER)"
	for _ in $(seq 600); do
		grep -q '^katra-record: layer wine: .* uprobes on ntdll.so in ' "$T/rec.err" && break
		sleep 0.05
	done
	grep -q '^katra-record: layer wine: .* uprobes on ntdll.so in ' "$T/rec.err" ||
		kt_fail "no 'layer wine: N uprobes on ntdll.so in ROOT' from katra-record within 30 s"
fi
touch "$T/gate"
KT_STOP_TIMEOUT=60 kt_wait_recorder 0
kt_verify
read -r dev ino < <(stat -c '%d %i' "$T/data")
python3 "$KT_ROOT/tests/uprobe/uptrace.py" wine-nt "$TRACE.jsonl" "$T/ntio.out" "$PID" \
	"$dev" "$ino" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
kt_note "$(kt_tail "$T/check.out")"
