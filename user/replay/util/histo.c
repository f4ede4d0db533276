// SPDX-License-Identifier: GPL-2.0-only
/* Log-linear histogram (see histo.h). */
#include "histo.h"

static unsigned bucket_of(uint64_t v)
{
	unsigned e, shift;

	if (v < 2 * KR_HISTO_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	shift = e - KR_HISTO_SUB_BITS;
	return 2 * KR_HISTO_SUB + (e - KR_HISTO_SUB_BITS - 1) * KR_HISTO_SUB +
	       (unsigned)((v >> shift) - KR_HISTO_SUB);
}

static void bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
	unsigned e, sub;

	if (b < 2 * KR_HISTO_SUB) {
		*lo = b;
		*width = 1;
		return;
	}
	e = (b - 2 * KR_HISTO_SUB) / KR_HISTO_SUB + KR_HISTO_SUB_BITS + 1;
	sub = (b - 2 * KR_HISTO_SUB) % KR_HISTO_SUB;
	*width = 1ull << (e - KR_HISTO_SUB_BITS);
	*lo = (uint64_t)(KR_HISTO_SUB + sub) << (e - KR_HISTO_SUB_BITS);
}

void kr_histo_add(struct kr_histo *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->total = h->total + v < h->total ? UINT64_MAX : h->total + v;
	h->buckets[bucket_of(v)]++;
}

uint64_t kr_histo_percentile(const struct kr_histo *h, unsigned permille)
{
	uint64_t rank, seen = 0, lo, width, v;

	if (!h->count)
		return 0;
	/* ceil(count * p) without overflow for any realistic count */
	rank = h->count / 1000 * permille + (h->count % 1000 * permille + 999) / 1000;
	/* the extreme ranks are known exactly */
	if (rank <= 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	for (unsigned b = 0; b < KR_HISTO_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen < rank)
			continue;
		bucket_range(b, &lo, &width);
		v = lo + (width - 1) / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}
