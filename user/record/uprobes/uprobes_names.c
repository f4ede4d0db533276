// SPDX-License-Identifier: GPL-2.0-only
/* The drain's lookups of the wineserver request tables (emit.h's
 * server_requests hooks): tables the worker read (uprobes_wine.c) are looked
 * up, never read here; a wineserver whose binary is not read yet is handed to
 * the worker, above which this file sits. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uprobes_int.h"

/* The drain's: the table read for (dev, ino), or NULL (not read yet). */
static const struct req_table *req_find(const struct katra_uprobes *u, uint64_t dev,
					uint64_t ino)
{
	unsigned n = __atomic_load_n(&u->nreq, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (u->req[i].dev == dev && u->req[i].ino == ino)
			return &u->req[i];
	return NULL;
}

/* A table found for wineserver tgid: 1 (handed out, once per wineserver) or
 * 0 (none in that binary: said once). */
static int req_give(struct katra_uprobes *u, uint32_t tgid, const struct req_table *t,
		    struct katra_str_vec *out)
{
	if (!t->strs) {
		if (!u->o.quiet)
			fprintf(stderr, "katra-record: no request names found in the wineserver "
				"of pid %u (its session's WineServerCall spans carry numbers "
				"only)\n", tgid);
		return 0;
	}
	if (u->nreq_given < sizeof(u->req_given) / sizeof(u->req_given[0]))
		u->req_given[u->nreq_given++] = tgid;
	*out = (struct katra_str_vec){ t->strs, t->count };
	return 1;
}

/* The drain's call, at a wineserver's ProcessInfo: for a `-- wine` command
 * the table was read before it ran (up_prepare_wineserver); another
 * wineserver binary (a chrooted Wine's, a session found by -p) is read by
 * the worker, which the drain asks (a scan of the wineserver: its exe) and
 * never waits for: katra_uprobes_server_requests_ready gives it later. */
int katra_uprobes_server_requests(void *ctx, uint32_t tgid, const char *comm, size_t comm_len,
				  struct katra_str_vec *out)
{
	struct katra_uprobes *u = ctx;
	char exe[64];
	struct stat st;
	const struct req_table *t;

	if (!u || !u->o.wine || comm_len < 10 || strncmp(comm, "wineserver", 10))
		return 0;
	for (unsigned i = 0; i < u->nreq_given; i++)
		if (u->req_given[i] == tgid)
			return 0;
	for (unsigned i = 0; i < u->nreq_wait; i++)
		if (u->req_wait[i].tgid == tgid)
			return 0; /* said already: -EAGAIN once per wineserver */
	snprintf(exe, sizeof(exe), "/proc/%u/exe", tgid);
	if (stat(exe, &st))
		return 0;
	t = req_find(u, st.st_dev, st.st_ino);
	if (t)
		return req_give(u, tgid, t, out);
	/* only a wineserver binary is read (not the shell of the wineserver
	 * script, named wineserver too) */
	char link[PATH_MAX];
	ssize_t n = readlink(exe, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	if (strncmp(up_base_name(link), "wineserver", 10) ||
	    u->nreq_wait >= sizeof(u->req_wait) / sizeof(u->req_wait[0]))
		return 0;
	u->req_wait[u->nreq_wait++] = (struct req_wait){ tgid, st.st_dev, st.st_ino };
	katra_uprobes_request_scan(u, tgid);
	return -EAGAIN;
}

int katra_uprobes_server_requests_ready(void *ctx, uint32_t *tgid, struct katra_str_vec *out)
{
	struct katra_uprobes *u = ctx;

	for (unsigned i = 0; u && i < u->nreq_wait; i++) {
		const struct req_table *t = req_find(u, u->req_wait[i].dev, u->req_wait[i].ino);
		if (!t)
			continue;
		*tgid = u->req_wait[i].tgid;
		u->req_wait[i] = u->req_wait[--u->nreq_wait];
		return req_give(u, *tgid, t, out);
	}
	return -EAGAIN;
}
