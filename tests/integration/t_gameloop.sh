#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/workloads/gameloop (make bench's game workload), untraced, a few
# frames: it waits at its gate, prints one valid JSON line whose counts add
# up, the same seed gives the same job-side counts, --uncapped does not pace,
# a bad option is a usage error.  No timing is asserted.
. "$(dirname "$0")/lib.sh"
GL=$KT_ROOT/build/bench/gameloop
[ -x "$GL" ] || kt_fail "$GL is missing (make build/bench/gameloop)"
check()
{
	python3 "$KT_DIR/gameloop_check.py" "$@" >"$T/check.out" 2>&1 ||
		kt_fail "gameloop_check $1: $(kt_tail "$T/check.out")"
}

# the gate: nothing before it exists
"$GL" --gate "$T/gate" --frames 12 --workers 2 --seed 7 --pak-mib 4 >"$T/a.json" 2>"$T/a.err" &
GL_PID=$!
KT_PIDS="$KT_PIDS $GL_PID"
sleep 0.3
kt_is_running "$GL_PID" || kt_fail "gameloop did not wait at its gate: $(kt_tail "$T/a.err")"
[ ! -s "$T/a.json" ] || kt_fail "gameloop printed before its gate opened"
touch "$T/gate"
kt_wait "$GL_PID" 20 || kt_fail "gameloop still running 20 s after its gate opened"
[ "$KT_RC" = 0 ] || kt_fail "gameloop exited $KT_RC: $(kt_tail "$T/a.err")"
check one "$T/a.json" 12 2

timeout 20 "$GL" --frames 12 --workers 2 --seed 7 --pak-mib 4 >"$T/b.json" 2>"$T/b.err" ||
	kt_fail "gameloop (seed 7 again) failed: $(kt_tail "$T/b.err")"
check one "$T/b.json" 12 2
check same "$T/a.json" "$T/b.json"
timeout 20 "$GL" --frames 12 --workers 2 --seed 8 --pak-mib 4 >"$T/c.json" 2>"$T/c.err" ||
	kt_fail "gameloop (seed 8) failed: $(kt_tail "$T/c.err")"
check differ "$T/a.json" "$T/c.json"

timeout 20 "$GL" --frames 30 --uncapped --pak-mib 4 >"$T/u.json" 2>"$T/u.err" ||
	kt_fail "gameloop --uncapped failed: $(kt_tail "$T/u.err")"
check one "$T/u.json" 30 4 uncapped

"$GL" --frames 3 --bogus >"$T/x.out" 2>"$T/x.err"
rc=$?
[ "$rc" = 2 ] || kt_fail "gameloop --bogus: exit $rc, expected 2"
grep -q usage "$T/x.err" || kt_fail "gameloop --bogus: no usage on stderr"
exit 0
