// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "record/kernel/select.h"

Test(select, classes_map_to_their_syscalls_and_proc_is_always_on)
{
	struct katra_selection s;
	const char *bad;
	size_t n;
	char d[64];

	cr_assert_eq(katra_select_parse("io", &s, &bad, &n), 0);
	cr_assert(katra_select_has_nr(&s, SYS_pread64));
	cr_assert(katra_select_has_nr(&s, SYS_io_uring_enter));
	cr_assert(katra_select_has_nr(&s, SYS_execve), "proc is always on");
	cr_assert_not(katra_select_has_nr(&s, SYS_getppid));
	cr_assert_not(katra_select_has_nr(&s, SYS_futex));
	katra_select_describe(&s, d, sizeof(d));
	cr_assert_str_eq(d, "io,proc");
	cr_assert_eq(katra_select_parse("sync,mem,sched", &s, &bad, &n), 0);
	cr_assert(katra_select_has_nr(&s, SYS_futex));
	cr_assert(katra_select_has_nr(&s, SYS_mmap));
	cr_assert_not(katra_select_has_nr(&s, SYS_read));
	cr_assert(s.classes & KATRA_SEL_SCHED);
	cr_assert_eq(katra_select_parse("syscalls", &s, &bad, &n), 0);
	cr_assert(katra_select_has_nr(&s, SYS_getppid));
	cr_assert_not(s.classes & KATRA_SEL_SCHED);
	cr_assert_eq(katra_select_parse("all", &s, &bad, &n), 0);
	katra_select_describe(&s, d, sizeof(d));
	cr_assert_str_eq(d, "all");
	cr_assert_not(katra_select_has_nr(&s, 600), "out of range is never selected");
}

Test(select, an_unknown_class_is_named)
{
	struct katra_selection s;
	const char *bad = NULL;
	size_t n = 0;

	cr_assert_eq(katra_select_parse("io,disk,mem", &s, &bad, &n), -EINVAL);
	cr_assert_eq(n, 4);
	cr_assert_eq(strncmp(bad, "disk", 4), 0);
	cr_assert_eq(katra_select_parse("io,", &s, &bad, &n), -EINVAL, "an empty class");
}

/* Per-syscall attach (probes_fn.c) needs the kernel function of every
 * syscall a class can select; one without a name would send the whole
 * selection back to the tracepoints. */
Test(select, every_selectable_syscall_names_its_kernel_function)
{
	struct katra_selection s;
	const char *bad = NULL;
	size_t n = 0;

	cr_assert_eq(katra_select_parse("io,sync,mem,proc", &s, &bad, &n), 0);
	for (uint32_t nr = 0; nr < KATRA_SELECT_NR_LIMIT; nr++)
		if (katra_select_has_nr(&s, nr))
			cr_assert_not_null(katra_select_fn_name(nr), "syscall %u has no function name", nr);
	cr_assert_str_eq(katra_select_fn_name(SYS_pread64), "pread64");
	cr_assert_str_eq(katra_select_fn_name(SYS_stat), "newstat");
	cr_assert_str_eq(katra_select_fn_name(SYS_sendfile), "sendfile64");
	cr_assert_null(katra_select_fn_name(SYS_getppid), "not selectable by a class");
}
