/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening a trace and reporting how a read ended, the same way for every
 * replay command. */
#ifndef KATRA_REPLAY_OPEN_H
#define KATRA_REPLAY_OPEN_H

#include <stdio.h>

#include "katra/format.h"

/* 0, 1 (not a valid trace: reason printed) or -errno (reason printed). */
int kr_open(struct katra_reader **r, const char *path, FILE *err);
/* Maps the status that ended a read loop: EOF -> 0; truncated or corrupt ->
 * the reader's message on err and 1; I/O error -> message and -EIO. */
int kr_end_status(struct katra_reader *r, enum katra_read_status st, const char *path,
		  FILE *err);
/* Flushes out; 0, or -errno with a message when the output failed. */
int kr_flush_out(FILE *out, FILE *err);

#endif
