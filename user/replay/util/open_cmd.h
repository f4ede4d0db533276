/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening a trace and reporting how a read ended, with the command's name
 * in every message ("katra-replay: CMD: ..."), for the commands that say
 * which one is talking (compare, export). */
#ifndef KATRA_REPLAY_OPEN_CMD_H
#define KATRA_REPLAY_OPEN_CMD_H

#include <stdio.h>

#include "katra/format.h"

/* 0; 1 (not a valid trace); -errno.  The reason goes to err. */
int kr_open_cmd(struct katra_reader **r, const char *path, const char *cmd, FILE *err);
/* EOF -> 0; truncated or corrupt -> 1; I/O error -> -EIO (reasons on err). */
int kr_end_status_cmd(struct katra_reader *r, enum katra_read_status st, const char *path,
		      const char *cmd, FILE *err);

#endif
