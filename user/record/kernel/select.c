// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "select.h"

static const struct {
	const char *name;
	uint32_t bit;
} classes[] = {
	{ "io", KATRA_SEL_IO }, { "sync", KATRA_SEL_SYNC }, { "mem", KATRA_SEL_MEM },
	{ "proc", KATRA_SEL_PROC }, { "sched", KATRA_SEL_SCHED },
	{ "syscalls", KATRA_SEL_SYSCALLS }, { "all", KATRA_SEL_ALL },
};

static const int io_nrs[] = {
	SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_readv, SYS_writev, SYS_preadv,
	SYS_pwritev, SYS_preadv2, SYS_pwritev2, SYS_open, SYS_openat, SYS_openat2, SYS_close,
	SYS_creat, SYS_lseek, SYS_fsync, SYS_fdatasync, SYS_sendfile, SYS_splice,
	SYS_copy_file_range, SYS_ioctl, SYS_fcntl, SYS_dup, SYS_dup2, SYS_dup3, SYS_pipe,
	SYS_pipe2, SYS_stat, SYS_fstat, SYS_lstat, SYS_newfstatat, SYS_statx, SYS_getdents64,
	SYS_socket, SYS_connect, SYS_accept, SYS_accept4, SYS_bind, SYS_listen, SYS_sendto,
	SYS_recvfrom, SYS_sendmsg, SYS_recvmsg, SYS_sendmmsg, SYS_recvmmsg, SYS_shutdown,
	SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
};
static const int sync_nrs[] = {
	SYS_futex, SYS_futex_waitv, SYS_epoll_wait, SYS_epoll_pwait, SYS_epoll_pwait2,
	SYS_poll, SYS_ppoll, SYS_select, SYS_pselect6, SYS_nanosleep, SYS_clock_nanosleep,
	SYS_sched_yield, SYS_wait4, SYS_waitid, SYS_eventfd2, SYS_pause, SYS_rt_sigsuspend,
	SYS_rt_sigtimedwait,
};
static const int mem_nrs[] = {
	SYS_mmap, SYS_munmap, SYS_mprotect, SYS_madvise, SYS_mremap, SYS_brk, SYS_msync,
	SYS_mlock, SYS_munlock, SYS_mincore,
};
static const int proc_nrs[] = {
	SYS_clone, SYS_clone3, SYS_fork, SYS_vfork, SYS_execve, SYS_execveat, SYS_exit,
	SYS_exit_group, SYS_kill, SYS_tgkill, SYS_rt_sigreturn,
};

static void add(struct katra_selection *sel, const int *nrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (nrs[i] >= 0 && nrs[i] < KATRA_SELECT_NR_LIMIT)
			sel->nrs[nrs[i] / 64] |= 1ull << (nrs[i] % 64);
}

static void fill_nrs(struct katra_selection *sel)
{
	memset(sel->nrs, 0, sizeof(sel->nrs));
	if (sel->classes & KATRA_SEL_SYSCALLS) {
		memset(sel->nrs, 0xff, sizeof(sel->nrs));
		return;
	}
	if (sel->classes & KATRA_SEL_IO)
		add(sel, io_nrs, sizeof(io_nrs) / sizeof(io_nrs[0]));
	if (sel->classes & KATRA_SEL_SYNC)
		add(sel, sync_nrs, sizeof(sync_nrs) / sizeof(sync_nrs[0]));
	if (sel->classes & KATRA_SEL_MEM)
		add(sel, mem_nrs, sizeof(mem_nrs) / sizeof(mem_nrs[0]));
	if (sel->classes & KATRA_SEL_PROC)
		add(sel, proc_nrs, sizeof(proc_nrs) / sizeof(proc_nrs[0]));
}

void katra_select_all(struct katra_selection *sel)
{
	sel->classes = KATRA_SEL_ALL;
	fill_nrs(sel);
}

int katra_select_parse(const char *spec, struct katra_selection *sel, const char **bad,
		       size_t *bad_len)
{
	const char *p = spec;

	sel->classes = KATRA_SEL_PROC; /* the lifecycle is always recorded */
	do {
		size_t len = strcspn(p, ",");
		size_t i;
		for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			if (strlen(classes[i].name) == len && !strncmp(p, classes[i].name, len))
				break;
		if (i == sizeof(classes) / sizeof(classes[0])) {
			*bad = p;
			*bad_len = len;
			return -EINVAL;
		}
		sel->classes |= classes[i].bit;
		p += len;
	} while (*p++ == ',');
	fill_nrs(sel);
	return 0;
}

bool katra_select_has_nr(const struct katra_selection *sel, uint32_t nr)
{
	return nr < KATRA_SELECT_NR_LIMIT && (sel->nrs[nr / 64] >> (nr % 64) & 1);
}

void katra_select_describe(const struct katra_selection *sel, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	if ((sel->classes & KATRA_SEL_ALL) == KATRA_SEL_ALL) {
		snprintf(buf, cap, "all");
		return;
	}
	for (size_t i = 0; i + 1 < sizeof(classes) / sizeof(classes[0]); i++)
		if (sel->classes & classes[i].bit)
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "",
					      classes[i].name);
}

/* The kernel function behind each syscall a class can select: x86_64 enters
 * syscall NAME through __x64_sys_NAME, except where the kernel's own name
 * differs (the stat family's "new" ABI, sendfile64, ...). */
#define FN(name) { SYS_##name, #name }
static const struct {
	int nr;
	const char *fn;
} fn_names[] = {
	FN(read), FN(write), FN(pread64), FN(pwrite64), FN(readv), FN(writev), FN(preadv),
	FN(pwritev), FN(preadv2), FN(pwritev2), FN(open), FN(openat), FN(openat2), FN(close),
	FN(creat), FN(lseek), FN(fsync), FN(fdatasync), { SYS_sendfile, "sendfile64" },
	FN(splice), FN(copy_file_range), FN(ioctl), FN(fcntl), FN(dup), FN(dup2), FN(dup3),
	FN(pipe), FN(pipe2), { SYS_stat, "newstat" }, { SYS_fstat, "newfstat" },
	{ SYS_lstat, "newlstat" }, FN(newfstatat), FN(statx), FN(getdents64), FN(socket),
	FN(connect), FN(accept), FN(accept4), FN(bind), FN(listen), FN(sendto), FN(recvfrom),
	FN(sendmsg), FN(recvmsg), FN(sendmmsg), FN(recvmmsg), FN(shutdown), FN(io_uring_setup),
	FN(io_uring_enter), FN(io_uring_register),
	FN(futex), FN(futex_waitv), FN(epoll_wait), FN(epoll_pwait), FN(epoll_pwait2), FN(poll),
	FN(ppoll), FN(select), FN(pselect6), FN(nanosleep), FN(clock_nanosleep), FN(sched_yield),
	FN(wait4), FN(waitid), FN(eventfd2), FN(pause), FN(rt_sigsuspend), FN(rt_sigtimedwait),
	FN(mmap), FN(munmap), FN(mprotect), FN(madvise), FN(mremap), FN(brk), FN(msync),
	FN(mlock), FN(munlock), FN(mincore),
	FN(clone), FN(clone3), FN(fork), FN(vfork), FN(execve), FN(execveat), FN(exit),
	FN(exit_group), FN(kill), FN(tgkill), FN(rt_sigreturn),
};

const char *katra_select_fn_name(uint32_t nr)
{
	for (size_t i = 0; i < sizeof(fn_names) / sizeof(fn_names[0]); i++)
		if ((uint32_t)fn_names[i].nr == nr)
			return fn_names[i].fn;
	return NULL;
}
