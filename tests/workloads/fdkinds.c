// SPDX-License-Identifier: GPL-2.0-only
/* Workload: one read and one write on each kind of file that /proc/PID/fd
 * names by what it is: a pipe, a unix socketpair, an eventfd (and the close
 * of an epoll fd), beside a regular file.
 *
 * usage: fdkinds [--gate GATE] FILE
 *
 * Before the gate: pipe(), socketpair(AF_UNIX), eventfd(), epoll_create1(),
 * open(FILE, O_RDWR | O_CREAT); each fd's name read from /proc/self/fd (the
 * file's as "file").  After it, on the main
 * thread, for the pipe, the socketpair and the eventfd in turn: a read that
 * blocks (a helper thread writes only once /proc/self/task/MAIN/syscall shows
 * the main thread inside read(2) on that fd, so the wait is certain); then on
 * the file a pwrite and a pread of 16 bytes; then every fd is closed.  One
 * JSON line, each fd with its /proc name:
 * {"workload":"fdkinds","pid":P,"tid":T,"fds":{"FD":"pipe:[123]",..},
 *  "pipe":[R,W],"socket":[A,B],"eventfd":E,"epoll":P,"file":F} */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "workload.h"

static const char *prog = "fdkinds";
static pid_t main_tid;
static int wait_fd, write_fd; /* the read the helper waits for, where it writes */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int round_no, done_no;

/* Whether the main thread is inside read(fd): /proc/.../syscall says
 * "0 0xFD ..." (x86_64 read is 0) while it is blocked there. */
static int main_in_read(int fd)
{
	char path[64], buf[128], want[32];
	int n, f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)main_tid);
	f = open(path, O_RDONLY);
	if (f < 0)
		wl_die(prog, "open %s: %s", path, strerror(errno));
	n = (int)read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	snprintf(want, sizeof(want), "0 0x%x ", fd);
	return !strncmp(buf, want, strlen(want));
}

static void *helper(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	for (int r = 1; r <= 3; r++) {
		pthread_mutex_lock(&lock);
		while (round_no < r)
			pthread_cond_wait(&cond, &lock);
		int fd = wait_fd, wfd = write_fd;
		pthread_mutex_unlock(&lock);
		while (!main_in_read(fd))
			wl_sleep_ns(1000000);
		if (write(wfd, &one, sizeof(one)) != sizeof(one))
			wl_die(prog, "write: %s", strerror(errno));
		pthread_mutex_lock(&lock);
		done_no = r;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* One blocking read of rfd, released by the helper's write on wfd. */
static void blocking_read(int r, int rfd, int wfd)
{
	uint64_t v;

	pthread_mutex_lock(&lock);
	wait_fd = rfd;
	write_fd = wfd;
	round_no = r;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (read(rfd, &v, sizeof(v)) != sizeof(v))
		wl_die(prog, "read: %s", strerror(errno));
}

static void fd_name(int fd, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, cap - 1);
	if (n < 0)
		wl_die(prog, "readlink %s: %s", path, strerror(errno));
	buf[n] = 0;
}

int main(int argc, char **argv)
{
	int p[2], sv[2], efd, ep, file, fds[7];
	char names[7][256], data[16] = "0123456789abcde";
	const char *gate = NULL, *path = argv[1];
	pthread_t th;

	if (argc == 4 && !strcmp(argv[1], "--gate"))
		gate = argv[2], path = argv[3];
	else if (argc != 2)
		wl_die(prog, "usage: fdkinds [--gate GATE] FILE");
	main_tid = wl_gettid();
	if (pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		wl_die(prog, "pipe/socketpair: %s", strerror(errno));
	efd = eventfd(0, 0);
	ep = epoll_create1(0);
	file = open(path, O_RDWR | O_CREAT, 0600);
	if (efd < 0 || ep < 0 || file < 0)
		wl_die(prog, "eventfd/epoll/open: %s", strerror(errno));
	fds[0] = p[0], fds[1] = p[1], fds[2] = sv[0], fds[3] = sv[1];
	fds[4] = efd, fds[5] = ep, fds[6] = file;
	for (int i = 0; i < 7; i++)
		fd_name(fds[i], names[i], sizeof(names[i]));
	if (pthread_create(&th, NULL, helper, NULL))
		wl_die(prog, "pthread_create failed");
	wl_gate_wait(gate);
	blocking_read(1, p[0], p[1]);
	blocking_read(2, sv[1], sv[0]);
	blocking_read(3, efd, efd);
	pthread_join(th, NULL);
	if (pwrite(file, data, sizeof(data), 0) != sizeof(data) ||
	    pread(file, data, sizeof(data), 0) != sizeof(data))
		wl_die(prog, "pwrite/pread: %s", strerror(errno));
	for (int i = 0; i < 7; i++)
		close(fds[i]);
	printf("{\"workload\":\"fdkinds\",\"pid\":%d,\"tid\":%d,\"fds\":{", (int)getpid(),
	       (int)main_tid);
	for (int i = 0; i < 7; i++)
		printf("%s\"%d\":\"%s\"", i ? "," : "", fds[i], i == 6 ? "file" : names[i]);
	printf("},\"pipe\":[%d,%d],\"socket\":[%d,%d],\"eventfd\":%d,\"epoll\":%d,\"file\":%d}\n",
	       p[0], p[1], sv[0], sv[1], efd, ep, file);
	return 0;
}
