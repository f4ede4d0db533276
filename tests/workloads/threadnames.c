// SPDX-License-Identifier: GPL-2.0-only
/* Workload: threads that name themselves, one named by another thread, a
 * process that renames itself after it started, and a child that execs.
 *
 * usage: threadnames [--gate FILE]
 *
 * Three threads are started before the gate and wait.  After it: thread 1
 * calls prctl(PR_SET_NAME, "render"), thread 2 prctl(PR_SET_NAME, "audio");
 * the main thread names thread 3 with pthread_setname_np ("worker 3": a write
 * to /proc/self/task/TID/comm, made by the main thread), joins them, renames
 * itself (the process) "renamed-main", then forks a child that execs
 * /bin/true (an exec's new name is no rename) and waits for it.  One JSON
 * line:
 * {"workload":"threadnames","pid":P,"render":T1,"audio":T2,"worker":T3,"child":C} */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "workload.h"

static const char *prog = "threadnames";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go, named;
static pid_t tids[3];

static void *thread_main(void *arg)
{
	int i = (int)(intptr_t)arg;
	static const char *const names[2] = { "render", "audio" };

	tids[i] = wl_gettid();
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (i < 2 && prctl(PR_SET_NAME, names[i]))
		wl_die(prog, "prctl(PR_SET_NAME): %s", strerror(errno));
	if (i == 2) { /* stays alive until the main thread has named it */
		pthread_mutex_lock(&lock);
		while (!named)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[3];
	pid_t child;
	int status;

	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)i))
			wl_die(prog, "pthread_create failed");
	if (argc == 3 && !strcmp(argv[1], "--gate"))
		wl_gate_wait(argv[2]);
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	int err = pthread_setname_np(th[2], "worker 3");
	if (err)
		wl_die(prog, "pthread_setname_np: %s", strerror(err));
	pthread_mutex_lock(&lock);
	named = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	if (prctl(PR_SET_NAME, "renamed-main"))
		wl_die(prog, "prctl(PR_SET_NAME): %s", strerror(errno));
	child = fork();
	if (child < 0)
		wl_die(prog, "fork: %s", strerror(errno));
	if (!child) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		wl_die(prog, "the child failed");
	printf("{\"workload\":\"threadnames\",\"pid\":%d,\"render\":%d,\"audio\":%d,"
	       "\"worker\":%d,\"child\":%d}\n",
	       (int)getpid(), (int)tids[0], (int)tids[1], (int)tids[2], (int)child);
	return 0;
}
