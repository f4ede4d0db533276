#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# export --parquet's frames table on a real frame workload: the lavapipe
# program of t_vulkan_present (on the test's own Xvfb) does P = 25 presents
# on one swapchain; the frames table holds P - 1 frames for it, and DuckDB's
# count, p50, p99 (the same nearest ranks) and max of frame_ns equal stats
# --per-frame's for every swapchain; each frame's cpu_ns equals the sum over
# the process's threads of their on-CPU time in the frame computed from the
# trace's own events (first event, TaskExit, OffCpu spans) by intervals;
# its gpu_ns is null (no GPU jobs in this capture; with them, their
# count, sum and max equal stats --per-frame's GpuJobDone row);
# frame_path's rows add up, for every frame, to report --frames --json's
# critical path (length_ns, by_type_ns, by_thread);
# its layer calls (the calls table)
# equal stats --calls's per name (count, errors, ns, max), and the other
# tables equal stats as in t_parquet.sh.  Skips without
# Xvfb or lavapipe.
. "$(dirname "$0")/lib.sh"
kt_require
QUERY=$KT_ROOT/tests/parquet/duckdb-query.mjs
[ -f "$KT_ROOT/build/duckdb/node_modules/@duckdb/node-api/package.json" ] ||
	kt_fail "DuckDB is missing (make duckdb)"
export REPLAY DUCKDB_QUERY=$QUERY
kt_lavapipe "$KT_ROOT/build/uprobe/vkpresent"
kt_xvfb
K=37 P=25
kt_gated vkpresent 60 "$KT_ROOT/build/uprobe/vkpresent" "$T/started" "$T/gate" $K $P
kt_stop_xvfb
"$REPLAY" export --parquet "$T/pq" "$TRACE" 2>"$T/export.err" ||
	kt_fail "export --parquet exited $?: $(kt_tail "$T/export.err")"
python3 "$KT_DIR/parquet_check.py" frames "$T/pq" "$TRACE" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
grep -q "ok: 1 swapchains, \[$((P - 1))\] frames" "$T/check.out" ||
	kt_fail "not $((P - 1)) frames on one swapchain: $(kt_tail "$T/check.out")"
python3 "$KT_DIR/parquet_check.py" frame_path "$T/pq" "$TRACE" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
grep -q "ok: frame_path of $((P - 1)) frames" "$T/check.out" ||
	kt_fail "frame_path not of $((P - 1)) frames: $(kt_tail "$T/check.out")"
python3 "$KT_DIR/parquet_check.py" calls "$T/pq" "$TRACE" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
grep -q "VulkanQueuePresent" "$T/check.out" ||
	kt_fail "no present among the calls: $(kt_tail "$T/check.out")"
python3 "$KT_DIR/parquet_check.py" single "$T/pq" "$TRACE" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
exit 0
