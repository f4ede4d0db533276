// SPDX-License-Identifier: GPL-2.0-only
/* Workload: execve from a thread other than the main one.
 *
 * usage: execthread [--gate FILE]
 *
 * The main thread blocks in read(2) on a pipe nobody writes; a second thread
 * waits until the main thread really is inside that read (its
 * /proc/self/task/TID/syscall says so), prints the ground truth and execs this
 * same program with `--after TID`.  The kernel kills the main thread in the
 * middle of its read (it never returns), and the exec'ing thread takes over
 * the process: afterwards its tid is the pid.  The new image prints a second
 * line and exits 0.  Two JSON lines, one per image (one write(2) each):
 * {"workload":"execthread","pid":P,"main_tid":P,"exec_tid":X,"pipe_fd":F}
 * {"workload":"execthread","phase":"after","pid":P,"tid":P,"old_tid":X} */
#define _GNU_SOURCE /* pipe2 */
#include <pthread.h>

#include "workload.h"

static const char *prog = "execthread";
static int pipefd[2];
static pid_t main_tid;

/* true once `tid` of this process is blocked in read(2) (syscall nr 0) */
static int in_read(pid_t tid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die(prog, "cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return !strncmp(buf, "0 ", 2);
}

static void *exec_thread(void *arg)
{
	char tid_s[24];
	pid_t tid = wl_gettid();
	char *const args[] = { (char *)"execthread", (char *)"--after", tid_s, NULL };

	(void)arg;
	while (!in_read(main_tid))
		wl_sleep_ns(1000000);
	snprintf(tid_s, sizeof(tid_s), "%d", (int)tid);
	dprintf(STDOUT_FILENO, "{\"workload\":\"execthread\",\"pid\":%d,\"main_tid\":%d,"
		"\"exec_tid\":%d,\"pipe_fd\":%d}\n", (int)getpid(), (int)main_tid, (int)tid,
		pipefd[0]);
	execv("/proc/self/exe", args);
	wl_die(prog, "exec /proc/self/exe: %s", strerror(errno));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char c;

	if (argc == 3 && !strcmp(argv[1], "--after")) {
		dprintf(STDOUT_FILENO, "{\"workload\":\"execthread\",\"phase\":\"after\","
			"\"pid\":%d,\"tid\":%d,\"old_tid\":%lu}\n", (int)getpid(),
			(int)wl_gettid(), wl_num(prog, "TID", argv[2]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--gate"))
		wl_gate_wait(argv[2]);
	else if (argc != 1)
		wl_die(prog, "usage: execthread [--gate FILE]");

	main_tid = wl_gettid();
	if (pipe2(pipefd, O_CLOEXEC))
		wl_die(prog, "pipe2: %s", strerror(errno));
	if (pthread_create(&th, NULL, exec_thread, NULL))
		wl_die(prog, "pthread_create failed");
	/* blocks until the exec kills this thread: nobody writes the pipe */
	wl_die(prog, "read on the pipe returned %zd: the exec did not happen",
	       read(pipefd[0], &c, 1));
	return 1;
}
