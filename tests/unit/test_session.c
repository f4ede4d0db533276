// SPDX-License-Identifier: GPL-2.0-only
/* Wine session discovery (user/record/session.c) against a fake /proc tree in
 * a temporary directory: maps lines, the server directory matched by device
 * and inode (not by its path text), command lines -> Windows image names,
 * the periodic scan (new, young, exec'd, reused pids), adoption, the roster
 * and the header notes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "katra/format.h"
#include "../../user/record/session.h"

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
	    "Z:\\games\\game.exe\0");
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

#include "../../user/record/cli.h"

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
