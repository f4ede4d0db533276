// SPDX-License-Identifier: GPL-2.0-only
/* The drain's lookups of the wineserver request tables and of the unix
 * libraries' call names (emit.h's server_requests, unix_names and
 * names_ready hooks): tables the worker read (uprobes_wine.c,
 * uprobes_unix.c) are looked up, never read here; a wineserver whose binary
 * is not read yet, a unix library not asked for yet, is handed to the
 * worker, above which this file sits. */
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
 * never waits for: katra_uprobes_names_ready gives it later. */
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

/* The drain's: a (process, handle) asked for before (true), or now (its
 * slot filled; false), or never to be (the set is full: true). */
static bool unix_asked(struct katra_uprobes *u, uint32_t tgid, uint64_t handle, bool add)
{
	uint64_t h = (handle ^ ((uint64_t)tgid << 40)) * 0x9e3779b97f4a7c15ull;
	unsigned i = (unsigned)(h >> 54) & (UNIX_ASK_SLOTS - 1);

	for (; u->unix_asked[i].handle; i = (i + 1) & (UNIX_ASK_SLOTS - 1))
		if (u->unix_asked[i].tgid == tgid && u->unix_asked[i].handle == handle)
			return true;
	if (u->nunix_asked >= UNIX_ASK_MAX)
		return true;
	if (add) {
		u->unix_asked[i] = (struct unix_ask){ tgid, handle };
		u->nunix_asked++;
	}
	return false;
}

int katra_uprobes_unix_names(void *ctx, uint32_t tgid, uint64_t handle)
{
	struct katra_uprobes *u = ctx;

	if (!u || !u->o.wine || !handle || unix_asked(u, tgid, handle, false))
		return 0;
	/* a full queue: asked again at the library's next call */
	if (!up_request_unix_names(u, tgid, handle))
		return 0;
	unix_asked(u, tgid, handle, true);
	return -EAGAIN;
}

int katra_uprobes_names_ready(void *ctx, uint32_t *tgid, uint64_t *handle,
			      struct katra_str_vec *out)
{
	struct katra_uprobes *u = ctx;

	if (!u)
		return -EAGAIN;
	*handle = 0;
	for (unsigned i = 0; i < u->nreq_wait; i++) {
		const struct req_table *t = req_find(u, u->req_wait[i].dev, u->req_wait[i].ino);
		if (!t)
			continue;
		*tgid = u->req_wait[i].tgid;
		u->req_wait[i] = u->req_wait[--u->nreq_wait];
		return req_give(u, *tgid, t, out);
	}
	if (u->nunix_given < __atomic_load_n(&u->nunix_done, __ATOMIC_ACQUIRE)) {
		const struct unix_done *d = &u->unix_done[u->nunix_given++];
		*tgid = d->tgid;
		*handle = d->handle;
		if (d->lib < 0)
			return 0;
		*out = (struct katra_str_vec){ u->unix_libs[d->lib].strs,
					       u->unix_libs[d->lib].count };
		return 1;
	}
	return -EAGAIN;
}
