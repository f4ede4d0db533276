// SPDX-License-Identifier: GPL-2.0-only
/* A traced process's paths, as seen from here, and the one opener of the
 * files it names (procpath.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "procpath.h"

#define WALK_DEPTH_MAX 256 /* directories deep */
#define WALK_LINKS_MAX 40  /* symbolic links followed (the kernel's own bound) */
#define EAGAIN_TRIES 8     /* openat2 RESOLVE_IN_ROOT meets a rename or mount meanwhile */

bool katra_proc_force_walk;

/* PROC/PID/root's name as d_path gives it, less trailing slashes ("" for a
 * fake tree's directory, "/" for a root with no name to drop) */
static int root_name(const char *link, char *name, size_t cap)
{
	ssize_t n = readlink(link, name, cap - 1);

	if (n < 0 && errno != EINVAL)
		return -errno;
	if (n < 0) /* not a link (a fake tree's directory): nothing to drop */
		n = 0;
	name[n] = '\0';
	while (n > 1 && name[n - 1] == '/')
		name[--n] = '\0';
	return 0;
}

/* path less the root's name R when it is "R/FILE" */
static const char *below_root(const char *name, const char *path)
{
	size_t n = strlen(name);

	if (n > 1 && !strncmp(path, name, n) && (path[n] == '/' || !path[n]))
		return path + n;
	return path;
}

int katra_proc_path(const char *proc, uint32_t pid, const char *path, char *out, size_t cap)
{
	char link[128], name[4096];
	const char *rest;
	int n, rc;

	if (path[0] != '/')
		return -EINVAL;
	snprintf(link, sizeof(link), "%s/%u/root", proc, pid);
	if ((rc = root_name(link, name, sizeof(name))))
		return rc;
	rest = below_root(name, path);
	n = snprintf(out, cap, "%s%s", link, *rest ? rest : "/");
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* ---- resolving inside a root ---- */

static int sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags, .resolve = resolve };
	int fd = -1;

	for (int i = 0; i < EAGAIN_TRIES; i++) {
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd < 0 ? -errno : fd;
}

/* The walk: one name at a time from rootfd, each directory opened O_PATH |
 * O_NOFOLLOW and kept on a stack (".." pops it, never above the root; no
 * ".." is ever opened), a symbolic link read and its target walked from
 * the root (absolute) or from where it is (relative), at most
 * WALK_LINKS_MAX of them; a link on procfs (a magic link: /proc/PID/fd/N,
 * .../root) is refused.  The last name opened with oflags (its own link
 * followed only with follow). */
static int walk_open(int rootfd, const char *path, int oflags, bool follow)
{
	int stack[WALK_DEPTH_MAX], depth = 0, links = 0, rc = 0, fd = -1;
	char todo[2 * 4096 + 2], target[4096];
	size_t len = strlen(path);

	if (len >= sizeof(todo))
		return -ENAMETOOLONG;
	memcpy(todo, path, len + 1);
	stack[depth++] = -1; /* the root: rootfd itself, never closed here */
	for (char *p = todo;;) {
		char *name, *end;
		bool last;
		int dir = stack[depth - 1] < 0 ? rootfd : stack[depth - 1], next;
		struct stat st;

		while (*p == '/')
			p++;
		if (!*p) { /* nothing left: the path names a directory */
			fd = openat(dir, ".", oflags & ~O_NOFOLLOW);
			rc = fd < 0 ? -errno : 0;
			break;
		}
		name = p;
		end = strchr(p, '/');
		if (end) {
			*end = '\0';
			p = end + 1;
			while (*p == '/')
				p++;
		} else {
			p += strlen(p);
		}
		last = !*p;
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (depth > 1)
				close(stack[--depth]);
			continue;
		}
		if (last && !follow) {
			fd = openat(dir, name, oflags | O_NOFOLLOW);
			rc = fd < 0 ? -errno : 0;
			break;
		}
		next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st)) {
			rc = -errno;
			if (next >= 0)
				close(next);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			struct statfs sf;
			ssize_t n;
			size_t rest = strlen(p);
			if (++links > WALK_LINKS_MAX) {
				close(next);
				rc = -ELOOP;
				break;
			}
			if (!fstatfs(next, &sf) && sf.f_type == PROC_SUPER_MAGIC) {
				close(next);
				rc = -KATRA_PROC_OUTSIDE;
				break;
			}
			n = readlinkat(next, "", target, sizeof(target) - 1);
			close(next);
			if (n <= 0) {
				rc = n < 0 ? -errno : -ENOENT;
				break;
			}
			target[n] = '\0';
			if ((size_t)n + 1 + rest >= sizeof(todo)) {
				rc = -ENAMETOOLONG;
				break;
			}
			/* the target, then what was left after the link */
			memmove(todo + n + 1, p, rest + 1);
			memcpy(todo, target, (size_t)n);
			todo[n] = rest ? '/' : '\0';
			p = todo;
			if (target[0] == '/')
				while (depth > 1)
					close(stack[--depth]);
			continue;
		}
		if (last) {
			close(next);
			fd = openat(dir, name, oflags | O_NOFOLLOW);
			rc = fd < 0 ? -errno : 0;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(next);
			rc = -ENOTDIR;
			break;
		}
		if (depth == WALK_DEPTH_MAX) {
			close(next);
			rc = -ENAMETOOLONG;
			break;
		}
		stack[depth++] = next;
	}
	while (depth > 1)
		close(stack[--depth]);
	return rc ? rc : fd;
}

/* path opened inside rootfd's root: an fd or -errno */
static int open_in_root(int rootfd, const char *path, int oflags, bool follow)
{
	static int no_openat2; /* ENOSYS once: the walk from then on */
	int fd;

	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	if (!follow)
		oflags |= O_NOFOLLOW;
	if (katra_proc_force_walk || __atomic_load_n(&no_openat2, __ATOMIC_RELAXED))
		return walk_open(rootfd, path, oflags, follow);
	fd = sys_openat2(rootfd, path, (uint64_t)oflags,
			 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (fd == -ENOSYS) {
		__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
		return walk_open(rootfd, path, oflags, follow);
	}
	if (fd == -ELOOP) {
		/* its last name a link (not followed, or a loop), or a magic
		 * link (procfs: /proc/PID/fd/N, .../root): outside the root */
		int l = sys_openat2(rootfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC,
				    RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
		struct stat st;
		struct statfs sf;
		bool link = l >= 0 && !fstat(l, &st) && S_ISLNK(st.st_mode);
		bool magic = link && !fstatfs(l, &sf) && sf.f_type == PROC_SUPER_MAGIC;
		if (l >= 0)
			close(l);
		if (!link || magic)
			return -KATRA_PROC_OUTSIDE;
	}
	return fd;
}

/* A file on overlayfs: stat gives the overlay's device, the maps line the
 * layer's (the mapping is of the layer's file); its inode is the layer's
 * when the layers share a file system. */
static bool same_file(int fd, const struct stat *st, uint64_t dev, uint64_t ino)
{
	struct statfs sf;

	if (ino && (uint64_t)st->st_ino != ino)
		return false;
	if (dev == KATRA_PROC_ANY_DEV || (uint64_t)st->st_dev == dev)
		return true;
	return ino && !fstatfs(fd, &sf) && sf.f_type == OVERLAYFS_SUPER_MAGIC;
}

int katra_root_open(int rootfd, const char *path, unsigned flags, uint64_t dev, uint64_t ino,
		    int *fd, struct stat *st)
{
	int f, rc = 0;

	*fd = -1;
	f = open_in_root(rootfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
			 flags & KATRA_PROC_FOLLOW);
	if (f < 0)
		return f;
	if (fstat(f, st))
		rc = -errno;
	else if (!S_ISREG(st->st_mode))
		rc = -KATRA_PROC_NOTREG;
	else if (!same_file(f, st, dev, ino))
		rc = -KATRA_PROC_CHANGED;
	if (rc) {
		close(f);
		return rc;
	}
	*fd = f;
	return 0;
}

/* PROC/PID/root as a directory fd (pid 0: "/"), and the path below it */
static int open_root(const char *proc, uint32_t pid, const char *path, unsigned flags,
		     const char **rest)
{
	char link[128], name[4096];
	int rootfd, rc;

	*rest = path;
	if (!pid) {
		rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		return rootfd < 0 ? -errno : rootfd;
	}
	snprintf(link, sizeof(link), "%s/%u/root", proc, pid);
	/* the name first: read again after the open, the same root or a
	 * process gone (ENOENT) */
	if (!(flags & KATRA_PROC_AS_IS) && (rc = root_name(link, name, sizeof(name))))
		return rc;
	rootfd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	if (!(flags & KATRA_PROC_AS_IS))
		*rest = below_root(name, path);
	return rootfd;
}

int katra_proc_open(const char *proc, uint32_t pid, const char *path, unsigned flags,
		    uint64_t dev, uint64_t ino, int *fd, struct stat *st)
{
	const char *rest;
	int rootfd, rc;

	*fd = -1;
	if (path[0] != '/')
		return -EINVAL;
	rootfd = open_root(proc, pid, path, flags, &rest);
	if (rootfd < 0)
		return rootfd;
	rc = katra_root_open(rootfd, rest, flags, dev, ino, fd, st);
	close(rootfd);
	return rc;
}

int katra_proc_stat(const char *proc, uint32_t pid, const char *path, struct stat *st)
{
	char seen[4096 + 160];
	int rc = katra_proc_path(proc, pid, path, seen, sizeof(seen));

	/* no root to follow (a fake /proc without one), or not ours to follow
	 * (EACCES: not root): the plain path */
	if (rc == -ENOENT || rc == -EACCES)
		return stat(path, st) ? -errno : 0;
	if (rc)
		return rc;
	if (!stat(seen, st))
		return 0;
	if (errno != EACCES)
		return -errno;
	return stat(path, st) ? -errno : 0;
}

const char *katra_proc_why(int rc)
{
	switch (-rc) {
	case KATRA_PROC_NOTREG: return "not a regular file";
	case KATRA_PROC_CHANGED: return "changed since it was mapped";
	case KATRA_PROC_OUTSIDE: return "outside its root";
	case ELOOP: return "a symbolic link where a file was named";
	default: return strerror(-rc);
	}
}

bool katra_proc_refused(int rc)
{
	return rc == -KATRA_PROC_NOTREG || rc == -KATRA_PROC_CHANGED ||
	       rc == -KATRA_PROC_OUTSIDE || rc == -ELOOP;
}
