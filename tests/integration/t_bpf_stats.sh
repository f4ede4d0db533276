#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --bpf-stats: the summary says how often each probe's program ran and for
# how long, as the kernel counted (bpf_stats, on for the capture only).  On
# this kernel the syscalls take the raw tracepoints, so sys_enter and
# sys_exit ran at least once for each of the workload's syscalls (and for
# every other thread's).  Without the option, probe_runs is null.  Where
# lavapipe is installed, the uprobe layers' programs count too, by program
# name: a headless Vulkan program's K vkQueueSubmit ran up_vkQueueSubmit
# K times at least.
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

icd=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
if [ -x "$KT_ROOT/build/uprobe/vksubmit" ] && [ -x "$KT_ROOT/build/katra-vkresolve" ] &&
	[ -f "$icd" ]; then
	export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
	K=40
	rm -f "$T/ready" "$T/started" "$T/gate"
	"$KT_ROOT/build/uprobe/vksubmit" "$T/started" "$T/gate" $K >"$T/vksubmit.out" \
		2>"$T/vksubmit.err" &
	WL_PID=$!
	KT_PIDS="$KT_PIDS $WL_PID"
	kt_wait_started vksubmit "$WL_PID"
	kt_open_gate vksubmit 30 --bpf-stats --summary-json "$T/sum3.json" --force
	kt_wait_recorder 0
	up=$(python3 - "$T/sum3.json" $K <<'PY'
import json, sys
runs, k = json.load(open(sys.argv[1]))['probe_runs'] or {}, int(sys.argv[2])
# the program's name: _multi where the kernel has uprobe_multi links
n = sum(r['runs'] for name, r in runs.items()
        if name in ('up_vkQueueSubmit', 'up_vkQueueSubmit_multi'))
if n < k:
    sys.exit(f'up_vkQueueSubmit ran {n} times for {k} vkQueueSubmit: '
             f'{sorted(x for x in runs if x.startswith(("up_", "ur_")))}')
print(f'up_vkQueueSubmit {n} runs for {k} submits')
PY
	) || kt_fail "$up"
	note="$note; $up"
else
	note="$note; no lavapipe: the uprobe part was not run"
fi
kt_note "$note"
