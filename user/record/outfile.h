/* SPDX-License-Identifier: GPL-2.0-only */
/* The files a capture writes for its user (the trace, --summary-json,
 * --ready-file): created O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0600, and given
 * (fchown on the open file, never the path) to the user who ran sudo.  With
 * replace, an existing file is replaced in one step: a new file in the same
 * directory, renamed over it, so nothing is ever written through the old
 * one (a symlink's target, a hard link's other names keep their bytes). */
#ifndef KATRA_RECORD_OUTFILE_H
#define KATRA_RECORD_OUTFILE_H

#include <stdbool.h>

/* The new file's descriptor in *fd: 0 or -errno (-EEXIST: it exists and
 * replace is false). */
int katra_outfile_create(const char *path, bool replace, int *fd);
/* The --ready-file: created as an output file, holding our pid; 0, or
 * -errno after saying why on stderr. */
int katra_outfile_ready(const char *path);

#endif
