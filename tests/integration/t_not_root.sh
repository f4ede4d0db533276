#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Without root (uid nobody, no capabilities): says which capabilities it needs
# and exits 1.
. "$(dirname "$0")/lib.sh"
kt_require
command -v setpriv >/dev/null || kt_skip "setpriv (util-linux) not installed"
chmod 0777 "$T"
cp "$REC" "$T/katra-record"
chmod 0755 "$T/katra-record"
timeout -k 5 30 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$T/katra-record" -p 1 -o "$T/np.ktrc" >"$T/rec.out" 2>"$T/rec.err"
rc=$?
[ "$rc" = 1 ] || kt_fail "unprivileged katra-record exited $rc, expected 1"
if ! grep -q 'CAP_BPF' "$T/rec.err" || ! grep -q 'CAP_PERFMON' "$T/rec.err"; then
	kt_fail "the message does not name CAP_BPF and CAP_PERFMON: $(kt_tail "$T/rec.err")"
fi
