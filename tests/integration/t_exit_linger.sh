#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Closing a uprobe link waits for a grace period in the kernel, one link
# after another (~0.1 s each under load: the Vulkan layer's 12 made the
# recorder exit 1.1-1.8 s after its command).  Once no traced process is
# left, the recorder hands its uprobe links to a child that releases them
# after the recorder has let go: the recorder exits without that wait.
# Checked with the child told to hold the links (KATRA_TEST_LINGER_MS, tests
# only): after `-- true` has ended the capture and the recorder has exited
# (0, a valid trace), a process that was the recorder still holds bpf link
# fds and no other file (stdin, stdout and stderr closed); killed, it is
# gone.  Skipped where the Vulkan layer attaches nothing (no ICD here).
# The perf-event links only (KATRA_TEST_NO_UPROBE_MULTI: the path of kernels
# without uprobe_multi links); uprobe_multi links are released by the
# recorder itself (t_uprobe_release).
. "$(dirname "$0")/lib.sh"
kt_require
export KATRA_TEST_NO_UPROBE_MULTI=1
export KATRA_TEST_LINGER_MS=600000
timeout -k 5 60 "$REC" -q -o "$TRACE" -- true >"$T/rec.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 0 ] || kt_fail "-- true: katra-record exited $rc: $(kt_tail "$T/rec.err" 2)"
"$REPLAY" dump "$TRACE" 2>/dev/null | grep -q 'note "layer vulkan: [0-9]* uprobes' ||
	kt_skip "the Vulkan layer attached no uprobe here"
"$REPLAY" verify --strict "$TRACE" >/dev/null || kt_fail "the trace does not verify"
child=
for f in /proc/[0-9]*/cmdline; do
	if tr '\0' ' ' <"$f" 2>/dev/null | grep -qF -- "-o $TRACE "; then
		child=${f#/proc/}
		child=${child%/cmdline}
	fi
done
[ -n "$child" ] || kt_fail "no process holds the uprobe links after the recorder's exit"
KT_PIDS="$KT_PIDS $child"
links=0 others=0
for fd in /proc/"$child"/fd/*; do
	case $(readlink "$fd") in
	anon_inode:bpf_link | anon_inode:\[perf_event\]) links=$((links + 1)) ;;
	pipe:*) ;; # the cue from the recorder
	*) others=$((others + 1)) ;;
	esac
done
[ "$links" -gt 0 ] || kt_fail "the lingering process $child holds no bpf link"
[ "$others" = 0 ] || kt_fail "the lingering process $child holds $others other files: $(ls -l /proc/"$child"/fd | tail -n +2 | awk '{print $NF}' | tr '\n' ' ')"
kill -KILL "$child"
for _ in $(seq 600); do
	kt_is_running "$child" || exit 0
	sleep 0.05
done
kt_fail "the lingering process $child did not end 30 s after SIGKILL"
