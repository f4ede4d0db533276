#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -d SECONDS stops the capture on time with exit 0 and a valid trace.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
start=${EPOCHREALTIME/./}
kt_run_rec -p "$BUSY_PID" -d 1 -o "$TRACE"
ms=$(((${EPOCHREALTIME/./} - start) / 1000))
[ "$KT_RC" = 0 ] || kt_fail "-d 1: katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
[ "$ms" -ge 1000 ] || kt_fail "-d 1 stopped after only $ms ms"
[ "$ms" -le 6000 ] || kt_fail "-d 1 took $ms ms"
kt_verify
kt_check clean "$TRACE.jsonl"
kt_check header "$TRACE.jsonl" duration_limit_ns 1000000000
