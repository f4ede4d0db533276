// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>

#include "ucall_sweep.h"

unsigned ucall_sweep(const struct ucall_sweep_map *m)
{
	uint64_t key, next, dead[UCALL_SWEEP_MAX];
	const uint64_t *prev = NULL;
	size_t ndead = 0;
	unsigned n = 0;

	while (ndead < UCALL_SWEEP_MAX && !m->next_key(m->ctx, prev, &next)) {
		/* the key's tid: bits 3-34 (the NT layer's level, bits 40-43, cut off) */
		if (m->thread_gone(m->ctx, (uint32_t)(next >> 3)))
			dead[ndead++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < ndead; i++)
		n += !m->del(m->ctx, dead[i]);
	return n;
}
