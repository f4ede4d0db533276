/* SPDX-License-Identifier: GPL-2.0-only */
/* Parsing dump's filter options (--pid, --tid, --kind, --from, --to) into a
 * struct katra_dump_opts.  Each returns 0 or -EINVAL (-E2BIG for a list
 * longer than KATRA_DUMP_MAX_IDS); the caller words the usage error. */
#ifndef KATRA_REPLAY_DUMP_FILTER_H
#define KATRA_REPLAY_DUMP_FILTER_H

#include <stdint.h>

#include "katra/replay.h"

/* "12,13" appended to v[*n..]: decimal ids, comma-separated. */
int kr_parse_id_list(const char *s, uint64_t *v, unsigned *n);
/* "FileRead,futex,EpochMarker": EventKind names (any case), plus the record
 * variants EpochMarker, Counter and SessionSummary; added to the sets
 * (Counter, both an EventKind and a record variant, selects both). */
int kr_parse_kinds(const char *s, uint64_t *event_kinds, unsigned *record_types);
/* "1.5", "2s", "0.000250" (seconds since capture start, at most 9
 * decimals) -> ns; anything else is an epoch name (w->epoch = s). */
int kr_parse_when(const char *s, struct katra_dump_when *w);

#endif
