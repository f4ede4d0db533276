#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A katra-vkresolve that hangs (a driver stuck in vkCreateDevice; here a
# stand-in that sleeps, KATRA_TEST_VKRESOLVE): it is killed after 10 s, the
# header says so ("katra-vkresolve timed out after 10 s (killed)"), the
# command then runs and the capture ends with it; no helper is left behind.
# Before, the helper had no time limit and the capture never went on.
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vkpresent"
kt_xvfb
printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 600\n' "$T/hung.pid" >"$T/hung-vkresolve"
chmod 755 "$T/hung-vkresolve"
touch "$T/gate"
TRACE=$T/vk.ktrc
KATRA_TEST_VKRESOLVE=$T/hung-vkresolve timeout -k 5 60 "$REC" -o "$TRACE" -- \
	"$KT_ROOT/build/uprobe/vkpresent" "$T/started" "$T/gate" 3 2 >"$T/vkpresent.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record exited $rc: $(kt_tail "$T/rec.err")"
[ -s "$T/hung.pid" ] || kt_fail "the stand-in helper never ran"
left=$(cat "$T/hung.pid")
KT_PIDS="$KT_PIDS $left"
! kt_is_running "$left" || kt_fail "the hung helper is still running (pid $left)"
[ -s "$T/vkpresent.out" ] || kt_fail "vkpresent printed nothing: $(kt_tail "$T/rec.err")"
kt_verify
python3 - "$TRACE.jsonl" <<'PY' >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
head = json.loads(open(sys.argv[1]).readline())
notes = head.get("notes") or head.get("header", {}).get("notes", [])
want = "layer vulkan off: katra-vkresolve timed out after 10 s (killed)"
if want not in notes:
    print("no note '%s': %s" % (want, notes))
    sys.exit(1)
print("helper killed at 10 s, said in the header")
PY
kt_note "$(kt_tail "$T/check.out")"
