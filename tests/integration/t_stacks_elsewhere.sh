#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks symbolised on another machine, as near as one host allows: the
# stackchains capture read in a mount namespace where neither the workload
# nor the system's libraries nor their debug files are where they were
# (tmpfs over build/workloads, /usr/lib/debug and /usr/lib/x86_64-linux-gnu;
# katra-replay runs from a copy of itself and its libraries), given only
# --symbols DIR: the workload's copy by its name and libc's debug file by its
# build id.  Each known chain is named in order, every round, and its folded
# line goes down through libc (_start;__libc_start_main;...: the debug file
# found by build id names __libc_start_call_main, which the trace's names,
# from libc's .dynsym, do not).  Without --symbols the trace's own names (the
# Symbols records the recorder wrote from the files the process mapped) name
# each chain in order just the same.  A second capture with --no-symbols has
# no Symbols record: without --symbols nothing names its chains (the
# namespace hides the binaries); with a copy of the workload whose build id
# differs by one byte in DIR, that copy is not used: its frames stay
# module+offset.
. "$(dirname "$0")/lib.sh"
kt_require
ROUNDS=3
LIBDIR=/usr/lib/x86_64-linux-gnu
[ "$(stat -f -c %T "$T")" != tmpfs ] || kt_skip "$T is on tmpfs: O_DIRECT and a dropped page cache need a disk"
command -v unshare >/dev/null || kt_fail "unshare (util-linux) is missing"
mkdir -p "$T/data"
TRACE=$T/stacks.ktrc
kt_run_rec -o "$TRACE" --stack-threshold 0 -- "$WL/stackchains" "$T/data" "$ROUNDS"
[ "$KT_RC" = 0 ] || kt_fail "katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify
"$REPLAY" dump "$TRACE" | grep -q '^Symbols module=' ||
	kt_fail "no Symbols record in the trace"
NONAMES=$T/nonames.ktrc
kt_run_rec -o "$NONAMES" --no-symbols --stack-threshold 0 -- "$WL/stackchains" "$T/data" "$ROUNDS"
[ "$KT_RC" = 0 ] || kt_fail "katra-record --no-symbols exited $KT_RC: $(kt_tail "$T/rec.err")"
! "$REPLAY" dump "$NONAMES" | grep -q '^Symbols' ||
	kt_fail "--no-symbols wrote a Symbols record"
libc_bid=$(kt_module_bid libc.so.6)
[ -n "$libc_bid" ] || kt_fail "no Module record for libc.so.6 with a build id"
dbg=/usr/lib/debug/.build-id/${libc_bid:0:2}/${libc_bid:2}.debug
[ -f "$dbg" ] || kt_fail "no debug file of libc at $dbg (libc6-dbg: ci/install-deps.sh)"

# what the other machine has: the trace, the binaries in DIR
mkdir -p "$T/syms/.build-id/${libc_bid:0:2}" "$T/bad" "$T/rt"
cp "$TRACE" "$T/copy.ktrc"
cp "$NONAMES" "$T/nonames-copy.ktrc"
cp "$WL/stackchains" "$T/syms/stackchains"
cp "$dbg" "$T/syms/.build-id/${libc_bid:0:2}/${libc_bid:2}.debug"
cp -r "$T/syms/.build-id" "$T/bad/"
# the workload again, one byte of its build id changed
python3 "$KT_DIR/stacks_check.py" flipbid "$WL/stackchains" "$T/bad/stackchains" >/dev/null ||
	kt_fail "cannot change the copy's build id"
# katra-replay from a copy with its libraries: the namespace hides the system's
kt_replay_copy "$T/rt"
ld=$KT_LD

# In the namespace: mounts first (they need the libraries), then only
# builtins and the copied loader
unshare -m --propagation private bash -c '
T=$1 WL=$2 LIBDIR=$3 LD=$4
mount -t tmpfs none "$WL" && mount -t tmpfs none /usr/lib/debug && mount -t tmpfs none "$LIBDIR" || exit 2
[ ! -e "$WL/stackchains" ] && [ ! -e "$LIBDIR/libc.so.6" ] || exit 3
R() { "$LD" --library-path "$T/rt" "$T/rt/katra-replay" "$@"; }
cd "$T"
R stats --stacks --json --top 10000 --symbols syms copy.ktrc >elsewhere.json 2>elsewhere.err || exit 4
R stats --folded --symbols syms copy.ktrc >elsewhere.folded 2>>elsewhere.err || exit 5
R stats --stacks --json --top 10000 copy.ktrc >trace.json 2>trace.err || exit 6
R stats --stacks --json --top 10000 nonames-copy.ktrc >nosyms.json 2>nosyms.err || exit 7
R stats --stacks --json --top 10000 --symbols bad nonames-copy.ktrc >bad.json 2>bad.err || exit 8
' _ "$T" "$WL" "$LIBDIR" "$ld"
rc=$?
[ "$rc" = 0 ] || kt_fail "the other machine's replay failed at step $rc: $(kt_tail "$T/elsewhere.err") $(kt_tail "$T/trace.err") $(kt_tail "$T/nosyms.err") $(kt_tail "$T/bad.err")"

python3 "$KT_DIR/stacks_check.py" "$T/elsewhere.json" "$ROUNDS" >"$T/check.out" 2>&1 ||
	kt_fail "with --symbols: $(kt_tail "$T/check.out")"
grep -Eq '^_start;__libc_start_main;__libc_start_call_main;main;chain_a;chain_b;leaf_sleep;.* [0-9]+$' \
	"$T/elsewhere.folded" || kt_fail "no folded line through libc: $(head -n 2 "$T/elsewhere.folded")"
python3 "$KT_DIR/stacks_check.py" "$T/trace.json" "$ROUNDS" >"$T/trace.out" 2>&1 ||
	kt_fail "from the trace's names alone: $(kt_tail "$T/trace.out")"
if python3 "$KT_DIR/stacks_check.py" "$T/nosyms.json" "$ROUNDS" >"$T/nosyms.out" 2>&1; then
	kt_fail "without --symbols the chains were named: the binaries were not hidden"
fi
python3 - "$T/bad.json" <<'PY' || kt_fail "a copy with another build id was used: $(cat "$T/bad.out")"
import json, re, sys
frames = [f for st in json.load(open(sys.argv[1]))["stacks"] for f in st["frames"]]
named = [f for f in frames if re.match(r"(main|chain_a|chain_b|leaf_\w+)\+", f)]
plain = [f for f in frames if re.fullmatch(r"stackchains\+0x[0-9a-f]+ \(stackchains\)", f)]
out = open(sys.argv[1].replace(".json", ".out"), "w")
print("named %d (%s), module+offset %d" % (len(named), named[:3], len(plain)), file=out)
sys.exit(bool(named) or not plain)
PY
kt_note "$(cat "$T/check.out"); from the trace alone: $(cat "$T/trace.out")"
exit 0
