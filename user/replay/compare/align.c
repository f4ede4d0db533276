// SPDX-License-Identifier: GPL-2.0-only
/* Sequence alignment for compare (see align.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "align.h"

const struct kr_align_limits kr_align_default_limits = {
	.max_d = 1u << 16,
	.budget = 1ull << 28,
	.step_d = 32,
};

#define UNREACHED INT64_MIN

static int inside(int64_t x, int64_t k, int64_t n, int64_t m)
{
	return x != UNREACHED && x <= n && x - k >= 0 && x - k <= m;
}

/* One greedy Myers search from (0, 0) over a[0..n) and b[0..m), both
 * non-empty, for at most max_d edits and budget comparisons (0 = none).
 * v has room for diagonals -max_d-1 .. max_d+1.  Returns the edit distance
 * when (n, m) was reached; otherwise -1 with *fx, *fy the furthest point
 * (largest x + y) reached with exactly *fd edits. */
static int64_t myers(const uint16_t *a, int64_t n, const uint16_t *b, int64_t m,
		     int64_t max_d, uint64_t budget, int64_t *v,
		     int64_t *fx, int64_t *fy, int64_t *fd)
{
	int64_t *V = v + max_d + 1; /* V[k]: furthest x on diagonal k = x - y */
	uint64_t work = 0;

	for (int64_t k = -max_d - 1; k <= max_d + 1; k++)
		V[k] = UNREACHED;
	*fx = *fy = *fd = 0;
	for (int64_t d = 0; d <= max_d; d++) {
		int64_t best = -1;

		for (int64_t k = -d; k <= d; k += 2) {
			int64_t x, y, x0;

			/* come down from k+1 or right from k-1: the further of the
			 * two that stays inside the grid */
			x = d ? UNREACHED : 0;
			if (k > -d && inside(V[k - 1] == UNREACHED ? UNREACHED : V[k - 1] + 1, k, n, m))
				x = V[k - 1] + 1;
			if (k < d && inside(V[k + 1], k, n, m) && V[k + 1] > x)
				x = V[k + 1];
			if (x == UNREACHED) {
				V[k] = UNREACHED;
				continue;
			}
			y = x - k;
			x0 = x;
			while (x < n && y < m && a[x] == b[y])
				x++, y++;
			work += (uint64_t)(x - x0) + 1;
			V[k] = x;
			if (x >= n && y >= m)
				return d;
			if (x + y > best) {
				best = x + y;
				*fx = x;
				*fy = y;
				*fd = d;
			}
		}
		if (budget && work > budget)
			return -1;
	}
	return -1;
}

int kr_align(const uint16_t *a, size_t n, const uint16_t *b, size_t m,
	     const struct kr_align_limits *lim, struct kr_align_result *out)
{
	size_t p = 0, s = 0, i, j;
	uint64_t matched;
	int64_t *v;
	int64_t d, fx, fy, fd, max_d, step;

	while (p < n && p < m && a[p] == b[p])
		p++;
	while (s < n - p && s < m - p && a[n - 1 - s] == b[m - 1 - s])
		s++;
	out->prefix = p;
	out->exact = true;
	matched = p + s;
	a += p, n -= p + s;
	b += p, m -= p + s;
	if (!n || !m) {
		out->matched = matched;
		return 0;
	}

	max_d = (int64_t)(lim->max_d < n + m ? lim->max_d : n + m);
	step = (int64_t)(lim->step_d ? lim->step_d : 1);
	v = malloc(sizeof(*v) * (size_t)((max_d > step ? max_d : step) * 2 + 3));
	if (!v)
		return -ENOMEM;
	d = myers(a, (int64_t)n, b, (int64_t)m, max_d, lim->budget, v, &fx, &fy, &fd);
	if (d >= 0) {
		out->matched = matched + (n + m - (uint64_t)d) / 2;
		free(v);
		return 0;
	}

	/* bounded steps: keep the furthest path of step edits, go on from it */
	out->exact = false;
	for (i = 0, j = 0; i < n && j < m;) {
		d = myers(a + i, (int64_t)(n - i), b + j, (int64_t)(m - j), step, 0, v,
			  &fx, &fy, &fd);
		if (d >= 0) {
			matched += (n - i + m - j - (uint64_t)d) / 2;
			i = n, j = m;
			break;
		}
		matched += (uint64_t)(fx + fy - fd) / 2;
		i += (size_t)fx;
		j += (size_t)fy;
	}
	free(v);
	out->matched = matched;
	return 0;
}
