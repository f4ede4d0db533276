#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A Wine program in its own PID namespace (as a game in the Steam Runtime's
# bubblewrap container is) is found by its host PID: `unshare --pid` runs
# second.exe (its own PID there: 1) in the session of first.exe (host);
# `katra-record -p <second's host PID>` traces it and its session (first.exe,
# wineserver), and -p <first> finds second.exe by its host PID.
# KW_WINE=10 (t_wine10_pidns): a PID namespace inside the Proton root's
# mount namespace and chroot (bubblewrap's --unshare-pid in a container).
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
kw_setup
command -v unshare >/dev/null || kt_skip "unshare (util-linux) is not installed"

kw_start "$PFX_A" first.exe
FIRST=$KW_PID
out=$T/second.ns.out
# (in a chroot, / is no mount point: its propagation cannot be changed)
prop=()
[ "$KW_WINE" = 10 ] && prop=(--propagation unchanged)
kw_wine_argv "$PFX_A" second.exe unshare --pid --fork --mount-proc "${prop[@]}"
"${KW_ARGV[@]}" 0 >"$out" 2>&1 &
KT_PIDS="$KT_PIDS $!"
for _ in $(seq 600); do grep -q '^ready' "$out" 2>/dev/null && break; sleep 0.05; done
grep -q '^ready' "$out" || kt_fail "second.exe in a PID namespace did not start: $(kt_tail "$out" 2)"
SESSION=$(kw_session_pids "$FIRST" | tr '\n' ,)
SECOND="" SERVER=""
for p in ${SESSION//,/ }; do
	case $(cat "/proc/$p/comm" 2>/dev/null) in
	second.exe) SECOND=$p ;;
	wineserver*) SERVER=$p ;;
	esac
done
[ -n "$SECOND" ] && [ -n "$SERVER" ] || kt_fail "session of $FIRST: no second.exe or wineserver ($SESSION)"
KT_PIDS="$KT_PIDS $SECOND"
NSPID=$(sed -n 's/^NSpid:\t*//p' "/proc/$SECOND/status")
[ "$NSPID" = "$SECOND	1" ] || kt_fail "second.exe's PIDs are '$NSPID', expected '$SECOND<TAB>1'"

kt_run_rec -p "$SECOND" -d 1 -o "$TRACE"
[ "$KT_RC" = 0 ] || kt_fail "-p $SECOND exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
kw_check members "$TRACE.jsonl" target="$SECOND:second.exe" members="$FIRST:first.exe" \
	server="$SERVER"
rm -f "$TRACE"
kt_run_rec -p "$FIRST" -d 1 -o "$TRACE"
[ "$KT_RC" = 0 ] || kt_fail "-p $FIRST exited $KT_RC: $(kt_tail "$T/rec.err" 2)"
kt_verify
kw_check members "$TRACE.jsonl" target="$FIRST:first.exe" members="$SECOND:second.exe" \
	server="$SERVER"
