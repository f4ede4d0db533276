// SPDX-License-Identifier: GPL-2.0-only
/* Wine session discovery (user/record/session.c) against a fake /proc tree in
 * a temporary directory: maps lines, the server directory matched by device
 * and inode (not by its path text), command lines -> Windows image names,
 * the periodic scan (new, young, exec'd, reused pids), adoption, the
 * socket-peer way (sock_diag replies, fd links, wineserver's peers), the
 * roster and the header notes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "katra/format.h"
#include "record/targets/session.h"

/* ---- maps lines ---- */

Test(session_maps, deleted_tmpmap_under_server_dir)
{
	char dir[256];

	cr_assert_eq(katra_wine_maps_dir("7ffe0000-7ffe1000 r--s 00000000 fe:00 10952883"
					 "                           /tmp/wine-cuJ2r2/server-fe00-"
					 "a721f7/tmpmap-6fae3c2d (deleted)\n", dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, "/tmp/wine-cuJ2r2/server-fe00-a721f7");
	/* upstream's layout, a file that is not deleted, no newline */
	cr_assert_eq(katra_wine_maps_dir("7fd932c02000-7fd932c03000 -w-s 00000000 fe:00 1 "
					 "/tmp/.wine-1000/server-801-1a2b3c/tmpmap-1", dir,
					 sizeof(dir)), 0);
	cr_assert_str_eq(dir, "/tmp/.wine-1000/server-801-1a2b3c");
	/* spaces in the path */
	cr_assert_eq(katra_wine_maps_dir("1000-2000 r--s 00000000 08:01 77 /home/a b/server-"
					 "a-b/tmpmap-x (deleted)", dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, "/home/a b/server-a-b");
}

Test(session_maps, other_lines)
{
	char dir[256], small[8];

	cr_assert_eq(katra_wine_maps_dir("7ffd1000-7ffd3000 rw-p 00000000 00:00 0", dir,
					 sizeof(dir)), -ENOENT);
	cr_assert_eq(katra_wine_maps_dir("7ffd1000-7ffd3000 rw-p 00000000 00:00 0    [stack]\n",
					 dir, sizeof(dir)), -ENOENT);
	cr_assert_eq(katra_wine_maps_dir("1-2 r-xp 00000000 fe:00 5 /usr/lib/wine/wine64", dir,
					 sizeof(dir)), -ENOENT);
	/* not hex, or nothing below the directory */
	cr_assert_eq(katra_wine_maps_dir("1-2 r--s 0 fe:00 5 /tmp/server-xyz-1/tmpmap-1", dir,
					 sizeof(dir)), -ENOENT);
	cr_assert_eq(katra_wine_maps_dir("1-2 r--s 0 fe:00 5 /tmp/server-12-", dir, sizeof(dir)),
		     -ENOENT);
	cr_assert_eq(katra_wine_maps_dir("1-2 r--s 0 fe:00 5 /tmp/x/server-12-34 (deleted)", dir,
					 sizeof(dir)), -ENOENT);
	cr_assert_eq(katra_wine_maps_dir("1-2 r--s 0 fe:00 5 /tmp/x/server-12-34/tmpmap-1", small,
					 sizeof(small)), -ENAMETOOLONG);
}

/* ---- command lines ---- */

static int image(const char *argv, size_t len, bool wine, char *out)
{
	return katra_wine_image_from_argv(argv, len, wine, out, 64);
}
#define IMG(lit, wine, out) image(lit, sizeof(lit) - 1, wine, out)

Test(session_image, windows_paths_and_loaders)
{
	char out[64];

	/* a service as Wine rewrites its command line (padded with NULs) */
	cr_assert_eq(IMG("C:\\windows\\system32\\services.exe\0\0\0\0", true, out), 0);
	cr_assert_str_eq(out, "services.exe");
	cr_assert_eq(IMG("C:\\windows\\system32\\services.exe\0\0", false, out), 0);
	cr_assert_str_eq(out, "services.exe");
	/* `wine prog.exe`: the script, the loader, the preloader */
	cr_assert_eq(IMG("/bin/sh\0/usr/bin/wine\0second.exe\0", false, out), 0);
	cr_assert_str_eq(out, "second.exe");
	cr_assert_eq(IMG("/usr/lib/wine/wine64\0third.exe\0" "5\0", false, out), 0);
	cr_assert_str_eq(out, "third.exe");
	cr_assert_eq(IMG("/opt/proton/files/bin/wine64-preloader\0/opt/proton/files/bin/wine64\0"
			 "Z:\\games\\Game.exe\0-dx12\0", false, out), 0);
	cr_assert_str_eq(out, "Game.exe");
	cr_assert_eq(IMG("wine\0cmd\0/c\0echo\0", false, out), 0);
	cr_assert_str_eq(out, "cmd.exe");
	/* a Wine process whose command line Wine rewrote to the image */
	cr_assert_eq(IMG("ticker.exe\0" "30\0", true, out), 0);
	cr_assert_str_eq(out, "ticker.exe");
}

Test(session_image, none)
{
	char out[64];

	cr_assert_eq(IMG("ticker.exe\0" "30\0", false, out), -ENOENT); /* not known as Wine */
	cr_assert_eq(IMG("/usr/lib/wine/wineserver64\0-p0\0", true, out), -ENOENT);
	cr_assert_eq(IMG("/usr/lib/wine/wine64\0wineserver\0", false, out), -ENOENT);
	cr_assert_eq(IMG("/usr/lib/wine/wine64\0\0\0", true, out), -ENOENT);
	cr_assert_eq(IMG("/bin/bash\0script.sh\0", false, out), -ENOENT);
	cr_assert_eq(IMG("/bin/sh\0-c\0wine x.exe\0", false, out), -ENOENT);
	cr_assert_eq(image("", 0, true, out), -ENOENT);
	cr_assert_eq(katra_wine_image_from_argv("wine\0averyveryverylongname.exe", 29, false,
						out, 8), -ENAMETOOLONG);
}

/* ---- a fake /proc ---- */

static char root[64];  /* the temporary directory */
static char proc[128]; /* root/proc */

static void mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

static void put(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static long hz(void)
{
	return sysconf(_SC_CLK_TCK);
}

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A process: its root (a directory under `root`, "" for "/"), comm, start
 * time in ticks, its maps (a mapped server file path or NULL) and cmdline. */
static void fake_pid(unsigned pid, const char *proot, const char *comm, uint64_t start,
		     const char *mapped, const char *cmdline, size_t cmdlen)
{
	char d[256], p[320], buf[1024], target[256];

	snprintf(d, sizeof(d), "%s/%u", proc, pid);
	mkdirs(d);
	snprintf(p, sizeof(p), "%s/root", d);
	unlink(p);
	snprintf(target, sizeof(target), "%s%s", proot[0] ? root : "/", proot);
	cr_assert_eq(symlink(target, p), 0, "%s", strerror(errno));
	snprintf(p, sizeof(p), "%s/comm", d);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	put(p, buf, strlen(buf));
	snprintf(p, sizeof(p), "%s/stat", d);
	snprintf(buf, sizeof(buf), "%u (%s) S 1 %u %u 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 "
		 "%llu 1000 10 18446744073709551615\n", pid, comm, pid, pid,
		 (unsigned long long)start);
	put(p, buf, strlen(buf));
	snprintf(p, sizeof(p), "%s/maps", d);
	int n = snprintf(buf, sizeof(buf), "55d0c0000000-55d0c0001000 r--p 00000000 fe:00 1234 "
			 "/usr/bin/x\n7ffd1000-7ffd3000 rw-p 00000000 00:00 0    [stack]\n");
	if (mapped)
		snprintf(buf + n, sizeof(buf) - n, "7ffe0000-7ffe1000 r--s 00000000 fe:00 10952883  "
			 "    %s (deleted)\n", mapped);
	put(p, buf, strlen(buf));
	snprintf(p, sizeof(p), "%s/cmdline", d);
	put(p, cmdline, cmdlen);
}
#define PID(pid, proot, comm, start, mapped, cmd) \
	fake_pid(pid, proot, comm, start, mapped, cmd, sizeof(cmd) - 1)

static void rm_pid(unsigned pid)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%u'", proc, pid);
	cr_assert_eq(system(cmd), 0);
}

/* host: two sessions (A, B) and a program; container a: the same path text
 * as session A, another directory; container b: a different path text, a
 * symlink to session A's directory (the same one). */
static char dir_a[256], dir_b[256];

static void setup_tree(void)
{
	char p[512], t[512];

	snprintf(root, sizeof(root), "/tmp/katra-session.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(proc, sizeof(proc), "%s/proc", root);
	mkdirs(proc);
	snprintf(dir_a, sizeof(dir_a), "%s/tmp/wine-aaa/server-fe00-a721f7", root);
	snprintf(dir_b, sizeof(dir_b), "%s/tmp/wine-bbb/server-fe00-b00b", root);
	mkdirs(dir_a);
	mkdirs(dir_b);
	snprintf(p, sizeof(p), "%s/ca/tmp/wine-aaa/server-fe00-a721f7", root);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/cb/tmp/.wine-1000", root);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/cb/tmp/.wine-1000/server-1-2", root);
	cr_assert_eq(symlink(dir_a, p), 0);

	snprintf(p, sizeof(p), "%s/tmpmap-1", dir_a);
	PID(100, "", "first.exe", 5, p, "first.exe\0" "30\0");
	PID(101, "", "wineserver64", 4, p, "/usr/lib/wine/wineserver64\0-p0\0");
	PID(102, "", "services.exe", 4, p, "C:\\windows\\system32\\services.exe\0\0\0");
	snprintf(t, sizeof(t), "%s/tmpmap-9", dir_b);
	PID(110, "", "other.exe", 4, t, "other.exe\0");
	PID(111, "", "wineserver64", 4, t, "/usr/lib/wine/wineserver64\0-p0\0");
	PID(120, "", "bash", 1, NULL, "/bin/bash\0");
	/* in the containers, paths as those processes see them */
	PID(200, "/ca", "fake.exe", 4, "/tmp/wine-aaa/server-fe00-a721f7/tmpmap-1", "fake.exe\0");
	PID(300, "/cb", "game.exe", 4, "/tmp/.wine-1000/server-1-2/tmpmap-1",
	    "Z:\\games\\game.exe\0");	/* chrooted (pressure-vessel): its maps name the directory from our
	 * root, root/cc/tmp/..., which may exist only in its mount namespace */
	snprintf(p, sizeof(p), "%s/cc/tmp/wine-ccc/server-3-4", root);
	mkdirs(p);
	snprintf(t, sizeof(t), "%s/cc/tmp/wine-ccc/server-3-4/tmpmap-1", root);
	PID(600, "/cc", "d3d11frames.exe", 4, t, "/mnt/d3d11frames.exe\0");
}

static void teardown_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

TestSuite(session_proc, .init = setup_tree, .fini = teardown_tree);

Test(session_proc, key_is_the_directory_not_its_path)
{
	struct katra_wine_key a, k;
	struct stat st;
	char dir[256];

	cr_assert_eq(stat(dir_a, &st), 0);
	cr_assert_eq(katra_wine_server_key(proc, 100, &a, dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, dir_a);
	cr_assert_eq(a.dev, st.st_dev);
	cr_assert_eq(a.ino, st.st_ino);
	cr_assert_eq(katra_wine_server_key(proc, 101, &k, NULL, 0), 0);
	cr_assert(k.dev == a.dev && k.ino == a.ino, "wineserver maps its own directory");
	cr_assert_eq(katra_wine_server_key(proc, 110, &k, NULL, 0), 0);
	cr_assert(k.ino != a.ino, "another prefix, another wineserver");
	/* the same path text in another mount namespace: another directory */
	cr_assert_eq(katra_wine_server_key(proc, 200, &k, dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, "/tmp/wine-aaa/server-fe00-a721f7");
	cr_assert(k.ino != a.ino, "matched by path text");
	/* another path text for the same directory */
	cr_assert_eq(katra_wine_server_key(proc, 300, &k, dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, "/tmp/.wine-1000/server-1-2");
	cr_assert(k.dev == a.dev && k.ino == a.ino, "the same directory, seen from a container");
	cr_assert_eq(katra_wine_server_key(proc, 120, &k, NULL, 0), -ENOENT);
	cr_assert_eq(katra_wine_server_key(proc, 999, &k, NULL, 0), -ESRCH);
}

/* unshare -m + chroot (tests/proton/enter.sh): maps and the root link name
 * the directory from the top of the process's mount namespace, "R/tmp/...",
 * not from its root: R is dropped, the rest found through its root */
Test(session_proc, chroot_in_a_namespace_of_its_own)
{
	struct katra_wine_key c, k;
	char p[512], dir[256];

	cr_assert_eq(katra_wine_server_key(proc, 200, &c, NULL, 0), 0);
	snprintf(p, sizeof(p), "%s/ca/tmp/wine-aaa/server-fe00-a721f7/tmpmap-1", root);
	PID(400, "/ca", "chrooted.exe", 4, p, "chrooted.exe\0");
	cr_assert_eq(katra_wine_server_key(proc, 400, &k, dir, sizeof(dir)), 0);
	cr_assert(k.dev == c.dev && k.ino == c.ino, "the chroot's directory, as 200 sees it");
	snprintf(p, sizeof(p), "%s/ca/tmp/wine-aaa/server-fe00-a721f7", root);
	cr_assert_str_eq(dir, p);
}

Test(session_proc, chrooted_maps_name_the_directory_from_our_root)
{
	struct katra_wine_key k;
	struct stat st;
	char dir[256], want[256];

	/* PROC/600/root + ROOT/cc/tmp/... does not exist: the directory is
	 * PROC/600/root/tmp/... (ROOT/cc stripped: where its root lies) */
	snprintf(want, sizeof(want), "%s/cc/tmp/wine-ccc/server-3-4", root);
	cr_assert_eq(stat(want, &st), 0);
	cr_assert_eq(katra_wine_server_key(proc, 600, &k, dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, want);
	cr_assert(k.dev == st.st_dev && k.ino == st.st_ino);
}

Test(session_proc, image_and_comm_of_a_pid)
{
	char out[64];

	cr_assert_eq(katra_wine_image(proc, 102, true, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "services.exe");
	cr_assert_eq(katra_wine_image(proc, 100, true, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "first.exe");
	cr_assert_eq(katra_wine_image(proc, 101, true, out, sizeof(out)), -ENOENT);
	cr_assert_eq(katra_wine_image(proc, 999, true, out, sizeof(out)), -ENOENT);
	katra_proc_comm(proc, 101, out, sizeof(out));
	cr_assert_str_eq(out, "wineserver64");
	katra_proc_comm(proc, 999, out, sizeof(out));
	cr_assert_str_eq(out, "");
}

Test(session_proc, exe_is_loader)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/100/exe", proc);
	cr_assert_eq(symlink("/usr/lib/wine/wine64-preloader", p), 0);
	snprintf(p, sizeof(p), "%s/101/exe", proc);
	cr_assert_eq(symlink("/usr/lib/wine/wineserver64", p), 0);
	snprintf(p, sizeof(p), "%s/102/exe", proc);
	cr_assert_eq(symlink("/usr/lib/wine/wine64 (deleted)", p), 0);
	cr_assert(katra_wine_exe_is_loader(proc, 100));
	cr_assert(!katra_wine_exe_is_loader(proc, 101));
	cr_assert(katra_wine_exe_is_loader(proc, 102));
	cr_assert(!katra_wine_exe_is_loader(proc, 120));
}

/* What a scan reported. */
struct seen {
	unsigned n;
	uint32_t pid[32];
	bool joined[32];
	uint32_t adopt_pid; /* adopt() says yes for this one */
	unsigned adopt_calls;
};

static void on_member(void *ctx, uint32_t pid, unsigned key, bool joined)
{
	struct seen *s = ctx;

	(void)key;
	cr_assert_lt(s->n, 32);
	s->pid[s->n] = pid;
	s->joined[s->n++] = joined;
}

static bool on_adopt(void *ctx, uint32_t pid)
{
	struct seen *s = ctx;

	s->adopt_calls++;
	return pid == s->adopt_pid;
}

static int seen_index(const struct seen *s, uint32_t pid)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			return (int)i;
	return -1;
}

Test(session_proc, scan_finds_the_session_and_who_joins)
{
	struct katra_session *s;
	struct seen seen = { 0 };
	const struct katra_session_cb cb = { &seen, on_member, NULL };
	uint64_t now = boot_ns(), tick = 1000000000ull / (uint64_t)hz();
	const char *dir;
	uint32_t from;
	char p[512];

	cr_assert_eq(katra_session_new(proc, &s), 0);
	cr_assert_eq(katra_session_add_pid(s, 120), -ENOENT, "bash is no Wine process");
	cr_assert_eq(katra_session_add_pid(s, 999), -ESRCH);
	cr_assert_eq(katra_session_add_pid(s, 100), 0);
	cr_assert_eq(katra_session_add_pid(s, 102), 0, "the same session again");
	cr_assert_eq(katra_session_nkeys(s), 1);
	cr_assert_not_null(katra_session_key(s, 0, &dir, &from));
	cr_assert_str_eq(dir, dir_a);
	cr_assert_eq(from, 100);

	cr_assert_eq(katra_session_scan(s, now, true, &cb), 4);
	cr_assert_eq(seen.n, 4);
	for (unsigned i = 0; i < seen.n; i++)
		cr_assert(!seen.joined[i]);
	cr_assert_geq(seen_index(&seen, 100), 0);
	cr_assert_geq(seen_index(&seen, 101), 0, "wineserver is a member");
	cr_assert_geq(seen_index(&seen, 102), 0);
	cr_assert_geq(seen_index(&seen, 300), 0, "the container's process, by dev/ino");
	cr_assert_lt(seen_index(&seen, 110), 0, "another session");
	cr_assert_lt(seen_index(&seen, 200), 0, "same path text, another directory");

	/* nothing new: nothing reported, no maps read again */
	struct katra_session_stats st0, st1;
	katra_session_get_stats(s, &st0);
	seen.n = 0;
	cr_assert_eq(katra_session_scan(s, now + 1000, false, &cb), 0);
	katra_session_get_stats(s, &st1);
	cr_assert_eq(st1.maps_read, st0.maps_read);

	/* a second `wine` joins: young (started now), connected at once */
	snprintf(p, sizeof(p), "%s/tmpmap-1", dir_a);
	PID(400, "", "third.exe", now / tick, p, "/usr/lib/wine/wine64\0third.exe\0");
	/* another young one, not connected yet: checked again while young */
	PID(401, "", "wine64", now / tick, NULL, "/usr/lib/wine/wine64\0fourth.exe\0");
	cr_assert_eq(katra_session_scan(s, now + 2000, false, &cb), 1);
	cr_assert_eq(seen.n, 1);
	cr_assert_eq(seen.pid[0], 400);
	cr_assert(seen.joined[0]);
	PID(401, "", "fourth.exe", now / tick, p, "fourth.exe\0");
	cr_assert_eq(katra_session_scan(s, now + 3000, false, &cb), 1);
	cr_assert_eq(seen.pid[1], 401);
	cr_assert(seen.joined[1]);
	/* an old process that exec's Wine later: found at the next sweep */
	PID(120, "", "wine64", 1, p, "/usr/lib/wine/wine64\0late.exe\0");
	cr_assert_eq(katra_session_scan(s, now + 4000, false, &cb), 0, "settled: not re-read");
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_SWEEP_NS + 1000000, false, &cb),
		     1);
	cr_assert_eq(seen.pid[2], 120);
	/* a pid reused by a new member (another start time) */
	rm_pid(400);
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_SWEEP_NS + 2000000, false, &cb),
		     0);
	PID(400, "", "again.exe", now / tick + 5, p, "again.exe\0");
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_SWEEP_NS + 3000000, false, &cb),
		     1);
	cr_assert_eq(seen.pid[3], 400);
	katra_session_free(s);
}

Test(session_proc, young_process_settles)
{
	struct katra_session *s;
	struct seen seen = { 0 };
	const struct katra_session_cb cb = { &seen, on_member, NULL };
	uint64_t now = boot_ns(), tick = 1000000000ull / (uint64_t)hz();
	struct katra_session_stats a, b;

	cr_assert_eq(katra_session_new(proc, &s), 0);
	cr_assert_eq(katra_session_add_pid(s, 100), 0);
	PID(500, "", "sleep", now / tick, NULL, "sleep\0" "100\0");
	cr_assert_eq(katra_session_scan(s, now, true, &cb), 4);
	katra_session_get_stats(s, &a);
	cr_assert_eq(katra_session_scan(s, now + 1000, false, &cb), 0);
	katra_session_get_stats(s, &b);
	cr_assert_eq(b.maps_read, a.maps_read, "not yet: backing off");
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_RECHECK_NS, false, &cb), 0);
	katra_session_get_stats(s, &a);
	cr_assert_eq(a.maps_read, b.maps_read + 1, "the young one is read again");
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_RECHECK_NS + 1000, false, &cb), 0);
	katra_session_get_stats(s, &b);
	cr_assert_eq(b.maps_read, a.maps_read, "next: after twice the interval");
	PID(500, "", "wine64", now / tick, NULL, "wine64\0x.exe\0");
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_RECHECK_NS + 2000, false, &cb), 0);
	katra_session_get_stats(s, &a);
	cr_assert_eq(a.maps_read, b.maps_read + 1, "it exec'd: read at once");
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_PENDING_NS + tick, false, &cb), 0);
	katra_session_get_stats(s, &a);
	cr_assert_eq(katra_session_scan(s, now + KATRA_SESSION_PENDING_NS + 2 * tick, false, &cb),
		     0);
	katra_session_get_stats(s, &b);
	cr_assert_eq(b.maps_read, a.maps_read, "settled after PENDING_NS");
	katra_session_free(s);
}

Test(session_proc, adopt_a_traced_process_session)
{
	struct katra_session *s;
	struct seen seen = { .adopt_pid = 110 };
	const struct katra_session_cb cb = { &seen, on_member, on_adopt };

	cr_assert_eq(katra_session_new(proc, &s), 0);
	cr_assert_eq(katra_session_add_pid(s, 100), 0);
	/* 110 (session B) is "traced": its session comes in with 111 */
	cr_assert_eq(katra_session_scan(s, boot_ns(), true, &cb), 6);
	cr_assert_eq(katra_session_nkeys(s), 2);
	cr_assert_geq(seen_index(&seen, 110), 0);
	cr_assert_geq(seen_index(&seen, 111), 0);
	cr_assert_lt(seen_index(&seen, 200), 0);
	cr_assert_geq(seen.adopt_calls, 1);
	katra_session_free(s);
}

Test(session_proc, force_on_a_linux_process_fails_loudly)
{
	struct katra_wine_names *n = NULL;
	uint32_t pids[] = { 100, 120 };
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);

	cr_assert_eq(katra_wine_names_open(&n, proc, KATRA_SESSION_FORCE, pids, 2, err, false),
		     -EINVAL);
	cr_assert_null(n);
	fclose(err);
	cr_assert_not_null(strstr(buf, "katra-record: --session: PID 120 (bash) is not a Wine "
				  "process"), "%s", buf);
	free(buf);
	/* the same without --session: the tree is traced, no error */
	cr_assert_eq(katra_wine_names_open(&n, proc, KATRA_SESSION_AUTO, pids, 2, stderr, false),
		     0);
	katra_wine_names_free(n);
}

/* What the capture's side handed the probes. */
struct join_seen {
	unsigned calls, tracked;
	size_t n;
	uint64_t socks[8][2];
};

static int join_track(void *ctx, uint32_t pid)
{
	(void)pid;
	((struct join_seen *)ctx)->tracked++;
	return 0;
}

static bool join_is_tracked(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid == 100; /* the -p target */
}

static int join_socks(void *ctx, const uint64_t (*socks)[2], size_t n)
{
	struct join_seen *j = ctx;

	cr_assert_leq(n, 8);
	j->calls++;
	j->n = n;
	memcpy(j->socks, socks, n * sizeof(socks[0]));
	return 0;
}

/* The session's wineserver socket goes to the probes before the first scan,
 * by the kernel's device number (major << 20 | minor) and inode: a process
 * connecting to it is tracked at its connect.  A session without one
 * (B: no socket file) is left to the scans. */
Test(session_proc, wineserver_socket_handed_to_the_probes)
{
	struct join_seen j = { 0 };
	const struct katra_wine_ops ops = { &j, join_track, join_is_tracked, join_socks };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct katra_wine_names *n = NULL;
	uint32_t pids[] = { 100, 110 };
	struct stat st;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	cr_assert_geq(fd, 0);
	cr_assert_lt(strlen(dir_a) + 8, sizeof(a.sun_path));
	memcpy(a.sun_path, dir_a, strlen(dir_a));
	memcpy(a.sun_path + strlen(dir_a), "/socket", 8);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0, "%s", strerror(errno));
	cr_assert_eq(stat(a.sun_path, &st), 0);
	cr_assert_eq(katra_wine_names_open(&n, proc, KATRA_SESSION_AUTO, pids, 2, stderr, true),
		     0);
	cr_assert_eq(katra_wine_names_start(n, &ops, false), 0);
	cr_assert_eq(j.calls, 1);
	cr_assert_eq(j.n, 1);
	cr_assert_eq(j.socks[0][0], ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev));
	cr_assert_eq(j.socks[0][1], st.st_ino);
	cr_assert_geq(j.tracked, 2); /* the members: wineserver, services.exe, ... */
	katra_wine_names_free(n);
	close(fd);
}

/* ---- the socket-peer way: sock_diag replies, fd links, members ---- */

/* One SOCK_DIAG_BY_FAMILY message: a unix socket with optional peer and
 * VFS attributes (the kernel's dev_t encoding: major << 20 | minor). */
static size_t diag_msg(char *buf, uint32_t ino, uint8_t state, uint32_t peer, bool vfs,
		       uint32_t kdev, uint32_t vino)
{
	struct nlmsghdr *h = (void *)buf;
	struct unix_diag_msg *m = NLMSG_DATA(h);
	char *a = (char *)(m + 1);

	memset(h, 0, NLMSG_SPACE(sizeof(*m)));
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m->udiag_family = AF_UNIX;
	m->udiag_state = state;
	m->udiag_ino = ino;
	if (peer) {
		struct nlattr *at = (void *)a;
		at->nla_type = UNIX_DIAG_PEER;
		at->nla_len = NLA_HDRLEN + sizeof(uint32_t);
		memcpy(a + NLA_HDRLEN, &peer, sizeof(peer));
		a += NLA_ALIGN(at->nla_len);
	}
	if (vfs) {
		struct nlattr *at = (void *)a;
		struct unix_diag_vfs v = { .udiag_vfs_ino = vino, .udiag_vfs_dev = kdev };
		at->nla_type = UNIX_DIAG_VFS;
		at->nla_len = NLA_HDRLEN + sizeof(v);
		memcpy(a + NLA_HDRLEN, &v, sizeof(v));
		a += NLA_ALIGN(at->nla_len);
	}
	h->nlmsg_len = (uint32_t)(a - buf);
	return NLMSG_ALIGN(h->nlmsg_len);
}

Test(session_sock, diag_reply_parsed)
{
	static char buf[1024] __attribute__((aligned(8)));
	struct katra_unix_socks t = { 0 };
	size_t len = 0;

	len += diag_msg(buf + len, 5000, 10, 0, true, (254u << 20) | 1, 77);
	len += diag_msg(buf + len, 5001, 1, 6001, false, 0, 0);
	cr_assert_eq(katra_unix_diag_parse(buf, len, &t), 0, "more to come");
	struct nlmsghdr *done = (void *)(buf + len);
	memset(done, 0, NLMSG_SPACE(sizeof(int)));
	done->nlmsg_type = NLMSG_DONE;
	done->nlmsg_len = NLMSG_LENGTH(sizeof(int));
	cr_assert_eq(katra_unix_diag_parse(buf, len + NLMSG_ALIGN(done->nlmsg_len), &t), 1);
	cr_assert_eq(t.n, 4, "both replies appended");
	cr_assert_eq(t.v[0].ino, 5000);
	cr_assert_eq(t.v[0].state, 10);
	cr_assert(t.v[0].has_vfs);
	cr_assert_eq(t.v[0].vfs_dev, makedev(254, 1), "the user-space dev_t");
	cr_assert_eq(t.v[0].vfs_ino, 77);
	cr_assert_eq(t.v[0].peer, 0);
	cr_assert_eq(t.v[1].ino, 5001);
	cr_assert_eq(t.v[1].peer, 6001);
	cr_assert(!t.v[1].has_vfs);
	/* an error reply, a message longer than the buffer */
	struct nlmsghdr *e = (void *)buf;
	struct nlmsgerr *err = NLMSG_DATA(e);
	memset(buf, 0, 64);
	e->nlmsg_type = NLMSG_ERROR;
	e->nlmsg_len = NLMSG_LENGTH(sizeof(*err));
	err->error = -EPERM;
	cr_assert_eq(katra_unix_diag_parse(buf, e->nlmsg_len, &t), -EPERM);
	len = diag_msg(buf, 1, 1, 2, false, 0, 0);
	cr_assert_eq(katra_unix_diag_parse(buf, len - 4, &t), -EBADMSG);
	free(t.v);
}

Test(session_sock, fd_links)
{
	uint32_t ino = 0;

	cr_assert_eq(katra_socket_inode("socket:[2312629]", &ino), 0);
	cr_assert_eq(ino, 2312629);
	cr_assert_eq(katra_socket_inode("pipe:[12]", &ino), -ENOENT);
	cr_assert_eq(katra_socket_inode("socket:[]", &ino), -ENOENT);
	cr_assert_eq(katra_socket_inode("socket:[12", &ino), -ENOENT);
	cr_assert_eq(katra_socket_inode("socket:[12]x", &ino), -ENOENT);
	cr_assert_eq(katra_socket_inode("/tmp/socket:[1]", &ino), -ENOENT);
}

/* The fake tree's sockets: wineserver 101 listens on dir_a/socket (5000) and
 * holds 5001 (peer 6001, held by first.exe 100) and 5003 (peer 6003, held by
 * 130, a process that maps nothing yet); services.exe 102 holds none (the
 * maps find it); the other session's wineserver 111 talks to 110. */
static struct stat sock_file;

static int fake_dump(struct katra_unix_socks *out)
{
	static const struct katra_unix_sock v[] = {
		{ 0, 0, 5000, 0, 10, 1 }, { 0, 0, 5001, 6001, 1, 0 }, { 0, 0, 6001, 5001, 1, 0 },
		{ 0, 0, 5003, 6003, 1, 0 }, { 0, 0, 6003, 5003, 1, 0 }, { 0, 0, 7000, 7001, 1, 0 },
		{ 0, 0, 7001, 7000, 1, 0 },
	};

	out->v = malloc(sizeof(v));
	cr_assert_not_null(out->v);
	memcpy(out->v, v, sizeof(v));
	out->v[0].vfs_dev = sock_file.st_dev;
	out->v[0].vfs_ino = sock_file.st_ino;
	out->n = out->cap = sizeof(v) / sizeof(v[0]);
	return 0;
}

static void fake_fd(unsigned pid, int fd, uint32_t ino)
{
	char p[320], link[64];

	snprintf(p, sizeof(p), "%s/%u/fd", proc, pid);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/%u/fd/%d", proc, pid, fd);
	snprintf(link, sizeof(link), "socket:[%u]", ino);
	cr_assert_eq(symlink(link, p), 0, "%s", strerror(errno));
}

Test(session_proc, socket_peers_of_wineserver_are_members)
{
	struct katra_session *s;
	struct seen seen = { 0 };
	const struct katra_session_cb cb = { &seen, on_member, NULL };
	struct katra_roster r;
	char p[512], notes[8][256];
	uint32_t *pids, server;
	size_t n;

	snprintf(p, sizeof(p), "%s/socket", dir_a);
	put(p, "", 0);
	cr_assert_eq(stat(p, &sock_file), 0);
	PID(130, "", "late.exe", 4, NULL, "late.exe\0");
	fake_fd(101, 3, 5000);
	fake_fd(101, 4, 5001);
	fake_fd(101, 5, 5003);
	fake_fd(100, 7, 6001);
	fake_fd(100, 8, 123); /* not a unix socket we know */
	fake_fd(130, 9, 6003);
	fake_fd(111, 3, 7000);
	fake_fd(110, 3, 7001);

	/* the way itself */
	struct katra_unix_socks socks;
	cr_assert_eq(fake_dump(&socks), 0);
	cr_assert_eq(katra_wine_sock_members(proc, 100, dir_a, &socks, &pids, &n, &server), 0);
	cr_assert_eq(server, 101);
	cr_assert_eq(n, 3);
	cr_assert_eq(pids[0], 101, "wineserver first");
	cr_assert((pids[1] == 100 && pids[2] == 130) || (pids[1] == 130 && pids[2] == 100));
	free(pids);
	cr_assert_eq(katra_wine_sock_members(proc, 110, dir_b, &socks, &pids, &n, &server),
		     -ENOENT, "session B's listener is not in the dump");
	free(socks.v);
	/* a chrooted member names the directory from our root (ROOT/cc/tmp/...):
	 * its listener is found through its root */
	char cdir[320];
	snprintf(cdir, sizeof(cdir), "%s/cc/tmp/wine-ccc/server-3-4", root);
	snprintf(p, sizeof(p), "%s/socket", cdir);
	put(p, "", 0);
	cr_assert_eq(stat(p, &sock_file), 0);
	cr_assert_eq(fake_dump(&socks), 0);
	cr_assert_eq(katra_wine_sock_members(proc, 600, cdir, &socks, &pids, &n, &server), 0);
	cr_assert_eq(server, 101);
	free(pids);
	free(socks.v);
	snprintf(p, sizeof(p), "%s/socket", dir_a);
	cr_assert_eq(stat(p, &sock_file), 0);

	/* in a scan: 130 is a member the maps missed */
	cr_assert_eq(katra_session_new(proc, &s), 0);
	katra_session_set_sock_dump(s, fake_dump);
	cr_assert_eq(katra_session_add_pid(s, 100), 0);
	cr_assert_eq(katra_session_scan(s, boot_ns(), true, &cb), 5);
	cr_assert_geq(seen_index(&seen, 130), 0, "found by its socket");
	cr_assert(!seen.joined[seen_index(&seen, 130)]);
	cr_assert_lt(seen_index(&seen, 110), 0, "another session");
	cr_assert_eq(katra_session_scan(s, boot_ns(), true, &cb), 0, "reported once");

	cr_assert_eq(katra_roster_init(&r, 64), 0);
	katra_roster_note(&r, 100, KATRA_ORIGIN_TARGET, "first.exe", 9, "first.exe");
	katra_roster_note(&r, 102, KATRA_ORIGIN_WINE_SESSION, "services.exe", 12, "services.exe");
	katra_roster_note(&r, 130, KATRA_ORIGIN_WINE_SESSION, "late.exe", 8, "late.exe");
	n = katra_session_notes(&r, s, &notes[0][0], sizeof(notes[0]), 8);
	cr_assert_eq(n, 5);
	snprintf(p, sizeof(p), "wine session: server dir %s: at start 4 processes by server dir, "
		 "3 by wineserver socket peer (wineserver PID 101), 2 by both", dir_a);
	cr_assert_str_eq(notes[1], p);
	cr_assert_str_eq(notes[2], "traced from the start, target (-p): 100 (first.exe)");
	cr_assert_str_eq(notes[3], "traced from the start, wine session (same server dir): "
			 "102 (services.exe)");
	cr_assert_str_eq(notes[4], "traced from the start, wine session (wineserver socket peer): "
			 "130 (late.exe)");
	katra_roster_free(&r);
	katra_session_free(s);
}

/* wineserver 101 also holds copies of its clients' X connections (it polls
 * them for the threads' message queues): 8001, first.exe's connection to an
 * Xvfb (140) on its abstract socket, held by first.exe too; 8011, a
 * connection whose client closed it, to an Xorg (141) on its socket file
 * (8012, bound to it).  Neither X server is a Wine process. */
static int fake_dump_x(struct katra_unix_socks *out)
{
	static const struct katra_unix_sock x[] = {
		{ 0, 0, 8001, 8002, 1, 0 }, { 0, 0, 8002, 8001, 1, 0 },
		{ 0, 0, 8011, 8012, 1, 0 }, { 77, 88, 8012, 8011, 1, 1 },
		{ 77, 88, 8010, 0, 10, 1 },
	};
	int rc = fake_dump(out);

	out->v = realloc(out->v, (out->n + 5) * sizeof(*out->v));
	cr_assert_not_null(out->v);
	memcpy(out->v + out->n, x, sizeof(x));
	out->n = out->cap = out->n + 5;
	return rc;
}

Test(session_proc, x_servers_behind_copied_sockets_are_no_members)
{
	struct katra_unix_socks socks;
	uint32_t *pids, server;
	char p[512];
	size_t n;

	snprintf(p, sizeof(p), "%s/socket", dir_a);
	put(p, "", 0);
	cr_assert_eq(stat(p, &sock_file), 0);
	fake_fd(101, 3, 5000);
	fake_fd(101, 4, 5001);
	fake_fd(101, 5, 5003);
	fake_fd(100, 7, 6001);
	fake_fd(130, 9, 6003);
	fake_fd(100, 10, 8001); /* first.exe's X connection */
	fake_fd(101, 20, 8001); /* ... and wineserver's copy */
	fake_fd(140, 4, 8002);  /* Xvfb's end */
	fake_fd(101, 21, 8011); /* a copy whose client is gone */
	fake_fd(141, 3, 8010);  /* Xorg listening on its socket file */
	fake_fd(141, 4, 8012);  /* ... and its end of that connection */
	cr_assert_eq(fake_dump_x(&socks), 0);
	cr_assert_eq(katra_wine_sock_members(proc, 100, dir_a, &socks, &pids, &n, &server), 0);
	cr_assert_eq(server, 101);
	cr_assert_eq(n, 3, "wineserver, first.exe, late.exe: %zu", n);
	for (size_t i = 0; i < n; i++)
		cr_assert(pids[i] != 140 && pids[i] != 141, "X server %u a member", pids[i]);
	free(pids);
	free(socks.v);
}

/* ---- roster and notes ---- */

Test(session_roster, latest_names_first_origin_bounded)
{
	struct katra_roster r;

	cr_assert_eq(katra_roster_init(&r, 2), 0);
	katra_roster_note(&r, 10, KATRA_ORIGIN_COMMAND, "wine", 4, NULL);
	katra_roster_note(&r, 10, KATRA_ORIGIN_FORKED, "third.exe", 9, "third.exe");
	katra_roster_note(&r, 11, KATRA_ORIGIN_WINE_JOINED, "wineserver64", 12, NULL);
	katra_roster_note(&r, 12, KATRA_ORIGIN_FORKED, "x", 1, NULL);
	cr_assert_eq(r.n, 2);
	cr_assert_eq(r.total, 3);
	cr_assert_eq(r.v[0].pid, 10);
	cr_assert_eq(r.v[0].origin, KATRA_ORIGIN_COMMAND);
	cr_assert_str_eq(r.v[0].comm, "third.exe");
	cr_assert_str_eq(r.v[0].image, "third.exe");
	cr_assert_str_eq(r.v[1].image, "");
	katra_roster_free(&r);
}

Test(session_roster, notes_split_and_bounded)
{
	struct katra_roster r;
	char notes[4][80];
	size_t n;

	cr_assert_eq(katra_roster_init(&r, 64), 0);
	katra_roster_note(&r, 100, KATRA_ORIGIN_TARGET, "first.exe", 9, "first.exe");
	for (uint32_t pid = 200; pid < 210; pid++)
		katra_roster_note(&r, pid, KATRA_ORIGIN_WINE_SESSION, "services.exe", 12,
				  "services.exe");
	n = katra_session_notes(&r, NULL, &notes[0][0], sizeof(notes[0]), 4);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(notes[0], "traced from the start, target (-p): 100 (first.exe)");
	cr_assert_eq(strncmp(notes[1], "traced from the start, wine session (same server dir): "
			     "200 (services.exe)", 72), 0, "%s", notes[1]);
	for (size_t i = 0; i < n; i++)
		cr_assert_lt(strlen(notes[i]), sizeof(notes[0]));
	cr_assert_not_null(strstr(notes[3], "more processes"), "%s", notes[3]);
	katra_roster_free(&r);
}

/* ---- the options ---- */

#include "record/cli.h"

static enum katra_cli_result parse(struct katra_record_opts *o, int argc, char **argv)
{
	FILE *null = fopen("/dev/null", "w");
	enum katra_cli_result r = katra_record_parse_args(argc, argv, o, null, null);

	fclose(null);
	return r;
}

Test(session_cli, session_and_no_session)
{
	struct katra_record_opts o;
	char *def[] = { "katra-record", "-p", "42", NULL };
	char *on[] = { "katra-record", "--session", "-p", "42", NULL };
	char *off[] = { "katra-record", "-p", "42", "--no-session", NULL };
	char *both[] = { "katra-record", "--session", "--no-session", "-p", "42", NULL };

	cr_assert_eq(parse(&o, 3, def), KATRA_CLI_RUN);
	cr_assert_eq(o.session_mode, KATRA_SESSION_AUTO);
	cr_assert_eq(parse(&o, 4, on), KATRA_CLI_RUN);
	cr_assert_eq(o.session_mode, KATRA_SESSION_FORCE);
	cr_assert_eq(parse(&o, 4, off), KATRA_CLI_RUN);
	cr_assert_eq(o.session_mode, KATRA_SESSION_OFF);
	cr_assert_eq(parse(&o, 5, both), KATRA_CLI_USAGE);
}
