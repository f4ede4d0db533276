#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-replay report on a real, compressed capture of the ping-pong
# workload: each thread's K blocked reads woken by the other thread are its
# off-CPU reason, the critical path of one of them (--tid) runs through both
# threads and covers its window exactly; on-CPU time fits in the CPUs; the text and the self-contained HTML page (checked in
# headless Chromium, screenshot kept in build/test-artifacts/) come too.
. "$(dirname "$0")/lib.sh"
kt_require
ART=$KT_ROOT/build/test-artifacts
mkdir -p "$ART"
kt_workload pingpong 300
kt_record -z -p "$WL_PID"
kt_wait_workload 30
kt_wait_recorder 0
# the path of thread A (--tid): the capture's last event is the main thread's
# join, after A and B have exited, and the path never runs through a thread
# after its exit
TID_A=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["tid_a"])' "$T/pingpong.out")
"$REPLAY" report --json --tid "$TID_A" "$TRACE" >"$T/report.json" 2>"$T/report.err" ||
	kt_fail "report --json failed: $(kt_tail "$T/report.err")"
python3 - "$T/report.json" "$T/pingpong.out" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
r = json.load(open(sys.argv[1]))
w = json.loads(open(sys.argv[2]).readline())
k, a, b = w["k"], w["tid_a"], w["tid_b"]
assert r["compressed"] is True and r["complete"] is True, "compressed %s complete %s" % (r["compressed"], r["complete"])
cap = r["capture"]
threads = {t["tid"]: t for t in cap["threads"]}
for me, other in ((a, b), (b, a)):
    t = threads[me]
    assert t["on_cpu_ns"] + t["off_cpu_ns"] + t["unknown_ns"] == t["alive_ns"], "thread %d: on + off + unknown != alive" % me
    # (time after the exit would break the sum above: alive ends at the exit;
    # how much of it was preemption depends on the machine's load)
    rows = [x for x in t["off_cpu_reasons"] if x["woken_by"] == other]
    n = sum(x["count"] for x in rows)
    assert n == k, "thread %d: %d off-CPU intervals woken by %d, expected %d" % (me, n, other, k)
    assert all(x["reason"] == "syscall" and x["kind"] == "FileRead" for x in rows), rows
    assert all(x["resource"]["domain"] == "Pipe" and
               x["resource"]["name"] == "pipe:[%s]" % x["resource"]["id"] for x in rows), rows
assert cap["on_cpu_ns"] <= cap["duration_ns"] * r["cpus"], "more on-CPU time than the CPUs allow"
assert all(t["alive_ns"] <= cap["duration_ns"] for t in cap["threads"])
p = cap["critical_path"]
assert p["end_tid"] == a, "the path ends on %s, --tid %d" % (p["end_tid"], a)
assert p["length_ns"] == p["end_ns"] - p["start_ns"], p["length_ns"]
assert sum(p["by_type_ns"].values()) == p["length_ns"], "hops do not cover the path"
on_path = {x["tid"] for x in p["by_thread"]}
assert a in on_path and b in on_path, "path threads %s, expected %d and %d" % (on_path, a, b)
# each round trip is two wakeups, each a "woken" hop and a "running" one; the
# first round's wakeup can precede the capture (its read was in flight then)
assert p["hops_total"] >= 4 * k - 2, "%d hops, expected >= %d" % (p["hops_total"], 4 * k - 2)
wakes = [h for h in p["hops"] if h["type"] == "woken"]
pp = [h for h in wakes if {h["tid"], h["woken_by"]} == {a, b}]
assert len(pp) >= len(wakes) - 2 and len(pp) >= 100, "%d of the %d listed wakeups are ping-pong" % (len(pp), len(wakes))
# every EpochMarker is an epoch (CaptureEnd's, empty, is counted, not listed)
assert len(r["epochs"]) + r["epochs_empty"] + r["epochs_not_itemized"] == r["epoch_count"] >= 2
print("report: %d wakeups each way, path %.3f ms over %d hops" % (k, p["length_ns"] / 1e6, p["hops_total"]))
PY
"$REPLAY" report "$TRACE" >"$T/report.txt" 2>&1 || kt_fail "report (text) failed: $(kt_tail "$T/report.txt")"
grep -q "^critical path: " "$T/report.txt" || kt_fail "no critical path in the text report"
grep -q "woken by $(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["tid_b"])' "$T/pingpong.out")" "$T/report.txt" ||
	kt_fail "the text report does not name the waker"

HTML=$ART/report-pingpong.html
"$REPLAY" report --html "$HTML" "$TRACE" >"$T/html.out" 2>&1 || kt_fail "report --html failed: $(kt_tail "$T/html.out")"
[ ! -s "$T/html.out" ] || kt_fail "--html printed text: $(kt_tail "$T/html.out")"
if grep -qiE '<script|https?:|src=|<link' "$HTML"; then
	kt_fail "the page is not self-contained: $(grep -oiE '<script|https?:[^ ]*|src=|<link' "$HTML" | head -1)"
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || kt_skip "chromium is not installed (ci/install-deps.sh): the page was not rendered"
# no network at all: a proxy that does not exist catches any fetch
chrome=(timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars
	--user-data-dir="$T/chromium" --proxy-server=127.0.0.1:9 --window-size=1400,1000)
"${chrome[@]}" --dump-dom "file://$HTML" >"$T/dom.html" 2>"$T/chromium.err" ||
	kt_fail "chromium cannot load the page: $(kt_tail "$T/chromium.err")"
for want in '<svg' 'class="critical"' 'Whole capture' 'Critical path' 'Off-CPU by reason'; do
	grep -qF "$want" "$T/dom.html" || kt_fail "the rendered page lacks '$want'"
done
rm -f "$ART/report-pingpong.png"
"${chrome[@]}" --screenshot="$ART/report-pingpong.png" "file://$HTML" >"$T/shot.out" 2>&1 ||
	kt_fail "chromium screenshot failed: $(kt_tail "$T/shot.out")"
size=$(stat -c %s "$ART/report-pingpong.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] || kt_fail "the screenshot is $size bytes: nothing rendered?"
exit 0
