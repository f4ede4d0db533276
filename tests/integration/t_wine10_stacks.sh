#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_wine_stacks under the Proton-class root's Wine 10 (tests/proton/enter.sh),
# traced from the host: the same program and the same assertions
# (tests/wine/lib.sh, KW_WINE=10).
# kt-timeout: 240
KW_WINE=10 exec bash "$(dirname "$0")/t_wine_stacks.sh"
