#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A --paths capture of a real program tree on a busy machine ends at the
# program's exit (within a second of it), by its exit events, not a poll:
# two CPU hogs, `-- tar czf` (tar forks gzip, which exits first), the poll
# for gone targets made an hour long
# (KATRA_TEST_TARGETS_POLL_MS).  The recorder must exit 0 on its own, with a
# valid trace holding both processes' last TaskExit.  Where the kernel's exit
# tracepoint lacks group_dead (before Linux 6.16) the reaper's /proc poll is
# what untracks a process: skipped there.
. "$(dirname "$0")/lib.sh"
kt_require
read -r major minor _ < <(uname -r | tr '.-' '  ')
if [ "$major" -lt 6 ] || { [ "$major" = 6 ] && [ "$minor" -lt 16 ]; }; then
	kt_skip "kernel $(uname -r): exits are found by the reaper's poll before 6.16"
fi
command -v tar >/dev/null && command -v gzip >/dev/null || kt_skip "tar or gzip missing"
mkdir "$T/files"
for i in $(seq 1000); do
	echo "file $i" >"$T/files/f$i"
done
kt_hogs 2
TRACE=$T/tar.ktrc
LIMIT=120
KATRA_TEST_TARGETS_POLL_MS=3600000 timeout -k 5 $LIMIT "$REC" -q --paths -o "$TRACE" \
	-- tar czf "$T/files.tgz" -C "$T" files >"$T/rec.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "katra-record exited $rc (124: still running $LIMIT s after it \
started, its command long gone): $(kt_tail "$T/rec.err" 2)"
[ "$(tar tzf "$T/files.tgz" | grep -c '/f[0-9]*$')" = 1000 ] || kt_fail "tar wrote an incomplete archive"
"$REPLAY" verify --strict "$TRACE" >"$T/verify.out" 2>&1 || kt_fail "the trace does not verify: $(kt_tail "$T/verify.out")"
"$REPLAY" dump "$TRACE" >"$T/dump.txt" || kt_fail "katra-replay dump failed"
for name in tar gzip; do
	grep -E "\(${name}\) .* TaskExit Instant .*group_dead=true" "$T/dump.txt" >/dev/null ||
		kt_fail "no last TaskExit of $name in the trace"
done
kt_note "tar and gzip exited; the capture ended by their exit events, the poll an hour long"
