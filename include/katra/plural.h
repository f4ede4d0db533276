/* SPDX-License-Identifier: GPL-2.0-only */
/* Counts for people: "1 process", "2 processes".  Every message that puts a
 * count before a noun takes the noun from here, so that no line reads
 * "1 processes". */
#ifndef KATRA_PLURAL_H
#define KATRA_PLURAL_H

#include <stdint.h>

/* one when n is 1, else many: printf("%llu %s", n, katra_plural(n, "process",
 * "processes")). */
static inline const char *katra_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

#endif
