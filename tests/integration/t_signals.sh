#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# SIGTERM and SIGINT end the capture: exit 0 and a complete, valid trace.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
for sig in TERM INT; do
	TRACE=$T/$sig.ktrc
	rm -f "$T/ready"
	kt_record -p "$BUSY_PID"
	sleep 0.3
	kill -"$sig" "$REC_PID"
	kt_wait_recorder 0
	kt_verify
	kt_check clean "$TRACE.jsonl" || kt_fail "SIG$sig: $(kt_tail "$T/check.out")"
done
