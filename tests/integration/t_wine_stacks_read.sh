#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_wine_stacks with the probe's fallback TEB offset of Wine's syscall
# frame set to 0 (KATRA_TEST_WINE_FRAME_FALLBACK: a process without an
# entry in wine_frames gets no Windows half): every stack of the chain is
# still joined, so the frame's place came from the ntdll.so the process
# maps (uprobes_frames.c), not from wire.h's constants.
# kt-timeout: 180
KATRA_TEST_WINE_FRAME_FALLBACK=0 exec bash "$(dirname "$0")/t_wine_stacks.sh"
