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
#include <sys/sysmacros.h>
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

/* ---- the opener: a fake /proc whose PID 5's root is TOP/j, a root that
 * plants what a traced process could (a FIFO, a device, links out) ---- */

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* TOP/secret "HOST" (ours), TOP/j/TOP/secret "ROOT" (the root's own copy,
 * named as ours is), TOP/j/lib/ (where it names its files) */
static void plant(char *j, size_t cap)
{
	char p[512], cmd[1024];

	snprintf(j, cap, "%s/j", top);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/lib' '%s%s'", j, j, top);
	cr_assert_eq(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/secret", top);
	put(p, "HOST");
	snprintf(p, sizeof(p), "%s%s/secret", j, top);
	put(p, "ROOT");
	snprintf(p, sizeof(p), "%s/lib/plain.so", j);
	put(p, "PLAIN");
	link_root(5, j);
}

/* What the opener gives for the path PID 5 names: its rc, and the first
 * bytes read from the fd (as parsed: from the fd, never by name) */
static int open5(const char *path, unsigned flags, uint64_t dev, uint64_t ino, char *got,
		 size_t cap)
{
	struct stat st;
	int fd, rc = katra_proc_open(proc, 5, path, flags, dev, ino, &fd, &st);

	got[0] = '\0';
	if (rc) {
		cr_assert_eq(fd, -1);
		return rc;
	}
	ssize_t n = pread(fd, got, cap - 1, 0);
	got[n > 0 ? n : 0] = '\0';
	close(fd);
	return 0;
}

/* each opener test twice: by openat2, then by the walk */
#define BOTH_WAYS(name)                                                      \
	static void name##_body(void);                                       \
	Test(procpath, name##_openat2, .timeout = 5)                         \
	{                                                                    \
		katra_proc_force_walk = false;                               \
		name##_body();                                               \
	}                                                                    \
	Test(procpath, name##_walk, .timeout = 5)                            \
	{                                                                    \
		katra_proc_force_walk = true;                                \
		name##_body();                                               \
	}                                                                    \
	static void name##_body(void)

BOTH_WAYS(a_plain_file_opens_inside_its_root)
{
	char j[256], p[512], got[16];

	plant(j, sizeof(j));
	cr_assert_eq(open5("/lib/plain.so", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)), 0);
	cr_assert_str_eq(got, "PLAIN");
	/* named from the top of its namespace (the root's name dropped) */
	snprintf(p, sizeof(p), "%s/lib/plain.so", j);
	cr_assert_eq(open5(p, 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)), 0);
	cr_assert_str_eq(got, "PLAIN");
	/* inside its root, a relative link and ".." inside are followed */
	snprintf(p, sizeof(p), "%s/lib/rel.so", j);
	cr_assert_eq(symlink("../lib/./plain.so", p), 0);
	cr_assert_eq(open5("/lib/rel.so", KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV, 0, got,
			   sizeof(got)), 0);
	cr_assert_str_eq(got, "PLAIN");
	cr_assert_eq(open5("/lib/../lib/plain.so", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)),
		     0);
	cr_assert_str_eq(got, "PLAIN");
}

BOTH_WAYS(a_fifo_is_refused_at_once)
{
	char j[256], p[512], got[16];

	plant(j, sizeof(j));
	snprintf(p, sizeof(p), "%s/lib/fifo.dll", j);
	cr_assert_eq(mkfifo(p, 0644), 0);
	/* no writer: a blocking open would wait for one (the suite's timeout) */
	int rc = open5("/lib/fifo.dll", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got));
	cr_assert_eq(rc, -KATRA_PROC_NOTREG, "%d", rc);
	cr_assert(katra_proc_refused(rc));
	cr_assert_str_eq(katra_proc_why(rc), "not a regular file");
}

BOTH_WAYS(a_device_node_is_refused)
{
	char j[256], p[512], got[16];

	plant(j, sizeof(j));
	snprintf(p, sizeof(p), "%s/lib/null.dll", j);
	if (mknod(p, S_IFCHR | 0666, makedev(1, 3)))
		cr_skip_test("mknod: %s (not root)", strerror(errno));
	cr_assert_eq(open5("/lib/null.dll", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)),
		     -KATRA_PROC_NOTREG);
	/* a link to the host's own device: inside the root there is none */
	snprintf(p, sizeof(p), "%s/lib/tty.dll", j);
	cr_assert_eq(symlink("/dev/null", p), 0);
	cr_assert_eq(open5("/lib/tty.dll", KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV, 0, got,
			   sizeof(got)), -ENOENT);
}

BOTH_WAYS(an_absolute_link_to_a_host_file_stays_inside)
{
	char j[256], p[512], host[512], got[16];

	plant(j, sizeof(j));
	snprintf(host, sizeof(host), "%s/secret", top);
	snprintf(p, sizeof(p), "%s/lib/evil.dll", j);
	cr_assert_eq(symlink(host, p), 0);
	/* followed where a link may be: the root's copy, never the host's */
	cr_assert_eq(open5("/lib/evil.dll", KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV, 0, got,
			   sizeof(got)), 0);
	cr_assert_str_eq(got, "ROOT");
	/* where a mapped file is named, a link is no file of it */
	cr_assert_eq(open5("/lib/evil.dll", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)), -ELOOP);
	/* a link to a directory on the way */
	snprintf(p, sizeof(p), "%s/lib/up", j);
	cr_assert_eq(symlink(top, p), 0);
	cr_assert_eq(open5("/lib/up/secret", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)), 0);
	cr_assert_str_eq(got, "ROOT");
	/* a loop */
	snprintf(p, sizeof(p), "%s/lib/loop", j);
	cr_assert_eq(symlink("/lib/loop", p), 0);
	int rc = open5("/lib/loop", KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV, 0, got, sizeof(got));
	cr_assert(rc == -ELOOP || rc == -KATRA_PROC_OUTSIDE, "%d", rc);
}

BOTH_WAYS(dot_dot_never_climbs_above_the_root)
{
	char j[256], p[2048], got[16];
	char up[1024] = "/lib";

	plant(j, sizeof(j));
	/* as many ".." as it takes to reach our "/" from TOP/j/lib, and more */
	for (int i = 0; i < 12; i++)
		strcat(up, "/..");
	snprintf(p, sizeof(p), "%s%s/secret", up, top);
	cr_assert_eq(open5(p, 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got)), 0);
	cr_assert_str_eq(got, "ROOT");
	/* through a relative link too */
	snprintf(p, sizeof(p), "%s/lib/rel-up", j);
	snprintf(up, sizeof(up), "../../../../../../../../../../..%s/secret", top);
	cr_assert_eq(symlink(up, p), 0);
	cr_assert_eq(open5("/lib/rel-up", KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV, 0, got,
			   sizeof(got)), 0);
	cr_assert_str_eq(got, "ROOT");
}

BOTH_WAYS(a_file_swapped_after_the_maps_line_is_refused)
{
	char j[256], p[512], q[512], got[16];
	struct stat was;

	plant(j, sizeof(j));
	snprintf(p, sizeof(p), "%s/lib/plain.so", j);
	cr_assert_eq(stat(p, &was), 0);
	/* the maps line's identity: the file it mapped */
	cr_assert_eq(open5("/lib/plain.so", 0, was.st_dev, was.st_ino, got, sizeof(got)), 0);
	/* another file in its place */
	snprintf(q, sizeof(q), "%s/lib/other.so", j);
	put(q, "OTHER");
	cr_assert_eq(rename(q, p), 0);
	int rc = open5("/lib/plain.so", 0, was.st_dev, was.st_ino, got, sizeof(got));
	cr_assert_eq(rc, -KATRA_PROC_CHANGED, "%d", rc);
	cr_assert_str_eq(katra_proc_why(rc), "changed since it was mapped");
	/* the inode alone is not enough: another device's file */
	cr_assert_eq(stat(p, &was), 0);
	cr_assert_eq(open5("/lib/plain.so", 0, was.st_dev + 1, was.st_ino, got, sizeof(got)),
		     -KATRA_PROC_CHANGED);
}

BOTH_WAYS(a_magic_link_on_the_way_is_refused)
{
	char got[16];
	int rc;

	/* a root with procfs in it (ours): /proc/self/root would be the
	 * reader's own root, /proc/self/fd/N any file it holds */
	link_root(5, "/");
	rc = open5("/proc/self/root/etc/passwd", 0, KATRA_PROC_ANY_DEV, 0, got, sizeof(got));
	cr_assert_eq(rc, -KATRA_PROC_OUTSIDE, "%d", rc);
	cr_assert_str_eq(katra_proc_why(rc), "outside its root");
	rc = open5("/proc/self/fd/0", KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV, 0, got, sizeof(got));
	cr_assert_eq(rc, -KATRA_PROC_OUTSIDE, "%d", rc);
}
