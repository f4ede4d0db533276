// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>

#include "ucall_sweep.h"

/* An entry goes only while it is still the dead thread's: its start time is
 * read before the tid is found gone (so it is the start of a thread that
 * was gone then), and read again just before the delete.  A thread that
 * took the tid since has entered its call with its own start time: its
 * entry stays.  (What stays open is the few microseconds between that last
 * read and the delete: a tid reused and a probed call entered within them.) */
unsigned ucall_sweep(const struct ucall_sweep_map *m)
{
	uint64_t key, next, start, now, dead[UCALL_SWEEP_MAX], dead_start[UCALL_SWEEP_MAX];
	const uint64_t *prev = NULL;
	size_t ndead = 0;
	unsigned n = 0;

	while (ndead < UCALL_SWEEP_MAX && !m->next_key(m->ctx, prev, &next)) {
		/* the key's tid: bits 3-34 (the NT layer's level, bits 40-43, cut off) */
		if (!m->start_of(m->ctx, next, &start) &&
		    m->thread_gone(m->ctx, (uint32_t)(next >> 3))) {
			dead[ndead] = next;
			dead_start[ndead++] = start;
		}
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < ndead; i++)
		if (!m->start_of(m->ctx, dead[i], &now) && now == dead_start[i])
			n += !m->del(m->ctx, dead[i]);
	return n;
}
