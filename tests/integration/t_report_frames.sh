#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The report of a game's capture, as a new user would look at it: `vkcube
# --c 120` on lavapipe in the test's own Xvfb under `katra-record --`.
# report --html opens with the epochs' chart (frame times: most epochs are
# frames), gives sections to the --top longest epochs only (not one per
# frame) and stays small; report --frames --html draws one bar per frame and
# links the --top slowest to their critical paths; report, report --frames,
# report --json and stats count the same epochs (the EpochMarker records).
# Both pages are rendered in headless Chromium (screenshots kept in
# build/test-artifacts/).  Skips without vkcube, Xvfb or lavapipe.
. "$(dirname "$0")/lib.sh"
kt_require
command -v vkcube >/dev/null || kt_skip "vkcube is not installed (package vulkan-tools: ci/install-deps.sh)"
kt_lavapipe "$(command -v vkcube)"
kt_xvfb
ART=$KT_ROOT/build/test-artifacts
mkdir -p "$ART"
TRACE=$T/vkcube.ktrc
timeout -k 5 180 "$REC" -o "$TRACE" -- vkcube --c 120 >"$T/vkcube.out" 2>"$T/rec.err" ||
	kt_fail "katra-record -- vkcube failed: $(kt_tail "$T/rec.err")"
kt_stop_xvfb
TOP=5
HTML=$ART/report-vkcube.html
FRAMES=$ART/report-vkcube-frames.html
"$REPLAY" report --top $TOP --html "$HTML" "$TRACE" >"$T/html.out" 2>&1 ||
	kt_fail "report --html failed: $(kt_tail "$T/html.out")"
"$REPLAY" report --frames --top $TOP --html "$FRAMES" "$TRACE" >"$T/frames.out" 2>&1 ||
	kt_fail "report --frames --html failed: $(kt_tail "$T/frames.out")"
"$REPLAY" report --json "$TRACE" >"$T/report.json" 2>"$T/report.err" ||
	kt_fail "report --json failed: $(kt_tail "$T/report.err")"
"$REPLAY" report --frames --top $TOP --json "$TRACE" >"$T/frames.json" 2>"$T/frames.err" ||
	kt_fail "report --frames --json failed: $(kt_tail "$T/frames.err")"
"$REPLAY" report "$TRACE" >"$T/report.txt" 2>&1 || kt_fail "report failed: $(kt_tail "$T/report.txt")"
"$REPLAY" stats --json "$TRACE" >"$T/stats.json" 2>"$T/stats.err" ||
	kt_fail "stats --json failed: $(kt_tail "$T/stats.err")"
python3 - "$T" "$HTML" "$FRAMES" $TOP >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, os, re, sys
t, html, frames, top = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
r = json.load(open(t + "/report.json"))
fr = json.load(open(t + "/frames.json"))
st = json.load(open(t + "/stats.json"))
text = open(t + "/report.txt").read()
markers = st["epoch_markers"]
presents = fr["frames"]["presents"]
assert presents >= 100, "%d presents" % presents
# one count of epochs: the EpochMarker records, everywhere
assert r["epoch_count"] == markers, "report --json %d epochs, stats %d markers" % (r["epoch_count"], markers)
assert fr["epoch_count"] == markers, "report --frames %d epochs, stats %d markers" % (fr["epoch_count"], markers)
assert len(r["epochs"]) + r["epochs_empty"] + r["epochs_not_itemized"] == markers, \
    "%d listed + %d empty + %d not itemized != %d" % (len(r["epochs"]), r["epochs_empty"], r["epochs_not_itemized"], markers)
assert re.search(r", %d epochs\b" % markers, text), "the text report does not say %d epochs" % markers
page = open(html).read()
assert ", %d epochs" % markers in page, "the page does not say %d epochs" % markers
# the chart first, one bar per listed epoch, the --top longest red links
chart = page.index('class="bars"')
assert chart < page.index('id="timeline"'), "the frame chart does not open the page"
bars = page.count("<rect", chart, page.index("</svg>", chart))
assert bars == len(r["epochs"]), "%d bars, %d epochs" % (bars, len(r["epochs"]))
sections = len(re.findall(r'<section id="epoch-\d+">', page))
assert sections == top, "%d epoch sections, --top %d" % (sections, top)
links = set(re.findall(r'<a href="#epoch-(\d+)"><rect', page))
ids = set(re.findall(r'<section id="epoch-(\d+)">', page))
assert links == ids, "chart links %s, sections %s" % (sorted(links), sorted(ids))
size = os.path.getsize(html)
# the page holds the whole capture, --top sections and a row per epoch: not
# a section per frame (one took about 11 KB)
assert size < 400000 + 500 * markers, "the page is %d bytes for %d epochs" % (size, markers)
fp = open(frames).read()
assert 'class="bars"' in fp, "no frame chart"
fchart = fp.index('class="bars"')
fbars = fp.count("<rect", fchart, fp.index("</svg>", fchart))
assert fbars == fr["frames"]["frames"], "%d bars, %d frames" % (fbars, fr["frames"]["frames"])
slow = [s["frame"] for s in fr["frames"]["slowest"]]
assert len(slow) == top, slow
for n in slow:
    assert '<a href="#frame-%d"><rect' % n in fp, "frame %d: no red link in the chart" % n
    assert '<section id="frame-%d">' % n in fp, "frame %d: no section" % n
assert fp.count("<h3>Critical path</h3>") == top
assert os.path.getsize(frames) < 200000, "the frames page is %d bytes" % os.path.getsize(frames)
for p in (page, fp):
    assert not re.search(r"<script|https?:|src=|<link", p, re.I), "the page is not self-contained"
print("%d epochs everywhere; report --html %d bytes, --frames --html %d bytes; slowest %s" % (markers, size, os.path.getsize(frames), slow))
PY
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || kt_skip "chromium is not installed (ci/install-deps.sh): the pages were not rendered"
chrome=(timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars
	--user-data-dir="$T/chromium" --proxy-server=127.0.0.1:9 --window-size=1300,1000)
for page in "$HTML" "$FRAMES"; do
	"${chrome[@]}" --dump-dom "file://$page" >"$T/dom.html" 2>"$T/chromium.err" ||
		kt_fail "chromium cannot load $page: $(kt_tail "$T/chromium.err")"
	grep -qF 'class="bars"' "$T/dom.html" || kt_fail "the rendered $page has no chart"
	png=${page%.html}.png
	rm -f "$png"
	"${chrome[@]}" --screenshot="$png" "file://$page" >"$T/shot.out" 2>&1 ||
		kt_fail "chromium screenshot failed: $(kt_tail "$T/shot.out")"
	[ -s "$png" ] || kt_fail "no screenshot of $page"
done
kt_note "$(kt_tail "$T/check.out")"
