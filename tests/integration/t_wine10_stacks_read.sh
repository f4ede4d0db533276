#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_wine_stacks_read under the Proton-class root's Wine 10: its ntdll.so,
# inside the root, is read once the process maps it (after the start), and
# every stack of the chain is still joined with the probe's fallback TEB
# offset 0.
# kt-timeout: 240
KATRA_TEST_WINE_FRAME_FALLBACK=0 KW_WINE=10 exec bash "$(dirname "$0")/t_wine_stacks.sh"
