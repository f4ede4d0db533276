#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vkd3d's D3D12 methods are found by the COFF symbols of the DLL a process
# maps (wined3d.dll), never assumed: a process traced with -p maps (PROT_EXEC,
# never calls) a copy of Wine's wined3d.dll and a copy with its symbol table
# cut off (PointerToSymbolTable and NumberOfSymbols zeroed: a stripped
# DLL).  The header's notes say "layer d3d12: N uprobes on" the first, N the
# 5 methods' entries and their exits (the unit tests' objdump-checked
# counts: Wine 8's 6 exits, Wine 10's 11), and "layer d3d12 off" for the
# second, with the reason; no uretprobe is attached for either.
. "$(dirname "$0")/lib.sh"
kt_require
wined3d=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/wined3d.dll
want=11
if [ ! -r "$wined3d" ]; then
	wined3d=/var/cache/katra-proton/root$wined3d
	want=16
fi
[ -r "$wined3d" ] || kt_skip "no wined3d.dll (Debian's wine64, or the Proton-class root)"
mkdir -p "$T/sym" "$T/stripped"
cp "$wined3d" "$T/sym/wined3d.dll"
cp "$wined3d" "$T/stripped/wined3d.dll"
python3 - "$T/stripped/wined3d.dll" <<'PY' || kt_fail "cannot cut the copy's symbol table"
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0x3c)
    pe = struct.unpack("<I", f.read(4))[0]
    f.seek(pe + 4 + 8)
    f.write(bytes(8))  # PointerToSymbolTable, NumberOfSymbols
PY
python3 -c '
import mmap, os, sys, time
maps = [mmap.mmap(os.open(p, os.O_RDONLY), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC,
                  flags=mmap.MAP_PRIVATE) for p in sys.argv[1:3]]
open(sys.argv[3], "w").close()
while not os.path.exists(sys.argv[4]):
    time.sleep(0.02)
' "$T/sym/wined3d.dll" "$T/stripped/wined3d.dll" "$T/started" "$T/gate" \
	>"$T/py.out" 2>"$T/py.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
for _ in $(seq 200); do
	[ -e "$T/started" ] && break
	sleep 0.05
done
[ -e "$T/started" ] || kt_fail "the mapping process did not start: $(kt_tail "$T/py.err")"
kt_record -p "$WL_PID"
touch "$T/gate"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$T" "$want" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
h, summary = json.loads(lines[0]), json.loads(lines[-1])
notes, t, want = h["notes"], sys.argv[2], int(sys.argv[3])
on = "layer d3d12: %d uprobes on %s/sym/wined3d.dll" % (want, t)
off = ("layer d3d12 off: %s/stripped/wined3d.dll: no COFF symbol table (a stripped DLL): "
       "vkd3d's methods cannot be found" % t)
for n in (on, off):
    if n not in notes:
        print("no note %r; the d3d12 notes: %s" % (n, [x for x in notes if "d3d12" in x]))
        sys.exit(1)
# the summary's lists: want uprobes (no uretprobe), the stripped copy failed
mine = [p for p in summary["probes_attached"] if "wined3d.dll" in p]
if len(mine) != want or any(not p.startswith("uprobe wined3d.dll:d3d12_") for p in mine):
    print("probes_attached on wined3d.dll: %s, expected %d uprobes" % (mine, want))
    sys.exit(1)
failed = [p for p in summary["probes_failed"] if "wined3d.dll" in p]
if len(failed) != 1 or "stripped/wined3d.dll: no COFF symbol table" not in failed[0]:
    print("probes_failed on wined3d.dll: %s" % failed)
    sys.exit(1)
print("%s; %s" % (on, off))
PY
kt_note "$(kt_tail "$T/check.out")"
