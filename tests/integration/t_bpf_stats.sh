#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --bpf-stats: the summary says how often each probe's program ran and for
# how long, as the kernel counted (bpf_stats, on for the capture only).  On
# this kernel the syscalls take the raw tracepoints, so sys_enter and
# sys_exit ran at least once for each of the workload's syscalls (and for
# every other thread's).  Without the option, probe_runs is null.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload syscalls 1500 700
kt_record --bpf-stats --summary-json "$T/sum.json" -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
grep -q '^katra-record: probe runs (bpf_stats, every thread.s): .*sys_enter [0-9]* x [0-9]* ns' \
	"$T/rec.err" || kt_fail "no probe runs line on stderr: $(tail -n 3 "$T/rec.err")"
note=$(python3 - "$T/sum.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))['probe_runs']
calls = 1500 + 700  # the workload's pread64 and getppid, one thread
if not runs:
    sys.exit(f'probe_runs is {runs!r}')
for probe in ('sys_enter', 'sys_exit', 'sched_switch'):
    r = runs.get(probe)
    if r is None:
        sys.exit(f'no {probe} in probe_runs: {sorted(runs)}')
for probe in ('sys_enter', 'sys_exit'):
    r = runs[probe]
    if r['runs'] < calls or r['run_ns'] <= 0:
        sys.exit(f'{probe}: {r} for {calls} syscalls of the workload alone')
print(f"sys_enter {runs['sys_enter']['runs']} runs, sys_exit {runs['sys_exit']['runs']} "
      f"for {calls} calls")
PY
) || kt_fail "$note"

rm -f "$T/ready"
kt_workload syscalls 10 10
kt_record --summary-json "$T/sum2.json" --force -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
grep -q '"probe_runs":null' "$T/sum2.json" || kt_fail "probe_runs without --bpf-stats: $(
	grep -o '"probe_runs":[^}]*' "$T/sum2.json")"
grep -q 'probe runs' "$T/rec.err" && kt_fail "a probe runs line without --bpf-stats"
kt_note "$note"
