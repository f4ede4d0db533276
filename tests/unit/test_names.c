// SPDX-License-Identifier: GPL-2.0-only
/* Names for the numbers a trace carries (user/replay/sysnames.c,
 * sysflags.c, syscall_table_*.c): the x86_64 and i386 syscall tables against
 * the kernel headers they were generated from, task states as the kernel
 * reports them, errno names, and each flag decoder on known words. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/names/sysflags.h"
#include "replay/names/sysnames.h"

static char *text_of(void (*fn)(FILE *, uint64_t), uint64_t v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f, v);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

#define FLAG_ADAPTER(name, fn, type)                 \
	static void name(FILE *f, uint64_t v)        \
	{                                            \
		fn(f, (type)v);                      \
	}
FLAG_ADAPTER(open_flags, kr_put_open_flags, uint32_t)
FLAG_ADAPTER(prot, kr_put_prot, uint64_t)
FLAG_ADAPTER(mmap_flags, kr_put_mmap_flags, uint32_t)
FLAG_ADAPTER(clone_flags, kr_put_clone_flags, uint64_t)
FLAG_ADAPTER(futex_op, kr_put_futex_op, uint32_t)
FLAG_ADAPTER(madvice, kr_put_madvice, uint64_t)
FLAG_ADAPTER(dirfd, kr_put_dirfd, int32_t)
FLAG_ADAPTER(fault, kr_put_fault_code, uint64_t)

static void expect_text(void (*fn)(FILE *, uint64_t), uint64_t v, const char *want)
{
	char *got = text_of(fn, v);

	cr_expect_str_eq(got, want, "0x%llx: got %s, want %s", (unsigned long long)v, got, want);
	free(got);
}

/* ---- syscall names ---- */

Test(names_syscall, x86_64_numbers)
{
	char buf[KR_SYSNAME_BUF];

	cr_assert_str_eq(kr_syscall_name(0, buf), "read");
	cr_assert_str_eq(kr_syscall_name(1, buf), "write");
	cr_assert_str_eq(kr_syscall_name(12, buf), "brk");
	cr_assert_str_eq(kr_syscall_name(61, buf), "wait4");
	cr_assert_str_eq(kr_syscall_name(202, buf), "futex");
	cr_assert_str_eq(kr_syscall_name(231, buf), "exit_group");
	cr_assert_str_eq(kr_syscall_name(257, buf), "openat");
	cr_assert_str_eq(kr_syscall_name(435, buf), "clone3");
	cr_assert_str_eq(kr_syscall_name(450, buf), "set_mempolicy_home_node");
}

Test(names_syscall, i386_bit_selects_the_i386_table)
{
	char buf[KR_SYSNAME_BUF];

	cr_assert_str_eq(kr_syscall_name(KR_NR_I386 | 3, buf), "i386:read");
	cr_assert_str_eq(kr_syscall_name(KR_NR_I386 | 5, buf), "i386:open");
	cr_assert_str_eq(kr_syscall_name(KR_NR_I386 | 1, buf), "i386:exit");
	cr_assert_str_eq(kr_syscall_name(KR_NR_I386 | 240, buf), "i386:futex");
	cr_assert_str_eq(kr_syscall_name(KR_NR_I386 | 252, buf), "i386:exit_group");
}

Test(names_syscall, unknown_and_unnamed_numbers)
{
	char buf[KR_SYSNAME_BUF];

	cr_assert_str_eq(kr_syscall_name(KR_NR_UNKNOWN, buf), "unknown");
	cr_assert_str_eq(kr_syscall_name(99999, buf), "syscall_99999");
	cr_assert_str_eq(kr_syscall_name(KR_NR_I386 | 99999, buf), "i386:syscall_99999");
	/* 335..423 are a hole in the x86_64 table */
	cr_assert_str_eq(kr_syscall_name(400, buf), "syscall_400");
}

/* Every name in the checked-in tables agrees with the header it came from
 * (headers only add numbers over time, so a newer header still agrees). */
static void agree_with_header(const char *path, const char *const *tab, unsigned len)
{
	FILE *f = fopen(path, "r");
	char line[256], name[128];
	unsigned nr, seen = 0, named = 0;

	if (!f)
		cr_skip_test("%s missing (linux-libc-dev not installed)", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "#define __NR_%127s %u", name, &nr) != 2)
			continue;
		if (nr >= len)
			continue; /* newer than the table */
		cr_assert_not_null(tab[nr], "%s: %s (%u) missing from the table", path, name, nr);
		cr_assert_str_eq(tab[nr], name, "%s: %u is %s, the table says %s", path, nr, name,
				 tab[nr]);
		seen++;
	}
	fclose(f);
	for (unsigned i = 0; i < len; i++)
		named += tab[i] != NULL;
	cr_assert_eq(seen, named, "%s: %u names in the header, %u in the table", path, seen, named);
	cr_assert_gt(seen, 300);
}

Test(names_syscall, tables_agree_with_the_kernel_headers)
{
	agree_with_header("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", kr_syscalls_x86_64,
			  kr_syscalls_x86_64_len);
	agree_with_header("/usr/include/x86_64-linux-gnu/asm/unistd_32.h", kr_syscalls_i386,
			  kr_syscalls_i386_len);
}

/* ---- task states ---- */

Test(names_state, raw_state_as_the_kernel_reports_it)
{
	static const struct { uint64_t raw; char want; } cases[] = {
		{ 0x0, 'R' },	 /* runnable: preempted */
		{ 0x1, 'S' },	 /* TASK_INTERRUPTIBLE */
		{ 0x2, 'D' },	 /* TASK_UNINTERRUPTIBLE */
		{ 0x102, 'D' },	 /* TASK_KILLABLE = WAKEKILL | UNINTERRUPTIBLE */
		{ 0x2102, 'D' }, /* ... | TASK_FREEZABLE */
		{ 0x2001, 'S' }, /* freezable interruptible sleep */
		{ 0x402, 'I' },	 /* TASK_IDLE = UNINTERRUPTIBLE | NOLOAD */
		{ 0x401, 'S' },	 /* NOLOAD alone is no idle */
		{ 0x4, 'T' },	 /* __TASK_STOPPED */
		{ 0x104, 'T' },	 /* TASK_STOPPED = WAKEKILL | __TASK_STOPPED */
		{ 0x8, 't' },	 /* __TASK_TRACED */
		{ 0x10, 'X' },	 /* EXIT_DEAD */
		{ 0x20, 'Z' },	 /* EXIT_ZOMBIE */
		{ 0x40, 'P' },	 /* TASK_PARKED */
		{ 0x80, 'X' },	 /* TASK_DEAD (raw state, not the report encoding's I) */
		{ 0x1000, 'D' }, /* TASK_RTLOCK_WAIT */
		{ 0x3, 'D' },	 /* two report bits: the highest wins (fls) */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(kr_task_state(cases[i].raw), cases[i].want, "0x%llx: got %c want %c",
			     (unsigned long long)cases[i].raw, kr_task_state(cases[i].raw),
			     cases[i].want);
	cr_assert_str_eq(kr_task_state_word('R'), "preempted");
	cr_assert_str_eq(kr_task_state_word('S'), "sleeping");
	cr_assert_str_eq(kr_task_state_word('D'), "uninterruptible");
	cr_assert_str_eq(kr_task_state_word('I'), "idle");
	cr_assert_str_eq(kr_task_state_word('?'), "?");
}

Test(names_errno, names_only_inside_the_error_range)
{
	cr_assert_str_eq(kr_errno_name(2), "ENOENT");
	cr_assert_str_eq(kr_errno_name(11), "EAGAIN");
	cr_assert_str_eq(kr_errno_name(110), "ETIMEDOUT");
	cr_assert_null(kr_errno_name(0));
	cr_assert_null(kr_errno_name(-2));
	cr_assert_null(kr_errno_name(4096));
}

/* ---- flags ---- */

Test(names_flags, open_flags)
{
	expect_text(open_flags, 0, "O_RDONLY");
	expect_text(open_flags, 02000000, "O_RDONLY|O_CLOEXEC");
	expect_text(open_flags, 01101, "O_WRONLY|O_CREAT|O_TRUNC");
	expect_text(open_flags, 02 | 04010000, "O_RDWR|O_SYNC");
	expect_text(open_flags, 010000, "O_RDONLY|O_DSYNC");
	expect_text(open_flags, 02 | 020200000, "O_RDWR|O_TMPFILE");
	expect_text(open_flags, 0200000 | 0400000 | 02000000 | 04000,
		    "O_RDONLY|O_NONBLOCK|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC");
	expect_text(open_flags, 0100000 | 010000000, "O_RDONLY|O_LARGEFILE|O_PATH");
	expect_text(open_flags, 3, "O_ACCMODE");
	expect_text(open_flags, 0x40000000 | 1, "O_WRONLY|0x40000000");
}

Test(names_flags, prot)
{
	expect_text(prot, 0, "PROT_NONE");
	expect_text(prot, 1, "PROT_READ");
	expect_text(prot, 3, "PROT_READ|PROT_WRITE");
	expect_text(prot, 5, "PROT_READ|PROT_EXEC");
	expect_text(prot, 0x01000003, "PROT_READ|PROT_WRITE|PROT_GROWSDOWN");
	expect_text(prot, 0x10, "0x10");
}

Test(names_flags, mmap_flags)
{
	expect_text(mmap_flags, 0x22, "MAP_PRIVATE|MAP_ANONYMOUS");
	expect_text(mmap_flags, 0x02, "MAP_PRIVATE");
	expect_text(mmap_flags, 0x11, "MAP_SHARED|MAP_FIXED");
	expect_text(mmap_flags, 0x802, "MAP_PRIVATE|MAP_DENYWRITE");
	expect_text(mmap_flags, 0x20022, "MAP_PRIVATE|MAP_ANONYMOUS|MAP_STACK");
	expect_text(mmap_flags, 0x100012, "MAP_PRIVATE|MAP_FIXED|MAP_FIXED_NOREPLACE");
	expect_text(mmap_flags, 0x40022 | (21u << 26),
		    "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|MAP_HUGE_2MB");
	expect_text(mmap_flags, 0x40022 | (30u << 26),
		    "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|MAP_HUGE_1GB");
	expect_text(mmap_flags, 0x4000022, "MAP_PRIVATE|MAP_ANONYMOUS|MAP_UNINITIALIZED");
	expect_text(mmap_flags, 0x03, "MAP_SHARED_VALIDATE");
	expect_text(mmap_flags, 0x0e, "0xe");
}

Test(names_flags, clone_flags)
{
	expect_text(clone_flags, 0x1200011,
		    "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	/* glibc's pthread_create */
	expect_text(clone_flags, 0x3d0f00,
		    "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
		    "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID");
	expect_text(clone_flags, 0x4111, "CLONE_VM|CLONE_VFORK|SIGCHLD");
	expect_text(clone_flags, 17, "SIGCHLD");
	expect_text(clone_flags, 9, "signal=9");
	expect_text(clone_flags, 0, "0");
	expect_text(clone_flags, 0x200000000ull | 0x10000000, "CLONE_NEWUSER|CLONE_INTO_CGROUP");
}

Test(names_flags, futex_ops)
{
	expect_text(futex_op, 0, "FUTEX_WAIT");
	expect_text(futex_op, 128, "FUTEX_WAIT_PRIVATE");
	expect_text(futex_op, 129, "FUTEX_WAKE_PRIVATE");
	expect_text(futex_op, 9 | 128 | 256, "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME");
	expect_text(futex_op, 13, "FUTEX_LOCK_PI2");
	expect_text(futex_op, 99, "FUTEX_99");
	expect_text(futex_op, 0x1000 | 1, "FUTEX_WAKE|0x1000");
}

Test(names_flags, madvise_dirfd_and_fault_codes)
{
	expect_text(madvice, 4, "MADV_DONTNEED");
	expect_text(madvice, 8, "MADV_FREE");
	expect_text(madvice, 14, "MADV_HUGEPAGE");
	expect_text(madvice, 100, "MADV_HWPOISON");
	expect_text(madvice, 7, "7");
	expect_text(dirfd, (uint64_t)(uint32_t)-100, "AT_FDCWD");
	expect_text(dirfd, 5, "5");
	expect_text(fault, 0, "0x0");
	expect_text(fault, 0x6, "0x6(write|user)");
	expect_text(fault, 0x14, "0x14(user|fetch)");
	expect_text(fault, 0x7, "0x7(prot|write|user)");
	expect_text(fault, 0x10004, "0x10004(user|0x10000)");
}
