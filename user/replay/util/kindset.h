/* SPDX-License-Identifier: GPL-2.0-only */
/* Sets of event kinds as a bit mask (128 bits: EventKind has more than 64
 * variants), parsed from a comma-separated list of the spec's kind names. */
#ifndef KATRA_REPLAY_KINDSET_H
#define KATRA_REPLAY_KINDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "katra/format.h"

_Static_assert(KATRA_KIND_COUNT <= 128, "a kind set is 128 bits");

typedef unsigned __int128 kr_kindset;

static inline bool kr_kindset_has(kr_kindset s, uint32_t kind)
{
	return kind < 128 && (s >> kind) & 1;
}

static inline kr_kindset kr_kindset_bit(uint32_t kind)
{
	return kind < 128 ? (kr_kindset)1 << kind : 0;
}

/* "OffCpu,Wakeup" (names as format/SPEC.md spells them, case-insensitive,
 * spaces allowed around commas); "" or "none" is the empty set.  Returns 0,
 * or -EINVAL with the offending name copied into bad (NUL-terminated). */
int kr_kindset_parse(const char *list, kr_kindset *out, char *bad, size_t bad_cap);
/* The names in kind order, separated by sep, into buf ("none" when empty). */
void kr_kindset_format(kr_kindset s, const char *sep, char *buf, size_t cap);

#endif
