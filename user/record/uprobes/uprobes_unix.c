// SPDX-License-Identifier: GPL-2.0-only
/* The worker's side of the unix libraries' call names: a WinToUnix call's
 * handle is the address of a library's __wine_unix_call_funcs in the
 * calling process; the file mapped there is read once (unixnames.c: its
 * thunks' own names, then its Windows side's stubs) and the drain's ask
 * answered (unix_done; the drain's
 * side is uprobes_names.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uprobes_int.h"
#include "winenames.h"

#define UNIX_FILE_MAX (256u << 20)

/* The Windows side of a unix library: .../x86_64-unix/NAME.so ->
 * .../x86_64-windows/NAME.dll (Debian's and Proton's layouts alike). */
static bool dll_beside(const char *path, char *out, size_t cap)
{
	const char *dir = strstr(path, "/x86_64-unix/"), *base = strrchr(path, '/');
	size_t blen = base ? strlen(base + 1) : 0;

	if (!dir || dir + 12 != base || blen < 4 || strcmp(base + 1 + blen - 3, ".so"))
		return false;
	return snprintf(out, cap, "%.*s/x86_64-windows/%.*s.dll", (int)(dir - path), path,
			(int)(blen - 3), base + 1) < (int)cap;
}

/* The names of the library at path (as pid names it; fd: that file): its
 * thunks' own (unixnames.c), and for the entries they leave unnamed, its
 * Windows side's stubs (opened inside pid's root: a FIFO or a link out of
 * it there is refused, never waited on or followed). */
static int read_names(struct katra_uprobes *u, struct unix_lib *l, uint32_t pid,
		      const char *path, int fd)
{
	struct katra_blob b;
	struct stat st;
	char dll[PATH_MAX];
	uint32_t named = 0, added = 0;
	int rc = katra_blob_read_fd(fd, UNIX_FILE_MAX, &b), dfd;

	if (rc)
		return rc;
	rc = katra_unix_call_names(&b, &l->names, &l->count, &named, &l->table_off);
	katra_blob_free(&b);
	if (!rc && dll_beside(path, dll, sizeof(dll)) &&
	    !up_open_mapped(u, pid, dll, 0, KATRA_PROC_ANY_DEV, 0, &dfd, &st)) {
		if (!katra_blob_read_fd(dfd, UNIX_FILE_MAX, &b)) {
			if (katra_pe_unix_call_names(&b, l->names, l->count, &added) == -E2BIG)
				up_failed(u, up_base_name(dll), "its stubs' names not read: more "
					  "work than its size allows (sections over the same bytes)");
			katra_blob_free(&b);
		}
		close(dfd);
	}
	if (!rc && !named && !added)
		rc = -ENOENT; /* no name to write */
	return rc;
}

/* The library file (dev, ino) read once: its index in unix_libs, or -1
 * when the table of read files is full. */
static int lib_load(struct katra_uprobes *u, uint32_t pid, const char *path, int fd,
		    const struct stat *st)
{
	struct unix_lib *l;

	for (unsigned i = 0; i < u->nunix_libs; i++)
		if (u->unix_libs[i].dev == st->st_dev && u->unix_libs[i].ino == st->st_ino)
			return (int)i;
	if (u->nunix_libs >= UNIX_LIBS_MAX)
		return -1;
	l = &u->unix_libs[u->nunix_libs];
	memset(l, 0, sizeof(*l));
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	if (!read_names(u, l, pid, path, fd) && !(l->strs = calloc(l->count, sizeof(*l->strs)))) {
		katra_names_free(l->names, l->count);
		l->names = NULL;
	}
	for (uint32_t i = 0; l->strs && i < l->count; i++)
		l->strs[i] = katra_cstr(l->names[i] ? l->names[i] : "");
	return (int)u->nunix_libs++;
}

/* The library pid maps at handle, whose table is at handle: its index, or
 * -1. */
static int lib_at(struct katra_uprobes *u, uint32_t pid, uint64_t handle)
{
	char path[64], line[PATH_MAX + 128];
	struct stat st;
	int lib = -1, fd;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned major, minor;
		int pos = -1;
		char *p, *nl;
		/* start-end perms offset major:minor inode path */
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &start, &end, &pgoff, &major,
			   &minor, &ino, &pos) < 6 || pos < 0 || handle < start || handle >= end)
			continue;
		p = line + pos;
		if ((nl = strchr(p, '\n')))
			*nl = 0;
		if (*p != '/' || !ino ||
		    up_open_mapped(u, pid, p, 0, makedev(major, minor), ino, &fd, &st))
			break;
		lib = lib_load(u, pid, p, fd, &st);
		close(fd);
		/* the handle is this file's table, not some other address in it */
		if (lib >= 0 && (!u->unix_libs[lib].strs ||
				 handle - start + pgoff != u->unix_libs[lib].table_off))
			lib = -1;
		break;
	}
	fclose(f);
	return lib;
}

void up_unix_names(struct katra_uprobes *u, uint32_t pid, uint64_t handle)
{
	unsigned n = u->nunix_done;

	if (n >= UNIX_ASK_MAX)
		return; /* cannot happen: one answer per ask, UNIX_ASK_MAX asks */
	u->unix_done[n] = (struct unix_done){ pid, handle, lib_at(u, pid, handle) };
	/* published: the drain reads the answer and the library it names */
	__atomic_store_n(&u->nunix_done, n + 1, __ATOMIC_RELEASE);
}

void up_unix_libs_free(struct katra_uprobes *u)
{
	for (unsigned i = 0; i < u->nunix_libs; i++) {
		katra_names_free(u->unix_libs[i].names, u->unix_libs[i].count);
		free(u->unix_libs[i].strs);
	}
	u->nunix_libs = 0;
}
