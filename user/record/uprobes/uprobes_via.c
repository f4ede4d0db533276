// SPDX-License-Identifier: GPL-2.0-only
/* Attaching through the fd that was read: the name a uprobe is attached
 * by (/proc/self/fd/N), below both ways of attaching (uprobes_attach.c,
 * uprobes_multi.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uprobes_int.h"

void up_via(struct katra_uprobes *u, int fd, const char *path)
{
	u->via_fd = fd;
	u->via_path = path;
}

void up_via_end(struct katra_uprobes *u)
{
	u->via_fd = -1;
	u->via_path = NULL;
}

/* The kernel resolves the name it is given once more: a name inside the
 * process's root could be a link out of it by then, another file than
 * the one read.  /proc/self/fd/N is the very file read. */
int up_via_name(struct katra_uprobes *u, const char *label, const char *path, char *out,
		size_t cap)
{
	if (!u->via_path || u->via_fd < 0 || strcmp(path, u->via_path)) {
		up_failed(u, label, "%s was not opened inside its process's root", path);
		return -EBADF;
	}
	snprintf(out, cap, "/proc/self/fd/%d", u->via_fd);
	return 0;
}
