#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Epochs: lines written to --epoch-fifo and SIGUSR1 marks become EpochMarkers,
# in order, between CaptureStart and CaptureEnd.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
kt_record -p "$BUSY_PID" --epoch-fifo "$T/epochs"
[ -p "$T/epochs" ] || kt_fail "--epoch-fifo did not create a FIFO"
printf 'loading\nlevel 2\n' >"$T/epochs"
sleep 0.2
kill -USR1 "$REC_PID"
sleep 0.1
kill -USR1 "$REC_PID"
sleep 0.1
printf 'boss fight\n' >"$T/epochs"
sleep 0.2
kill -INT "$REC_PID"
kt_wait_recorder 0
kt_verify
kt_check epochs "$TRACE.jsonl" \
	CaptureStart:"capture start" Fifo:loading Fifo:"level 2" Signal:"mark 1" Signal:"mark 2" \
	Fifo:"boss fight" CaptureEnd:"capture end"
