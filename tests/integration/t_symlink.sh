#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An output path that is a symlink is refused (exit 1 or 2), with or without
# --force, and nothing is written through it.
. "$(dirname "$0")/lib.sh"
kt_require
kt_busy 10
ln -s "$T/target" "$T/dangling.ktrc"
kt_run_rec -p "$BUSY_PID" -d 0.5 -o "$T/dangling.ktrc"
case $KT_RC in 1 | 2) ;; *) kt_fail "dangling symlink output: exit $KT_RC" ;; esac
[ ! -e "$T/target" ] || kt_fail "katra-record created the symlink's target"
grep -q 'katra-record: ' "$T/rec.err" || kt_fail "no message on stderr for a symlink output"

echo original >"$T/existing"
ln -s "$T/existing" "$T/link.ktrc"
kt_run_rec -p "$BUSY_PID" -d 0.5 --force -o "$T/link.ktrc"
case $KT_RC in 1 | 2) ;; *) kt_fail "symlink output with --force: exit $KT_RC" ;; esac
[ "$(cat "$T/existing")" = original ] || kt_fail "katra-record wrote through a symlink"
