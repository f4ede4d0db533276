// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "outfile.h"

int katra_outfile_create(const char *path, bool replace, int *out)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	char tmp[PATH_MAX];
	int fd;

	*out = -1;
	if (!replace) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		katra_give_to_sudo_user(fd, path);
		*out = fd;
		return 0;
	}
	/* renamed at once, not at the end: a killed capture's trace is at path */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", dir_len, path, base) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL, 0600 */
	if (fd < 0)
		return -errno;
	katra_give_to_sudo_user(fd, path);
	if (rename(tmp, path) < 0) {
		int err = -errno;
		unlink(tmp);
		close(fd);
		return err;
	}
	*out = fd;
	return 0;
}

int katra_outfile_ready(const char *path)
{
	int fd, rc = katra_outfile_create(path, false, &fd);

	if (rc) {
		fprintf(stderr, "katra-record: cannot create ready file '%s': %s\n", path,
			strerror(-rc));
		return rc;
	}
	dprintf(fd, "%d\n", getpid());
	close(fd);
	return 0;
}
