#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Usage errors exit 2 with a message: unknown option, bad PID, bad duration.
. "$(dirname "$0")/lib.sh"
kt_require
for args in "--bogus" "-p notapid" "-p 1 -d soon" "-p 1 --buffer-size lots"; do
	# shellcheck disable=SC2086
	kt_run_rec $args -o "$T/u.ktrc"
	[ "$KT_RC" = 2 ] || kt_fail "katra-record $args: exit $KT_RC, expected 2"
	[ -s "$T/rec.err" ] || kt_fail "katra-record $args: no message on stderr"
	[ ! -e "$T/u.ktrc" ] || kt_fail "katra-record $args: wrote a trace file"
done
