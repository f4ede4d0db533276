#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A kernel with no DRM device (nothing in /sys/class/drm named card* or
# renderD*): the GPU layer's programs are neither loaded nor attached, and
# the header's one GPU note says why; none of them counts as attached or
# failed; its tables are made with one entry each.  KATRA_TEST_GPU_ANYWAY=1
# loads them as before (where tracefs has
# the dma_fence events), which shows the gate is what turned them off.
. "$(dirname "$0")/lib.sh"
kt_require
ls /sys/class/drm 2>/dev/null | grep -qE '^(card|renderD)' &&
	kt_skip "this machine has a DRM device"
ls /sys/kernel/tracing/events/dma_fence/dma_fence_init >/dev/null 2>&1 ||
	ls /sys/kernel/debug/tracing/events/dma_fence/dma_fence_init >/dev/null 2>&1 ||
	kt_skip "no dma_fence trace events in tracefs"
run() { # NAME [ENV...]: a capture of true, its notes and summary
	local name=$1
	shift
	env "$@" "$REC" -q -o "$T/$name.ktr" --summary-json "$T/$name.json" -- true \
		2>"$T/$name.err" || kt_fail "katra-record ($name) failed: $(kt_tail "$T/$name.err")"
	"$REPLAY" dump "$T/$name.ktr" 2>&1 | grep '^# note "layer gpu' >"$T/$name.gpu"
}
run off
run on KATRA_TEST_GPU_ANYWAY=1
want='# note "layer gpu off: no DRM device in /sys/class/drm when the capture started"'
[ "$(cat "$T/off.gpu")" = "$want" ] ||
	kt_fail "GPU note without a DRM device: '$(cat "$T/off.gpu")', expected '$want'"
grep -q '^# note "layer gpu: dma_fence (7 of 7 events)' "$T/on.gpu" ||
	kt_fail "GPU note with KATRA_TEST_GPU_ANYWAY=1: '$(cat "$T/on.gpu")'"
python3 - "$T/off.json" "$T/on.json" <<'PY' 2>"$T/py.out" || kt_fail "summaries: $(kt_tail "$T/py.out")"
import json, sys
off, on = (json.load(open(f)) for f in sys.argv[1:3])
# the 7 dma_fence events, and the raw dma_fence_init beside the classic one
assert on["probes_attached"] - off["probes_attached"] == 8, (on["probes_attached"], off["probes_attached"])
assert on["probes_failed"] == off["probes_failed"], (on["probes_failed"], off["probes_failed"])
PY
# its tables, made for nothing, as small as a map can be
kt_live_maps "$T/maps"
for m in gpu_fences gpu_named gpu_drm_files gpu_flight gpu_totals gpu_fence_ptrs gpu_cmds; do
	grep -qx "$m 1" "$T/maps" ||
		kt_fail "$m is not a one-entry map: $(grep "^$m " "$T/maps" | tr '\n' ' ')"
done
kt_note "GPU layer off without a DRM device, 8 programs fewer, its 7 tables of one entry"
