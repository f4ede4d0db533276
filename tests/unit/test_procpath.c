// SPDX-License-Identifier: GPL-2.0-only
/* A traced process's paths as seen from here (record/procfs/procpath.h),
 * against a fake /proc whose PID/root links name the roots as d_path would:
 * "/" for the top of a namespace (a container after pivot_root, or ours), the
 * chroot's name from the namespace's top for `unshare -m` + chroot (what
 * tests/proton/enter.sh does; its maps then name "ROOT/tmp/..."). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/procfs/procpath.h"

static char top[64], proc[128];

static void link_root(unsigned pid, const char *target)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%u", proc, pid);
	cr_assert_eq(mkdir(p, 0755), 0, "%s: %s", p, strerror(errno));
	snprintf(p, sizeof(p), "%s/%u/root", proc, pid);
	cr_assert_eq(symlink(target, p), 0, "%s: %s", p, strerror(errno));
}

static void setup(void)
{
	char p[256];

	snprintf(top, sizeof(top), "/tmp/katra-procpath.XXXXXX");
	cr_assert_not_null(mkdtemp(top));
	snprintf(proc, sizeof(proc), "%s/proc", top);
	cr_assert_eq(mkdir(proc, 0755), 0);
	link_root(1, "/");
	link_root(2, "/var/cache/katra-proton/root");
	link_root(3, "/var/cache/katra-proton/root/"); /* a trailing slash */
	/* a chroot whose files are there: TOP/r/tmp/wine-1/server-a-b */
	snprintf(p, sizeof(p), "%s/r", top);
	link_root(4, p);
	snprintf(p, sizeof(p), "%s/r/tmp/wine-1/server-a-b", top);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	cr_assert_eq(system(cmd), 0);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
}

TestSuite(procpath, .init = setup, .fini = teardown);

static void expect_path(unsigned pid, const char *path, const char *rest)
{
	char out[512], want[512];

	cr_assert_eq(katra_proc_path(proc, pid, path, out, sizeof(out)), 0, "%s", path);
	snprintf(want, sizeof(want), "%s/%u/root%s", proc, pid, rest);
	cr_assert_str_eq(out, want);
}

Test(procpath, the_root_name_is_dropped_once)
{
	/* the top of its namespace: the path as it is, below its root */
	expect_path(1, "/tmp/.wine-0/server-1-2", "/tmp/.wine-0/server-1-2");
	/* unshare -m + chroot: maps and the root link both name it from the top */
	expect_path(2, "/var/cache/katra-proton/root/tmp/wine-x/server-2a-a8400f",
		    "/tmp/wine-x/server-2a-a8400f");
	expect_path(3, "/var/cache/katra-proton/root/usr/lib/libvulkan.so.1",
		    "/usr/lib/libvulkan.so.1");
	expect_path(2, "/var/cache/katra-proton/root", "/");
	/* a component boundary, not a text prefix: "root2" is no file of it */
	expect_path(2, "/var/cache/katra-proton/root2/x", "/var/cache/katra-proton/root2/x");
	/* a path outside its root (mapped before the chroot): as it is */
	expect_path(2, "/usr/lib/x.so", "/usr/lib/x.so");
}

Test(procpath, errors)
{
	char out[32];

	cr_assert_eq(katra_proc_path(proc, 2, "relative/x", out, sizeof(out)), -EINVAL);
	cr_assert_eq(katra_proc_path(proc, 9, "/x", out, sizeof(out)), -ENOENT);
	cr_assert_eq(katra_proc_path(proc, 2, "/var/cache/katra-proton/root/a/much/longer/path",
				     out, sizeof(out)), -ENAMETOOLONG);
}

Test(procpath, stat_through_the_root)
{
	char path[256], want[256];
	struct stat st, w;

	snprintf(want, sizeof(want), "%s/r/tmp/wine-1/server-a-b", top);
	cr_assert_eq(stat(want, &w), 0);
	/* named from the top of its namespace: TOP/r/tmp/... */
	cr_assert_eq(katra_proc_stat(proc, 4, want, &st), 0);
	cr_assert(st.st_dev == w.st_dev && st.st_ino == w.st_ino);
	/* named from its root (a container): /tmp/... */
	cr_assert_eq(katra_proc_stat(proc, 4, "/tmp/wine-1/server-a-b", &st), 0);
	cr_assert(st.st_dev == w.st_dev && st.st_ino == w.st_ino);
	/* its root followed: not there is not there, never our file by that name */
	snprintf(path, sizeof(path), "%s/r/tmp/wine-1/none", top);
	cr_assert_eq(katra_proc_stat(proc, 4, path, &st), -ENOENT);
	cr_assert_eq(katra_proc_stat(proc, 4, "/usr", &st), -ENOENT);
	/* no root in the fake tree: the plain path */
	cr_assert_eq(katra_proc_stat(proc, 9, want, &st), 0);
	cr_assert(st.st_dev == w.st_dev && st.st_ino == w.st_ino);
}
