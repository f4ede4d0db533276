// SPDX-License-Identifier: GPL-2.0-only
/* An index of the kernel's BTF's typedefs by name.  libbpf 1.1's
 * btf__find_by_name_kind walks every type (126,623 here: ~0.3 ms), and a
 * start-up asks it ~40 times, 32 of them for a typedef (each tracepoint's
 * btf_trace_NAME: the flavours' choice, then each program's attach target
 * at load), most of them on the main thread.  One walk builds this table
 * (probes_btf.c, beside the shared copy's parse); a typedef's lookup is
 * then a hash probe, and finds what the walk would: the first typedef of
 * that name.  (All kinds: a 7-15 ms build, for 126 k names.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "probes_int.h"

struct pk_btf_index {
	uint32_t mask;  /* slots - 1 */
	uint32_t *slot; /* type ids; 0: empty */
};

static uint32_t hash_of(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

static bool same(const struct btf *btf, uint32_t id, const char *name)
{
	return !strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off), name);
}

struct pk_btf_index *pk_btf_index_build(const struct btf *btf)
{
	uint32_t n = btf__type_cnt(btf), typedefs = 0, slots = 1024, *ids;
	struct pk_btf_index *ix = calloc(1, sizeof(*ix));

	ids = malloc(n * sizeof(*ids));
	for (uint32_t id = 1; ix && ids && id < n; id++)
		if (btf_is_typedef(btf__type_by_id(btf, id)))
			ids[typedefs++] = id;
	while (slots < 2 * typedefs)
		slots *= 2;
	if (ix && ids)
		ix->slot = calloc(slots, sizeof(*ix->slot));
	if (!ix || !ids || !ix->slot) {
		free(ids);
		free(ix);
		return NULL;
	}
	ix->mask = slots - 1;
	/* in id order, the first of a name kept: what a walk finds */
	for (uint32_t k = 0; k < typedefs; k++) {
		const char *name = btf__name_by_offset(btf, btf__type_by_id(btf, ids[k])->name_off);
		uint32_t i;

		if (!name || !*name)
			continue;
		for (i = hash_of(name) & ix->mask; ix->slot[i]; i = (i + 1) & ix->mask)
			if (same(btf, ix->slot[i], name))
				break;
		if (!ix->slot[i])
			ix->slot[i] = ids[k];
	}
	free(ids);
	return ix;
}

int pk_btf_index_find(const struct pk_btf_index *ix, const struct btf *btf, const char *name)
{
	for (uint32_t i = hash_of(name) & ix->mask; ix->slot[i]; i = (i + 1) & ix->mask)
		if (same(btf, ix->slot[i], name))
			return (int)ix->slot[i];
	return -ENOENT;
}

void pk_btf_index_free(struct pk_btf_index *ix)
{
	if (ix)
		free(ix->slot);
	free(ix);
}
