// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "targets.h"

int katra_target_check(uint32_t pid)
{
	if (pid == 0 || kill((pid_t)pid, 0) < 0) {
		if (pid && errno == EPERM)
			return 0; /* exists, owned by someone else */
		return -ESRCH;
	}
	return 0;
}

void katra_target_comm(uint32_t pid, char *buf, size_t cap)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

uint32_t katra_target_tgid(uint32_t tid)
{
	char path[64], line[128];
	unsigned tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int katra_target_exe(uint32_t pid, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, buf, cap - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int katra_resolve_command(const char *name, char *out, size_t cap)
{
	const char *path = getenv("PATH");
	int err = -ENOENT;

	if (strchr(name, '/')) {
		if ((size_t)snprintf(out, cap, "%s", name) >= cap)
			return -ENAMETOOLONG;
		return access(out, X_OK) ? -errno : 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	/* as execvp: the first executable file in PATH order */
	while (*path) {
		size_t len = strcspn(path, ":");
		int n = snprintf(out, cap, "%.*s%s%s", (int)len, path, len ? "/" : "", name);
		path += len + (path[len] == ':');
		if (n < 0 || (size_t)n >= cap)
			continue;
		if (!access(out, X_OK)) {
			struct stat st;
			if (!stat(out, &st) && S_ISREG(st.st_mode))
				return 0;
		} else if (errno == EACCES) {
			err = -EACCES;
		}
	}
	return err;
}

/* The parent of pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm
 * may hold spaces and parentheses: read after the last ')'). 0 if unknown. */
static uint32_t parent_of(uint32_t pid)
{
	char path[64], buf[512];
	unsigned ppid = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *close_paren = strrchr(buf, ')');
	if (!close_paren || sscanf(close_paren + 1, " %*c %u", &ppid) != 1)
		return 0;
	return ppid;
}

static bool is_root(uint32_t pid, const uint32_t *roots, size_t nroots)
{
	for (size_t i = 0; i < nroots; i++)
		if (roots[i] == pid)
			return true;
	return false;
}

struct pid_parent {
	uint32_t pid, ppid;
};

static int by_pid(const void *a, const void *b)
{
	uint32_t x = ((const struct pid_parent *)a)->pid, y = ((const struct pid_parent *)b)->pid;

	return x < y ? -1 : x > y;
}

/* pid's parent in the table sorted by pid, 0 if not there. */
static uint32_t parent_in(const struct pid_parent *sorted, size_t n, uint32_t pid)
{
	const struct pid_parent key = { pid, 0 }, *e;

	e = bsearch(&key, sorted, n, sizeof(*sorted), by_pid);
	return e ? e->ppid : 0;
}

/* Whether no root has a child process: 1 when every thread of every root
 * lists none in /proc/PID/task/TID/children (a child is its forking
 * thread's), 0 when one does, -1 when that cannot be read (no
 * CONFIG_PROC_CHILDREN, a root gone).  A read per thread of the roots
 * rather than one per process of the machine. */
static int childless(const uint32_t *roots, size_t nroots)
{
	char path[96], b;
	struct dirent *de;
	int none = 1;

	for (size_t i = 0; i < nroots && none == 1; i++) {
		snprintf(path, sizeof(path), "/proc/%u/task", roots[i]);
		DIR *d = opendir(path);
		if (!d)
			return -1;
		while (none == 1 && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%u/task/%.20s/children", roots[i],
				 de->d_name);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			ssize_t n = fd < 0 ? -1 : read(fd, &b, 1);
			if (fd >= 0)
				close(fd);
			/* a thread gone meanwhile handed its children to another,
			 * maybe one read already: unknown */
			none = n == 0 ? 1 : n > 0 ? 0 : -1;
		}
		closedir(d);
	}
	return none;
}

/* Each process's parent read once, the chains walked in memory: a read of
 * /proc/PID/stat per step of every chain took ~4 ms a pass on a machine of
 * ~100 processes, and the start-up makes four passes before going live.
 * Roots without children (a -p target, most often) are known to have no
 * descendants without listing /proc at all. */
int katra_target_descendants(const uint32_t *roots, size_t nroots, uint32_t *out, size_t cap)
{
	struct pid_parent *t = NULL, *sorted = NULL;
	size_t n = 0, tcap = 0;
	DIR *d;
	struct dirent *de;
	int found = 0;

	if (childless(roots, nroots) == 1)
		return 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || !pid || pid > UINT32_MAX)
			continue;
		if (n == tcap) {
			size_t c = tcap ? 2 * tcap : 512;
			struct pid_parent *m = realloc(t, c * sizeof(*t));
			if (!m) {
				found = -ENOMEM;
				break;
			}
			t = m;
			tcap = c;
		}
		t[n].pid = (uint32_t)pid;
		t[n++].ppid = parent_of((uint32_t)pid);
	}
	closedir(d);
	if (!found && n && !(sorted = malloc(n * sizeof(*sorted))))
		found = -ENOMEM;
	if (found) {
		free(t);
		return found;
	}
	if (n)
		memcpy(sorted, t, n * sizeof(*t));
	qsort(sorted, n, sizeof(*sorted), by_pid);
	/* in the order /proc lists them */
	for (size_t i = 0; i < n; i++) {
		if (is_root(t[i].pid, roots, nroots))
			continue;
		/* walk up: a chain longer than 64 is not a process tree we made */
		uint32_t up = t[i].ppid;
		for (int depth = 0; depth < 64 && up; depth++) {
			if (is_root(up, roots, nroots)) {
				if ((size_t)found < cap)
					out[found] = t[i].pid;
				found++;
				break;
			}
			if (up <= 1)
				break;
			up = parent_in(sorted, n, up);
		}
	}
	free(t);
	free(sorted);
	return found;
}

/* The stop signals whose disposition the command inherits from our caller:
 * ours (the recorder's handlers) never reach it. */
static const int inherited_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* The child's side, set in the child before it waits. */
static struct {
	const char *path;
	char *const *argv;
	const volatile int *released;
} child_cmd;

/* SIGCONT in the child: our release (the shared word set first), or our
 * death (PR_SET_PDEATHSIG), or someone else's.  The exec runs here, in the
 * handler: the trace starts at it, with no syscall of ours before it (the
 * code it interrupts is only the armed byte's write and pause()). */
static void on_continued(int sig)
{
	(void)sig;
	if (!*child_cmd.released)
		_exit(127); /* continued by our parent's death, or by someone else */
	execv(child_cmd.path, child_cmd.argv);
	fprintf(stderr, "katra-record: cannot run '%s': %s\n", child_cmd.argv[0], strerror(errno));
	_exit(127);
}

/* Tests only: the child waits this long between arming its parent-death
 * signal and its pause, the moment a parent's death must still end it. */
static void armed_test_delay(void)
{
	const char *ms = getenv("KATRA_TEST_ARMED_MS");
	struct timespec ts = { ms ? atoi(ms) / 1000 : 0, ms ? (long)(atoi(ms) % 1000) * 1000000 : 0 };

	while (ms && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The child's own pages that on_continued touches, made present before it
 * is tracked (fork left its stack copy-on-write, the shared word unmapped):
 * the command's trace then starts at its execve, with no page fault of ours
 * before it.  The handler's frame lies below the signal frame, itself below
 * pause()'s: 64 KiB below this frame covers them. */
static __attribute__((noinline)) void prefault_launcher(const volatile int *released)
{
	volatile char below[64 << 10];

	for (size_t i = 0; i < sizeof(below); i += 1024)
		below[i] = 0;
	(void)*released;
}

/* The child: drop to the invoking user if asked, wait paused until the
 * probes are live, then one execve of the resolved path (the trace starts
 * there: no PATH search, no syscall of ours).  Its parent's death while it
 * waits must end it: PR_SET_PDEATHSIG, checked against a parent already gone.
 * The signal is SIGCONT, not SIGKILL, because it stays set across execve and
 * the command must outlive a capture that ends first (-d); after execve a
 * SIGCONT does nothing.  Here it has a handler (on_continued), so it is never
 * lost: pending while blocked, it wakes pause() or the stop.  The stop is the
 * parent's SIGSTOP, sent once the child said it is armed, never the child's
 * own: a SIGSTOP generated after our parent's SIGCONT would discard that
 * SIGCONT and stop the child for good, an orphan in state T.  Stopped (out
 * of pause(), its return before the probes track it), it waits untraced. */
static void launch_child(const char *path, char *const argv[], const struct katra_run_as *as,
			 pid_t parent, const sigset_t *mask, const volatile int *released,
			 int armed_fd)
{
	struct sigaction cont = { .sa_handler = on_continued, .sa_flags = SA_NODEFER };
	sigset_t waiting = *mask;

	for (size_t i = 0; i < sizeof(inherited_signals) / sizeof(inherited_signals[0]); i++) {
		int sig = inherited_signals[i];
		signal(sig, as && sigismember(&as->ignored, sig) ? SIG_IGN : SIG_DFL);
	}
	if (as && as->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(126);
	if (as && as->set) {
		if (setgroups(as->ngroups, as->groups) || setgid(as->gid) || setuid(as->uid)) {
			fprintf(stderr, "katra-record: cannot run '%s' as uid %u: %s\n", argv[0],
				as->uid, strerror(errno));
			_exit(126);
		}
		if (as->home[0])
			setenv("HOME", as->home, 1);
	}
	child_cmd.path = path;
	child_cmd.argv = argv;
	child_cmd.released = released;
	/* no mask of the handler's own (SA_NODEFER, empty sa_mask): the exec in
	 * it gives the command the caller's mask (SIGCONT unblocked) */
	sigemptyset(&cont.sa_mask);
	/* after setuid, which clears it */
	if (sigaction(SIGCONT, &cont, NULL) || prctl(PR_SET_PDEATHSIG, SIGCONT) ||
	    getppid() != parent)
		_exit(127);
	prefault_launcher(released);
	sigdelset(&waiting, SIGCONT); /* the handler must be able to run */
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	if (write(armed_fd, "", 1) != 1)
		_exit(127);
	armed_test_delay();
	for (;;)
		pause();
}

int katra_launch_start(struct katra_launch *l, char *const argv[], const struct katra_run_as *as)
{
	char path[4096], armed;
	sigset_t all, old;
	pid_t parent = getpid();
	int st, rc, pipefd[2];
	ssize_t n;

	l->pid = -1;
	l->release_fd = -1;
	l->released = NULL;
	rc = katra_resolve_command(argv[0], path, sizeof(path));
	if (rc)
		return rc;
	/* one word both sides see: set before the child is continued */
	l->released = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			   -1, 0);
	if (l->released == MAP_FAILED) {
		l->released = NULL;
		return -errno;
	}
	/* the child's word that its parent-death signal is armed */
	if (pipe2(pipefd, O_CLOEXEC)) {
		rc = -errno;
		katra_launch_abort(l);
		return rc;
	}
	/* no handler of ours runs in the child: its signals wait until it has
	 * its own dispositions */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		launch_child(path, argv, as, parent, &old, l->released, pipefd[1]);
	}
	rc = pid < 0 ? -errno : 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		katra_launch_abort(l);
		return rc;
	}
	l->pid = pid;
	l->release_fd = 1; /* "not yet released": killed on any failure from here */
	/* armed (or gone: EOF), then stopped by us; what it did to get there is
	 * not traced (it is tracked once stopped) */
	while ((n = read(pipefd[0], &armed, 1)) < 0 && errno == EINTR)
		;
	rc = n < 0 ? -errno : 0;
	close(pipefd[0]);
	if (rc || (n == 1 && kill(pid, SIGSTOP))) {
		rc = rc ? rc : -errno;
		katra_launch_abort(l);
		return rc;
	}
	while (waitpid(pid, &st, n == 1 ? WUNTRACED : 0) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			katra_launch_abort(l);
			return rc;
		}
	}
	if (!WIFSTOPPED(st)) {
		l->pid = -1; /* reaped */
		l->release_fd = -1;
		katra_launch_abort(l); /* the shared word */
		if (WIFSIGNALED(st))
			return -EINTR;
		return WIFEXITED(st) && WEXITSTATUS(st) == 126 ? -EPERM : -ECHILD;
	}
	return 0;
}

int katra_launch_release(struct katra_launch *l)
{
	l->release_fd = -1;
	*l->released = 1;
	int rc = kill(l->pid, SIGCONT) ? -errno : 0;
	munmap((void *)l->released, sizeof(int)); /* the child keeps its own mapping */
	l->released = NULL;
	return rc;
}

void katra_launch_abort(struct katra_launch *l)
{
	if (l->release_fd >= 0 && l->pid > 0) {
		kill(l->pid, SIGKILL); /* never released: it must not run */
		l->release_fd = -1;
	}
	if (l->pid > 0) {
		waitpid(l->pid, NULL, 0);
		l->pid = -1;
	}
	if (l->released) {
		munmap((void *)l->released, sizeof(int));
		l->released = NULL;
	}
}

/* Reaps pid within ms; true when it was reaped (status set). */
static bool reap_within(pid_t pid, unsigned ms, int *status)
{
	for (unsigned waited = 0;; waited += 10) {
		pid_t got = waitpid(pid, status, WNOHANG);
		if (got == pid || (got < 0 && errno == ECHILD))
			return got == pid;
		if (waited >= ms)
			return false;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

enum katra_launch_end_how katra_launch_end(struct katra_launch *l, unsigned grace_ms, int *status)
{
	enum katra_launch_end_how how = KATRA_LAUNCH_HAD_EXITED;

	if (l->pid <= 0 || reap_within(l->pid, 0, status))
		goto reaped;
	how = KATRA_LAUNCH_ENDED_TERM;
	kill(l->pid, SIGTERM);
	if (reap_within(l->pid, grace_ms, status))
		goto reaped;
	how = KATRA_LAUNCH_ENDED_KILL;
	kill(l->pid, SIGKILL);
	if (!reap_within(l->pid, grace_ms, status))
		return KATRA_LAUNCH_NOT_REAPED; /* in an uninterruptible wait */
reaped:
	l->pid = -1;
	return how;
}

bool katra_proc_ignores(const char *proc, pid_t pid, int sig)
{
	char path[96], line[128];
	unsigned long long mask = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigIgn: %llx", &mask) == 1;
	fclose(f);
	return found && sig > 0 && sig <= 64 && (mask >> (sig - 1) & 1);
}
