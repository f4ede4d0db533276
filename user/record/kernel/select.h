/* SPDX-License-Identifier: GPL-2.0-only */
/* Event selection (-e CLASS[,CLASS...]), like perf's and bpftrace's: which
 * syscalls and which probe layers a capture records.  The syscall part is a
 * bitmap the BPF programs read, so an unselected syscall costs only the
 * filter; unselected layers are not loaded at all.  Pure: unit-tested. */
#ifndef KATRA_RECORD_SELECT_H
#define KATRA_RECORD_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KATRA_SELECT_NR_LIMIT 512

enum katra_select_class {
	KATRA_SEL_IO = 1 << 0,       /* file and socket syscalls, io_uring */
	KATRA_SEL_SYNC = 1 << 1,     /* futex, waits, polls, sleeps */
	KATRA_SEL_MEM = 1 << 2,      /* the mmap family, page faults */
	KATRA_SEL_PROC = 1 << 3,     /* fork/exec/exit (the lifecycle is always on) */
	KATRA_SEL_SCHED = 1 << 4,    /* context switches, wakeups */
	KATRA_SEL_SYSCALLS = 1 << 5, /* every syscall */
	KATRA_SEL_ALL = (1 << 6) - 1,
};

struct katra_selection {
	uint32_t classes;                             /* enum katra_select_class bits */
	uint64_t nrs[KATRA_SELECT_NR_LIMIT / 64];     /* x86_64 syscalls recorded */
};

/* Parses "io,sync" (names above, or "all"); 0 or -EINVAL with the bad word
 * in *bad (pointing into spec, *bad_len bytes). */
int katra_select_parse(const char *spec, struct katra_selection *sel, const char **bad,
		       size_t *bad_len);
/* Every class: what a capture records by default. */
void katra_select_all(struct katra_selection *sel);
bool katra_select_has_nr(const struct katra_selection *sel, uint32_t nr);
/* "io,proc" (canonical order) into buf. */
void katra_select_describe(const struct katra_selection *sel, char *buf, size_t cap);

/* The kernel's name for syscall nr, as in __x64_sys_NAME ("pread64",
 * "newstat"), for every syscall a class selects; NULL for the others. */
const char *katra_select_fn_name(uint32_t nr);

#endif
