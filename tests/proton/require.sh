# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the t_proton_* integration tests (after lib.sh and kt_require):
# skips without mingw or the Proton-class root, builds the Windows programs,
# and makes the work directory W (seen inside the root as /mnt) holding
# d3d11frames.exe and d3d12frames.exe.  Sets cache (the root's cache directory) and W.
command -v "${MINGW_CC:-x86_64-w64-mingw32-gcc}" >/dev/null ||
	kt_skip "mingw is not installed (ci/install-deps.sh installs gcc-mingw-w64-x86-64)"
cache=${KATRA_PROTON_CACHE:-/var/cache/katra-proton}
# make test builds the root before the tests (make proton-root-try: minutes,
# longer than a test may take); here it is only found
if [ ! -e "$cache/root/.katra-proton-complete" ]; then
	why="not built (make proton-root)"
	[ -s "$cache/last-error" ] && why=$(kt_tail "$cache/last-error")
	kt_skip "the Proton-class root: $why"
fi
make -s -C "$KT_ROOT" proton-progs >"$T/make.out" 2>&1 ||
	kt_fail "make proton-progs failed: $(kt_tail "$T/make.out" 2)"
W=$T/work
mkdir -p "$W"
cp "$KT_ROOT/build/proton/d3d11frames.exe" "$KT_ROOT/build/proton/d3d12frames.exe" "$W/"
