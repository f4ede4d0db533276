// SPDX-License-Identifier: GPL-2.0-only
/* Opening a file a traced process maps (procfs/procpath.h: inside its
 * root, never blocking) and saying what was refused; below the scans
 * (uprobes_scan.c) and the layers that read files (uprobes_wine.c,
 * uprobes_vk.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/procfs/procpath.h"
#include "uprobes_int.h"

int up_open_mapped(struct katra_uprobes *u, uint32_t pid, const char *path, unsigned flags,
		   uint64_t dev, uint64_t ino, int *fd, struct stat *st)
{
	int rc = katra_proc_open("/proc", pid, path, flags, dev, ino, fd, st);

	if (katra_proc_refused(rc))
		up_refused(u, pid, path, rc);
	return rc;
}

void up_refused(struct katra_uprobes *u, uint32_t pid, const char *path, int rc)
{
	char *s;

	if (!u->o.quiet)
		fprintf(stderr, "katra-record: %s (as process %u names it) not read: %s\n", path,
			pid, katra_proc_why(rc));
	if (asprintf(&s, "%.200s (as process %u names it): %s", path, pid,
		     katra_proc_why(rc)) < 0)
		return;
	for (unsigned i = 0; i < u->nrefused; i++)
		if (!strcmp(u->refused[i], s)) { /* met again (a rescan) */
			free(s);
			return;
		}
	if (u->nrefused < REFUSED_MAX)
		u->refused[u->nrefused++] = s;
	else
		free(s), u->refused_more++;
}
