#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The cost of katra-replay export --parquet: on captures of the bench
# workloads, export throughput in MB/s of trace (wall time, the export
# alone, warm page cache), beside `katra-replay stats` on the same file
# (the reader's pace: stats reads every record once, like the export), the
# Parquet files' size as a share of the trace's and of its gzip'd size, and
# the export's peak RSS, and the CPU (user + system) per MB of trace of both
# (less sensitive than wall time to other work on the machine).  `make
# bench` runs it after gzip-bytes.sh; alone:
#   sudo bench/parquet.sh [--quick]      (--quick: 1/10 sizes)
# Prints a markdown table; the figures go to build/bench/parquet.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
	echo "bench/parquet.sh: needs root (BPF)" >&2
	exit 1
fi
scale=1
for a in "$@"; do
	[[ $a == --quick ]] && scale=10
done
make -s -C bench
WL=build/bench/benchwl
REC=build/katra-record
REPLAY=build/katra-replay
d=$(mktemp -d /tmp/katra-parquet-bench.XXXXXX)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$d"' EXIT
# name | benchwl arguments | size (as bench.py's full size)
workloads=(
	"sys1|sys|1600000"
	"pingpong|pingpong|200000"
	"uring|uring|1000000"
)

capture() { # NAME ARGS N -> $d/NAME.ktrc
	local name=$1 args=$2 n=$3 wpid rpid
	rm -f "$d/gate" "$d/ready"
	# shellcheck disable=SC2086
	"$WL" $args --gate "$d/gate" "$n" >"$d/wl.out" 2>/dev/null &
	wpid=$!
	"$REC" -q -p "$wpid" -o "$d/$name.ktrc" --force --ready-file "$d/ready" \
		2>"$d/rec.err" &
	rpid=$!
	while [[ ! -e $d/ready ]]; do
		kill -0 "$rpid" 2>/dev/null || { cat "$d/rec.err" >&2; return 1; }
		sleep 0.01
	done
	touch "$d/gate"
	wait "$wpid"
	wait "$rpid"
}

# timed OUT CMD...: wall seconds, peak RSS (KiB), user and system CPU
# seconds of CMD -> OUT
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$out" "$@" >/dev/null
}

for w in "${workloads[@]}"; do
	IFS='|' read -r name args n <<<"$w"
	capture "$name" "$args" $((n / scale))
	cat "$d/$name.ktrc" >/dev/null # warm the page cache for both readers
	timed "$d/$name.stats" "$REPLAY" stats --json "$d/$name.ktrc"
	timed "$d/$name.export" "$REPLAY" export --parquet "$d/pq-$name" "$d/$name.ktrc"
	gzip -1 -c "$d/$name.ktrc" | wc -c >"$d/$name.gz"
	du -sb "$d/pq-$name" | cut -f1 >"$d/$name.pq"
	"$REPLAY" stats --json "$d/$name.ktrc" >"$d/$name.json"
done

python3 - "$d" "${workloads[@]}" <<'PY'
import json, os, sys
d, rows, out = sys.argv[1], sys.argv[2:], {}
print("| workload | events | trace MB | export s | export MB/s | stats MB/s | export CPU ms/MB | stats CPU ms/MB | parquet % of trace | parquet % of gzip -1 | export peak RSS MiB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    name = r.split("|")[0]
    size = os.path.getsize(os.path.join(d, name + ".ktrc"))
    ev = json.load(open(os.path.join(d, name + ".json")))["events"]
    es, erss, eu, esy = open(os.path.join(d, name + ".export")).read().split()[-4:]
    ss, _, su, ssy = open(os.path.join(d, name + ".stats")).read().split()[-4:]
    es, ss, erss = max(float(es), 0.01), max(float(ss), 0.01), int(erss)
    ecpu, scpu = float(eu) + float(esy), float(su) + float(ssy)
    gz = int(open(os.path.join(d, name + ".gz")).read())
    pq = int(open(os.path.join(d, name + ".pq")).read())
    out[name] = {"events": ev, "trace_bytes": size, "export_s": es, "stats_s": ss,
                 "export_cpu_s": ecpu, "stats_cpu_s": scpu,
                 "parquet_bytes": pq, "gzip1_bytes": gz, "export_peak_rss_kib": erss}
    print("| %s | %d | %.1f | %.2f | %.1f | %.1f | %.2f | %.2f | %.1f | %.1f | %.1f |" % (
        name, ev, size / 1e6, es, size / 1e6 / es, size / 1e6 / ss,
        1e3 * ecpu / (size / 1e6), 1e3 * scpu / (size / 1e6), 100.0 * pq / size,
        100.0 * pq / gz, erss / 1024))
os.makedirs("build/bench", exist_ok=True)
json.dump(out, open("build/bench/parquet.json", "w"), indent=1)
PY
