# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the integration tests (sourced by tests/integration/t_*.sh).
#
# A test runs in its own scratch directory $T, starts processes only through
# these helpers (so the EXIT trap can stop exactly those, by PID), and ends with
# kt_fail REASON (exit 1), kt_skip REASON (exit 77) or a normal exit 0 (pass).
# run.sh passes KT_REASON, the file a failing/skipping test writes its reason to.
# KT_KEEP=1 keeps $T for inspection.

set -u

KT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KT_ROOT=$(cd "$KT_DIR/../.." && pwd)
REC=${KATRA_RECORD:-$KT_ROOT/build/katra-record}
REPLAY=${KATRA_REPLAY:-$KT_ROOT/build/katra-replay}
WL=$KT_ROOT/build/workloads
KT_PY="python3 $KT_DIR/ktrace.py"
# katra-replay fetches stacks' modules from DEBUGINFOD_URLS' servers: the
# tests name them from the files at hand (t_stacks_debuginfod sets its own)
unset DEBUGINFOD_URLS
: "${KT_REASON:=/dev/stderr}"
# seconds a recorder may take to start, and to stop after it was told to
: "${KT_START_TIMEOUT:=20}"
: "${KT_STOP_TIMEOUT:=20}"

KT_PIDS=""
KT_MOUNTS=""
KT_XVFB=""
T=$(mktemp -d /tmp/katra-it.XXXXXX)
# katra-vkresolve's kept answers: the test's own (each capture of a test
# runs the helper unless the test keeps one), never the host's /run
export KATRA_TEST_VKCACHE_DIR=$T/vkcache
# the cut CO-RE BTF kept between captures: the test's own as well
export KATRA_TEST_BTFCACHE_DIR=$T/btfcache

kt_cleanup()
{
	local p m
	kt_stop_xvfb
	for p in $KT_PIDS; do
		kill -KILL "$p" 2>/dev/null
	done
	for m in $KT_MOUNTS; do
		umount "$m" 2>/dev/null
	done
	if [ "${KT_KEEP:-0}" = 1 ]; then
		echo "kept $T" >&2
	else
		rm -rf "$T"
	fi
}
trap kt_cleanup EXIT
# run.sh's per-test timeout sends TERM: still run the cleanup
trap 'exit 143' TERM INT

kt_fail()
{
	printf '%s\n' "$*" >"$KT_REASON"
	exit 1
}

kt_skip()
{
	printf '%s\n' "$*" >"$KT_REASON"
	exit 77
}

# The last line of a file, for failure reasons.
kt_tail()
{
	[ -s "$1" ] && tail -n "${2:-1}" "$1" | tr '\n' ' ' | sed 's/ $//'
}

kt_require()
{
	[ "$(id -u)" = 0 ] || kt_skip "not root (the probes need root or CAP_BPF + CAP_PERFMON)"
	[ -x "$REC" ] || kt_fail "$REC is missing (run make)"
	[ -x "$REPLAY" ] || kt_fail "$REPLAY is missing (run make)"
}

# kt_is_running PID: true while PID exists and is not a zombie.
kt_is_running()
{
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# kt_wait PID SECONDS: wait for a child of this shell; sets KT_RC to its exit
# status, or returns 1 (KT_RC=timeout) if it is still running after SECONDS.
declare -A KT_STATUS # exit status of each child already waited for
kt_wait()
{
	local pid=$1 n=$(($2 * 20))
	if [ -n "${KT_STATUS[$pid]:-}" ]; then
		KT_RC=${KT_STATUS[$pid]}
		return 0
	fi
	while kt_is_running "$pid"; do
		n=$((n - 1))
		if [ "$n" -le 0 ]; then
			KT_RC=timeout
			return 1
		fi
		sleep 0.05
	done
	wait "$pid"
	KT_RC=$?
	KT_STATUS[$pid]=$KT_RC
	return 0
}

# kt_workload NAME ARGS...: start build/workloads/NAME --gate $T/ready ARGS in
# the background; stdout to $T/NAME.out.  Sets WL_PID.
kt_workload()
{
	local name=$1
	shift
	[ -x "$WL/$name" ] || kt_fail "$WL/$name is missing (run make)"
	"$WL/$name" --gate "$T/ready" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	WL_PID=$!
	KT_PIDS="$KT_PIDS $WL_PID"
}

# kt_record ARGS...: start katra-record --ready-file $T/ready -o $T/trace.ktrc
# ARGS in the background (stdout/stderr to $T/rec.out, $T/rec.err) and wait
# until the capture is live.  Sets REC_PID.  TRACE names the output.
TRACE=$T/trace.ktrc
kt_record()
{
	"$REC" --ready-file "$T/ready" -o "$TRACE" "$@" >"$T/rec.out" 2>"$T/rec.err" &
	REC_PID=$!
	KT_PIDS="$KT_PIDS $REC_PID"
	kt_wait_ready
}

kt_wait_ready()
{
	local n=$((KT_START_TIMEOUT * 100))
	while [ ! -e "$T/ready" ]; do
		if ! kt_is_running "$REC_PID"; then
			# exit 0: the file came and went between two polls (the
			# recorder removes it at exit; a short target is done fast)
			kt_wait "$REC_PID" 1
			[ "$KT_RC" = 0 ] && return 0
			kt_fail "katra-record exited $KT_RC before the capture was live: $(kt_tail "$T/rec.err" 2)"
		fi
		n=$((n - 1))
		[ "$n" -gt 0 ] || kt_fail "katra-record not live after ${KT_START_TIMEOUT}s"
		sleep 0.01
	done
}

# kt_wait_workload SECONDS: the workload must exit 0 in time.
kt_wait_workload()
{
	kt_wait "$WL_PID" "$1" || kt_fail "workload still running after $1 s"
	[ "$KT_RC" = 0 ] || kt_fail "workload exited $KT_RC: $(kt_tail "$T"/*.err)"
}

# kt_wait_recorder EXPECTED_RC: the recorder must exit within
# KT_STOP_TIMEOUT seconds with that status.
kt_wait_recorder()
{
	kt_wait "$REC_PID" "$KT_STOP_TIMEOUT" ||
		kt_fail "katra-record still running ${KT_STOP_TIMEOUT}s after its target exited"
	[ "$KT_RC" = "$1" ] ||
		kt_fail "katra-record exited $KT_RC, expected $1: $(kt_tail "$T/rec.err" 2)"
}

# kt_verify: katra-replay verify must accept $TRACE; also dumps it as JSONL to
# $TRACE.jsonl for the checks.
kt_verify()
{
	local f=$TRACE
	"$REPLAY" verify --strict "$f" >"$f.verify" 2>&1 ||
		kt_fail "katra-replay verify rejects $(basename "$f"): $(head -n 3 "$f.verify" | tr '\n' ' ')"
	"$REPLAY" dump --jsonl "$f" >"$f.jsonl" 2>"$f.dump-err" ||
		kt_fail "katra-replay dump --jsonl failed: $(kt_tail "$f.dump-err")"
}

# kt_check CHECK ARGS...: run a ktrace.py check; its failure message becomes ours.
kt_check()
{
	$KT_PY "$@" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
}

# kt_busy BATCH: start a process looping on getppid (no gate); BATCH > 0: it
# sleeps 1 ms after every BATCH calls (a target that keeps traces small);
# 0: flat out.  Sets BUSY_PID.
kt_busy()
{
	"$WL/forktree" busy 0 "$1" >"$T/busy.out" 2>&1 &
	BUSY_PID=$!
	KT_PIDS="$KT_PIDS $BUSY_PID"
}

# kt_hogs N: N CPU hogs (yes >/dev/null) for a busy machine; the EXIT trap
# kills them by PID.
kt_hogs()
{
	local i
	for i in $(seq "$1"); do
		yes >/dev/null &
		KT_PIDS="$KT_PIDS $!"
	done
}

# kt_run_rec ARGS...: run katra-record in the foreground (at most 30 s);
# KT_RC = its exit status (124: timed out).
kt_run_rec()
{
	timeout -k 5 30 "$REC" "$@" >"$T/rec.out" 2>"$T/rec.err"
	KT_RC=$?
}

# kt_free_pid: a PID that no process uses right now.
kt_free_pid()
{
	local p max
	max=$(cat /proc/sys/kernel/pid_max)
	for p in $((max - 1)) $((max - 2)) $((max - 3)) $((max - 7)) $((max - 11)); do
		[ -e "/proc/$p" ] || {
			echo "$p"
			return 0
		}
	done
	return 1
}

# kt_live_maps FILE: the BPF maps of a live `-p` capture of a sleeper, one
# "NAME MAX_ENTRIES" line each (sorted), read from the recorder's own map
# fds (fdinfo's map_id, named by bpftool); the capture is stopped after.
kt_live_maps()
{
	local out=$1 sleeper rp fd id
	command -v bpftool >/dev/null || kt_skip "no bpftool"
	sleep 30 &
	sleeper=$!
	KT_PIDS="$KT_PIDS $sleeper"
	rm -f "$T/maps.ready"
	"$REC" -q -o "$T/maps.ktr" --force --ready-file "$T/maps.ready" -p "$sleeper" \
		2>"$T/maps.err" &
	rp=$!
	KT_PIDS="$KT_PIDS $rp"
	for _ in $(seq 600); do [ -e "$T/maps.ready" ] && break; sleep 0.05; done
	[ -e "$T/maps.ready" ] || kt_fail "the capture never went live: $(kt_tail "$T/maps.err")"
	for fd in /proc/$rp/fdinfo/*; do
		id=$(sed -n 's/^map_id:[[:space:]]*//p' "$fd" 2>/dev/null)
		[ -n "$id" ] && bpftool map show id "$id" -j 2>/dev/null
	done | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    print(m.get("name"), m.get("max_entries"))' | sort -u >"$out"
	kill -INT "$rp"
	wait "$rp" 2>/dev/null
	kill "$sleeper" 2>/dev/null
}

# kt_note TEXT: one line that run.sh prints after the test's PASS/FAIL (the
# figures a test measures, e.g. a loss rate).
kt_note()
{
	[ -n "${KT_NOTE:-}" ] && printf '%s\n' "$*" >"$KT_NOTE"
	printf 'note: %s\n' "$*"
}

# kt_verified_check stream|file CHECK ARGS...: runs the ktrace.py CHECK on
# $TRACE's JSONL and katra-replay verify on $TRACE, and fails with both
# reasons when either fails (the check's figures say what went wrong even when
# the trace is also invalid).  stream: the dump is piped into the check as
# "-" (a storm's JSONL is hundreds of MB; nothing is stored); file: it is
# written to $TRACE.jsonl first.  The check's output becomes the note.
kt_verified_check()
{
	local mode=$1 check=$2 vmsg="" cmsg="" rc
	shift 2
	if [ "$mode" = stream ]; then
		(set -o pipefail; "$REPLAY" dump --jsonl "$TRACE" 2>"$TRACE.dump-err" |
			$KT_PY "$check" - "$@") >"$T/check.out" 2>&1
		rc=$?
	else
		"$REPLAY" dump --jsonl "$TRACE" >"$TRACE.jsonl" 2>"$TRACE.dump-err" ||
			kt_fail "katra-replay dump --jsonl failed: $(kt_tail "$TRACE.dump-err")"
		$KT_PY "$check" "$TRACE.jsonl" "$@" >"$T/check.out" 2>&1
		rc=$?
	fi
	[ "$rc" = 0 ] || cmsg="$(kt_tail "$T/check.out")"
	"$REPLAY" verify --strict "$TRACE" >"$TRACE.verify" 2>&1 ||
		vmsg="katra-replay verify rejects the trace ($(grep -c . "$TRACE.verify") lines): $(head -n 3 "$TRACE.verify" | tr '\n' ' ')"
	if [ -n "$cmsg" ]; then
		kt_fail "$check: $cmsg${vmsg:+ | $vmsg}"
	elif [ -n "$vmsg" ]; then
		kt_fail "$vmsg | $check: $(kt_tail "$T/check.out")"
	fi
	kt_note "$(kt_tail "$T/check.out")"
}

# kt_wait_started NAME PID: waits up to 20 s for $T/started, which a gated
# program (PID, its stderr in $T/NAME.err) creates once it is set up before it
# waits for $T/gate; fails, naming NAME, if PID exits first or it does not come.
kt_wait_started()
{
	local name=$1 pid=$2
	for _ in $(seq 400); do
		[ -e "$T/started" ] && return 0
		kt_is_running "$pid" || kt_fail "$name exited early: $(kt_tail "$T/$name.err")"
		sleep 0.05
	done
	kt_fail "$name did not start within 20 s"
}

# kt_open_gate NAME SECONDS [ARGS...]: attaches katra-record -p $WL_PID ARGS
# (kt_record: REC_PID) to the program waiting at $T/gate and opens the gate;
# the program must exit 0 within SECONDS.  NAME names it in the failures; its
# stderr is $T/NAME.err, with a .exe ending left off (a Wine program
# PROG.exe that kw_uprobe_start started writes $T/PROG.err).
kt_open_gate()
{
	local name=$1 secs=$2
	shift 2
	kt_record -p "$WL_PID" "$@"
	touch "$T/gate"
	kt_wait "$WL_PID" "$secs" || kt_fail "$name still running after $secs s"
	[ "$KT_RC" = 0 ] || kt_fail "$name exited $KT_RC: $(kt_tail "$T/${name%.exe}.err")"
}

# kt_gated NAME SECONDS CMD ARGS...: a program that creates $T/started once it
# is set up and then waits for $T/gate (vksubmit, vkpresent: they take those
# two paths as their first arguments): starts CMD ARGS (stdout $T/NAME.out,
# stderr $T/NAME.err), waits up to 20 s for $T/started, attaches
# katra-record -p to it, opens the gate; the program must exit 0 within
# SECONDS and the recorder 0 after it.  Sets WL_PID and REC_PID.
kt_gated()
{
	local name=$1 secs=$2
	shift 2
	"$@" >"$T/$name.out" 2>"$T/$name.err" &
	WL_PID=$!
	KT_PIDS="$KT_PIDS $WL_PID"
	kt_wait_started "$name" "$WL_PID"
	kt_open_gate "$name" "$secs"
	kt_wait_recorder 0
}

# kt_xvfb: an X server of the test's own (Xvfb on the first free display
# number, which it picks itself: -displayfd), exported as DISPLAY; stopped by
# the EXIT trap.  Skips the test when Xvfb is not installed.
kt_xvfb()
{
	local n
	command -v Xvfb >/dev/null 2>&1 || kt_skip "Xvfb is not installed (package xvfb: ci/install-deps.sh)"
	Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp 3>"$T/xvfb.display" 2>"$T/xvfb.err" &
	KT_XVFB=$!
	KT_PIDS="$KT_PIDS $KT_XVFB"
	for n in $(seq 200); do
		[ -s "$T/xvfb.display" ] && break
		kt_is_running "$KT_XVFB" || kt_fail "Xvfb exited: $(kt_tail "$T/xvfb.err")"
		sleep 0.05
	done
	n=$(head -n 1 "$T/xvfb.display")
	[ -n "$n" ] || kt_fail "Xvfb named no display within 10 s: $(kt_tail "$T/xvfb.err")"
	export DISPLAY=:$n
}

# kt_stop_xvfb: TERM to the test's Xvfb (it removes its lock and socket), KILL
# after 5 s.
kt_stop_xvfb()
{
	local n
	[ -n "$KT_XVFB" ] || return 0
	kill -TERM "$KT_XVFB" 2>/dev/null
	for n in $(seq 100); do
		kt_is_running "$KT_XVFB" || break
		sleep 0.05
	done
	kill -KILL "$KT_XVFB" 2>/dev/null
	wait "$KT_XVFB" 2>/dev/null
	KT_XVFB=""
}

# kt_lavapipe PROG: skips the test unless the Vulkan test program PROG,
# build/katra-vkresolve and Mesa's lavapipe are there; forces lavapipe for the
# test's programs (and so for katra-vkresolve, which takes their loader
# variables).
kt_lavapipe()
{
	local icd=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
	[ -x "$1" ] || kt_skip "$1 is missing (no libvulkan-dev, or libxcb1-dev for vkpresent, when make ran)"
	[ -x "$KT_ROOT/build/katra-vkresolve" ] || kt_skip "katra-vkresolve is missing (no libvulkan-dev)"
	[ -f "$icd" ] || kt_skip "no lavapipe ($icd: mesa-vulkan-drivers)"
	export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
}

# kt_uptrace CHECK ARGS...: a tests/uprobe/uptrace.py check (on
# $TRACE.jsonl: kt_verify first); its failure message becomes ours, its
# figures the note.
kt_uptrace()
{
	python3 "$KT_ROOT/tests/uprobe/uptrace.py" "$@" >"$T/check.out" 2>&1 ||
		kt_fail "$(kt_tail "$T/check.out")"
	kt_note "$(kt_tail "$T/check.out")"
}

# kt_module_bid NAME: the build id of the Module record named NAME in
# $TRACE.jsonl (kt_verify first); nothing when there is none.
kt_module_bid()
{
	python3 - "$TRACE.jsonl" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") == "Module" and r["name"] == sys.argv[2]:
        print(r["build_id"])
PY
}

# kt_replay_copy DIR: katra-replay and the libraries ldd lists for it copied
# into DIR, to run it where the system's are hidden (a mount namespace):
# "$KT_LD" --library-path DIR DIR/katra-replay ...
kt_replay_copy()
{
	local lib
	for lib in $(ldd "$REPLAY" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		cp -L "$lib" "$1/" || kt_fail "cannot copy $lib"
	done
	cp "$REPLAY" "$1/katra-replay" || kt_fail "cannot copy $REPLAY"
	KT_LD=$(ls "$1"/ld-linux-x86-64.so.* 2>/dev/null | head -n 1)
	[ -n "$KT_LD" ] || kt_fail "no dynamic loader in ldd's list of $REPLAY"
}
