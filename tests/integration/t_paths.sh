#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --paths: openat and execve carry their path; without it no path is
# recorded anywhere (files are known by the hash of device and inode only).
. "$(dirname "$0")/lib.sh"
kt_require
head -c 4096 /dev/zero >"$T/data.bin"
for mode in paths nopaths; do
	TRACE=$T/$mode.ktrc
	flag=--paths
	[ "$mode" = nopaths ] && flag=--no-follow
	timeout -k 5 30 "$REC" -o "$TRACE" "$flag" -- "$WL/syscalls" --file "$T/data.bin" 5 5 \
		>"$T/$mode.out" 2>"$T/rec.err"
	rc=$?
	[ "$rc" = 0 ] || kt_fail "$mode: katra-record exited $rc: $(kt_tail "$T/rec.err")"
	kt_verify
	kt_check "$mode" "$TRACE.jsonl" "$T/data.bin" "$WL/syscalls"
done
