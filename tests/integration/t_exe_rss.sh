#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Once live, the recorder keeps little of its own executable resident: the
# BPF skeleton's ELF is one copy in it (not one a file that opens an object),
# dropped from RSS after the objects loaded (it was 2.6 MiB of the 4.4 MiB
# file's pages while every capture ran).
. "$(dirname "$0")/lib.sh"
kt_require
kt_record -- sleep 3
sleep 0.5
exe=$(readlink -f "$REC")
kib=$(awk -v exe="$exe" '/^[0-9a-f]+-[0-9a-f]+ /{m = ($6 == exe)} m && /^Rss:/{s += $2} END{print s + 0}' \
	"/proc/$REC_PID/smaps") || kt_fail "cannot read /proc/$REC_PID/smaps"
[ "$kib" -gt 0 ] || kt_fail "no mapping of $exe in the recorder's smaps"
[ "$kib" -le 1024 ] || kt_fail "$kib KiB of $exe resident once live (at most 1024 expected)"
kt_wait_recorder 0
kt_verify
echo "PASS exe_rss: $kib KiB of katra-record's own file resident once live"
