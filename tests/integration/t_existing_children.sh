#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -p PID follows the whole tree: children that already ran before the
# capture started are traced too (not only those forked afterwards).
. "$(dirname "$0")/lib.sh"
kt_require
bash -c '"$1" busy 0 10 >/dev/null & echo $! >"$2"; wait' _ "$WL/forktree" "$T/child.pid" &
PARENT=$!
KT_PIDS="$KT_PIDS $PARENT"
for _ in $(seq 100); do [ -s "$T/child.pid" ] && break; sleep 0.01; done
CHILD=$(cat "$T/child.pid")
KT_PIDS="$KT_PIDS $CHILD"
kt_record -p "$PARENT" -d 0.5
kt_wait_recorder 0
kt_verify
kt_check process-events "$TRACE.jsonl" "$CHILD" 100
