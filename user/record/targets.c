#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
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

int katra_target_descendants(const uint32_t *roots, size_t nroots, uint32_t *out, size_t cap)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || !pid || is_root((uint32_t)pid, roots, nroots))
			continue;
		/* walk up: a chain longer than 64 is not a process tree we made */
		uint32_t up = (uint32_t)pid;
		for (int depth = 0; depth < 64 && up > 1; depth++) {
			up = parent_of(up);
			if (is_root(up, roots, nroots)) {
				if ((size_t)found < cap)
					out[found] = (uint32_t)pid;
				found++;
				break;
			}
		}
	}
	closedir(d);
	return found;
}

int katra_launch_start(struct katra_launch *l, char *const argv[])
{
	int fds[2];

	l->pid = -1;
	l->release_fd = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(fds[0]);
		close(fds[1]);
		return -err;
	}
	if (pid == 0) {
		char go;
		close(fds[1]);
		/* the parent closing the pipe without a byte means: do not run */
		if (read(fds[0], &go, 1) != 1)
			_exit(127);
		close(fds[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "katra-record: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	l->pid = pid;
	l->release_fd = fds[1];
	return 0;
}

int katra_launch_release(struct katra_launch *l)
{
	char go = 1;
	int rc = 0;

	if (write(l->release_fd, &go, 1) != 1)
		rc = -errno;
	close(l->release_fd);
	l->release_fd = -1;
	return rc;
}

void katra_launch_abort(struct katra_launch *l)
{
	if (l->release_fd >= 0) {
		close(l->release_fd); /* the child exits 127 without running */
		l->release_fd = -1;
	}
	if (l->pid > 0) {
		waitpid(l->pid, NULL, 0);
		l->pid = -1;
	}
}
