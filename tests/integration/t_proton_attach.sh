#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `katra-record -p` attached from the host to a Proton-class session already
# running: the D3D11 program (tests/proton/d3d11frames.c) renders frames under
# the root's Wine 10 and DXVK, in a mount namespace of its own and chrooted
# (tests/proton/enter.sh), until told to stop; a few seconds of it are
# recorded by the program's host pid.  Its frames are numbered by the block of
# its data file each one reads.  Exactly (tests/proton/check_attach.py): the
# session is the processes mapping its server directory (the wineserver and
# the program named, no X server); one NtReadFile per frame once the Wine
# layer is on, each served by the Linux read that cites it, and no Linux read
# after the last one but its own (the capture ends at one instant for every
# layer); the program's NtSyscall spans (Wine 10's dispatcher); one
# VulkanQueuePresent per frame on the root's driver once the Vulkan layer is
# on, the last frame's allowed to come after the end; the Vulkan calls
# through winevulkan's thunks named, one vkQueuePresentKHR per present.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
kt_require
. "$KT_ROOT/tests/proton/require.sh"
. "$KT_ROOT/tests/proton/frames.sh"
kt_proton_running d3d11frames.exe
# the capture starts once the uprobes are on and the Vulkan driver is
# resolved in the root (0.5-2.5 s here): what the probes saw before is not
# written, and no longer fills the first drain past the reorder budget
kt_record -p "$prog" -d 4
KT_STOP_TIMEOUT=60 kt_wait_recorder 0
members >"$T/members.after"
comm -12 "$T/members.before" "$T/members.after" >"$T/members"
touch "$W/stop"
kt_wait "$ENTER_PID" 60 || kt_fail "the program did not stop within 60 s of its stop file"
kt_proton_check_attached check_attach.py
# the Vulkan calls through winevulkan's thunks are named from the first one
# after the attach (the library is read then): one vkQueuePresentKHR thunk
# per driver present (tests/proton/check.py unixnames-attached)
kt_proton_unixnames unixnames-attached "$prog"
kt_note "$(kt_tail "$T/check.out"); $(kt_tail "$T/unixnames.out")"
