// SPDX-License-Identifier: GPL-2.0-only
/* Module files fetched from debuginfod servers (debuginfod.h).  One client
 * and one list of asked build ids for the whole run: several views of one
 * command name the same modules. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "debuginfod.h"

#define NOTES_MAX 16

struct asked {
	char *build_id;
	enum kr_debuginfod_kind kind;
	char *path; /* the answer: a path, else err */
	int err;
};

static struct {
	bool off;
	bool down; /* a transfer failed other than by "not found": no more */
	bool started; /* atexit registered */
	debuginfod_client *client;
	struct asked *asked;
	size_t n, cap;
	int noted[NOTES_MAX]; /* the errnos said (EILSEQ: another build id) */
	size_t nnoted;
} g;

void kr_debuginfod_disable(void)
{
	g.off = true;
}

static void end(void)
{
	if (g.client)
		debuginfod_end(g.client);
	for (size_t i = 0; i < g.n; i++) {
		free(g.asked[i].build_id);
		free(g.asked[i].path);
	}
	free(g.asked);
	memset(&g, 0, sizeof(g));
}

bool kr_debuginfod_wanted(const char *build_id)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	size_t n = strlen(build_id);

	if (g.off || g.down || !urls || !urls[strspn(urls, " \t")] || n < 2 || n % 2)
		return false;
	for (const char *c = build_id; *c; c++)
		if (!isdigit((unsigned char)*c) && (*c < 'a' || *c > 'f'))
			return false;
	return true;
}

void kr_debuginfod_failed(int err, const char *module, const char *build_id)
{
	const char *base = strrchr(module, '/') ? strrchr(module, '/') + 1 : module;

	for (size_t i = 0; i < g.nnoted; i++)
		if (g.noted[i] == err)
			return;
	if (g.nnoted < NOTES_MAX)
		g.noted[g.nnoted++] = err;
	fprintf(stderr,
		"katra-replay: debuginfod: no symbols for %s (build id %s): %s%s (said for "
		"the first module only; DEBUGINFOD_URLS, --no-debuginfod)\n",
		base, build_id,
		err == -EILSEQ   ? "the server's file has another build id"
		: err == -ENOENT ? "no server has it"
				 : strerror(-err),
		g.down ? "; no more fetches in this run" : "");
}

/* The entry of (build_id, kind), a new one (err 1) when not asked before;
 * NULL when out of memory */
static struct asked *asked(const char *build_id, enum kr_debuginfod_kind kind)
{
	for (size_t i = 0; i < g.n; i++)
		if (g.asked[i].kind == kind && !strcmp(g.asked[i].build_id, build_id))
			return &g.asked[i];
	if (g.n == g.cap) {
		size_t cap = g.cap ? g.cap * 2 : 16;
		struct asked *a = realloc(g.asked, cap * sizeof(*a));
		if (!a)
			return NULL;
		g.asked = a;
		g.cap = cap;
	}
	if (!(g.asked[g.n].build_id = strdup(build_id)))
		return NULL;
	g.asked[g.n] = (struct asked){ g.asked[g.n].build_id, kind, NULL, 1 };
	return &g.asked[g.n++];
}

int kr_debuginfod_fetch(const char *build_id, enum kr_debuginfod_kind kind, char **path)
{
	struct asked *a;
	int fd;

	*path = NULL;
	if (!kr_debuginfod_wanted(build_id))
		return -ENOSYS;
	if (!(a = asked(build_id, kind)))
		return -ENOMEM;
	if (a->err <= 0) { /* asked before */
		if (a->err)
			return -EALREADY;
		*path = strdup(a->path);
		return *path ? 0 : -ENOMEM;
	}
	if (!g.started) {
		g.started = true;
		atexit(end);
	}
	if (!g.client && !(g.client = debuginfod_begin())) {
		a->err = -ENOMEM;
		return a->err;
	}
	/* build_id_len 0: a hex string */
	fd = kind == KR_DEBUGINFOD_DEBUGINFO
		     ? debuginfod_find_debuginfo(g.client, (const unsigned char *)build_id, 0, path)
		     : debuginfod_find_executable(g.client, (const unsigned char *)build_id, 0, path);
	if (fd < 0) {
		/* unreachable or failing servers: each module would wait for
		 * DEBUGINFOD_TIMEOUT again */
		g.down = fd != -ENOENT && fd != -ENOMEM;
		a->err = fd;
		return fd;
	}
	close(fd);
	a->err = (a->path = strdup(*path)) ? 0 : -ENOMEM;
	return a->err;
}
