// SPDX-License-Identifier: GPL-2.0-only
/* A root process in a root of its own that cannot leave it (t_vk_jail): a
 * mount namespace of its own, chroot ROOT, every capability dropped (the
 * bounding set too) and no_new_privs, uid 0 kept.  It checks that it cannot
 * leave its root itself (the chroot trick needs CAP_SYS_CHROOT), maps
 * LOADER (a file named like the Vulkan loader, inside ROOT) executable, says
 * so in ROOT/ready (its pid, then "confined"), then waits for ROOT/end (at
 * most SECONDS) and exits 0.
 *
 * usage: vkjail ROOT LOADER SECONDS */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "vkjail: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0))
			die("PR_CAPBSET_DROP");
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		die("capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("prctl");
}

int main(int argc, char **argv)
{
	struct stat st;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: vkjail ROOT LOADER SECONDS\n");
		return 2;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("unshare -m");
	if (chroot(argv[1]) || chdir("/"))
		die("chroot");
	drop_caps();
	/* it cannot leave its root itself */
	if (mkdir("/vkjail-x", 0700) && errno != EEXIST)
		die("mkdir");
	if (!chroot("/vkjail-x") || errno != EPERM) {
		fprintf(stderr, "vkjail: chroot with no capabilities did not fail with EPERM\n");
		return 1;
	}
	rmdir("/vkjail-x");
	int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die(argv[2]);
	if (mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		die("mmap");
	f = fopen("/ready.tmp", "w");
	if (!f || fprintf(f, "%d\nconfined\n", getpid()) < 0 || fclose(f) ||
	    rename("/ready.tmp", "/ready"))
		die("/ready");
	for (int i = 0; i < atoi(argv[3]) * 20 && access("/end", F_OK); i++)
		usleep(50000);
	return 0;
}
