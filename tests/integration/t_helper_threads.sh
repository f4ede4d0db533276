#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Signals run their handlers on the capture's own thread: every other thread
# of the recorder (the writer's, the drain's watchdog) blocks SIGHUP, SIGINT,
# SIGUSR1 and SIGTERM, so a SIGUSR1 mark never runs beside the FIFO reader.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
kt_record -p "$BUSY_PID"
n=0
for task in /proc/"$REC_PID"/task/*; do
	tid=${task##*/}
	[ "$tid" = "$REC_PID" ] && continue
	blk=$(awk '/^SigBlk:/ {print $2}' "$task/status")
	# bits 0, 1, 9, 14: SIGHUP, SIGINT, SIGUSR1, SIGTERM
	(((0x$blk & 0x4203) == 0x4203)) || kt_fail "thread $tid ($(cat "$task/comm")) does not block the stop and mark signals: SigBlk $blk"
	n=$((n + 1))
done
[ "$n" -ge 1 ] || kt_fail "no helper thread to check"
kill -TERM "$REC_PID"
kt_wait_recorder 0
kt_note "$n helper threads block them"
