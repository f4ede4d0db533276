#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Epochs count until the capture ends, its teardown included: a FIFO line and
# a SIGUSR1 that come after the capture loop stopped (-d) but before the end
# (held 3 s here, as a Wine session's detach can be) are in the trace, before
# CaptureEnd.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
export KATRA_TEST_SLOW_STOP_MS=3000
kt_record -p "$BUSY_PID" -d 0.3 --epoch-fifo "$T/ep"
unset KATRA_TEST_SLOW_STOP_MS
sleep 1.3 # past -d; before the end, 3 s later
echo late >"$T/ep"
kill -USR1 "$REC_PID"
kt_wait_recorder 0
kt_verify
kt_check epochs "$TRACE.jsonl" CaptureStart:"capture start" Fifo:late Signal:"mark 1" CaptureEnd:"capture end"
