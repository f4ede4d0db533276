#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-replay export --parquet, checked with the real engine (DuckDB, make
# duckdb): a labelled capture of the demo workload (read and io_uring, two
# threads, a child) exports one run whose tables give, in DuckDB's SQL,
# exactly what stats gives: span count, sum, min, max per kind and p50/p99
# through stats's buckets; the syscall table (calls, errors, time, max);
# the off-CPU rows by thread, reason, state and syscall (a join on the
# syscall's span); processes and threads; the labels from the partition
# path; the run's events, records and losses.  A capture killed with
# SIGKILL exports what it holds (runs.complete false, its spans equal to
# stats's on the same file); a corrupt trace is refused with one line, exit
# 1 and no file left, beside an earlier run that stays whole.
. "$(dirname "$0")/lib.sh"
kt_require
QUERY=$KT_ROOT/tests/parquet/duckdb-query.mjs
[ -f "$KT_ROOT/build/duckdb/node_modules/@duckdb/node-api/package.json" ] ||
	kt_fail "DuckDB is missing (make duckdb)"
export REPLAY DUCKDB_QUERY=$QUERY
CHECK="python3 $KT_DIR/parquet_check.py"
PQ=$T/pq

timeout -k 5 30 "$REC" --label build=812 --label 'scene=city night' -o "$TRACE" \
	-- "$WL/demo" >"$T/demo.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record -- demo exited $rc: $(kt_tail "$T/rec.err")"
"$REPLAY" export --parquet "$PQ" "$TRACE" 2>"$T/export.err" ||
	kt_fail "export --parquet exited $?: $(kt_tail "$T/export.err")"
[ ! -s "$T/export.err" ] || kt_fail "export --parquet said: $(kt_tail "$T/export.err")"
for t in runs processes threads thread_names spans calls offcpu frames drops; do
	n=$(find "$PQ/$t" -path "*/build=812/scene=city%20night/run=*/part.parquet" | wc -l)
	[ "$n" = 1 ] || kt_fail "$t: $n part.parquet files under build=812/scene=city%20night/run=*"
done
[ -z "$(find "$PQ" -name '*.tmp')" ] || kt_fail "temporary files left: $(find "$PQ" -name '*.tmp')"
$CHECK single "$PQ" "$TRACE" >"$T/check.out" 2>&1 || kt_fail "$(kt_tail "$T/check.out")"
opts=$(node "$QUERY" "select follow_children, record_paths, duration_limit_ns, buffer_size_bytes > 0 as ring,
	regexp_full_match(target_pids, '[1-9][0-9]*') as one_pid from read_parquet('$PQ/runs/**/*.parquet')" | head -1)
[ "$opts" = '{"follow_children":true,"record_paths":false,"duration_limit_ns":null,"ring":true,"one_pid":true}' ] ||
	kt_fail "runs: the capture's options are $opts"
# small row groups, no compression: several row groups, the same answers
"$REPLAY" export --parquet "$T/pqr" --row-group 100 --no-compress "$TRACE" 2>"$T/export.err" ||
	kt_fail "export --row-group 100 --no-compress exited $?: $(kt_tail "$T/export.err")"
meta=$(node "$QUERY" "select count(distinct row_group_id) as groups, min(row_group_num_rows) as least,
	max(row_group_num_rows) as most, list(distinct compression) as codecs
	from parquet_metadata('$T/pqr/spans/**/*.parquet')" | head -1)
python3 -c '
import json, sys
m = json.loads(sys.argv[1])
sys.exit(not (int(m["groups"]) > 2 and int(m["most"]) == 100 and m["codecs"] == ["UNCOMPRESSED"]))' "$meta" ||
	kt_fail "--row-group 100 --no-compress: spans row groups $meta"
$CHECK single "$T/pqr" "$TRACE" >"$T/check.out" 2>&1 || kt_fail "row groups of 100: $(kt_tail "$T/check.out")"
# integer column statistics: every row group's min/max/null count in
# parquet_metadata equal the rows' own (ret is nullable: its nulls counted)
sf=$(find "$T/pqr/spans" -name part.parquet)
st=$(node "$QUERY" "with m as (select row_group_id as g, path_in_schema as c, stats_min_value as mn,
	stats_max_value as mx, stats_null_count as nc from parquet_metadata('$sf')
	where path_in_schema in ('start_ns', 'dur_ns', 'ret')),
	d as (unpivot (select file_row_number // 100 as g,
		min(start_ns)::varchar || '|' || max(start_ns)::varchar || '|0' as start_ns,
		min(dur_ns)::varchar || '|' || max(dur_ns)::varchar || '|0' as dur_ns,
		coalesce(min(ret)::varchar || '|' || max(ret)::varchar, 'null|null') || '|' ||
			(count(*) - count(ret))::varchar as ret
		from read_parquet('$sf', file_row_number = true) group by 1)
		on start_ns, dur_ns, ret into name c value v)
	select count(*) as chunks, count(*) filter (where coalesce(m.mn, 'null') || '|' ||
		coalesce(m.mx, 'null') || '|' || m.nc = d.v) as same from m join d using (g, c)" | head -1)
python3 -c '
import json, sys
m = json.loads(sys.argv[1])
sys.exit(not (int(m["chunks"]) > 6 and m["chunks"] == m["same"]))' "$st" ||
	kt_fail "spans statistics (start_ns, dur_ns, ret per row group) against the rows: $st"
grep -q "^katra-record: labels build=812 scene=city night$" "$T/rec.err" ||
	kt_fail "katra-record's summary does not show the labels: $(kt_tail "$T/rec.err")"

# a run that lost events: 16 threads blocked in read against an in-flight
# table of 8 (a test option) lose links; the drops table and runs equal
# stats's drops, and the docs' "runs that lost events" query finds it
timeout -k 5 30 "$REC" -q --small-tables 8 --label build=812 --label 'scene=city night' \
	-o "$T/loss.ktrc" -- "$WL/blockers" 16 >/dev/null 2>"$T/loss.err" ||
	kt_fail "katra-record --small-tables 8 -- blockers 16 exited $?: $(kt_tail "$T/loss.err")"
"$REPLAY" export --parquet "$T/pql" "$T/loss.ktrc" 2>"$T/export.err" ||
	kt_fail "export of the lossy run exited $?: $(kt_tail "$T/export.err")"
$CHECK single "$T/pql" "$T/loss.ktrc" >"$T/check.out" 2>&1 || kt_fail "losses: $(kt_tail "$T/check.out")"
grep -q "losses [1-9]" "$T/check.out" || kt_fail "the lossy run lost nothing: $(kt_tail "$T/check.out")"
lost=$(node "$QUERY" "select count(*) as runs from read_parquet('$T/pql/runs/**/*.parquet',
	hive_partitioning = true) where summary_dropped_events > 0 or drop_event_count > 0" | head -1)
[ "$lost" = '{"runs":"1"}' ] || kt_fail "the runs that lost events: $lost"

# names over time: the threadnames workload (threads that name themselves,
# one named by the main thread, the main thread renamed later)
timeout -k 5 30 "$REC" -q -o "$T/tn.ktrc" -- "$WL/threadnames" >"$T/tn.out" 2>"$T/tn.err" ||
	kt_fail "katra-record -- threadnames exited $?: $(kt_tail "$T/tn.err")"
"$REPLAY" export --parquet "$T/pqn" "$T/tn.ktrc" 2>"$T/export.err" ||
	kt_fail "export of threadnames exited $?: $(kt_tail "$T/export.err")"
node "$QUERY" "select tid, name, renamed_by_tid from read_parquet('$T/pqn/thread_names/**/*.parquet')
	order by ts_ns" "select tid, name from read_parquet('$T/pqn/threads/**/*.parquet') where name is not null" \
	>"$T/names.out" 2>&1 || kt_fail "DuckDB on thread_names: $(kt_tail "$T/names.out")"
python3 - "$T/tn.out" "$T/names.out" <<'PY' || kt_fail "thread names: $(tr '\n' ' ' <"$T/names.out")"
import json, sys
wl = json.loads(open(sys.argv[1]).read().splitlines()[-1])
parts = open(sys.argv[2]).read().split("---\n")
renames = [json.loads(l) for l in parts[0].splitlines()]
threads = {int(r["tid"]): r["name"] for r in map(json.loads, parts[1].splitlines())}
main, want = wl["pid"], {wl["render"]: "render", wl["audio"]: "audio", wl["worker"]: "worker 3"}
got = {int(r["tid"]): (r["name"], int(r["renamed_by_tid"])) for r in renames}
for tid, name in want.items():
    by = main if name == "worker 3" else tid
    assert got.get(tid) == (name, by), (tid, got.get(tid))
    assert threads.get(tid) == name, (tid, threads.get(tid))
assert got.get(main) == ("renamed-main", main) and threads.get(main) == "renamed-main"
assert len(renames) == 4, renames
PY

# a capture killed with SIGKILL: what it holds
kt_busy 10
KILLED=$T/killed.ktrc
"$REC" --ready-file "$T/ready" --label build=killed -o "$KILLED" -p "$BUSY_PID" \
	>"$T/rec2.out" 2>"$T/rec2.err" &
REC_PID=$!
KT_PIDS="$KT_PIDS $REC_PID"
kt_wait_ready
sleep 1
kill -KILL "$REC_PID"
kt_wait "$REC_PID" 5 || kt_fail "katra-record survived SIGKILL"
"$REPLAY" export --parquet "$T/pqk" "$KILLED" 2>"$T/killed.err" ||
	kt_fail "export of a killed capture exited $?: $(kt_tail "$T/killed.err")"
if [ "$(wc -l <"$T/killed.err")" != 1 ] || ! grep -q "exported .*(runs.complete = false)" "$T/killed.err"; then
	kt_fail "export of a killed capture did not say it is truncated: $(kt_tail "$T/killed.err")"
fi
$CHECK single "$T/pqk" "$KILLED" >"$T/check.out" 2>&1 || kt_fail "killed: $(kt_tail "$T/check.out")"
complete=$(node "$QUERY" "select complete from read_parquet('$T/pqk/runs/**/*.parquet')" | head -1)
[ "$complete" = '{"complete":false}' ] || kt_fail "killed: runs.complete is $complete"

# a corrupt trace: one line, exit 1, nothing written; the run beside it stays
python3 - "$TRACE" "$T/corrupt.ktrc" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
hlen = struct.unpack_from("<I", b, 12)[0]
off = 16 + hlen
for _ in range(20):  # the 21st record's TraceRecord variant: out of range
    off += 4 + struct.unpack_from("<I", b, off)[0]
struct.pack_into("<I", b, off + 4, 0xFFFFFFFF)
open(sys.argv[2], "wb").write(b)
PY
before=$(find "$PQ" -type f | sort | xargs md5sum)
"$REPLAY" export --parquet "$PQ" "$T/corrupt.ktrc" 2>"$T/corrupt.err"
rc=$?
[ "$rc" = 1 ] || kt_fail "export of a corrupt trace exited $rc"
[ "$(wc -l <"$T/corrupt.err")" = 1 ] ||
	kt_fail "a corrupt trace: $(wc -l <"$T/corrupt.err") lines, want 1: $(kt_tail "$T/corrupt.err")"
grep -q "corrupt.ktrc' not exported: .*(nothing written)" "$T/corrupt.err" ||
	kt_fail "a corrupt trace: $(cat "$T/corrupt.err")"
after=$(find "$PQ" -type f | sort | xargs md5sum)
[ "$before" = "$after" ] || kt_fail "a refused trace changed $PQ: $(diff <(echo "$before") <(echo "$after"))"
echo "not a trace" >"$T/junk.ktrc"
"$REPLAY" export --parquet "$T/pqj" "$T/junk.ktrc" 2>"$T/junk.err"
rc=$?
if [ "$rc" != 1 ] || [ "$(wc -l <"$T/junk.err")" != 1 ]; then
	kt_fail "a file that is no trace: exit $rc, $(kt_tail "$T/junk.err")"
fi
[ ! -e "$T/pqj" ] || [ -z "$(find "$T/pqj" -type f)" ] || kt_fail "a file that is no trace left files"
# usage errors: exit 2, nothing written
for args in "-o $T/x.json" "--speedscope" "--row-group 0" "--from 1"; do
	# shellcheck disable=SC2086 # the options are words on purpose
	"$REPLAY" export --parquet "$T/pqu" $args "$TRACE" >/dev/null 2>"$T/usage.err"
	rc=$?
	[ "$rc" = 2 ] || kt_fail "export --parquet $args: exit $rc, want 2"
done
[ ! -e "$T/pqu" ] || kt_fail "a usage error wrote $T/pqu"
exit 0
