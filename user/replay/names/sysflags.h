/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbolic forms of the flag words and codes syscall payloads carry, for the
 * text dump: open flags, mmap prot and flags, clone flags, futex ops,
 * madvise advice, dirfd, x86 page-fault error codes.  Values are the x86_64
 * kernel's (asm-generic), not the C library's: O_LARGEFILE is 0100000 here.
 * Each writes one word without spaces; bits it does not name come last as
 * |0xN so nothing is lost. */
#ifndef KATRA_REPLAY_SYSFLAGS_H
#define KATRA_REPLAY_SYSFLAGS_H

#include <stdint.h>
#include <stdio.h>

struct kr_flag {
	uint64_t bits;
	const char *name;
};

/* Names of the set flags joined with '|', then |0xREST; zero as zero_name. */
void kr_put_flags(FILE *f, uint64_t v, const struct kr_flag *tab, unsigned n,
		  const char *zero_name);

void kr_put_open_flags(FILE *f, uint32_t flags);  /* O_RDONLY|O_CLOEXEC */
void kr_put_prot(FILE *f, uint64_t prot);         /* PROT_READ|PROT_WRITE, PROT_NONE */
void kr_put_mmap_flags(FILE *f, uint32_t flags);  /* MAP_PRIVATE|MAP_ANONYMOUS */
void kr_put_clone_flags(FILE *f, uint64_t flags); /* CLONE_VM|...|SIGCHLD */
void kr_put_futex_op(FILE *f, uint32_t op);       /* FUTEX_WAIT_PRIVATE */
void kr_put_madvice(FILE *f, uint64_t advice);    /* MADV_DONTNEED */
void kr_put_dirfd(FILE *f, int32_t dirfd);        /* AT_FDCWD, or the number */
void kr_put_fault_code(FILE *f, uint64_t code);   /* 0x6(write|user) */

#endif
