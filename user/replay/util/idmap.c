// SPDX-License-Identifier: GPL-2.0-only
/* Bounded pair-keyed hash map (see idmap.h).  Load factor stays <= 1/2;
 * deletion shifts later members of the probe run back so lookups never
 * need tombstones, which keeps a long-running span table from degrading. */
#include <stdlib.h>
#include <string.h>

#include "idmap.h"

#define INITIAL_CAP 1024

static size_t hash(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull);

	/* splitmix64 finalizer: thread ids and span ids are dense small ints */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (size_t)h;
}

void kr_idmap_init(struct kr_idmap *m, size_t max_len)
{
	memset(m, 0, sizeof(*m));
	m->max_len = max_len;
}

void kr_idmap_free(struct kr_idmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

struct kr_idmap_slot *kr_idmap_find(struct kr_idmap *m, uint64_t k1, uint64_t k2)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return NULL;
	for (size_t i = hash(k1, k2) & mask;; i = (i + 1) & mask) {
		struct kr_idmap_slot *s = &m->slots[i];

		if (!s->used)
			return NULL;
		if (s->k1 == k1 && s->k2 == k2)
			return s;
	}
}

static int grow(struct kr_idmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : INITIAL_CAP;
	struct kr_idmap_slot *old = m->slots, *ns;
	size_t ocap = m->cap;

	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -1;
	m->slots = ns;
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = hash(old[i].k1, old[i].k2) & (ncap - 1); ns[j].used;
		     j = (j + 1) & (ncap - 1))
			;
		ns[j] = old[i];
	}
	free(old);
	return 0;
}

struct kr_idmap_slot *kr_idmap_get(struct kr_idmap *m, uint64_t k1, uint64_t k2,
				   bool *created)
{
	struct kr_idmap_slot *s = kr_idmap_find(m, k1, k2);
	size_t mask;

	*created = false;
	if (s)
		return s;
	if (m->len >= m->max_len)
		return NULL;
	if ((m->len + 1) * 2 > m->cap && grow(m))
		return NULL;
	mask = m->cap - 1;
	for (size_t i = hash(k1, k2) & mask;; i = (i + 1) & mask) {
		s = &m->slots[i];
		if (!s->used)
			break;
	}
	*s = (struct kr_idmap_slot){ .k1 = k1, .k2 = k2, .used = true };
	m->len++;
	*created = true;
	return s;
}

void kr_idmap_remove(struct kr_idmap *m, struct kr_idmap_slot *s)
{
	size_t mask = m->cap - 1;
	size_t hole = (size_t)(s - m->slots);

	m->slots[hole].used = false;
	m->len--;
	/* move back every later member of the run whose home is not in (hole, j] */
	for (size_t j = (hole + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		size_t home = hash(m->slots[j].k1, m->slots[j].k2) & mask;

		if (((j - home) & mask) >= ((j - hole) & mask)) {
			m->slots[hole] = m->slots[j];
			m->slots[j].used = false;
			hole = j;
		}
	}
}

struct kr_idmap_slot *kr_idmap_sorted(const struct kr_idmap *m, size_t *n,
				      int (*cmp)(const void *, const void *))
{
	struct kr_idmap_slot *v;
	size_t k = 0;

	*n = 0;
	if (!m->len)
		return NULL;
	v = malloc(m->len * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			v[k++] = m->slots[i];
	qsort(v, k, sizeof(*v), cmp);
	*n = k;
	return v;
}
