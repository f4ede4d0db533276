#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -- a plain capture's stderr: where the kernel refuses fexit on
# handle_mm_fault (page faults recorded as instants, an expected fallback) it
# says so in one line of information, once, with no "not attached", no
# "layer ... off" and no "N failed"; the trace's header notes keep the
# details.  Where fexit works, no such line.  Counts read "1 event", never
# "1 events".  Where fexit is refused, the table of fault starts is made
# with one entry.
. "$(dirname "$0")/lib.sh"
kt_require
TRACE=$T/true.ktrc
kt_run_rec -o "$TRACE" -- true
[ "$KT_RC" = 0 ] || kt_fail "-- true: katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify
"$REPLAY" dump "$TRACE" 2>&1 | grep '^# note ' >"$T/notes"
info="page faults are recorded as instants, without their duration"
if grep -q 'not attached: handle_mm_fault' "$T/notes"; then
	[ "$(grep -c "$info" "$T/rec.err")" = 1 ] ||
		kt_fail "fexit refused, but not one line '$info': $(tr '\n' '|' <"$T/rec.err")"
	grep -q 'layer fault-durations off' "$T/notes" ||
		kt_fail "the header's notes lost the fallback's layer note: $(tr '\n' '|' <"$T/notes")"
	# the table of fault starts, never used then, is made with one entry
	kt_live_maps "$T/maps"
	grep -qx "fault_starts 1" "$T/maps" ||
		kt_fail "fexit refused, yet fault_starts is not a one-entry map: $(grep '^fault_starts ' "$T/maps")"
	kt_note "fexit refused here: one line of information; fault_starts of one entry"
else
	grep -q "$info" "$T/rec.err" && kt_fail "fexit attached, yet: $(kt_tail "$T/rec.err")"
	kt_note "fexit attached here"
fi
if grep -E -n 'not attached|failed|layer [a-z-]+ off' "$T/rec.err" >"$T/bad"; then
	kt_fail "stderr reads as an error: $(tr '\n' '|' <"$T/bad")"
fi
grep -E -q '(^|[^0-9])1 (events|probes|processes) ' "$T/rec.err" &&
	kt_fail "a plural after 1: $(tr '\n' '|' <"$T/rec.err")"
exit 0
