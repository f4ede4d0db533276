// SPDX-License-Identifier: GPL-2.0-only
/* What the uprobe layers attached and what failed: the lists the header's
 * notes and stderr get, shared by both ways of attaching (uprobes_attach.c:
 * perf-event links; uprobes_multi.c: uprobe_multi links). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uprobes_int.h"

void up_add_name(char **list, size_t *n, char *s)
{
	if (!s)
		return;
	if (*n < NAME_MAX_LIST)
		list[(*n)++] = s;
	else
		free(s);
}

void up_failed(struct katra_uprobes *u, const char *name, const char *fmt, ...)
{
	char why[512], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (asprintf(&s, "%s: %s", name, why) < 0)
		return;
	if (!u->o.quiet)
		fprintf(stderr, "katra-record: probe %s not attached: %s\n", name, why);
	up_add_name(u->failed, &u->nfailed, s);
}

const char *up_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}
