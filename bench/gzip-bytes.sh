#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bytes per event of katra-record's traces, raw and gzip-compressed (-z), on
# the bench workloads: each is captured twice, plain and -z, and the
# --summary-json figures (events, raw_bytes, compressed_bytes, the
# recorder's own CPU once live) give the table.  `make bench` runs it after bench/run.sh; alone:
#   sudo bench/gzip-bytes.sh [--quick]      (--quick: 1/10 sizes)
# Prints a markdown table; the figures go to build/bench/gzip-bytes.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
	echo "bench/gzip-bytes.sh: needs root (BPF)" >&2
	exit 1
fi
scale=1
for a in "$@"; do
	[[ $a == --quick ]] && scale=10
done
make -s -C bench
WL=build/bench/benchwl
REC=build/katra-record
d=$(mktemp -d /tmp/katra-gzip-bench.XXXXXX)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$d"' EXIT
# name | benchwl arguments | size (as bench.py's full size)
workloads=(
	"sys1|sys|1600000"
	"sys2|sys --threads 2|450000"
	"pingpong|pingpong|200000"
	"pagefault|pagefault|500000"
	"uring|uring|1000000"
)

capture() { # NAME ARGS N MODE -> $d/NAME-MODE.json
	local name=$1 args=$2 n=$3 mode=$4 wpid rpid
	rm -f "$d/gate" "$d/ready"
	# shellcheck disable=SC2086
	"$WL" $args --gate "$d/gate" "$n" >"$d/wl.out" 2>/dev/null &
	wpid=$!
	"$REC" $([[ $mode == gzip ]] && echo -z) -p "$wpid" -o "$d/t" --force \
		--ready-file "$d/ready" --summary-json "$d/$name-$mode.json" 2>"$d/rec.err" &
	rpid=$!
	while [[ ! -e $d/ready ]]; do
		kill -0 "$rpid" 2>/dev/null || { cat "$d/rec.err" >&2; return 1; }
		sleep 0.01
	done
	touch "$d/gate"
	wait "$wpid"
	wait "$rpid"
}

for w in "${workloads[@]}"; do
	IFS='|' read -r name args n <<<"$w"
	n=$((n / scale))
	capture "$name" "$args" "$n" plain
	capture "$name" "$args" "$n" gzip
done

python3 - "$d" "${workloads[@]}" <<'PY'
import json, os, sys
d, rows, out = sys.argv[1], sys.argv[2:], {}
print("| workload | events | raw B/event | gzip B/event | ratio | recorder CPU ns/event plain | -z |")
print("|---|---|---|---|---|---|---|")
for w in rows:
    name = w.split("|")[0]
    p = json.load(open(os.path.join(d, name + "-plain.json")))
    z = json.load(open(os.path.join(d, name + "-gzip.json")))
    raw = p["raw_bytes"] / p["events"]
    zr = z["raw_bytes"] / z["events"]
    gz = z["compressed_bytes"] / z["events"]
    cp, cz = p["cpu_ns_capture"] / p["events"], z["cpu_ns_capture"] / z["events"]
    out[name] = dict(events=z["events"], raw_bytes_per_event=raw, raw_bytes_per_event_z=zr,
                     gzip_bytes_per_event=gz, ratio=zr / gz, cpu_ns_per_event_plain=cp,
                     cpu_ns_per_event_gzip=cz, dropped_plain=p["dropped"], dropped_gzip=z["dropped"])
    print("| %s | %d | %.1f | %.1f | %.1fx | %.0f | %.0f |" % (name, z["events"], raw, gz, zr / gz,
                                                            cp, cz))
json.dump(out, open("build/bench/gzip-bytes.json", "w"), indent=1)
PY
