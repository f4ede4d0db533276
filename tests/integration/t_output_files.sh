#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the capture writes for its user, under sudo: the trace, --summary-json
# and --ready-file are mode 0600 and owned by SUDO_UID:SUDO_GID, the
# --epoch-fifo it creates too (that user writes epochs into it from their own
# shell); an existing --summary-json is refused without --force; --force
# replaces a file with a new one, never writing through the old one (its hard
# links keep their bytes).
. "$(dirname "$0")/lib.sh"
kt_require
command -v setpriv >/dev/null || kt_skip "setpriv is missing (util-linux)"
U=65534
chmod 711 "$T" # the user's shell reaches the FIFO
owner_mode() { stat -c '%u:%g %a' "$1"; }
kt_busy 10
export SUDO_UID=$U SUDO_GID=$U

kt_record -p "$BUSY_PID" --summary-json "$T/sum.json" --epoch-fifo "$T/ep"
[ "$(owner_mode "$T/ready")" = "$U:$U 600" ] || kt_fail "--ready-file is $(owner_mode "$T/ready"), expected $U:$U 600"
[ "$(owner_mode "$T/ep")" = "$U:$U 600" ] || kt_fail "--epoch-fifo is $(owner_mode "$T/ep"), expected $U:$U 600"
setpriv --reuid=$U --regid=$U --clear-groups sh -c "echo 'from the user' >'$T/ep'" 2>"$T/user.err" ||
	kt_fail "the sudo user cannot write the epoch FIFO: $(kt_tail "$T/user.err")"
sleep 0.2
kill -TERM "$REC_PID"
kt_wait_recorder 0
for f in "$TRACE" "$T/sum.json"; do
	[ "$(owner_mode "$f")" = "$U:$U 600" ] || kt_fail "$(basename "$f") is $(owner_mode "$f"), expected $U:$U 600"
done
kt_verify
kt_check epochs "$TRACE.jsonl" CaptureStart:"capture start" Fifo:"from the user" CaptureEnd:"capture end"

# an existing summary: refused before the capture, left alone
echo original >"$T/old.json"
kt_run_rec -p "$BUSY_PID" -d 0.3 -o "$T/x.ktrc" --summary-json "$T/old.json"
[ "$KT_RC" = 1 ] || kt_fail "existing --summary-json without --force: exit $KT_RC, expected 1"
grep -q -- "--force" "$T/rec.err" || kt_fail "no hint at --force: $(kt_tail "$T/rec.err")"
[ "$(cat "$T/old.json")" = original ] || kt_fail "an existing --summary-json was overwritten without --force"
[ ! -e "$T/x.ktrc" ] || kt_fail "a trace was written although --summary-json was refused"

# --force: new files renamed over the old names; their other links untouched
echo victim >"$T/victim"
echo victim >"$T/victim.json"
ln "$T/victim" "$T/forced.ktrc"
ln "$T/victim.json" "$T/forced.json"
TRACE=$T/forced.ktrc
kt_run_rec -p "$BUSY_PID" -d 0.3 --force -o "$TRACE" --summary-json "$T/forced.json"
[ "$KT_RC" = 0 ] || kt_fail "--force: exit $KT_RC: $(kt_tail "$T/rec.err")"
[ "$(cat "$T/victim")" = victim ] || kt_fail "--force wrote the trace through the old file (a hard link of it changed)"
[ "$(cat "$T/victim.json")" = victim ] || kt_fail "--force wrote the summary through the old file"
for f in "$TRACE" "$T/forced.json"; do
	[ "$(owner_mode "$f")" = "$U:$U 600" ] || kt_fail "--force: $(basename "$f") is $(owner_mode "$f"), expected $U:$U 600"
done
ls -A "$T" | grep -q '^\.forced' && kt_fail "a temporary file is left: $(ls -A "$T" | grep '^\.forced')"
kt_verify
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/forced.json" || kt_fail "--force: the summary is not JSON"
true
