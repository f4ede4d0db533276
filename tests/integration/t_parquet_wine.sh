#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# export --parquet's calls table on the Wine layers: the ntio program of
# t_wine_nt (N ReadFile plain and overlapped, M waits, K gethostname under
# Debian's Wine, uprobes on ntdll.so) exported and read by DuckDB: per
# (layer, name) the calls, errors, ns and max equal stats --calls's (NT
# calls, WineServerCall requests by name, WinToUnix); the N_OVL overlapped
# reads are exactly the NtReadFile spans on their handle, each with
# STATUS_PENDING (0x103) as its ret and as its call's status; every other
# table equals stats as in t_parquet.sh.
. "$(dirname "$0")/lib.sh"
. "$KT_ROOT/tests/wine/lib.sh"
kt_require
QUERY=$KT_ROOT/tests/parquet/duckdb-query.mjs
[ -f "$KT_ROOT/build/duckdb/node_modules/@duckdb/node-api/package.json" ] ||
	kt_fail "DuckDB is missing (make duckdb)"
export REPLAY DUCKDB_QUERY=$QUERY
N_PLAIN=20 N_OVL=10 M=15 K=12
head -c 65536 /dev/urandom >"$T/data"
kw_uprobe_start ntio "$(kw_win "$T/data")" $N_PLAIN $N_OVL $M $K
kt_open_gate ntio.exe 30
kt_wait_recorder 0
"$REPLAY" export --parquet "$T/pq" "$TRACE" 2>"$T/export.err" ||
	kt_fail "export --parquet exited $?: $(kt_tail "$T/export.err")"
for mode in calls single; do
	python3 "$KT_DIR/parquet_check.py" $mode "$T/pq" "$TRACE" >"$T/check.out" 2>&1 ||
		kt_fail "$(kt_tail "$T/check.out")"
done
# the overlapped reads: on their own handle, all STATUS_PENDING (0x103)
ovl=$(python3 -c 'import json,sys; print("%x" % json.loads(open(sys.argv[1]).read().splitlines()[-1])["ovl_handle"])' "$T/ntio.out")
got=$(node "$QUERY" "select count(*) as n, count(*) filter (where s.ret = 259) as pending,
	count(c.status) filter (where c.status = 259) as calls_pending
	from read_parquet('$T/pq/spans/**/*.parquet') s
	join read_parquet('$T/pq/calls/**/*.parquet') c using (tid, start_ns, dur_ns, name)
	where s.name = 'NtReadFile' and s.resource = 'WinHandle:0x$ovl'" | head -1)
[ "$got" = "{\"n\":\"$N_OVL\",\"pending\":\"$N_OVL\",\"calls_pending\":\"$N_OVL\"}" ] ||
	kt_fail "NtReadFile on the overlapped handle 0x$ovl: $got, want $N_OVL, all pending"
exit 0
