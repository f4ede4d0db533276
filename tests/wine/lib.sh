# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the Wine integration tests (tests/integration/t_wine_*.sh),
# sourced after tests/integration/lib.sh.
#
# kw_setup: skips (77) without Wine or mingw, builds the test programs
# (make wine-progs: build/wine/*.exe), creates or reuses the two prefixes
# (tests/wine/prefix.sh) and sets PFX_A, PFX_B.  kw_start PREFIX NAME.exe
# [SECONDS]: starts `wine NAME.exe SECONDS` untraced (the pid of `wine` stays
# the program's: an exec chain) and waits until it runs (it prints "ready").
# Everything started is killed at exit, and both prefixes' wineservers with
# it (wineserver -k).
#
# kw_start_pair: the session of two programs the session tests trace:
# first.exe and second.exe started (kw_start) in prefix A; sets FIRST, SECOND.
#
# For the uprobe tests (programs of tests/uprobe/, build/uprobe/*.exe, which
# create a STARTED file and then wait for a GATE file): kw_uprobe_setup EXE
# skips (77) without Wine or EXE and exports WINEPREFIX (prefix A only:
# prefix.sh --one); kw_win PATH prints PATH as Wine's Z: drive names it;
# kw_uprobe_start NAME ARGS... does kw_uprobe_setup for build/uprobe/NAME.exe,
# starts `wine NAME.exe STARTED GATE ARGS...` untraced ($T/started, $T/gate;
# output in $T/NAME.out and .err) and returns once it created STARTED, with
# WL_PID set: `kt_open_gate NAME.exe SECONDS` attaches katra-record to it and
# opens its gate.
#
# KW_WINE=10 (the t_wine10_* variants: `KW_WINE=10 exec t_wine_NAME.sh`): the
# same program under the Proton-class root's Wine 10 instead of the host's
# Wine 8, run as pressure-vessel runs a game (tests/proton/enter.sh: its own
# mount namespace, chroot, host PIDs) with $T seen inside as /mnt: kw_win
# names $T/... Z:\mnt\..., kw_uprobe_setup skips (quoting why) without a
# built root (make proton-root), kw_uprobe_start sets WL_PID to the Wine
# process's host PID (KW_ENTER: enter.sh's, whose status is the program's)
# and kt_open_gate waits for enter.sh.  Everything left in the namespaces
# (wineserver, Xvfb) is killed at exit, by PID.

KW_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WINE_BIN=$KT_ROOT/build/wine
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
unset WAYLAND_DISPLAY
: "${KW_READY_TIMEOUT:=30}"

KW_WINE=${KW_WINE:-8}
KW_PROTON=${KATRA_PROTON_CACHE:-/var/cache/katra-proton}
KW_PREFIXES=""
KW_MNTNS="" # mount namespaces of the roots entered (KW_WINE=10)
kw_cleanup()
{
	local p ns
	for p in $KW_PREFIXES; do
		WINEPREFIX=$p timeout 10 wineserver -k 2>/dev/null
	done
	for ns in $KW_MNTNS; do
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && kill -KILL "${p#/proc/}" 2>/dev/null
		done
	done
	kt_cleanup
}
trap kw_cleanup EXIT

kw_setup()
{
	if [ "$KW_WINE" = 10 ]; then
		kw_root_setup
		command -v nsenter >/dev/null || kt_skip "nsenter (util-linux) is not installed"
		command -v "${MINGW_CC:-x86_64-w64-mingw32-gcc}" >/dev/null ||
			kt_skip "mingw is not installed (ci/install-deps.sh installs gcc-mingw-w64-x86-64)"
		make -s -C "$KT_ROOT" wine-progs >"$T/make.out" 2>&1 ||
			kt_fail "make wine-progs failed: $(kt_tail "$T/make.out" 2)"
		# a "prefix" is one entered root (its own mount namespace, so
		# its own /tmp and wineserver): A and B, each its own WORK
		PFX_A=A PFX_B=B
		return 0
	fi
	command -v wine >/dev/null && command -v wineserver >/dev/null ||
		kt_skip "Wine is not installed (ci/install-deps.sh installs wine, wine64)"
	command -v "${MINGW_CC:-x86_64-w64-mingw32-gcc}" >/dev/null ||
		kt_skip "mingw is not installed (ci/install-deps.sh installs gcc-mingw-w64-x86-64)"
	make -s -C "$KT_ROOT" wine-progs >"$T/make.out" 2>&1 ||
		kt_fail "make wine-progs failed: $(kt_tail "$T/make.out" 2)"
	local rc
	"$KW_DIR/prefix.sh" >"$T/prefix.out" 2>"$T/prefix.err"
	rc=$?
	[ "$rc" = 77 ] && kt_skip "$(kt_tail "$T/prefix.err")"
	[ "$rc" = 0 ] || kt_fail "tests/wine/prefix.sh: $(kt_tail "$T/prefix.err" 2)"
	PFX_A=$(sed -n 1p "$T/prefix.out")
	PFX_B=$(sed -n 2p "$T/prefix.out")
	KW_PREFIXES="$PFX_A $PFX_B"
	# a session left over from an earlier run would be traced as ours
	WINEPREFIX=$PFX_A wineserver -k 2>/dev/null
	WINEPREFIX=$PFX_B wineserver -k 2>/dev/null
}

kw_uprobe_setup()
{
	local rc
	if [ "$KW_WINE" = 10 ]; then
		kw_root_setup
		[ -f "$1" ] || kt_skip "$1 is missing (no x86_64-w64-mingw32-gcc when make ran)"
		return 0
	fi
	command -v wine >/dev/null 2>&1 || kt_skip "wine is not installed (ci/install-deps.sh)"
	[ -f "$1" ] || kt_skip "$1 is missing (no x86_64-w64-mingw32-gcc when make ran)"
	"$KW_DIR/prefix.sh" --one >"$T/prefix.out" 2>"$T/prefix.err"
	rc=$?
	[ "$rc" = 77 ] && kt_skip "$(kt_tail "$T/prefix.err")"
	[ "$rc" = 0 ] || kt_fail "cannot create the Wine prefix: $(kt_tail "$T/prefix.err" 2)"
	WINEPREFIX=$(cat "$T/prefix.out")
	export WINEPREFIX
}

kw_win()
{
	local p=$1
	[ "$KW_WINE" = 10 ] && p=/mnt${p#"$T"}
	printf 'Z:%s' "${p//\//\\}"
}

# kw_root_setup: skips unless the Proton-class root is built (make test
# builds it first; a test only finds it), quoting why it is not.
kw_root_setup()
{
	local why
	command -v unshare >/dev/null || kt_skip "unshare (util-linux) is not installed"
	if [ ! -e "$KW_PROTON/root/.katra-proton-complete" ]; then
		why="not built (make proton-root)"
		[ -s "$KW_PROTON/last-error" ] && why=$(kt_tail "$KW_PROTON/last-error")
		kt_skip "the Proton-class root: $why"
	fi
}

# kw_root_start NAME.exe ARGS...: `wine /mnt/NAME.exe ARGS` in the root
# (enter.sh, WORK $T: NAME.exe copied there); output $T/NAME.out, .err.
# Sets KW_ENTER (enter.sh's PID: exec'd down to the shell that runs wine).
kw_root_start()
{
	local exe=$1 name=${1##*/}
	shift
	cp "$exe" "$T/"
	"$KT_ROOT/tests/proton/enter.sh" "$KW_PROTON/root" "$T" "/mnt/$name" "$@" \
		>"$T/${name%.exe}.out" 2>"$T/${name%.exe}.err" &
	KW_ENTER=$!
	KT_PIDS="$KT_PIDS $KW_ENTER"
	kw_root_track "$KW_ENTER" "$T/${name%.exe}.err"
}

# kw_root_track PID ERRFILE: waits until PID (enter.sh) is in a mount
# namespace of its own and keeps it for the cleanup (what is left there is
# killed at exit).
kw_root_track()
{
	local ns="" own
	own=$(readlink /proc/self/ns/mnt)
	for _ in $(seq 200); do
		ns=$(readlink "/proc/$1/ns/mnt" 2>/dev/null)
		# never ours: the cleanup kills every process in it
		[ -n "$ns" ] && [ "$ns" != "$own" ] && break
		kt_is_running "$1" || kt_fail "enter.sh exited: $(kt_tail "$2" 2)"
		sleep 0.05
	done
	[ -n "$ns" ] && [ "$ns" != "$own" ] || kt_fail "enter.sh ($1) made no mount namespace in 10 s"
	KW_MNTNS="$KW_MNTNS $ns"
}

# kw_root_pid NAME.exe [PARENT]: the host PID of the Wine process running
# NAME.exe under PARENT (default KW_ENTER; `wine` keeps its PID: an exec
# chain).
kw_root_pid()
{
	pgrep -P "${2:-$KW_ENTER}" -x "$1" | head -n 1
}

kw_uprobe_start()
{
	local name=$1 exe=$KT_ROOT/build/uprobe/$1.exe
	shift
	kw_uprobe_setup "$exe"
	if [ "$KW_WINE" = 10 ]; then
		kw_root_start "$exe" "$(kw_win "$T/started")" "$(kw_win "$T/gate")" "$@"
		kt_wait_started "$name" "$KW_ENTER"
		WL_PID=$(kw_root_pid "$name.exe")
		[ -n "$WL_PID" ] || kt_fail "no process $name.exe under enter.sh ($KW_ENTER)"
		return 0
	fi
	wine "$exe" "$(kw_win "$T/started")" "$(kw_win "$T/gate")" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" &
	WL_PID=$!
	KT_PIDS="$KT_PIDS $WL_PID"
	kt_wait_started "$name" "$WL_PID"
}

if [ "$KW_WINE" = 10 ]; then
	# the program is not this shell's child: wait for enter.sh, whose exit
	# status is the program's (after the session's end: wineserver -w)
	kt_open_gate()
	{
		local name=$1 secs=$2
		shift 2
		kt_record -p "$WL_PID" "$@"
		touch "$T/gate"
		kt_wait "$KW_ENTER" "$secs" || kt_fail "$name still running after $secs s"
		[ "$KT_RC" = 0 ] || kt_fail "$name exited $KT_RC: $(kt_tail "$T/${name%.exe}.err")"
	}
fi

# kw_start PREFIX NAME.exe [SECONDS]: sets KW_PID.  KW_WINE=10: PREFIX's
# first program starts its root (enter.sh, WORK $T/PREFIX; KW_ENTER_PREFIX),
# the later ones join that session as a second `wine` in a container would:
# nsenter into its mount namespace and root (an exec chain: KW_PID is ours).
# kw_wait_ready EXE OUT: until the program (KW_PID) says 'ready' in OUT
kw_wait_ready()
{
	local exe=$1 out=$2 n=$((KW_READY_TIMEOUT * 20))
	until grep -q '^ready' "$out" 2>/dev/null; do
		kt_is_running "$KW_PID" || kt_fail "wine $exe exited before it ran: $(kt_tail "$out" 2)"
		n=$((n - 1))
		[ "$n" -gt 0 ] || kt_fail "wine $exe not running after ${KW_READY_TIMEOUT}s"
		sleep 0.05
	done
}

kw_start()
{
	if [ "$KW_WINE" = 10 ]; then
		kw_root_program "$@"
		return
	fi
	local pfx=$1 exe=$2 out
	out=$T/${exe%.exe}.$(basename "$pfx").out
	WINEPREFIX=$pfx wine "$WINE_BIN/$exe" "${3:-0}" >"$out" 2>&1 &
	KW_PID=$!
	KT_PIDS="$KT_PIDS $KW_PID"
	kw_wait_ready "$exe" "$out"
}

kw_root_program()
{
	local inst=$1 exe=$2 out enter var=KW_ENTER_$1
	out=$T/${exe%.exe}.$inst.out
	mkdir -p "$T/$inst"
	cp "$WINE_BIN/$exe" "$T/$inst/"
	enter=${!var:-}
	if [ -z "$enter" ]; then
		"$KT_ROOT/tests/proton/enter.sh" "$KW_PROTON/root" "$T/$inst" "/mnt/$exe" "${3:-0}" \
			>"$out" 2>&1 &
		enter=$!
		printf -v "$var" %s "$enter"
		KT_PIDS="$KT_PIDS $enter"
		kw_root_track "$enter" "$out"
		KW_PID=$enter
	else
		kw_wine_argv "$inst" "$exe"
		"${KW_ARGV[@]}" "${3:-0}" >"$out" 2>&1 &
		KW_PID=$!
		KT_PIDS="$KT_PIDS $KW_PID"
	fi
	kw_wait_ready "$exe" "$out"
	if [ "$KW_PID" = "$enter" ]; then
		KW_PID=$(kw_root_pid "$exe" "$enter")
		[ -n "$KW_PID" ] || kt_fail "no process $exe under enter.sh ($enter)"
	fi
}

# kw_wine_argv PREFIX NAME.exe [WRAPPER...]: sets KW_ARGV to a command that
# runs `wine NAME.exe` in PREFIX's session, under WRAPPER (unshare ...) if
# given; arguments may follow it.  KW_WINE=10: nsenter into the root PREFIX's
# first program entered (kw_start), NAME.exe copied to its WORK.
kw_wine_argv()
{
	local pfx=$1 exe=$2 var=KW_ENTER_$1
	shift 2
	if [ "$KW_WINE" != 10 ]; then
		KW_ARGV=(env WINEPREFIX="$pfx" "$@" wine "$WINE_BIN/$exe")
		return 0
	fi
	[ -n "${!var:-}" ] || kt_fail "kw_wine_argv: no root entered for $pfx"
	cp "$WINE_BIN/$exe" "$T/$pfx/"
	KW_ARGV=(nsenter -t "${!var}" -m -r -w -- "$@" /bin/sh -c 'export WINEPREFIX=/opt/katra/prefix \
		HOME=/root WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="; exec wine "$@"' \
		- "/mnt/$exe")
}

# FIRST, SECOND: the caller's
# shellcheck disable=SC2034
kw_start_pair()
{
	kw_start "$PFX_A" first.exe
	FIRST=$KW_PID
	kw_start "$PFX_A" second.exe
	SECOND=$KW_PID
}

# kw_server_dir PID: the wineserver directory PID maps (as it names it).
kw_server_dir()
{
	sed -n 's|.* \(/.*/server-[0-9a-f]*-[0-9a-f]*\)/.*|\1|p' "/proc/$1/maps" 2>/dev/null | head -n 1
}

# kw_dir_id PID DIR: device:inode of the directory DIR (as PID's maps name
# it) in PID's root: /proc/PID/root/DIR, or, for a chrooted PID whose maps
# name it from our root (ROOT/tmp/...), /proc/PID/root/tmp/...
kw_dir_id()
{
	local r
	stat -L -c '%d:%i' "/proc/$1/root$2" 2>/dev/null && return 0
	r=$(readlink "/proc/$1/root" 2>/dev/null) || return 1
	[ "$r" != / ] && [ "${2#"$r"/}" != "$2" ] &&
		stat -L -c '%d:%i' "/proc/$1/root${2#"$r"}" 2>/dev/null
}

# kw_session_pids PID: every process mapping the same server directory as
# PID (by device and inode, as the recorder does), PID included.
kw_session_pids()
{
	local dir id p d
	dir=$(kw_server_dir "$1")
	[ -n "$dir" ] || return 1
	id=$(kw_dir_id "$1" "$dir") || return 1
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		d=$(kw_server_dir "$p")
		[ -n "$d" ] && [ "$(kw_dir_id "$p" "$d")" = "$id" ] && echo "$p"
	done
}

# kw_wineserver PIDS: the pid among PIDS (comma-separated) that runs
# wineserver (its comm: wineserver, wineserver64); nothing when none does.
kw_wineserver()
{
	local p
	for p in ${1//,/ }; do
		case $(cat "/proc/$p/comm" 2>/dev/null) in wineserver*) echo "$p"; return ;; esac
	done
}

KW_PY="python3 $KW_DIR/check.py"
# kw_check CHECK ARGS...: a tests/wine/check.py check; its failure is ours.
kw_check()
{
	$KW_PY "$@" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
	kt_note "$(kt_tail "$T/check.out")"
}
