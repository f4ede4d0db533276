/* SPDX-License-Identifier: GPL-2.0-only */
/* A time window over a trace for --from / --to: seconds since capture start
 * or epoch names (struct katra_dump_when), advanced record by record. */
#ifndef KATRA_REPLAY_WINDOW_H
#define KATRA_REPLAY_WINDOW_H

#include <stdbool.h>
#include <stdio.h>

#include "katra/replay.h"

struct kr_window {
	struct katra_dump_when from, to;
	bool from_reached; /* --from EPOCH seen (or there is no --from EPOCH) */
	bool to_passed;    /* --to EPOCH seen: nothing after it */
};

void kr_window_init(struct kr_window *w, const struct katra_dump_when *from,
		    const struct katra_dump_when *to);
/* Whether rec lies in the window (inclusive at both ends).  Call for every
 * record in order: epoch-named bounds move as their markers go by.  The
 * --to marker is the first so named after the --from point.  A record
 * without a time (the SessionSummary) is in only when there is no bound. */
bool kr_window_has(struct kr_window *w, const struct katra_record *rec);
/* After the last record: 0, or 1 with "katra-replay: CMD: 'PATH' has no
 * EpochMarker named 'X' ..." on err when a named bound never came. */
int kr_window_check(const struct kr_window *w, const char *cmd, const char *path, FILE *err);

#endif
