#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --max-loss reads events lost, not links: 16 threads blocked in read at once
# against an in-flight table of 8 (a test option) lose links (KernelTable
# instance 0: exits written without their enter) and no event.  The capture
# exits 0 under --max-loss 0, the summary JSON says the links apart from the
# events (events_lost 0, links_lost = the trace's drops), and stderr says
# links, not events.
. "$(dirname "$0")/lib.sh"
kt_require
kt_workload blockers 16
kt_record --small-tables 8 --max-loss 0 --summary-json "$T/summary.json" -p "$WL_PID"
kt_wait_workload 20
kt_wait_recorder 0
kt_verify
KT_PY="python3 $KT_DIR/loss_checks.py" kt_check maxloss_links "$TRACE.jsonl" "$T/summary.json" "$T/rec.err"
