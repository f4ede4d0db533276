// SPDX-License-Identifier: GPL-2.0-only
/* The small /proc reads the session's scans share (session.c, session_sock.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "session_int.h"

ssize_t sess_read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < cap && (n = read(fd, buf + got, cap - (size_t)got)) > 0)
		got += n;
	if (n < 0 && !got)
		got = -errno;
	close(fd);
	return got;
}

int sess_read_stat(const char *proc, uint32_t pid, char *comm, size_t ccap, uint64_t *start)
{
	char path[128], buf[1024];
	unsigned long long st = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/stat", proc, pid);
	n = sess_read_small(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? (int)n : -EINVAL;
	buf[n] = '\0';
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	snprintf(comm, ccap, "%.*s", (int)(close - open - 1), open + 1);
	/* after ')': field 3 (state) ... field 22 (starttime) */
	char *p = close + 1;
	for (int f = 3; f < 22; f++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	if (sscanf(p, " %llu", &st) != 1)
		return -EINVAL;
	*start = st;
	return 0;
}
