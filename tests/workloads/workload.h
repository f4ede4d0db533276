/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the test workloads (header-only: the Makefile builds each
 * tests/workloads/NAME.c into its own program).
 *
 * Every workload prints its ground truth as ONE JSON line on stdout and, with
 * `--gate FILE`, waits until FILE exists (polled every 1 ms) before its
 * measured part, so that start-up happens before the capture is live. */
#ifndef KATRA_WORKLOAD_H
#define KATRA_WORKLOAD_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline void wl_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline pid_t wl_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static inline void wl_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Wait until `path` exists; NULL means no gate. */
static inline void wl_gate_wait(const char *path)
{
	if (!path)
		return;
	while (access(path, F_OK) != 0)
		wl_sleep_ns(1000000);
}

/* Parse a non-negative decimal argument or die. */
static inline unsigned long wl_num(const char *prog, const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		wl_die(prog, "invalid %s '%s'", what, s);
	return v;
}

/* Open `path`, or when NULL create an unlinked temporary file of `size` bytes
 * (byte i = i & 0xff) under $TMPDIR or /tmp.  Fills *st with fstat(). */
static inline int wl_data_file(const char *prog, const char *path, size_t size, struct stat *st)
{
	char tmpl[4096];
	const char *dir = getenv("TMPDIR");
	char buf[4096];
	size_t done = 0;
	int fd;

	if (path) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wl_die(prog, "cannot open '%s': %s", path, strerror(errno));
	} else {
		snprintf(tmpl, sizeof(tmpl), "%s/katra-wl-XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(tmpl);
		if (fd < 0)
			wl_die(prog, "cannot create '%s': %s", tmpl, strerror(errno));
		unlink(tmpl);
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)(i & 0xff);
		while (done < size) {
			size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
			ssize_t w = write(fd, buf, n);

			if (w <= 0)
				wl_die(prog, "cannot write temporary file: %s", strerror(errno));
			done += (size_t)w;
		}
	}
	if (fstat(fd, st))
		wl_die(prog, "fstat: %s", strerror(errno));
	if (st->st_size <= 0)
		wl_die(prog, "data file is empty");
	return fd;
}

#endif /* KATRA_WORKLOAD_H */
