// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linger.h"

#define LINGER_FDS_MAX 1024

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Closes fds lo..hi (async-signal-safe: the child of a threaded process). */
static void close_span(int lo, int hi, int open_max)
{
	if (lo > hi)
		return;
	if (!syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0))
		return;
	for (int fd = lo; fd <= hi && fd < open_max; fd++) /* before Linux 5.9 */
		close(fd);
}

struct linger_args {
	const int *fds;
	size_t n;
	int *release_fd;
	bool forked;
};

static bool fork_child(const int *fds, size_t n, int *release_fd)
{
	int keep[LINGER_FDS_MAX + 2], p[2], closed[2], open_max = (int)sysconf(_SC_OPEN_MAX);
	/* tests: the child holds the links this long after the cue, to be seen */
	const char *hold = getenv("KATRA_TEST_LINGER_MS");
	struct timespec hold_ts = { hold ? atoi(hold) / 1000 : 0,
				    hold ? (long)(atoi(hold) % 1000) * 1000000 : 0 };
	sigset_t all, old;
	size_t nk = 0;
	pid_t child;
	char c;

	*release_fd = -1;
	if (!n || n > LINGER_FDS_MAX || pipe2(p, O_CLOEXEC))
		return false;
	if (pipe2(closed, O_CLOEXEC)) {
		close(p[0]);
		close(p[1]);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			keep[nk++] = fds[i];
	keep[nk++] = p[0];
	keep[nk++] = closed[1];
	qsort(keep, nk, sizeof(keep[0]), cmp_int);
	if (open_max <= 0 || open_max > 65536)
		open_max = 65536;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old); /* the child keeps them blocked */
	child = fork();
	if (child == 0) {
		int lo = 0;
		/* it outlives the recorder by a grace period or a few: ps and
		 * pgrep say what it is, not a second katra-record */
		prctl(PR_SET_NAME, "katra-linger");
		for (size_t i = 0; i < nk; i++) {
			close_span(lo, keep[i] - 1, open_max);
			lo = keep[i] + 1;
		}
		close_span(lo, ~0u >> 1, open_max);
		/* said before the recorder goes on: once it has exited, no
		 * file of its (the trace, its rings) is held here */
		if (write(closed[1], "c", 1) < 0)
			_exit(1);
		close(closed[1]);
		/* EOF: the recorder has closed its copies; ours are the last */
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		while (nanosleep(&hold_ts, &hold_ts) < 0 && errno == EINTR)
			;
		_exit(0); /* the kernel closes the links here, waited for by nobody */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[0]);
	close(closed[1]);
	if (child < 0) {
		close(closed[0]);
		close(p[1]);
		return false;
	}
	/* bounded: a child that never runs costs the recorder a second, not
	 * its exit (EOF too if the child died) */
	struct pollfd pfd = { closed[0], POLLIN, 0 };
	while (poll(&pfd, 1, 1000) < 0 && errno == EINTR)
		;
	close(closed[0]);
	*release_fd = p[1];
	return true;
}

static void *fork_main(void *arg)
{
	struct linger_args *a = arg;

	a->forked = fork_child(a->fds, a->n, a->release_fd);
	return NULL;
}

bool katra_linger_fork(const int *fds, size_t n, int *release_fd)
{
	struct linger_args a = { fds, n, release_fd, false };
	sigset_t all, old;
	pthread_t t;
	int err;

	/* forked from a thread of its own (every signal blocked, as the child
	 * then is): the capture's thread neither copies the address space nor
	 * forks (t_drain_offload watches it) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, fork_main, &a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		fork_main(&a);
	else
		pthread_join(t, NULL);
	return a.forked;
}
