#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# katra-vkresolve's answer kept between captures (user/record/uprobes/
# vkcache.c): a command's first capture runs the helper and keeps its answer
# (a root 0600 file in a root 0700 directory); the second, with nothing
# changed, runs no helper; after the driver library's mtime changes, or the
# manifest's, the helper runs again; a file changed while the helper runs
# keeps nothing (the next capture runs it again).  Every capture's vksubmit
# is exact (K submits, K fence waits).  The helper here is a stand-in that
# counts its runs and execs the real one.  An answer is kept only when what
# it depends on is over a second older than the run (ctime's granularity):
# the sleeps make it so, no outcome depends on them otherwise.
. "$(dirname "$0")/lib.sh"
kt_require
kt_lavapipe "$KT_ROOT/build/uprobe/vksubmit"
K=12
lib=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$VK_ICD_FILENAMES")
[ -f "$lib" ] || kt_skip "lavapipe's library $lib is missing"
cp "$lib" "$T/libvulkan_lvp.so"
sed "s|$lib|$T/libvulkan_lvp.so|" "$VK_ICD_FILENAMES" >"$T/icd.json"
export VK_ICD_FILENAMES=$T/icd.json VK_DRIVER_FILES=$T/icd.json
export KATRA_TEST_VKCACHE_DIR=$T/cache
printf '#!/bin/sh\necho run >>"%s"\nexec "%s"\n' "$T/runs" "$KT_ROOT/build/katra-vkresolve" \
	>"$T/helper"
chmod 755 "$T/helper"
touch "$T/gate"
sleep 2

capture() # NAME: one capture of vksubmit as a command, checked exact
{
	TRACE=$T/$1.ktrc
	KATRA_TEST_VKRESOLVE=$T/helper timeout -k 5 60 "$REC" -o "$TRACE" -- \
		"$KT_ROOT/build/uprobe/vksubmit" "$T/started" "$T/gate" $K \
		>"$T/$1.out" 2>"$T/$1.err" ||
		kt_fail "capture $1: katra-record failed: $(kt_tail "$T/$1.err")"
	kt_verify
	kt_uptrace vulkan-submit "$TRACE.jsonl" "$T/$1.out"
}
runs() { [ -f "$T/runs" ] && wc -l <"$T/runs" || echo 0; }

capture first
[ "$(runs)" = 1 ] || kt_fail "first capture: helper ran $(runs) times, want 1"
f=$(ls "$T/cache"/vk-* 2>/dev/null | head -n 1)
[ -n "$f" ] || kt_fail "first capture kept no answer in $T/cache"
[ "$(stat -c '%u %a' "$T/cache")" = "0 700" ] || kt_fail "cache dir: $(stat -c '%u %a' "$T/cache")"
[ "$(stat -c '%u %a' "$f")" = "0 600" ] || kt_fail "cache file: $(stat -c '%u %a' "$f")"
capture kept
[ "$(runs)" = 1 ] || kt_fail "nothing changed: helper ran again ($(runs) runs, want 1)"
touch -d '2001-01-01' "$T/libvulkan_lvp.so"
sleep 2
capture library
[ "$(runs)" = 2 ] || kt_fail "driver library changed: helper ran $(runs) times, want 2"
capture kept2
[ "$(runs)" = 2 ] || kt_fail "kept again: helper ran $(runs) times, want 2"
printf ' \n' >>"$T/icd.json"
sleep 2
capture manifest
[ "$(runs)" = 3 ] || kt_fail "manifest changed: helper ran $(runs) times, want 3"
# a helper during whose run the driver library changes
printf '#!/bin/sh\necho run >>"%s"\ntouch "%s"\nexec "%s"\n' "$T/runs" "$T/libvulkan_lvp.so" \
	"$KT_ROOT/build/katra-vkresolve" >"$T/helper"
sleep 2
capture changing
[ "$(runs)" = 4 ] || kt_fail "helper replaced: ran $(runs) times, want 4"
capture changing2
[ "$(runs)" = 5 ] || kt_fail "library changed during the run was kept: helper ran $(runs) times, want 5"
kt_note "helper runs 1,1,2,2,3,4,5 over 7 captures; each exact ($K submits)"
