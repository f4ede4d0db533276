#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The cost of the uprobe layers (part of `make bench`; alone: make bench-uprobes).
#
# Per NT call: tests/uprobe/ntio.exe --loop under Wine (sequential ReadFile
# of 64 bytes: each one NtReadFile, no server call, one read(2));
# per Vulkan submit: tests/uprobe/vksubmit --loop on lavapipe (vkQueueSubmit
# of an empty command buffer).  Each program times its own loop.  Columns,
# medians of RUNS runs (interleaved):
#   untraced          no recorder
#   linux             katra-record -p PID --no-uprobes (the Linux layer only)
#   uprobes           katra-record -p PID (Linux + the Wine or Vulkan layer)
#   bystander         the loop in an UNTRACED process while a recorder traces
#                     another process of the same program (the uprobes sit on
#                     the file, pid -1: every process that maps it traps)
# "added by uprobes" = uprobes - linux; "added in all" = uprobes - untraced.
# usage: bench/uprobes.sh [RUNS]   (root; figures also in
# bench/results/uprobes-latest.json)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
	echo "bench/uprobes.sh: needs root (BPF)" >&2
	exit 1
fi
RUNS=${1:-5}
NT_CALLS=${NT_CALLS:-50000}
VK_CALLS=${VK_CALLS:-50000}
REC=$PWD/build/katra-record
NTIO=$PWD/build/uprobe/ntio.exe
VKS=$PWD/build/uprobe/vksubmit
ICD=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
W=$(mktemp -d /tmp/katra-bench-up.XXXXXX)
pids=()
cleanup()
{
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT
head -c $((4 << 20)) /dev/urandom >"$W/data"
win() { printf 'Z:%s' "${1//\//\\}"; }

wait_for() # FILE SECONDS
{
	local n=$(($2 * 20))
	while [ ! -e "$1" ] && [ "$n" -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
	[ -e "$1" ]
}

wait_maps() # PID PATTERN
{
	local n=400
	while ! grep -q "$2" "/proc/$1/maps" 2>/dev/null; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.05
	done
}

# start_prog KIND GATE OUT: the benchmark program waiting at GATE; sets PROG_PID
start_prog()
{
	if [ "$1" = nt ]; then
		wine "$NTIO" --loop "$(win "$2")" "$(win "$W/data")" "$NT_CALLS" >"$3" 2>/dev/null &
		PROG_PID=$!
		wait_maps "$PROG_PID" x86_64-unix/ntdll.so
	else
		VK_ICD_FILENAMES=$ICD VK_DRIVER_FILES=$ICD "$VKS" --loop "$2" "$VK_CALLS" >"$3" 2>/dev/null &
		PROG_PID=$!
		wait_maps "$PROG_PID" libvulkan_lvp.so
	fi
	pids+=("$PROG_PID")
}

# one KIND MODE: prints the program's ns per call
one()
{
	local kind=$1 mode=$2 gate=$W/gate.$RANDOM out=$W/out.$RANDOM rec=0 dummy=0
	rm -f "$W/ready"
	start_prog "$kind" "$gate" "$out"
	local target=$PROG_PID
	local extra=()
	[ "$mode" = linux ] && extra=(--no-uprobes)
	case $mode in
	linux | uprobes)
		"$REC" -q "${extra[@]}" -p "$target" -o "$W/t.ktrc" \
			--force --ready-file "$W/ready" >/dev/null 2>"$W/rec.err" &
		rec=$!
		;;
	bystander)
		start_prog "$kind" "$W/never" "$W/dummy.out"
		dummy=$PROG_PID
		"$REC" -q -p "$dummy" -o "$W/t.ktrc" --force --ready-file "$W/ready" \
			>/dev/null 2>"$W/rec.err" &
		rec=$!
		;;
	esac
	if [ "$rec" != 0 ]; then
		pids+=("$rec")
		if ! wait_for "$W/ready" 30; then
			# a run that could not start is left out (said), not fatal
			echo "uprobes bench: recorder not live ($kind $mode): $(tail -n 2 "$W/rec.err" | tr '\n' ' ')" >&2
			kill -KILL "$rec" "$target" ${dummy/#0/} 2>/dev/null || true
			wait "$rec" "$target" 2>/dev/null || true
			return 0
		fi
	fi
	touch "$gate"
	wait "$target"
	if [ "$dummy" != 0 ]; then
		kill -INT "$rec"
		wait "$rec" || true
		kill -KILL "$dummy" 2>/dev/null || true
		wait "$dummy" 2>/dev/null || true
	elif [ "$rec" != 0 ]; then
		wait "$rec" || true
	fi
	python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read())["ns_per_call"])' "$out"
}

have_nt=0 have_vk=0
if command -v wine >/dev/null 2>&1 && [ -f "$NTIO" ]; then
	WINEPREFIX=$(bash tests/wine/prefix.sh --one) && have_nt=1
	export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
fi
[ -x "$VKS" ] && [ -f "$ICD" ] && have_vk=1
modes=(untraced linux uprobes bystander)
declare -A res
for kind in nt vk; do
	[ "$kind" = nt ] && [ "$have_nt" = 0 ] && { echo "uprobes bench: no Wine or ntio.exe: NT calls skipped" >&2; continue; }
	[ "$kind" = vk ] && [ "$have_vk" = 0 ] && { echo "uprobes bench: no vksubmit or lavapipe: Vulkan skipped" >&2; continue; }
	for ((r = 0; r < RUNS; r++)); do
		for m in "${modes[@]}"; do
			v=$(one "$kind" "$m")
			[ -n "$v" ] && res[$kind.$m]+="$v "
		done
	done
done
python3 - "$RUNS" "$NT_CALLS" "$VK_CALLS" "${res[nt.untraced]:-}" "${res[nt.linux]:-}" \
	"${res[nt.uprobes]:-}" "${res[nt.bystander]:-}" "${res[vk.untraced]:-}" \
	"${res[vk.linux]:-}" "${res[vk.uprobes]:-}" "${res[vk.bystander]:-}" <<'EOF'
import json, statistics, sys
runs, ntc, vkc = sys.argv[1:4]
cols = sys.argv[4:]
names = ["untraced", "linux", "uprobes", "bystander"]
out = {"runs": int(runs), "nt_calls": int(ntc), "vk_calls": int(vkc)}
print("| per call (ns, median of %s) | untraced | Linux layer | + uprobes | added by uprobes | added in all | untraced process, probes attached |" % runs)
print("|---|---|---|---|---|---|---|")
for i, (label, key) in enumerate([("NtReadFile (ReadFile, Wine 8)", "nt"), ("vkQueueSubmit (lavapipe)", "vk")]):
    vals = [[float(x) for x in c.split()] for c in cols[4 * i:4 * i + 4]]
    if not all(vals):
        continue
    med = dict(zip(names, (statistics.median(v) for v in vals)))
    out[key] = {"median": med, "raw": dict(zip(names, vals))}
    print("| %s | %.0f | %.0f | %.0f | %+.0f | %+.0f | %.0f (%+.0f) |" % (
        label, med["untraced"], med["linux"], med["uprobes"], med["uprobes"] - med["linux"],
        med["uprobes"] - med["untraced"], med["bystander"], med["bystander"] - med["untraced"]))
with open("bench/results/uprobes-latest.json", "w") as f:
    json.dump(out, f, indent=1)
EOF
