#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# D3D12 in the Proton-class session, traced from the host: the D3D12 program
# (tests/proton/d3d12frames.c) renders N frames under the root's Wine 10,
# whose d3d12 is vkd3d (built into Wine's d3d12.dll) on the root's lavapipe,
# with Wine's own dxgi (the prefix's dxgi is DXVK's, which has no D3D12
# swapchain: dxgi=b), in a mount namespace of its own and chrooted
# (tests/proton/enter.sh), with `katra-record -- enter.sh ...` on the host.
# Against the program's own counters (tests/proton/check.py d3d12): exactly
# N NtReadFile spans of 4096 bytes on its data file's handle, each served by
# the Linux read that cites it; exactly N VulkanQueuePresent spans on the
# root's driver, and one more when the program's final flush Present (which
# makes the last frame's present certain: d3d12frames.c) was presented
# before Wine's dxgi dropped it at the swapchain's release; exactly 5N
# VulkanQueueSubmit spans on the same queue (and the flush's): each
# ExecuteCommandLists is one vkQueueSubmit, and so is each queue Signal
# (the program's fence, dxgi's present and frame latency fences) and dxgi's
# blit to the Vulkan swapchain image (counted with VKD3D_DEBUG=trace; the
# trace cannot tell them apart: see check.py); exactly N NtWait spans on the
# fence's event, each status 0, those that blocked (read their wait pipe)
# ending citing the wineserver call of the NtSetEvent that released them
# (vkd3d's fence thread), the others nothing.  stats --per-frame finds the
# program's swapchain with those presents, one in each Frame epoch.  The
# D3D12 calls themselves (scope D3d12Vkd3d, check.py check_d3d12_calls):
# exactly N ExecuteCommandLists on the program's queue, its fence signalled
# to 1..N and SetEventOnCompletion at 1..N on its event, each cited by the
# fence wait it released, 3N queue Signals in all (and the flush's); every
# submit vkd3d makes inside an ExecuteCommandLists reaches it through the
# WinToUnix it is in; and dump, stats --calls and export name them.
# kt-timeout: 240
. "$(dirname "$0")/lib.sh"
kt_require
N=60
. "$KT_ROOT/tests/proton/require.sh"
. "$KT_ROOT/tests/proton/frames.sh"
export KATRA_DLL_OVERRIDES=dxgi=b
kt_proton_frames d3d12frames.exe $N d3d12
kt_proton_d3d12_names "$pid"
kt_note "$(kt_tail "$T/check.out"); $(kt_tail "$T/d3d12names.out"); stats --per-frame: $(kt_tail "$T/perframe.out")"
