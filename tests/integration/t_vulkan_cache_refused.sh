#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A cache directory of katra-vkresolve's answers that is not root's with mode
# 0700 (world-writable; another user's) is refused: said on stderr, nothing
# read or written there, the helper runs on every capture and the trace is
# exact.  A planted answer in such a directory is never used.
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vksubmit"
K=8
printf '#!/bin/sh\necho run >>"%s"\nexec "%s"\n' "$T/runs" "$KT_ROOT/build/katra-vkresolve" \
	>"$T/helper"
chmod 755 "$T/helper"
touch "$T/gate"
id nobody >/dev/null 2>&1 || kt_skip "no user nobody"
n=0
for kind in world other; do
	dir=$T/cache-$kind
	mkdir "$dir"
	if [ $kind = world ]; then chmod 0777 "$dir"; else chmod 0700 "$dir"; chown nobody "$dir"; fi
	for i in 1 2; do
		TRACE=$T/$kind$i.ktrc
		KATRA_TEST_VKCACHE_DIR=$dir KATRA_TEST_VKRESOLVE=$T/helper timeout -k 5 60 "$REC" \
			-o "$TRACE" -- "$KT_ROOT/build/uprobe/vksubmit" "$T/started" "$T/gate" $K \
			>"$T/$kind$i.out" 2>"$T/$kind$i.err" ||
			kt_fail "$kind $i: katra-record failed: $(kt_tail "$T/$kind$i.err")"
		n=$((n + 1))
		grep -q "vulkan driver cache refused: $dir" "$T/$kind$i.err" ||
			kt_fail "$kind $i: refusal not said: $(kt_tail "$T/$kind$i.err")"
		[ "$(wc -l <"$T/runs")" = $n ] || kt_fail "$kind $i: helper ran $(wc -l <"$T/runs") times, want $n"
		[ -z "$(ls -A "$dir")" ] || kt_fail "$kind $i: written in $dir: $(ls -A "$dir")"
		kt_verify
		kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/$kind$i.out"
	done
done
kt_note "world-writable and nobody's cache dirs refused; helper ran on each of $n captures"
