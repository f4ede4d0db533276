#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks on a real frame workload: the lavapipe program vkpresent (built
# without frame pointers, CFI only) on the test's own Xvfb, attached with -p
# at its gate, presents P frames of which frame SLOW blocks in main ->
# frame_slow -> slow_b -> slow_a -> nanosleep (300 ms) and frame SPIN runs in
# main -> frame_spin -> spin_b -> spin_a for 10 ms of its CPU time.
# report --frames --json, read where the binary is hidden (a mount namespace
# with tmpfs over build/uprobe) and found only by its build id in --symbols
# DIR, lists frame SLOW first, at least 300 ms long, and its longest hop is
# blocked in Sleep with a stack naming slow_a, slow_b, frame_slow, main in
# order (innermost first: the JSON has the whole stack); frame SPIN's most sampled hop (--sample-hz) runs in
# spin_a, spin_b, frame_spin.  Without --symbols the trace's own names (the
# Symbols records written from the file the process mapped) name the same
# chains just as exactly.
# Margins: the other frames do ~0.2 ms of work (clear a 64x64 image, FIFO
# on Xvfb waits for no vblank) and the spin 10 ms of CPU time, so frame SLOW,
# never shorter than its sleep, stays first unless a loaded machine keeps
# the render thread from its CPU 30 times over; the sampled hop is picked by
# its samples, which count CPU time, not by the wall clock.
# Skips without Xvfb or lavapipe.
. "$(dirname "$0")/lib.sh"
kt_require
PROG=$KT_ROOT/build/uprobe/vkpresent
kt_lavapipe "$PROG"
command -v unshare >/dev/null || kt_fail "unshare (util-linux) is missing"
kt_xvfb
P=12 SLOW=8 SLOW_MS=300 SPIN=4
"$PROG" "$T/started" "$T/gate" $P $P $SLOW $SPIN >"$T/vkpresent.out" 2>"$T/vkpresent.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
kt_wait_started vkpresent "$WL_PID"
kt_open_gate vkpresent 60 --stacks --sample-hz 2000
kt_wait_recorder 0
kt_stop_xvfb
grep -q ' call stacks (' "$T/rec.err" || kt_fail "no stacks line: $(kt_tail "$T/rec.err")"
kt_verify
bid=$(kt_module_bid vkpresent)
[ -n "$bid" ] || kt_fail "no Module record for vkpresent with a build id"
mkdir -p "$T/syms/.build-id/${bid:0:2}"
cp "$PROG" "$T/syms/.build-id/${bid:0:2}/${bid:2}.debug"

# the binary hidden: its frames are named from DIR by the trace's build id
unshare -m --propagation private bash -c '
T=$1 DIR=$2 R=$3
mount -t tmpfs none "$DIR" || exit 2
[ ! -e "$DIR/vkpresent" ] || exit 3
cd "$T"
"$R" report --frames --json --symbols syms trace.ktrc >frames.json 2>frames.err || exit 4
"$R" report --frames --json trace.ktrc >nosyms.json 2>>frames.err || exit 5
' _ "$T" "$(dirname "$PROG")" "$REPLAY"
rc=$?
[ "$rc" = 0 ] || kt_fail "report --frames in the namespace failed at step $rc: $(kt_tail "$T/frames.err")"
python3 "$KT_DIR/frame_stacks_check.py" "$T/frames.json" $SLOW $SLOW_MS $SPIN >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
python3 "$KT_DIR/frame_stacks_check.py" "$T/nosyms.json" $SLOW $SLOW_MS $SPIN >"$T/nosyms.out" 2>&1 ||
	kt_fail "without --symbols, from the trace's names: $(kt_tail "$T/nosyms.out")"
kt_note "$(cat "$T/check.out")"
exit 0
