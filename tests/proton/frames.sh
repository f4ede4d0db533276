# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the t_proton_* tests (after require.sh): a frames program
# traced from the host, from its start.
#
# kt_proton_frames EXE N MODE: records `enter.sh ROOT W /mnt/EXE N DATA GATE`
# (DATA: 8 KiB of random bytes), holds the program at its gate once it says
# "ready" until katra-record says the Vulkan layer is on the root's drivers
# (the layer attaches once the driver is mapped: the first presents would be
# lost), then checks the trace: it verifies, holds one Wine process of EXE
# (pid: set), whose events (dump --pid, $TRACE.jsonl) pass check.py MODE
# against the program's counters ($T/prog.out), and stats --per-frame finds
# its swapchain with N presents (or the number check.py printed as its first
# line, "presents K"), one in each of its N - 1 frames, every call
# in the frame the recorder's request_id gives it.  The environment passes
# to the program (KATRA_DLL_OVERRIDES: inroot.sh).
kt_proton_frames()
{
	local exe=$1 n=$2 mode=$3 dev ino presents
	head -c 8192 /dev/urandom >"$W/data"
	"$REC" --ready-file "$T/ready" -o "$TRACE" -- "$KT_ROOT/tests/proton/enter.sh" \
		"$cache/root" "$W" "/mnt/$exe" "$n" 'Z:\mnt\data' 'Z:\mnt\gate' \
		>"$T/prog.out" 2>"$T/rec.err" &
	REC_PID=$!
	KT_PIDS="$KT_PIDS $REC_PID"
	kt_wait_ready
	for _ in $(seq 1200); do
		grep -q '^ready' "$T/prog.out" &&
			grep -q 'layer vulkan: .* uprobes on the drivers in' "$T/rec.err" && break
		kt_is_running "$REC_PID" || break
		sleep 0.05
	done
	grep -q 'layer vulkan: .* uprobes on the drivers in' "$T/rec.err" ||
		kt_fail "no 'layer vulkan: N uprobes on the drivers in /proc/PID/root' from katra-record within 60 s: $(grep -v '^info:\|^warn:' "$T/rec.err" | tail -n 2) / $(kt_tail "$T/prog.out")"
	touch "$W/gate"
	KT_STOP_TIMEOUT=80 kt_wait_recorder 0
	grep -q '"frames"' "$T/prog.out" ||
		kt_fail "the program printed no counters: $(kt_tail "$T/prog.out") / $(grep -v '^info:\|^warn:' "$T/rec.err" | tail -n 2)"
	"$REPLAY" verify --strict "$TRACE" >"$T/verify.out" 2>&1 ||
		kt_fail "katra-replay verify rejects the trace: $(head -n 3 "$T/verify.out" | tr '\n' ' ')"
	# the program's events only (the whole session's ~800,000 are too many
	# for the check's Python within the test's time) (the Wine process whose
	# Windows image it is: a child it forks is named after it too)
	pid=$("$REPLAY" dump --jsonl --kind ProcessInfo "$TRACE" | grep "\"windows_image\":\"$exe\"" |
		sed -n 's/.*"process_id":\([0-9]*\),.*/\1/p' | sort -u)
	[ -n "$pid" ] && [ "$(echo "$pid" | wc -l)" = 1 ] ||
		kt_fail "not one Wine process of $exe in the trace: '$(echo $pid)'"
	"$REPLAY" dump --jsonl --pid "$pid" "$TRACE" >"$TRACE.jsonl" 2>"$T/dump.err" ||
		kt_fail "katra-replay dump --jsonl --pid $pid failed: $(kt_tail "$T/dump.err")"
	read -r dev ino < <(stat -c '%d %i' "$W/data")
	python3 "$KT_ROOT/tests/proton/check.py" "$mode" "$TRACE.jsonl" "$T/prog.out" "$dev" "$ino" \
		>"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
	"$REPLAY" stats --per-frame --json "$TRACE" >"$T/perframe.json" 2>"$T/perframe.err" ||
		kt_fail "katra-replay stats --per-frame failed: $(kt_tail "$T/perframe.err")"
	# the presents the check found, where it says (d3d12: the flush's or not)
	presents=$(sed -n 's/^presents \([0-9]*\)$/\1/p' "$T/check.out")
	python3 "$KT_ROOT/tests/proton/perframe_check.py" "$T/perframe.json" "$TRACE.jsonl" "$pid" \
		"${presents:-$n}" \
		>"$T/perframe.out" 2>&1 || kt_fail "stats --per-frame: $(kt_tail "$T/perframe.out")"
}

# kt_proton_unixnames MODE PID: the Vulkan calls of process PID through
# winevulkan's thunks, by name, in dump, stats --calls and export, checked
# by check.py MODE (unixnames, or unixnames-attached for a -p capture)
# against $TRACE.jsonl and $T/prog.out; its line in $T/unixnames.out.
kt_proton_unixnames()
{
	local mode=$1 pid=$2
	"$REPLAY" dump --pid "$pid" --kind WinToUnix "$TRACE" >"$T/unix.txt" 2>"$T/unix.err" ||
		kt_fail "katra-replay dump --kind WinToUnix failed: $(kt_tail "$T/unix.err")"
	"$REPLAY" stats --calls --json "$TRACE" >"$T/calls.json" 2>"$T/calls.err" ||
		kt_fail "katra-replay stats --calls failed: $(kt_tail "$T/calls.err")"
	"$REPLAY" export --pid "$pid" -o "$T/export.json" "$TRACE" 2>"$T/export.err" ||
		kt_fail "katra-replay export failed: $(kt_tail "$T/export.err")"
	python3 "$KT_ROOT/tests/proton/check.py" "$mode" "$TRACE.jsonl" "$T/prog.out" "$T/unix.txt" \
		"$T/calls.json" "$T/export.json" >"$T/unixnames.out" 2>&1 ||
		kt_fail "$(kt_tail "$T/unixnames.out")"
}

# kt_proton_d3d12_names PID: the D3D12 calls of process PID by name in dump,
# stats --calls and export, checked by check.py d3d12names against
# $TRACE.jsonl and $T/prog.out; its line in $T/d3d12names.out.
kt_proton_d3d12_names()
{
	local pid=$1
	"$REPLAY" dump --pid "$pid" --kind D3d12ExecuteCommandLists,D3d12QueueSignal,D3d12FenceSetEventOnCompletion \
		"$TRACE" >"$T/d3d12.txt" 2>"$T/d3d12.err" ||
		kt_fail "katra-replay dump --kind D3d12...: $(kt_tail "$T/d3d12.err")"
	"$REPLAY" stats --calls --json "$TRACE" >"$T/calls.json" 2>"$T/calls.err" ||
		kt_fail "katra-replay stats --calls failed: $(kt_tail "$T/calls.err")"
	"$REPLAY" export --pid "$pid" -o "$T/export.json" "$TRACE" 2>"$T/export.err" ||
		kt_fail "katra-replay export failed: $(kt_tail "$T/export.err")"
	python3 "$KT_ROOT/tests/proton/check.py" d3d12names "$TRACE.jsonl" "$T/prog.out" \
		"$T/d3d12.txt" "$T/calls.json" "$T/export.json" >"$T/d3d12names.out" 2>&1 ||
		kt_fail "$(kt_tail "$T/d3d12names.out")"
}

# kt_proton_running EXE: starts the frames program EXE in the root, running
# until the file $W/stop exists (also made when the test ends), its frames
# reading blocks of a 16 MiB data file (4096 blocks: a frame's block names it
# within any 4095 frames in a row); returns once it has rendered a second,
# with ENTER_PID (enter.sh, whose status is the program's) and prog (the
# program's host pid) set, and members (the processes mapping its session's
# server directory, sorted) defined, its list at the start in
# $T/members.before.
kt_proton_running()
{
	local exe=$1 dir
	head -c $((4096 * 4096)) /dev/urandom >"$W/data"
	trap 'touch "$W/stop"; kt_cleanup' EXIT
	"$KT_ROOT/tests/proton/enter.sh" "$cache/root" "$W" "/mnt/$exe" 1000000 \
		'Z:\mnt\data' - 'Z:\mnt\stop' >"$T/prog.out" 2>"$T/prog.err" &
	ENTER_PID=$!
	KT_PIDS="$KT_PIDS $ENTER_PID"
	# enter.sh execs down to inroot.sh's shell; `wine` keeps its pid: the
	# program is that shell's child (the oldest: a child it forks for a
	# moment is named after it too)
	prog=""
	for _ in $(seq 1200); do
		grep -q '^ready' "$T/prog.out" && prog=$(pgrep -o -P "$ENTER_PID" -x "$exe") &&
			break
		kt_is_running "$ENTER_PID" || break
		sleep 0.05
	done
	[ -n "$prog" ] || kt_fail "the program did not start within 60 s: $(kt_tail "$T/prog.err" 2)"
	KT_PIDS="$KT_PIDS $prog"
	sleep 1 # frames under way
	# the session's truth: the processes mapping the program's server directory
	dir=$(grep -o '/[^ ]*/server-[0-9a-f]*-[0-9a-f]*/' "/proc/$prog/maps" | head -n 1)
	[ -n "$dir" ] || kt_fail "the program maps no server directory"
	KT_PROTON_SERVER_DIR=$dir
	members() { grep -l -F "$KT_PROTON_SERVER_DIR" /proc/[0-9]*/maps 2>/dev/null | cut -d/ -f3 | sort -n; }
	members >"$T/members.before"
}

# kt_proton_check_attached CHECK: after a -p capture of the program that
# kt_proton_running started, once it has stopped: its counters printed, the
# trace verified and whole (a loss is said as such: exact counts need every
# event), the session's ProcessInfo ($T/procs.jsonl) and the program's
# events ($TRACE.jsonl) dumped, and tests/proton/CHECK run on them against
# the program's counters, its data file and the session's members
# ($T/members).
kt_proton_check_attached()
{
	local check=$1 lost dev ino
	grep -q '"frames"' "$T/prog.out" ||
		kt_fail "the program printed no counters: $(kt_tail "$T/prog.out") / $(kt_tail "$T/prog.err" 2)"
	"$REPLAY" verify --strict "$TRACE" >"$T/verify.out" 2>&1 ||
		kt_fail "katra-replay verify rejects the trace: $(head -n 3 "$T/verify.out" | tr '\n' ' ')"
	lost=$("$REPLAY" dump --kind Drop "$TRACE" | grep -v '^#' | tr '\n' ' ')
	[ -z "$lost" ] || kt_fail "the capture lost events (exact counts need all): $lost"
	"$REPLAY" dump --jsonl --kind ProcessInfo "$TRACE" >"$T/procs.jsonl" 2>"$T/dump.err" ||
		kt_fail "katra-replay dump --kind ProcessInfo failed: $(kt_tail "$T/dump.err")"
	"$REPLAY" dump --jsonl --pid "$prog" "$TRACE" >"$TRACE.jsonl" 2>"$T/dump.err" ||
		kt_fail "katra-replay dump --jsonl --pid $prog failed: $(kt_tail "$T/dump.err")"
	read -r dev ino < <(stat -c '%d %i' "$W/data")
	python3 "$KT_ROOT/tests/proton/$check" "$TRACE.jsonl" "$T/procs.jsonl" "$T/prog.out" \
		"$dev" "$ino" "$prog" "$T/members" >"$T/check.out" 2>&1 ||
		kt_fail "$(kt_tail "$T/check.out")"
}
