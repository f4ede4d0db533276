// SPDX-License-Identifier: GPL-2.0-only
/* A file held in memory for the parsers of winenames.c (read from an fd
 * opened inside its process's root: procfs/procpath.h), and the name lists
 * they return. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "winenames.h"

int katra_blob_read_fd(int fd, size_t max, struct katra_blob *b)
{
	struct stat st;
	size_t got = 0;

	b->p = NULL;
	b->len = 0;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max)
		return -EFBIG;
	b->p = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b->p)
		return -ENOMEM;
	/* from offset 0 whatever the fd's position (it may be shared) */
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, b->p + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	b->len = got;
	return 0;
}

int katra_blob_read(const char *path, size_t max, struct katra_blob *b)
{
	int fd, rc;

	b->p = NULL;
	b->len = 0;
	/* never blocks (a FIFO), never a controlling terminal */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = katra_blob_read_fd(fd, max, b);
	close(fd);
	return rc;
}

void katra_blob_free(struct katra_blob *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

void katra_names_free(char **names, uint32_t count)
{
	if (!names)
		return;
	for (uint32_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

uint32_t katra_names_count(char *const *names, uint32_t count)
{
	uint32_t n = 0;

	for (uint32_t i = 0; names && i < count; i++)
		n += names[i] != NULL;
	return n;
}

/* Header counts beyond these are no binary Wine ships (the Windows loader
 * itself stops at 96 sections: KATRA_PE_SECTIONS_MAX); refusing them keeps
 * each lookup cheap. */
