#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Where katra-record's time goes on one workload (default: sys1, full size):
# per-program BPF run time (kernel.bpf_stats_enabled) and a system-wide perf
# profile of the traced loop (workload side: BPF programs; recorder side).
# usage: bench/profile.sh [WORKLOAD ARGS...]   (e.g. sys --threads 2 450000)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s -C bench
d=$(mktemp -d /tmp/katra-prof-XXXXXX)
args=("$@"); ((${#args[@]})) || args=(sys 1600000)
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q kernel.bpf_stats_enabled=1
build/bench/benchwl "${args[0]}" --gate "$d/gate" "${args[@]:1}" > "$d/wl.json" &
wl=$!
build/katra-record -p $wl -o "$d/t.ktrc" --force --ready-file "$d/ready" \
	--summary-json "$d/sum.json" 2> "$d/rec.log" &
rec=$!
while [[ ! -e $d/ready ]]; do sleep 0.01; done
perf record -q -a -g -o "$d/perf.data" 2> /dev/null &
perf_pid=$!
sleep 0.3
bpftool prog show -j > "$d/before.json"
touch "$d/gate"
wait $wl
bpftool prog show -j > "$d/after.json"
kill -INT $perf_pid; wait $perf_pid || true
wait $rec || true
sysctl -q kernel.bpf_stats_enabled="$old"
cat "$d/wl.json" "$d/sum.json"
python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
b = {p['id']: p for p in json.load(open(d + '/before.json'))}
rows = []
for p in json.load(open(d + '/after.json')):
    q = b.get(p['id'], {})
    cnt = p.get('run_cnt', 0) - q.get('run_cnt', 0)
    ns = p.get('run_time_ns', 0) - q.get('run_time_ns', 0)
    if cnt:
        rows.append((ns, cnt, p.get('name', '?')))
print('\nBPF programs during the loop (kernel.bpf_stats_enabled):')
print(f"{'program':28} {'runs':>10} {'total ms':>9} {'ns/run':>7}")
for ns, cnt, name in sorted(rows, reverse=True):
    print(f'{name:28} {cnt:10} {ns / 1e6:9.1f} {ns / cnt:7.0f}')
PY
echo; echo "perf: share of all samples by command and symbol (top 25)"
perf report -i "$d/perf.data" --no-children -g none --sort comm,sym --stdio -q 2>/dev/null \
	| grep -v '^$' | grep -v '^ *|' | grep -v -- '---' | head -25
echo; echo "perf: katra-record only (top 20)"
perf report -i "$d/perf.data" --no-children -g none --comm katra-record --sort sym --stdio -q \
	2>/dev/null | grep -E '^ +[0-9]' | head -20
[[ -n ${KEEP_PROFILE:-} ]] && echo "kept: $d" || rm -rf "$d"
