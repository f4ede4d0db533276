// SPDX-License-Identifier: GPL-2.0-only
/* A stand-in ELF interpreter planted in vkjail's root at the path the
 * resolver names (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2; t_vk_jail).
 * Whoever execs a dynamic program in that root runs this first.  It tries to
 * leave the root (mkdir x; chroot x; chdir .. until the top; chroot .) and,
 * if that works (it runs with CAP_SYS_CHROOT), writes MARKER, a host path;
 * otherwise it writes /ran (inside the root it is in) with the chroot's
 * errno.  Then it exits 1.  No libc (it runs as another program's
 * interpreter): raw x86-64 system calls.  Built with -DMARKER='"PATH"'. */
#include <fcntl.h>
#include <sys/syscall.h>

static long sys3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static unsigned long len(const char *s)
{
	unsigned long n = 0;
	while (s[n])
		n++;
	return n;
}

static void put(const char *path, const char *text, long err)
{
	char buf[64];
	unsigned long n = len(text), k = 0;
	long fd = sys3(SYS_open, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return;
	for (; k < n && k < sizeof(buf) - 8; k++)
		buf[k] = text[k];
	if (err) { /* " errno N\n" with N < 1000 */
		const char *e = " errno ";
		for (unsigned long i = 0; e[i]; i++)
			buf[k++] = e[i];
		if (err >= 100)
			buf[k++] = (char)('0' + err / 100);
		if (err >= 10)
			buf[k++] = (char)('0' + err / 10 % 10);
		buf[k++] = (char)('0' + err % 10);
	}
	buf[k++] = '\n';
	sys3(SYS_write, fd, (long)buf, (long)k);
	sys3(SYS_close, fd, 0, 0);
}

__attribute__((force_align_arg_pointer, noreturn)) void _start(void)
{
	long r;

	sys3(SYS_mkdir, (long)"/vkjail-x", 0700, 0);
	r = sys3(SYS_chroot, (long)"/vkjail-x", 0, 0);
	if (r == 0) {
		for (int i = 0; i < 64; i++)
			sys3(SYS_chdir, (long)"..", 0, 0);
		sys3(SYS_chroot, (long)".", 0, 0);
		put(MARKER, "escaped", 0);
	} else {
		put("/ran", "confined: chroot:", -r);
	}
	for (;;)
		sys3(SYS_exit_group, 1, 0, 0);
}
