#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The export of a real capture of the demo workload opened in a real viewer:
# speedscope (its npm package, served from its own files) in headless
# Chromium imports it as a Trace Event Format profile without error and lists
# one profile per thread, named from the export's process names.  The
# screenshots (the thread list, the busiest thread's timeline) and the JSON
# stay in build/test-artifacts/export-viewer/; an export --speedscope opens
# there on the busiest traced thread (speedscope-mode/).
. "$(dirname "$0")/lib.sh"
kt_require
SPEEDSCOPE=${KATRA_SPEEDSCOPE:-$KT_ROOT/build/speedscope/node_modules/speedscope/dist/release}
CHROMIUM=${KATRA_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
[ -n "$CHROMIUM" ] || kt_skip "no chromium (Debian package chromium; ci/install-deps.sh installs it)"
[ -f "$SPEEDSCOPE/index.html" ] || kt_skip "no speedscope in $SPEEDSCOPE (make speedscope)"
ART=$KT_ROOT/build/test-artifacts/export-viewer
rm -rf "$ART"
mkdir -p "$ART"

timeout -k 5 30 "$REC" -o "$TRACE" -- "$WL/demo" >"$T/demo.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record -- demo exited $rc: $(kt_tail "$T/rec.err")"
"$REPLAY" export "$TRACE" -o "$ART/demo.json" 2>"$T/export.err" ||
	kt_fail "export exited $?: $(kt_tail "$T/export.err")"
timeout -k 5 60 python3 "$KT_ROOT/tests/viewer/speedscope_check.py" --speedscope "$SPEEDSCOPE" \
	--chromium "$CHROMIUM" "$ART/demo.json" "$ART" >"$ART/speedscope.log" 2>&1
rc=$?
cat "$ART/speedscope.log"
[ "$rc" = 0 ] || kt_fail "speedscope: $(grep -m1 '^FAIL' "$ART/speedscope.log" || kt_tail "$ART/speedscope.log")"
[ -s "$ART/speedscope-threads.png" ] && [ -s "$ART/speedscope-main-thread.png" ] ||
	kt_fail "no screenshot in $ART"

# --speedscope: it opens on the busiest traced thread (not on the lane
# outside the traced set), the labels are the names alone (no args)
"$REPLAY" export --speedscope "$TRACE" -o "$ART/demo-speedscope.json" 2>"$T/export.err" ||
	kt_fail "export --speedscope exited $?: $(kt_tail "$T/export.err")"
grep -q '"args":{"seq"' "$ART/demo-speedscope.json" && kt_fail "--speedscope wrote args"
mkdir -p "$ART/speedscope-mode"
timeout -k 5 60 python3 "$KT_ROOT/tests/viewer/speedscope_check.py" --speedscope "$SPEEDSCOPE" \
	--chromium "$CHROMIUM" --opens-busiest "$ART/demo-speedscope.json" "$ART/speedscope-mode" \
	>"$ART/speedscope-mode.log" 2>&1
rc=$?
cat "$ART/speedscope-mode.log"
[ "$rc" = 0 ] || kt_fail "speedscope (--speedscope): $(grep -m1 '^FAIL' "$ART/speedscope-mode.log" || kt_tail "$ART/speedscope-mode.log")"
exit 0
