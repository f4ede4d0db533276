// SPDX-License-Identifier: GPL-2.0-only
/* A helper run with no more power than a traced process has (asproc.h).
 *
 * Two children: the first takes the process's supplementary groups (as the
 * host sees them, before a user namespace that may deny setgroups is
 * joined), its namespaces through the pidfd, its ids as seen inside them,
 * and its root (a directory fd opened before the join: fchdir, chroot);
 * a PID namespace is its children's, so it clones the second, a child of
 * ours (CLONE_PARENT: we kill and reap the helper as before, and a kill
 * orphans nothing), says its pid and exits.  The second drops the bounding
 * set, takes the ids, drops every capability, sets no_new_privs and execs
 * the helper.  Neither is dumpable before the exec (the first holds root in
 * the process's user namespace); after it, the helper is as dumpable as the
 * process's own programs.  A step that fails is sent with its errno through
 * a pipe the exec closes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asproc.h"

/* The steps, in the order they are taken (S_STARTED: not a step, the
 * helper's pid). */
enum step {
	S_STARTED, S_PIDFD = 1, S_PROC, S_NS, S_ROOT, S_GROUPS_READ, S_FDS, S_GROUPS, S_SETNS, S_IDS,
	S_CHROOT, S_FORK, S_BOUNDING, S_SETID, S_CAPS, S_NNP, S_PARENT, S_EXEC,
};
static const char *const steps[] = {
	[S_PIDFD] = "pidfd_open", [S_PROC] = "its /proc/PID", [S_NS] = "its namespaces",
	[S_ROOT] = "its root", [S_GROUPS_READ] = "its groups", [S_FDS] = "descriptors",
	[S_GROUPS] = "setgroups to its groups", [S_SETNS] = "setns into its namespaces",
	[S_IDS] = "its ids inside its namespaces", [S_CHROOT] = "chroot to its root",
	[S_FORK] = "clone into its PID namespace", [S_BOUNDING] = "the capability bounding set",
	[S_SETID] = "setresuid/setresgid to its ids", [S_CAPS] = "dropping every capability",
	[S_NNP] = "no_new_privs", [S_PARENT] = "the parent-death signal", [S_EXEC] = "exec",
};
struct fail {
	int step, err;
};

/* The children's descriptors (child_fds) */
enum { FD_EXE = 3, FD_ERR, FD_PIDFD, FD_PROC, FD_ROOT, FD_US, FD_FIRST_FREE };

static const struct {
	int flag;
	const char *name;
} namespaces[] = {
	{ CLONE_NEWUSER, "user" }, { CLONE_NEWNS, "mnt" }, { CLONE_NEWPID, "pid" },
	{ CLONE_NEWNET, "net" }, { CLONE_NEWIPC, "ipc" }, { CLONE_NEWUTS, "uts" },
	{ CLONE_NEWCGROUP, "cgroup" },
};

static int say(char *why, size_t cap, int step, int err)
{
	snprintf(why, cap, "%s: %s", steps[step], strerror(err));
	return err > 0 ? -err : -EPERM;
}

/* Its namespaces that are not ours, into a->nsflags (a kind this kernel
 * lacks, ours absent too, is skipped). */
static int ns_flags(struct katra_asproc *a)
{
	a->nsflags = 0;
	for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++) {
		char mine[64], its[32];
		struct stat m, t;
		snprintf(mine, sizeof(mine), "/proc/thread-self/ns/%s", namespaces[i].name);
		snprintf(its, sizeof(its), "ns/%s", namespaces[i].name);
		if (stat(mine, &m))
			continue;
		if (fstatat(a->procfd, its, &t, 0))
			return -errno;
		if (m.st_dev != t.st_dev || m.st_ino != t.st_ino)
			a->nsflags |= namespaces[i].flag;
	}
	return 0;
}

/* Its supplementary groups: "Groups:" of /proc/PID/status read from here,
 * the ids as the host sees them. */
static int read_groups(struct katra_asproc *a)
{
	char *line = NULL;
	size_t lcap = 0, cap = 0;
	int fd = openat(a->procfd, "status", O_RDONLY | O_CLOEXEC), rc = -ENODATA;
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;

	if (!f) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == -ENODATA && getline(&line, &lcap, f) > 0) {
		if (strncmp(line, "Groups:", 7))
			continue;
		char *p = line + 7, *end;
		rc = 0;
		for (unsigned long g = strtoul(p, &end, 10); end != p && !rc;
		     g = strtoul(p, &end, 10)) {
			p = end;
			if (a->ngroups == cap) {
				gid_t *m = realloc(a->groups, (cap = cap ? cap * 2 : 16) * sizeof(*m));
				if (!m)
					rc = -ENOMEM;
				else
					a->groups = m;
			}
			if (!rc)
				a->groups[a->ngroups++] = (gid_t)g;
		}
	}
	free(line);
	fclose(f);
	return rc;
}

int katra_asproc_open(uint32_t pid, struct katra_asproc *a, char *why, size_t cap)
{
	char path[64];
	int rc;

	memset(a, 0, sizeof(*a));
	a->pidfd = a->procfd = a->rootfd = -1;
	a->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (a->pidfd < 0)
		return say(why, cap, S_PIDFD, errno);
	snprintf(path, sizeof(path), "/proc/%u", pid);
	a->procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* still the process the pidfd holds: /proc/PID is that one's */
	if (a->procfd < 0 || syscall(SYS_pidfd_send_signal, a->pidfd, 0, NULL, 0))
		return say(why, cap, S_PROC, errno);
	if ((rc = ns_flags(a)))
		return say(why, cap, S_NS, -rc);
	a->rootfd = openat(a->procfd, "root", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->rootfd < 0)
		return say(why, cap, S_ROOT, errno);
	if ((rc = read_groups(a)))
		return say(why, cap, S_GROUPS_READ, -rc);
	return 0;
}

void katra_asproc_close(struct katra_asproc *a)
{
	if (a->pidfd >= 0)
		close(a->pidfd);
	if (a->procfd >= 0)
		close(a->procfd);
	if (a->rootfd >= 0)
		close(a->rootfd);
	free(a->groups);
	a->pidfd = a->procfd = a->rootfd = -1;
	a->groups = NULL;
	a->ngroups = 0;
}

/* ---- the children (forked from a threaded process: no allocation) ---- */

static void child_say(int errfd, int step, int err)
{
	struct fail f = { step, err };

	if (write(errfd, &f, sizeof(f)) != (ssize_t)sizeof(f))
		_exit(124);
}

static __attribute__((noreturn)) void child_fail(int errfd, int step, int err)
{
	child_say(errfd, step, err);
	_exit(125);
}

/* Whether the recorder (FD_US: its pidfd) is still there. */
static bool us_alive(void)
{
	struct pollfd p = { .fd = FD_US, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* Its uids and gids (real, effective, saved) from /proc/PID/status, read
 * once its user namespace is joined: the kernel gives them as they are
 * inside it, the ids setresuid takes there. */
static int read_ids(int procfd, uid_t uid[3], gid_t gid[3])
{
	char buf[4096];
	size_t len = 0;
	int fd = openat(procfd, "status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	buf[len] = 0;
	const char *u = strstr(buf, "\nUid:"), *g = strstr(buf, "\nGid:");
	unsigned long a[3], b[3];
	if (!u || !g || sscanf(u + 5, "%lu %lu %lu", &a[0], &a[1], &a[2]) != 3 ||
	    sscanf(g + 5, "%lu %lu %lu", &b[0], &b[1], &b[2]) != 3)
		return -ENODATA;
	for (int i = 0; i < 3; i++) {
		uid[i] = (uid_t)a[i];
		gid[i] = (gid_t)b[i];
	}
	return 0;
}

/* Whether we have its groups already (a recorder without CAP_SETGID may
 * go on without setgroups then). */
static bool same_groups(const struct katra_asproc *a)
{
	gid_t mine[256];
	int n = getgroups(256, mine);

	if (n < 0 || (size_t)n != a->ngroups)
		return false;
	for (size_t i = 0; i < a->ngroups; i++) {
		bool found = false;
		for (int k = 0; k < n && !found; k++)
			found = mine[k] == a->groups[i];
		if (!found)
			return false;
	}
	return true;
}

/* Whether its root is ours, in our mount namespace (a recorder without
 * CAP_SYS_CHROOT may go on without chroot then). */
static bool same_root(const struct katra_asproc *a)
{
	struct stat mine, its;

	return !(a->nsflags & CLONE_NEWNS) && !stat("/", &mine) && !fstat(FD_ROOT, &its) &&
	       mine.st_dev == its.st_dev && mine.st_ino == its.st_ino;
}

/* 0 and 2 /dev/null, 1 the output, then the helper, the error pipe, the
 * pidfd, /proc/PID, its root and our own pidfd at fixed numbers; nothing else of ours (a
 * descriptor the recorder left open, a BPF map, the trace, is not the
 * process's).  0-2 and the helper survive the exec, the rest does not. */
static int child_fds(int out, int devnull, int exe, int err, int us,
		     const struct katra_asproc *a)
{
	const int src[FD_FIRST_FREE] = { devnull, out, devnull, exe, err, a->pidfd, a->procfd,
					 a->rootfd, us };
	int tmp[FD_FIRST_FREE];

	for (int i = 0; i < FD_FIRST_FREE; i++)
		if ((tmp[i] = fcntl(src[i], F_DUPFD_CLOEXEC, FD_FIRST_FREE)) < 0)
			return -errno;
	for (int i = 0; i < FD_FIRST_FREE; i++)
		if (dup3(tmp[i], i, i <= FD_EXE ? 0 : O_CLOEXEC) < 0)
			return -errno;
	if (close_range(FD_FIRST_FREE, ~0u, 0)) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
		for (rlim_t fd = FD_FIRST_FREE; fd < rl.rlim_cur && fd < (1u << 20); fd++)
			close((int)fd);
	}
	return 0;
}

/* The helper's process, inside the process's PID namespace, a child of
 * ours (CLONE_PARENT). */
static __attribute__((noreturn)) void second_child(const uid_t uid[3], const gid_t gid[3],
						   char *const argv[], char *const envp[])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];
	bool bounded = true;

	/* gone with the thread that forked the first child (checked against a
	 * recorder already gone: its pidfd, since from inside another PID
	 * namespace getppid says 0 whoever the parent is) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || !us_alive())
		child_fail(FD_ERR, S_PARENT, errno ? errno : ESRCH);
	/* the bounding set first: dropping it needs CAP_SETPCAP */
	for (int c = 0; bounded && prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++) {
		if (!prctl(PR_CAPBSET_DROP, c, 0, 0, 0))
			continue;
		if (errno != EPERM)
			child_fail(FD_ERR, S_BOUNDING, errno);
		bounded = false;
	}
	if (setresgid(gid[0], gid[1], gid[2]) || setresuid(uid[0], uid[1], uid[2]))
		child_fail(FD_ERR, S_SETID, errno);
	/* a recorder without CAP_SETPCAP (not root) keeps the set: harmless
	 * where no uid is 0 (no_new_privs: an exec gains nothing else) */
	if (!bounded && (!uid[0] || !uid[1] || !uid[2]))
		child_fail(FD_ERR, S_BOUNDING, EPERM);
	memset(caps, 0, sizeof(caps)); /* uid 0 keeps its capabilities through setresuid */
	if (syscall(SYS_capset, &h, caps) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) ||
	    syscall(SYS_capget, &h, caps))
		child_fail(FD_ERR, S_CAPS, errno);
	for (int i = 0; i < 2; i++)
		if (caps[i].effective || caps[i].permitted || caps[i].inheritable)
			child_fail(FD_ERR, S_CAPS, EPERM);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		child_fail(FD_ERR, S_NNP, errno);
	/* armed again: a change of ids clears it */
	errno = 0;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || !us_alive())
		child_fail(FD_ERR, S_PARENT, errno ? errno : ESRCH);
	close(FD_US);
	fexecve(FD_EXE, argv, envp);
	child_fail(FD_ERR, S_EXEC, errno);
}

static __attribute__((noreturn)) void first_child(pid_t parent, int out, int devnull, int exe,
						  int err, int us, const struct katra_asproc *a,
						  char *const argv[], char *const envp[])
{
	uid_t uid[3];
	gid_t gid[3];
	int rc;

	/* gone with the thread that forked it (checked against one already
	 * gone); not dumpable: it holds root in the process's user namespace,
	 * and ptrace from there must not reach it */
	errno = 0;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		child_fail(err, S_PARENT, errno ? errno : ESRCH);
	if ((rc = child_fds(out, devnull, exe, err, us, a)))
		child_fail(err, S_FDS, -rc);
	if (setgroups(a->ngroups, a->groups) && (errno != EPERM || !same_groups(a)))
		child_fail(FD_ERR, S_GROUPS, errno);
	if (a->nsflags && setns(FD_PIDFD, a->nsflags))
		child_fail(FD_ERR, S_SETNS, errno);
	if ((rc = read_ids(FD_PROC, uid, gid)))
		child_fail(FD_ERR, S_IDS, -rc);
	if (fchdir(FD_ROOT) || (chroot(".") && (errno != EPERM || !same_root(a))) || chdir("/"))
		child_fail(FD_ERR, S_CHROOT, errno);
	close(FD_PIDFD);
	close(FD_PROC);
	close(FD_ROOT);
	/* a PID namespace is its children's; the helper is a child of ours, so
	 * that we kill and reap it as any child (and none is orphaned) */
	long child = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (child < 0)
		child_fail(FD_ERR, S_FORK, errno);
	if (child == 0)
		second_child(uid, gid, argv, envp);
	child_say(FD_ERR, S_STARTED, (int)child);
	_exit(0);
}

/* The first child's word (the helper's pid, or why not), waited for at most
 * timeout_ms; a failure of the helper's own setup may come first. */
static int first_word(int fd, int timeout_ms, pid_t *helper, struct fail *failed)
{
	struct timespec t0, t;
	struct fail f;

	*helper = 0;
	failed->step = failed->err = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t got = read(fd, &f, sizeof(f));
		if (got == (ssize_t)sizeof(f) && f.step == S_STARTED) {
			*helper = f.err;
			return 0;
		}
		if (got == (ssize_t)sizeof(f) && f.step > 0 &&
		    f.step < (int)(sizeof(steps) / sizeof(steps[0]))) {
			*failed = f; /* the first child's (then it is gone), or the helper's */
			continue;
		}
		if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) || got > 0)
			return failed->step ? 0 : -EPROTO; /* no helper */
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 +
					  (t.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left <= 0 || (poll(&p, 1, (int)left) < 0 && errno != EINTR))
			return -ETIMEDOUT;
	}
}

int katra_asproc_spawn(const struct katra_asproc *a, int exe, char *const argv[],
		       char *const envp[], int out, int timeout_ms, pid_t *child, int *errfd,
		       char *why, size_t cap)
{
	int efd[2], us = (int)syscall(SYS_pidfd_open, getpid(), 0), devnull = -1, rc, st;
	pid_t parent = getpid(), first, helper = 0;
	struct fail failed = { 0, 0 };

	*child = 0;
	*errfd = -1;
	if (us < 0)
		return say(why, cap, S_PIDFD, errno);
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    pipe2(efd, O_CLOEXEC | O_NONBLOCK)) {
		rc = say(why, cap, S_FDS, errno);
		goto out;
	}
	first = fork();
	if (first == 0)
		first_child(parent, out, devnull, exe, efd[1], us, a, argv, envp);
	close(efd[1]);
	if (first < 0) {
		rc = say(why, cap, S_FORK, errno);
		close(efd[0]);
		goto out;
	}
	rc = first_word(efd[0], timeout_ms, &helper, &failed);
	if (rc == -ETIMEDOUT)
		kill(first, SIGKILL);
	while (waitpid(first, &st, 0) < 0 && errno == EINTR)
		;
	if (!rc && failed.step) { /* the first child's, or the helper's before its pid */
		if (helper > 0)
			while (waitpid(helper, &st, 0) < 0 && errno == EINTR)
				;
		rc = say(why, cap, failed.step, failed.err);
	} else if (rc) {
		snprintf(why, cap, "its setup %s", rc == -ETIMEDOUT ? "timed out" : "ended, no word");
	}
	if (rc) {
		close(efd[0]);
		goto out;
	}
	*child = helper;
	*errfd = efd[0];
out:
	close(us);
	if (devnull >= 0)
		close(devnull);
	return rc;
}

bool katra_asproc_failed(int errfd, char *why, size_t cap)
{
	struct fail f;
	/* both children wrote before they exited, if they did */
	ssize_t got = read(errfd, &f, sizeof(f));

	close(errfd);
	if (got != (ssize_t)sizeof(f) || f.step <= 0 ||
	    f.step >= (int)(sizeof(steps) / sizeof(steps[0])))
		return false;
	say(why, cap, f.step, f.err);
	return true;
}
