// SPDX-License-Identifier: GPL-2.0-only
/* Workload: a traced thread woken by a process outside the traced set.
 *
 * usage: outwake [--gate FILE] read FIFO K   the reader (traced)
 *        outwake wake PID FIFO K             the waker (started apart)
 *
 * read: opens FIFO read-write (the open waits for no writer), then makes K
 * one-byte reads.  Prints {"workload":"outwake","pid":P,"tid":T,"k":K}.
 *
 * wake: names itself "kt-outwaker", then K times waits until PID's main
 * thread sleeps in read(2) (/proc/PID/stat state S, /proc/PID/syscall number
 * 0) and writes one byte to FIFO.  Each read is asleep when its byte comes, so
 * each ends with exactly one wakeup, made by this process's write in its own
 * context.  Prints {"workload":"outwake-waker","pid":P,"tid":T,"comm":...,"k":K}. */
#define _GNU_SOURCE
#include <sys/prctl.h>

#include "workload.h"

static const char *prog = "outwake";

/* Whether the main thread of pid sleeps in read(2). */
static int asleep_in_read(unsigned long pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%lu/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		wl_die(prog, "cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	if (!p || p[1] != ' ' || p[2] != 'S')
		return 0;
	snprintf(path, sizeof(path), "/proc/%lu/syscall", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		wl_die(prog, "cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 2 && buf[0] == '0' && buf[1] == ' ';
}

static int reader(const char *fifo, unsigned long k)
{
	char c;
	int fd = open(fifo, O_RDWR);

	if (fd < 0)
		wl_die(prog, "cannot open %s: %s", fifo, strerror(errno));
	for (unsigned long i = 0; i < k; i++)
		if (read(fd, &c, 1) != 1)
			wl_die(prog, "read %lu failed: %s", i, strerror(errno));
	printf("{\"workload\":\"outwake\",\"pid\":%d,\"tid\":%d,\"k\":%lu}\n", (int)getpid(),
	       (int)wl_gettid(), k);
	return 0;
}

static int waker(unsigned long pid, const char *fifo, unsigned long k)
{
	static const char name[] = "kt-outwaker";
	int fd;

	if (prctl(PR_SET_NAME, name))
		wl_die(prog, "prctl(PR_SET_NAME) failed: %s", strerror(errno));
	fd = open(fifo, O_WRONLY);
	if (fd < 0)
		wl_die(prog, "cannot open %s: %s", fifo, strerror(errno));
	for (unsigned long i = 0; i < k; i++) {
		while (!asleep_in_read(pid))
			wl_sleep_ns(100000);
		if (write(fd, "x", 1) != 1)
			wl_die(prog, "write %lu failed: %s", i, strerror(errno));
	}
	printf("{\"workload\":\"outwake-waker\",\"pid\":%d,\"tid\":%d,\"comm\":\"%s\",\"k\":%lu}\n",
	       (int)getpid(), (int)wl_gettid(), name, k);
	return 0;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc == i + 3 && !strcmp(argv[i], "read")) {
		unsigned long k = wl_num(prog, "K", argv[i + 2]);

		wl_gate_wait(gate);
		return reader(argv[i + 1], k);
	}
	if (argc == i + 4 && !strcmp(argv[i], "wake"))
		return waker(wl_num(prog, "PID", argv[i + 1]), argv[i + 2],
			     wl_num(prog, "K", argv[i + 3]));
	wl_die(prog, "usage: outwake [--gate FILE] read FIFO K | outwake wake PID FIFO K");
	return 2;
}
