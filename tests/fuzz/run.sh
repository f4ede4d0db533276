#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzzes the trace reader + verifier for SECONDS (default 20), then the
# parsers of Wine's binaries (fuzz-elf, fuzz-pe, fuzz-wineserver,
# fuzz-unixcalls, fuzz-pesyms: what root
# reads from files traced processes map; fuzz-peunwind: the PE unwinder over
# such a file and a stack copy) for SECONDS/2 each.  Builds
# nothing: `make fuzz` / `make fuzz-smoke` build build/fuzz/fuzz-* and
# build/katra-sample first.  Seeds build/fuzz/corpus from the sample trace,
# hand-made prefixes and mutations of it, gzip-compressed variants (whole,
# cut, damaged), tests/fuzz/regressions/ and any
# build/*.ktrc, then prints the number of executions.  Exits non-zero on a
# crash, leak, timeout or out-of-memory (the input lands in build/fuzz/artifacts/).
# The parsers' seeds include a 512 KiB PE whose 96 sections each map the
# whole file (parser_seeds.py): every seed runs once first, and a parser
# whose work grows with sections times bytes takes about 40 s on it, far
# past the parsers' -timeout of 5 s (a linear one: 0.03 s with ASan).
set -euo pipefail

seconds=${1:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
fuzzer=$root/build/fuzz/fuzz-reader
sample_bin=$root/build/katra-sample
corpus=$root/build/fuzz/corpus
artifacts=$root/build/fuzz/artifacts
log=$root/build/fuzz/fuzz.log

for f in "$fuzzer" "$sample_bin" "$root"/build/fuzz/fuzz-{elf,pe,wineserver,unixcalls,pesyms,peunwind}; do
	if [ ! -x "$f" ]; then
		echo "fuzz: missing $f (run: make build/fuzz/fuzz-{reader,elf,pe,wineserver,unixcalls,pesyms,peunwind} build/katra-sample)" >&2
		exit 2
	fi
done
mkdir -p "$corpus" "$artifacts"

# ---- seeds (deterministic names: a rerun refreshes them) ----
sample=$corpus/seed-sample
"$sample_bin" "$sample"
size=$(stat -c %s "$sample")
hlen=$(od -An -t u4 -j 12 -N 4 "$sample" | tr -d ' ')
first=$((16 + hlen)) # offset of the first record's length

# writes seed NAME: a copy of the sample with BYTES (printf escapes) at OFFSET
patch_seed() {
	local name=$1 offset=$2 bytes=$3
	cp "$sample" "$corpus/seed-$name"
	printf "$bytes" | dd of="$corpus/seed-$name" bs=1 seek="$offset" conv=notrunc status=none
}

for n in 8 15 16 $((first - 1)) $first $((first + 3)) $((first + 20)) \
	$((size / 2)) $((size - 1)); do
	head -c "$n" "$sample" > "$corpus/seed-prefix-$n"
done
patch_seed bad-magic 0 'KATRATRX'
patch_seed bad-version 8 '\x02\x00\x00\x00'
patch_seed bad-hash 20 '\x00\x00\x00\x00'
patch_seed huge-header-len 12 '\xff\xff\xff\xff'
patch_seed short-header-len 12 '\x10\x00\x00\x00'
patch_seed huge-record-len "$first" '\xff\xff\xff\xff'
patch_seed zero-record-len "$first" '\x00\x00\x00\x00'
patch_seed bad-record-tag $((first + 4)) '\x09\x00\x00\x00'
patch_seed huge-string-len 32 '\xff\xff\xff\xff\xff\xff\xff\x7f'
patch_seed flipped-middle $((size / 2)) '\xff\xff'
# compressed traces (SPEC section 11): the writer's gzip mode, gzip(1)'s,
# cut short, damaged inside the deflate data, with a bad CRC, with garbage after
"$sample_bin" -z "$corpus/seed-gzip-writer"
gzip -c -9 "$sample" > "$corpus/seed-gzip-9"
gzsize=$(stat -c %s "$corpus/seed-gzip-writer")
head -c $((gzsize / 2)) "$corpus/seed-gzip-writer" > "$corpus/seed-gzip-cut"
cp "$corpus/seed-gzip-writer" "$corpus/seed-gzip-damaged"
printf '\x00\xff\x00\xff' | dd of="$corpus/seed-gzip-damaged" bs=1 seek=$((gzsize / 2)) \
	conv=notrunc status=none
cp "$corpus/seed-gzip-writer" "$corpus/seed-gzip-bad-crc"
printf '\x00\x00\x00\x00' | dd of="$corpus/seed-gzip-bad-crc" bs=1 seek=$((gzsize - 8)) \
	conv=notrunc status=none
{ cat "$corpus/seed-gzip-writer"; printf 'trailing'; } > "$corpus/seed-gzip-trailing"
cat "$corpus/seed-gzip-writer" "$corpus/seed-gzip-9" > "$corpus/seed-gzip-two-members"
# a record repeated (duplicate seq) and the summary moved off the end
cp "$sample" "$corpus/seed-appended"
dd if="$sample" bs=1 skip="$first" count=200 status=none >> "$corpus/seed-appended"
if compgen -G "$root/tests/fuzz/regressions/*" > /dev/null; then
	for f in "$root"/tests/fuzz/regressions/*; do
		[ "$(basename "$f")" = README.md ] && continue
		cp "$f" "$corpus/regression-$(basename "$f")"
	done
fi
if compgen -G "$root/build/*.ktrc" > /dev/null; then
	for f in "$root"/build/*.ktrc; do
		head -c 65536 "$f" > "$corpus/trace-$(basename "$f")"
	done
fi

# ---- run ----
echo "fuzz: $seconds s over $(ls "$corpus" | wc -l) corpus files (log: $log)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
set +e
"$fuzzer" "$corpus" -dict="$root/tests/fuzz/katra.dict" -max_total_time="$seconds" \
	-rss_limit_mb=512 -timeout=5 -max_len=65536 -print_final_stats=1 \
	-artifact_prefix="$artifacts/" > "$log" 2>&1
rc=$?
set -e

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
echo "fuzz: executions: ${execs:-unknown}, exit status $rc"
if [ "$rc" -ne 0 ]; then
	echo "fuzz: FAILED; last lines of $log:" >&2
	tail -n 40 "$log" >&2
	ls -l "$artifacts" >&2
	exit 1
fi

# ---- the parsers: seeds from parser_seeds.py, the installed Wine's files,
# tests/fuzz/regressions/KIND-* ----
wine=/usr/lib/x86_64-linux-gnu/wine
python3 "$root/tests/fuzz/parser_seeds.py" "$root/build/fuzz/parsers"
seed_file() { # KIND FILE: a copy of FILE, when installed
	[ -r "$2" ] && cp "$2" "$root/build/fuzz/parsers/$1/wine-$(basename "$2")" || true
}
seed_file elf "$wine/x86_64-unix/ntdll.so"
seed_file pe "$wine/x86_64-windows/ntdll.dll"
seed_file wineserver /usr/lib/wine/wineserver64
seed_file unixcalls "$wine/x86_64-unix/winevulkan.so"
seed_file unixcalls "$wine/x86_64-windows/winevulkan.dll"
# the unwinder: real .pdata (its stack is the file's last quarter)
seed_file peunwind "$wine/x86_64-windows/ntdll.dll"
seed_file peunwind "$root/build/unwind/chains.exe"
part=$(( seconds / 2 > 5 ? seconds / 2 : 5 ))
for kind in elf pe wineserver unixcalls pesyms peunwind; do
	dir=$root/build/fuzz/parsers/$kind
	for f in "$root"/tests/fuzz/regressions/"$kind"-*; do
		[ -e "$f" ] && cp "$f" "$dir/regression-$(basename "$f")"
	done
	plog=$root/build/fuzz/fuzz-$kind.log
	echo "fuzz: $kind: $part s over $(ls "$dir" | wc -l) corpus files (log: $plog)"
	set +e
	"$root/build/fuzz/fuzz-$kind" "$dir" -max_total_time="$part" -rss_limit_mb=1024 \
		-timeout=5 -max_len=4194304 -print_final_stats=1 \
		-artifact_prefix="$artifacts/$kind-" > "$plog" 2>&1
	rc=$?
	set -e
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$plog" | tail -1)
	echo "fuzz: $kind: executions: ${execs:-unknown}, exit status $rc"
	if [ "$rc" -ne 0 ]; then
		echo "fuzz: $kind FAILED; last lines of $plog:" >&2
		tail -n 40 "$plog" >&2
		exit 1
	fi
done
