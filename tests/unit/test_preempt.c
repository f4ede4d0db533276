// SPDX-License-Identifier: GPL-2.0-only
/* user/record/kernel/preempt.c: whether the kernel never preempts kernel
 * code, which lets the syscall tracepoints' programs drop their CPU's busy
 * count with a plain store (bpf/common.bpf.h, katra_idle_tp). */
#include <criterion/criterion.h>

#include "record/kernel/preempt.h"

#define NONE_CFG "\nCONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPTION=y\n"
#define VOL_CFG  "\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n"
#define FULL_CFG "\nCONFIG_PREEMPT=y\nCONFIG_PREEMPT_DYNAMIC=y\n"
#define DYN      "#1 SMP PREEMPT_DYNAMIC @0"

Test(preempt, debugfs_names_the_current_model_in_parentheses)
{
	cr_assert(katra_preempt_never("(none) voluntary full lazy\n", DYN, NULL, FULL_CFG));
	cr_assert(katra_preempt_never("none (voluntary) full lazy\n", DYN, NULL, NULL));
	cr_assert_not(katra_preempt_never("none voluntary (full) lazy\n", DYN, NULL, NONE_CFG));
	cr_assert_not(katra_preempt_never("none voluntary full (lazy)\n", NULL, NULL, NULL));
}

Test(preempt, a_dynamic_kernel_takes_the_boot_choice_then_the_build_default)
{
	/* this project's VM: 6.18, dynamic, none by default, no preempt= */
	cr_assert(katra_preempt_never(NULL, DYN, "\nconsole=ttyS0 quiet panic=1\n", NONE_CFG));
	cr_assert(katra_preempt_never(NULL, DYN, "\nquiet\n", VOL_CFG), "Debian's default");
	cr_assert_not(katra_preempt_never(NULL, DYN, "\nquiet\n", FULL_CFG));
	cr_assert_not(katra_preempt_never(NULL, DYN, "\nquiet preempt=full\n", NONE_CFG));
	cr_assert_not(katra_preempt_never(NULL, DYN, "\npreempt=lazy quiet\n", VOL_CFG));
	cr_assert(katra_preempt_never(NULL, DYN, "\nquiet preempt=voluntary\n", FULL_CFG));
	cr_assert_not(katra_preempt_never(NULL, DYN, "\nnopreempt=none\n", FULL_CFG),
		      "a parameter that only ends in preempt= is another one");
	cr_assert_not(katra_preempt_never(NULL, DYN, "\nquiet\n", NULL), "no config: unknown");
}

Test(preempt, a_static_kernel_says_it_in_uname)
{
	cr_assert(katra_preempt_never(NULL, "#1 SMP Debian 6.1.158-1 (2025-11-09)", NULL, NULL));
	cr_assert_not(katra_preempt_never(NULL, "#1 SMP PREEMPT Tue Jan 6 2026", NULL, NULL));
	cr_assert_not(katra_preempt_never(NULL, "#1 SMP PREEMPT_RT Tue Jan 6 2026", NULL, NULL));
	cr_assert_not(katra_preempt_never(NULL, "#1 SMP PREEMPT_LAZY Tue Jan 6 2026", NULL, NULL));
	cr_assert_not(katra_preempt_never(NULL, NULL, NULL, NONE_CFG), "nothing known");
}
