#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks through Wine 8: tests/wine/stackchain.exe (mingw -O2, no frame
# pointers, .pdata) calls main -> chain_a -> chain_b -> leaf -> Sleep, ROUNDS
# times; each Sleep's NtDelayExecution blocks in a select of Wine's Unix side
# (ntdll.so), on a stack of its own.  Every one of them has one stack, not
# truncated, that reads kernel -> libc -> ntdll.so, then (joined at the
# syscall dispatcher, from Wine's syscall frame) ntdll.dll -> kernelbase.dll
# -> leaf, chain_b, chain_a, main in order (wine_stacks_check.py), named by
# the program's COFF symbols from a copy of the trace elsewhere with the .exe
# at hand (--symbols DIR, found by its PE identity), and the same without
# --symbols from the trace's own names (Symbols); the Syscall site's count
# is ROUNDS exactly, counted by Sleep (its NtDelayExecution span: under load
# Wine's yield before the select may be a second stack of the chain, or the
# only one of that Sleep).  Without the join the Windows half is missing (the Unix
# walk ends at the dispatcher); the Unix half's last frame is the dispatcher's,
# named __wine_syscall_dispatcher from ntdll.so's dynamic symbols.  KW_WINE=10 (t_wine10_stacks): the same in
# the Proton-class root's Wine 10 (katra-record -- enter.sh ...).  The
# header's note says where the syscall frame is, read from ntdll.so
# (t_wine_stacks_read: and that this is what the probe used).
# kt-timeout: 180
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
ROUNDS=5
EXE=$KT_ROOT/build/wine/stackchain.exe
command -v "${MINGW_CC:-x86_64-w64-mingw32-gcc}" >/dev/null ||
	kt_skip "mingw is not installed (ci/install-deps.sh installs gcc-mingw-w64-x86-64)"
make -s -C "$KT_ROOT" "build/wine/stackchain.exe" >"$T/make.out" 2>&1 || kt_fail "make $EXE: $(kt_tail "$T/make.out" 2)"
kw_uprobe_setup "$EXE"
cp "$EXE" "$T/"
CMD=(wine "$T/stackchain.exe")
[ "$KW_WINE" = 10 ] && CMD=("$KT_ROOT/tests/proton/enter.sh" "$KW_PROTON/root" "$T" /mnt/stackchain.exe)
timeout -k 5 120 "$REC" -o "$TRACE" --stacks --stack-threshold 0.02 -- "${CMD[@]}" "$ROUNDS" \
	>"$T/rec.out" 2>"$T/rec.err"
KT_RC=$?
[ "$KT_RC" = 0 ] || kt_fail "katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
grep -q ' call stacks (' "$T/rec.err" || kt_fail "no stacks line: $(kt_tail "$T/rec.err")"
# where the syscall frame is, read from the ntdll.so the process maps: in
# the summary; in the header too when read before the start (Wine 8's
# command: its ntdll.so is read before it runs)
"$REPLAY" dump "$TRACE" >"$T/dump.txt" 2>/dev/null
grep '^SessionSummary' "$T/dump.txt" | grep -qF '"ntdll.so:syscall frame at TEB+0x328, rip rsp rbp at +0x70 +0x88 +0x98"' ||
	kt_fail "no syscall frame read from ntdll.so in the summary: $(grep -o '"ntdll.so:[^"]*"' "$T/dump.txt" | sort -u | tail -3)"
if [ "$KW_WINE" != 10 ]; then
	grep -qxF '# note "wine stacks: syscall frame at TEB+0x328, rip rsp rbp at +0x70 +0x88 +0x98 (read from /usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so)"' \
		"$T/dump.txt" || kt_fail "no note of the syscall frame read from ntdll.so: $(grep '^# note "wine' "$T/dump.txt")"
fi
# elsewhere: the trace copied, the program in the symbols directory
mkdir -p "$T/elsewhere/syms"
cp "$TRACE" "$T/elsewhere/copy.ktrc"
cp "$EXE" "$T/elsewhere/syms/"
# Wine 10's ntdll.so is in the root only (Debian's Wine 8's: found where
# Debian puts it, by its build id)
[ "$KW_WINE" = 10 ] && cp "$KW_PROTON/root/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so" "$T/elsewhere/syms/"
(cd "$T/elsewhere" && "$REPLAY" stats --stacks --json --top 10000 --symbols syms copy.ktrc) \
	>"$T/stacks.json" 2>"$T/stats.err" || kt_fail "stats --stacks: $(kt_tail "$T/stats.err")"
# each Sleep's span and the stacks it holds, counted by Sleep
(set -o pipefail; "$REPLAY" dump --jsonl "$TRACE" 2>"$T/dump.err" |
	grep -E '"record":"StackOf"|"kind":"NtDelayExecution"' >"$T/events.jsonl") ||
	kt_fail "dump --jsonl: $(kt_tail "$T/dump.err")"
python3 "$KT_DIR/wine_stacks_check.py" "$T/stacks.json" "$ROUNDS" "$T/events.jsonl" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
# the same copy without --symbols: the program (outside every library
# directory) and, under Wine 10, ntdll.so (in the root only) named by the
# trace's Symbols records, written from the files the process mapped
(cd "$T/elsewhere" && "$REPLAY" stats --stacks --json --top 10000 copy.ktrc) \
	>"$T/trace.json" 2>"$T/trace.err" || kt_fail "stats --stacks without --symbols: $(kt_tail "$T/trace.err")"
python3 "$KT_DIR/wine_stacks_check.py" "$T/trace.json" "$ROUNDS" "$T/events.jsonl" >"$T/trace.out" 2>&1 ||
	kt_fail "from the trace's names alone: $(kt_tail "$T/trace.out")"
exit 0
