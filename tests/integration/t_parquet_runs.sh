#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Many runs, one query: 50 short labelled captures (the syscalls workload,
# each run N = 10 + i preads; build=812 for the first 25, build=813 for the
# rest; seq=i), exported in one export --parquet call, then one DuckDB
# statement over all of them (runs joined to spans, grouped by run) gives
# for every run what stats gives for its trace: labels, events, spans, span
# time, FileRead spans, SessionSummary losses.  Then every DuckDB query of
# docs/parquet.md runs as written against that export.
. "$(dirname "$0")/lib.sh"
kt_require
QUERY=$KT_ROOT/tests/parquet/duckdb-query.mjs
[ -f "$KT_ROOT/build/duckdb/node_modules/@duckdb/node-api/package.json" ] ||
	kt_fail "DuckDB is missing (make duckdb)"
export REPLAY DUCKDB_QUERY=$QUERY
traces=()
for i in $(seq 0 49); do
	build=812
	[ "$i" -lt 25 ] || build=813
	t=$T/run$i.ktrc
	timeout -k 5 30 "$REC" -q --label "build=$build" --label "seq=$i" --label machine=ci-1 -o "$t" \
		-- "$WL/syscalls" $((10 + i)) 100 >"$T/wl.out" 2>"$T/rec.err" ||
		kt_fail "capture $i exited $?: $(kt_tail "$T/rec.err")"
	traces+=("$t")
done
cd "$T" || kt_fail "no $T"
"$REPLAY" export --parquet katra-runs "${traces[@]}" 2>"$T/export.err" ||
	kt_fail "export --parquet of 50 traces exited $?: $(kt_tail "$T/export.err")"
n=$(find katra-runs/runs -name part.parquet | wc -l)
[ "$n" = 50 ] || kt_fail "$n runs exported, want 50"
python3 "$KT_DIR/parquet_check.py" many katra-runs "${traces[@]}" >"$T/check.out" 2>&1 ||
	kt_fail "$(kt_tail "$T/check.out")"
# the docs' queries, as written (each ```sql block under a DuckDB heading)
python3 - "$KT_ROOT/docs/parquet.md" >"$T/docs.sql" <<'PY' || kt_fail "no DuckDB queries in docs/parquet.md"
import re, sys
text = open(sys.argv[1]).read()
duck = text.split("## DuckDB", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```sql\n(.*?)```", duck, re.S)
if len(blocks) < 4:
    sys.exit(1)
print("\x00".join(blocks))
PY
mapfile -d '' sqls <"$T/docs.sql"
for q in "${sqls[@]}"; do
	node "$QUERY" "$q" >"$T/docs.out" 2>&1 || kt_fail "a docs/parquet.md query fails: $q: $(kt_tail "$T/docs.out")"
done
[ "${#sqls[@]}" -ge 6 ] || kt_fail "${#sqls[@]} DuckDB queries in docs/parquet.md, want 6"
# the regression query compares syscalls both builds made: 20 rows (its
# limit; which ones depends on timing), each with both builds' counts
node "$QUERY" "${sqls[1]}" >"$T/regress.out" 2>&1
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip() != "---"]
sys.exit(not (len(rows) == 20 and all(int(r["calls_812"]) > 0 and int(r["calls_813"]) > 0
                                      for r in rows)))' "$T/regress.out" ||
	kt_fail "the regression query: $(head -c 300 "$T/regress.out")"
exit 0
