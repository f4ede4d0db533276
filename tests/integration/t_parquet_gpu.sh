#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# export --parquet's frame sides, without a GPU: three hand-built runs (the
# unit tests' report_frames_gpu/three_runs_for_parquet writes them: a frame
# that waits 1200 ns for a fence after 1200 ns of running, scene=cpu; 1201
# ns, scene=gpu; both flipped 250 us after the present; scene=none without
# GPU events).  DuckDB gives exactly: frames.bound cpu, gpu, unknown;
# present_to_flip_ns 250000, 250000, null (never 0); frame_gpu one row per
# GPU run, ring vgem:ctx, 2100 and 2101 ns, 1 fence, 0 jobs; and
# docs/parquet.md's queries "GPU-bound frames per run" and "p99
# present-to-flip per run", as written, give per run (joined to its scene)
# 0/1/0 GPU-bound frames and p99 250000/250000/null.  Needs neither root
# nor a GPU.
. "$(dirname "$0")/lib.sh"
QUERY=$KT_ROOT/tests/parquet/duckdb-query.mjs
UNIT=$KT_ROOT/build/tests/unit-tests
[ -x "$REPLAY" ] || kt_fail "$REPLAY is missing (run make)"
[ -x "$UNIT" ] || kt_fail "$UNIT is missing (make build/tests/unit-tests)"
[ -f "$KT_ROOT/build/duckdb/node_modules/@duckdb/node-api/package.json" ] ||
	kt_fail "DuckDB is missing (make duckdb)"
KT_GPU_FRAMES_DIR=$T "$UNIT" --filter 'report_frames_gpu/three_runs_for_parquet' \
	>"$T/unit.out" 2>&1 || kt_fail "the runs were not written: $(kt_tail "$T/unit.out")"
cd "$T" || kt_fail "no $T"
"$REPLAY" export --parquet katra-runs cpu.ktrc gpu.ktrc none.ktrc 2>"$T/export.err" ||
	kt_fail "export --parquet exited $?: $(kt_tail "$T/export.err")"
RP="hive_partitioning = true, hive_types_autocast = false"
node "$QUERY" "select scene, frame, present_to_flip_ns, bound from read_parquet(
	'katra-runs/frames/**/*.parquet', $RP) order by scene" \
	"select scene, frame, ring, context, gpu_ns, jobs, fences from read_parquet(
	'katra-runs/frame_gpu/**/*.parquet', $RP) order by scene" >"$T/got.out" 2>&1 ||
	kt_fail "DuckDB: $(kt_tail "$T/got.out")"
cat >"$T/want.out" <<'OUT'
{"scene":"cpu","frame":"2","present_to_flip_ns":"250000","bound":"cpu"}
{"scene":"gpu","frame":"2","present_to_flip_ns":"250000","bound":"gpu"}
{"scene":"none","frame":"2","present_to_flip_ns":null,"bound":"unknown"}
---
{"scene":"cpu","frame":"2","ring":"vgem:ctx","context":"12","gpu_ns":"2100","jobs":"0","fences":"1"}
{"scene":"gpu","frame":"2","ring":"vgem:ctx","context":"12","gpu_ns":"2101","jobs":"0","fences":"1"}
---
OUT
diff "$T/want.out" "$T/got.out" >"$T/diff.out" || kt_fail "frames/frame_gpu: $(cat "$T/diff.out")"
# the two docs queries, as written, each joined to the runs' scenes
python3 - "$KT_ROOT/docs/parquet.md" >"$T/docs.sql" <<'PY' || kt_fail "the GPU queries are not in docs/parquet.md"
import re, sys
text = open(sys.argv[1]).read()
duck = text.split("## DuckDB", 1)[1].split("\n## ", 1)[0]
out = []
for title in ("GPU-bound frames per run", "p99 present-to-flip per run"):
    m = re.search(re.escape(title) + r".*?```sql\n(.*?)```", duck, re.S)
    if not m:
        sys.exit(1)
    out.append(m.group(1).strip().rstrip(";"))
print("\x00".join(out), end="")
PY
mapfile -d '' sqls <"$T/docs.sql"
for k in 0 1; do
	node "$QUERY" "with q as (${sqls[$k]}), s as (select distinct run, scene from
		read_parquet('katra-runs/runs/**/*.parquet', $RP))
		select s.scene, q.* exclude (run) from q join s using (run) order by s.scene" \
		>"$T/docs$k.out" 2>&1 || kt_fail "docs query $k: $(kt_tail "$T/docs$k.out")"
done
cat >"$T/want0.out" <<'OUT'
{"scene":"cpu","gpu_bound":"0","cpu_bound":"1","frames":"1"}
{"scene":"gpu","gpu_bound":"1","cpu_bound":"0","frames":"1"}
{"scene":"none","gpu_bound":"0","cpu_bound":"0","frames":"1"}
---
OUT
cat >"$T/want1.out" <<'OUT'
{"scene":"cpu","flipped":"1","p99_present_to_flip_ns":"250000"}
{"scene":"gpu","flipped":"1","p99_present_to_flip_ns":"250000"}
{"scene":"none","flipped":"0","p99_present_to_flip_ns":null}
---
OUT
for k in 0 1; do
	diff "$T/want$k.out" "$T/docs$k.out" >"$T/diff.out" ||
		kt_fail "docs query $k: $(cat "$T/diff.out")"
done
exit 0
