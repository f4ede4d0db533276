// SPDX-License-Identifier: GPL-2.0-only
/* Bounded byte-keyed hash map (see xmap.h).  A slot is a used flag padded to
 * 8 bytes, the key, then the value; load factor stays <= 1/2. */
#include <stdlib.h>
#include <string.h>

#include "xmap.h"

#define INITIAL_CAP 64
#define HDR 8

static uint64_t hash(const void *key, size_t n)
{
	const uint8_t *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	/* splitmix64 finalizer: ids are small dense integers */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

static uint8_t *slot(const struct kr_xmap *m, size_t i)
{
	return m->slots + i * m->slot_size;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

void kr_xmap_init(struct kr_xmap *m, size_t key_size, size_t val_size, size_t max_len)
{
	memset(m, 0, sizeof(*m));
	m->key_size = round8(key_size);
	m->val_size = round8(val_size);
	m->slot_size = HDR + m->key_size + m->val_size;
	m->max_len = max_len;
}

void kr_xmap_free(struct kr_xmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

static size_t find_index(const struct kr_xmap *m, const void *key, bool *found)
{
	size_t mask = m->cap - 1;

	for (size_t i = hash(key, m->key_size) & mask;; i = (i + 1) & mask) {
		uint8_t *s = slot(m, i);

		if (!s[0]) {
			*found = false;
			return i;
		}
		if (!memcmp(s + HDR, key, m->key_size)) {
			*found = true;
			return i;
		}
	}
}

void *kr_xmap_find(const struct kr_xmap *m, const void *key)
{
	bool found;
	size_t i;

	if (!m->cap)
		return NULL;
	i = find_index(m, key, &found);
	return found ? slot(m, i) + HDR + m->key_size : NULL;
}

static int grow(struct kr_xmap *m)
{
	size_t ocap = m->cap, ncap = m->cap ? m->cap * 2 : INITIAL_CAP;
	uint8_t *old = m->slots;

	m->slots = calloc(ncap, m->slot_size);
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		uint8_t *s = old + i * m->slot_size;
		bool found;

		if (s[0])
			memcpy(slot(m, find_index(m, s + HDR, &found)), s, m->slot_size);
	}
	free(old);
	return 0;
}

void *kr_xmap_get(struct kr_xmap *m, const void *key, bool *created)
{
	uint8_t *s;
	bool found;
	size_t i;

	*created = false;
	if (m->cap) {
		i = find_index(m, key, &found);
		if (found)
			return slot(m, i) + HDR + m->key_size;
	}
	if (m->len >= m->max_len)
		return NULL;
	if ((m->len + 1) * 2 > m->cap && grow(m))
		return NULL;
	i = find_index(m, key, &found);
	s = slot(m, i);
	memset(s, 0, m->slot_size);
	s[0] = 1;
	memcpy(s + HDR, key, m->key_size);
	m->len++;
	*created = true;
	return s + HDR + m->key_size;
}

void kr_xmap_remove(struct kr_xmap *m, void *val)
{
	size_t mask = m->cap - 1;
	size_t hole = (size_t)((uint8_t *)val - HDR - m->key_size - m->slots) / m->slot_size;

	slot(m, hole)[0] = 0;
	m->len--;
	for (size_t j = (hole + 1) & mask; slot(m, j)[0]; j = (j + 1) & mask) {
		size_t home = hash(slot(m, j) + HDR, m->key_size) & mask;

		if (((j - home) & mask) >= ((j - hole) & mask)) {
			memcpy(slot(m, hole), slot(m, j), m->slot_size);
			slot(m, j)[0] = 0;
			hole = j;
		}
	}
}

const void *kr_xmap_key(const struct kr_xmap *m, const void *val)
{
	return (const uint8_t *)val - m->key_size;
}

void *kr_xmap_next(const struct kr_xmap *m, size_t *it)
{
	while (*it < m->cap) {
		uint8_t *s = slot(m, (*it)++);

		if (s[0])
			return s + HDR + m->key_size;
	}
	return NULL;
}

void **kr_xmap_sorted(const struct kr_xmap *m, size_t *n,
		      int (*cmp)(const void *, const void *))
{
	void **v, *x;
	size_t it = 0, k = 0;

	*n = 0;
	if (!m->len)
		return NULL;
	v = malloc(m->len * sizeof(*v));
	if (!v)
		return NULL;
	while ((x = kr_xmap_next(m, &it)))
		v[k++] = x;
	qsort(v, k, sizeof(*v), cmp);
	*n = k;
	return v;
}
