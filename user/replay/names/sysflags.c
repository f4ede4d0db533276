// SPDX-License-Identifier: GPL-2.0-only
/* Flag and code names for the text dump (see sysflags.h). */
#include <stdbool.h>

#include "replay/util/out.h"
#include "sysflags.h"

#define N(t) (sizeof(t) / sizeof((t)[0]))

static void put_hex(FILE *f, uint64_t v)
{
	fprintf(f, "0x%llx", (unsigned long long)v);
}

void kr_put_flags(FILE *f, uint64_t v, const struct kr_flag *tab, unsigned n,
		  const char *zero_name)
{
	bool any = false;

	if (!v) {
		if (zero_name)
			kr_s(f, zero_name);
		else
			putc('0', f);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		if ((v & tab[i].bits) != tab[i].bits)
			continue;
		if (any)
			putc('|', f);
		kr_s(f, tab[i].name);
		v &= ~tab[i].bits;
		any = true;
	}
	if (v) {
		if (any)
			putc('|', f);
		put_hex(f, v);
	}
}

/* Multi-bit names first: O_SYNC is __O_SYNC|O_DSYNC, O_TMPFILE is
 * __O_TMPFILE|O_DIRECTORY. */
static const struct kr_flag open_flags[] = {
	{ 04010000, "O_SYNC" },   { 020200000, "O_TMPFILE" }, { 0100, "O_CREAT" },
	{ 0200, "O_EXCL" },       { 0400, "O_NOCTTY" },       { 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" },    { 04000, "O_NONBLOCK" },    { 010000, "O_DSYNC" },
	{ 020000, "O_ASYNC" },    { 040000, "O_DIRECT" },     { 0100000, "O_LARGEFILE" },
	{ 0200000, "O_DIRECTORY" }, { 0400000, "O_NOFOLLOW" }, { 01000000, "O_NOATIME" },
	{ 02000000, "O_CLOEXEC" }, { 010000000, "O_PATH" },
};

void kr_put_open_flags(FILE *f, uint32_t flags)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };

	kr_s(f, acc[flags & 3]);
	if (flags & ~3u) {
		putc('|', f);
		kr_put_flags(f, flags & ~3u, open_flags, N(open_flags), NULL);
	}
}

static const struct kr_flag prot_flags[] = {
	{ 0x1, "PROT_READ" }, { 0x2, "PROT_WRITE" }, { 0x4, "PROT_EXEC" }, { 0x8, "PROT_SEM" },
	{ 0x01000000, "PROT_GROWSDOWN" }, { 0x02000000, "PROT_GROWSUP" },
};

void kr_put_prot(FILE *f, uint64_t prot)
{
	kr_put_flags(f, prot, prot_flags, N(prot_flags), "PROT_NONE");
}

static const struct kr_flag map_flags[] = {
	{ 0x10, "MAP_FIXED" },       { 0x20, "MAP_ANONYMOUS" },     { 0x40, "MAP_32BIT" },
	{ 0x100, "MAP_GROWSDOWN" },  { 0x800, "MAP_DENYWRITE" },    { 0x1000, "MAP_EXECUTABLE" },
	{ 0x2000, "MAP_LOCKED" },    { 0x4000, "MAP_NORESERVE" },   { 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" }, { 0x20000, "MAP_STACK" },      { 0x40000, "MAP_HUGETLB" },
	{ 0x80000, "MAP_SYNC" },     { 0x100000, "MAP_FIXED_NOREPLACE" },
};

void kr_put_mmap_flags(FILE *f, uint32_t flags)
{
	static const char *const type[] = { "0", "MAP_SHARED", "MAP_PRIVATE",
					    "MAP_SHARED_VALIDATE" };
	uint32_t rest = flags & ~0xfu, huge = 0;
	bool uninit = false;

	if (flags & 0xc)
		put_hex(f, flags & 0xf); /* not a valid MAP_TYPE */
	else
		kr_s(f, type[flags & 3]);
	/* with MAP_HUGETLB, bits 26-31 are log2 of the page size */
	if ((flags & 0x40000) && (flags >> 26)) {
		huge = flags >> 26;
		rest &= (1u << 26) - 1;
	} else if (rest & 0x4000000) {
		rest &= ~0x4000000u;
		uninit = true;
	}
	if (rest) {
		putc('|', f);
		kr_put_flags(f, rest, map_flags, N(map_flags), NULL);
	}
	if (uninit)
		kr_s(f, "|MAP_UNINITIALIZED");
	if (huge == 21)
		kr_s(f, "|MAP_HUGE_2MB");
	else if (huge == 30)
		kr_s(f, "|MAP_HUGE_1GB");
	else if (huge)
		fprintf(f, "|MAP_HUGE_SHIFT+%u", huge);
}

static const struct kr_flag clone_flags[] = {
	{ 0x100, "CLONE_VM" },
	{ 0x200, "CLONE_FS" },
	{ 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" },
	{ 0x1000, "CLONE_PIDFD" },
	{ 0x2000, "CLONE_PTRACE" },
	{ 0x4000, "CLONE_VFORK" },
	{ 0x8000, "CLONE_PARENT" },
	{ 0x10000, "CLONE_THREAD" },
	{ 0x20000, "CLONE_NEWNS" },
	{ 0x40000, "CLONE_SYSVSEM" },
	{ 0x80000, "CLONE_SETTLS" },
	{ 0x100000, "CLONE_PARENT_SETTID" },
	{ 0x200000, "CLONE_CHILD_CLEARTID" },
	{ 0x400000, "CLONE_DETACHED" },
	{ 0x800000, "CLONE_UNTRACED" },
	{ 0x1000000, "CLONE_CHILD_SETTID" },
	{ 0x2000000, "CLONE_NEWCGROUP" },
	{ 0x4000000, "CLONE_NEWUTS" },
	{ 0x8000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" },
	{ 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" },
	{ 0x80000000, "CLONE_IO" },
	{ 0x100000000ull, "CLONE_CLEAR_SIGHAND" },
	{ 0x200000000ull, "CLONE_INTO_CGROUP" },
};

/* The low byte of clone(2)'s flags is the signal sent to the parent at exit. */
void kr_put_clone_flags(FILE *f, uint64_t flags)
{
	uint64_t sig = flags & 0xff, rest = flags & ~0xffull;

	if (!flags) {
		putc('0', f);
		return;
	}
	if (rest)
		kr_put_flags(f, rest, clone_flags, N(clone_flags), NULL);
	if (rest && sig)
		putc('|', f);
	if (sig == 17)
		kr_s(f, "SIGCHLD");
	else if (sig)
		fprintf(f, "signal=%u", (unsigned)sig);
}

void kr_put_futex_op(FILE *f, uint32_t op)
{
	static const char *const cmds[] = {
		"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
		"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
		"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
		"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
	};
	uint32_t cmd = op & 127, rest = op & ~(127u | 128u | 256u);

	if (cmd < N(cmds))
		kr_s(f, cmds[cmd]);
	else
		fprintf(f, "FUTEX_%u", cmd);
	if (op & 128)
		kr_s(f, "_PRIVATE");
	if (op & 256)
		kr_s(f, "|FUTEX_CLOCK_REALTIME");
	if (rest)
		fprintf(f, "|0x%x", rest);
}

void kr_put_madvice(FILE *f, uint64_t a)
{
	static const char *const names[] = {
		[0] = "MADV_NORMAL",	    [1] = "MADV_RANDOM",      [2] = "MADV_SEQUENTIAL",
		[3] = "MADV_WILLNEED",	    [4] = "MADV_DONTNEED",    [8] = "MADV_FREE",
		[9] = "MADV_REMOVE",	    [10] = "MADV_DONTFORK",   [11] = "MADV_DOFORK",
		[12] = "MADV_MERGEABLE",    [13] = "MADV_UNMERGEABLE", [14] = "MADV_HUGEPAGE",
		[15] = "MADV_NOHUGEPAGE",   [16] = "MADV_DONTDUMP",   [17] = "MADV_DODUMP",
		[18] = "MADV_WIPEONFORK",   [19] = "MADV_KEEPONFORK", [20] = "MADV_COLD",
		[21] = "MADV_PAGEOUT",	    [22] = "MADV_POPULATE_READ",
		[23] = "MADV_POPULATE_WRITE", [24] = "MADV_DONTNEED_LOCKED",
		[25] = "MADV_COLLAPSE",
	};

	if (a < N(names) && names[a])
		kr_s(f, names[a]);
	else if (a == 100)
		kr_s(f, "MADV_HWPOISON");
	else if (a == 101)
		kr_s(f, "MADV_SOFT_OFFLINE");
	else
		kr_u64(f, a);
}

void kr_put_dirfd(FILE *f, int32_t dirfd)
{
	if (dirfd == -100)
		kr_s(f, "AT_FDCWD");
	else
		kr_i64(f, dirfd);
}

/* x86 page-fault error code bits (arch/x86/include/asm/trap_pf.h) */
static const struct kr_flag fault_bits[] = {
	{ 0x1, "prot" },   { 0x2, "write" }, { 0x4, "user" },  { 0x8, "rsvd" },
	{ 0x10, "fetch" }, { 0x20, "pkey" }, { 0x40, "shstk" }, { 0x8000, "sgx" },
};

void kr_put_fault_code(FILE *f, uint64_t code)
{
	put_hex(f, code);
	if (!code)
		return;
	putc('(', f);
	kr_put_flags(f, code, fault_bits, N(fault_bits), NULL);
	putc(')', f);
}
