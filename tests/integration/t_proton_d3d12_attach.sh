#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `katra-record -p` attached from the host to the D3D12 program
# (tests/proton/d3d12frames.c: Wine 10's d3d12 on vkd3d, Wine's own dxgi:
# dxgi=b, as t_proton_d3d12) already rendering in its Proton-class root
# (tests/proton/enter.sh), recorded by its host pid until its session has
# exited: the program is told to stop a few seconds into the capture.  Its
# frames are numbered by the block of its data file each one reads.
# Exactly, from the first frame after the attach to the last
# (tests/proton/check_attach12.py): the session's processes; one
# NtReadFile per frame, each served by the Linux read that cites it; one
# NtWait on the fence's event per frame, those that blocked citing their
# NtSetEvent; one VulkanQueuePresent per frame and the flush's (or not: Wine's
# dxgi may drop it); 5 VulkanQueueSubmit per frame; one Frame epoch after
# each present.  Calls in flight at the attach (their Begin unseen) are
# Instants, not spans: the checks count from the first frame whose calls the
# capture holds whole.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
kt_require
. "$KT_ROOT/tests/proton/require.sh"
. "$KT_ROOT/tests/proton/frames.sh"
export KATRA_DLL_OVERRIDES=dxgi=b
kt_proton_running d3d12frames.exe
# the capture ends when the session has exited (-d: a bound): the program
# is stopped inside it, so its last frames, its flush Present and its exit
# are in it (the counts are exact to the end)
kt_record -p "$prog" -d 60
sleep 3 # frames in the capture
touch "$W/stop"
kt_wait "$ENTER_PID" 60 || kt_fail "the program did not stop within 60 s of its stop file"
KT_STOP_TIMEOUT=60 kt_wait_recorder 0
cp "$T/members.before" "$T/members"
kt_proton_check_attached check_attach12.py
kt_note "$(kt_tail "$T/check.out")"
