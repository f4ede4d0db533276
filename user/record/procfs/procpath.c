// SPDX-License-Identifier: GPL-2.0-only
/* A traced process's paths, as seen from here (procpath.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procpath.h"

int katra_proc_path(const char *proc, uint32_t pid, const char *path, char *out, size_t cap)
{
	char link[128], name[4096];
	ssize_t n;
	size_t skip = 0;

	if (path[0] != '/')
		return -EINVAL;
	snprintf(link, sizeof(link), "%s/%u/root", proc, pid);
	n = readlink(link, name, sizeof(name) - 1);
	if (n < 0 && errno != EINVAL)
		return -errno;
	if (n < 0) /* not a link (a fake tree's directory): nothing to drop */
		n = 0;
	name[n] = '\0';
	/* "R/FILE" with R its root's name ("/" names nothing to drop) */
	while (n > 1 && name[n - 1] == '/')
		name[--n] = '\0';
	if (n > 1 && !strncmp(path, name, (size_t)n) && (path[n] == '/' || !path[n]))
		skip = (size_t)n;
	n = snprintf(out, cap, "%s%s", link, path[skip] ? path + skip : "/");
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int katra_proc_stat(const char *proc, uint32_t pid, const char *path, struct stat *st)
{
	char seen[4096 + 160];
	int rc = katra_proc_path(proc, pid, path, seen, sizeof(seen));

	/* no root to follow (a fake /proc without one), or not ours to follow
	 * (EACCES: not root): the plain path */
	if (rc == -ENOENT || rc == -EACCES)
		return stat(path, st) ? -errno : 0;
	if (rc)
		return rc;
	if (!stat(seen, st))
		return 0;
	if (errno != EACCES)
		return -errno;
	return stat(path, st) ? -errno : 0;
}
