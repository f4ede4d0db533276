// SPDX-License-Identifier: GPL-2.0-only
/* A trace's call stacks for the views beside a span (stackidx.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elfsyms.h"
#include "replay/util/xmap.h"
#include "stackidx.h"

struct cite {
	uint64_t tid, begin_ns, end_ns, stack_id;
	uint32_t site;
};

struct ustack {
	struct katra_stack_frame *frames;
	uint64_t n;
};

struct kr_stackidx {
	struct kr_elfsyms *sy;
	struct kr_xmap stacks; /* stack id -> struct ustack */
	struct cite *cites;
	size_t ncites, cap;
	bool sorted;
};

struct kr_stackidx *kr_stackidx_new(const char *symbols)
{
	struct kr_stackidx *ix = calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->sy = kr_elfsyms_new(symbols);
	if (!ix->sy) {
		free(ix);
		return NULL;
	}
	kr_xmap_init(&ix->stacks, 8, sizeof(struct ustack), 1u << 24);
	return ix;
}

void kr_stackidx_free(struct kr_stackidx *ix)
{
	struct ustack *u;
	size_t it = 0;

	if (!ix)
		return;
	while ((u = kr_xmap_next(&ix->stacks, &it)))
		free(u->frames);
	kr_xmap_free(&ix->stacks);
	kr_elfsyms_free(ix->sy);
	free(ix->cites);
	free(ix);
}

static int keep_stack(struct kr_stackidx *ix, const struct katra_stack *s)
{
	bool created;
	struct ustack *u = kr_xmap_get(&ix->stacks, &s->id, &created);

	if (!u)
		return -ENOMEM;
	if (!created) /* ids are unique (SPEC 8): a repeat keeps the first */
		return 0;
	u->n = s->frames_len;
	u->frames = s->frames_len ? malloc(s->frames_len * sizeof(*u->frames)) : NULL;
	if (s->frames_len && !u->frames) {
		u->n = 0;
		return -ENOMEM;
	}
	if (s->frames_len)
		memcpy(u->frames, s->frames, s->frames_len * sizeof(*u->frames));
	return 0;
}

static int keep_cite(struct kr_stackidx *ix, const struct katra_stack_of *so)
{
	if (ix->ncites == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 256;
		struct cite *c = realloc(ix->cites, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		ix->cites = c;
		ix->cap = cap;
	}
	ix->cites[ix->ncites++] = (struct cite){ so->thread_id, so->begin_ns,
						 so->begin_ns + so->duration_ns, so->stack_id,
						 so->site };
	ix->sorted = false;
	return 0;
}

int kr_stackidx_add(struct kr_stackidx *ix, const struct katra_record *rec)
{
	const struct katra_module *m = &rec->u.module;

	switch (rec->type) {
	case KATRA_RECORD_MODULE:
		return kr_elfsyms_module(ix->sy, m->id, m->name.ptr, m->name.len, m->build_id.ptr,
					 m->build_id.len);
	case KATRA_RECORD_STACK:
		return keep_stack(ix, &rec->u.stack);
	case KATRA_RECORD_STACK_OF:
		return keep_cite(ix, &rec->u.stack_of);
	case KATRA_RECORD_SYMBOLS:
		return kr_elfsyms_trace_names(ix->sy, &rec->u.symbols);
	default:
		return 0;
	}
}

int kr_stackidx_any(const struct kr_stackidx *ix)
{
	return ix && ix->ncites > 0;
}

static int by_tid_begin(const void *a, const void *b)
{
	const struct cite *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* The first cite of tid that begins at or after ns */
static size_t first_at(const struct kr_stackidx *ix, uint64_t tid, uint64_t ns)
{
	size_t lo = 0, hi = ix->ncites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cite *c = &ix->cites[mid];

		if (c->tid < tid || (c->tid == tid && c->begin_ns < ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define KR_STACKIDX_CANDIDATES 16

unsigned kr_stackidx_top(struct kr_stackidx *ix, uint64_t tid, uint64_t from_ns,
			 uint64_t to_ns, uint32_t site, unsigned n, const char *sep, char *buf,
			 size_t cap, unsigned *samples)
{
	uint64_t id[KR_STACKIDX_CANDIDATES], weight[KR_STACKIDX_CANDIDATES];
	unsigned count[KR_STACKIDX_CANDIDATES], nc = 0, best = 0, shown = 0;
	size_t i, len = 0;

	if (cap)
		buf[0] = 0;
	*samples = 0;
	if (!ix || !ix->ncites || !cap)
		return 0;
	if (!ix->sorted) {
		qsort(ix->cites, ix->ncites, sizeof(*ix->cites), by_tid_begin);
		ix->sorted = true;
	}
	/* a span of the thread's that began before from_ns may reach into it:
	 * start a few back (a thread's spans of one site do not overlap) */
	i = first_at(ix, tid, from_ns);
	for (unsigned back = 0; back < 4 && i > 0 && ix->cites[i - 1].tid == tid; back++)
		i--;
	for (; i < ix->ncites && ix->cites[i].tid == tid && ix->cites[i].begin_ns <= to_ns; i++) {
		const struct cite *c = &ix->cites[i];
		uint64_t lo = c->begin_ns > from_ns ? c->begin_ns : from_ns;
		uint64_t hi = c->end_ns < to_ns ? c->end_ns : to_ns;
		unsigned k;

		if (c->site != site || c->end_ns < from_ns)
			continue;
		/* a sample is an instant: its period (duration_ns) weighs it in
		 * stats, but the span it explains is the one it fell in */
		if (site == KATRA_SITE_SAMPLE && c->begin_ns < from_ns)
			continue;
		for (k = 0; k < nc && id[k] != c->stack_id; k++)
			;
		if (k == nc) {
			if (nc == KR_STACKIDX_CANDIDATES)
				continue;
			id[nc] = c->stack_id;
			weight[nc] = count[nc] = 0;
			nc++;
		}
		weight[k] += site == KATRA_SITE_SAMPLE ? 1 : hi > lo ? hi - lo : 1;
		count[k]++;
	}
	if (!nc)
		return 0;
	for (unsigned k = 1; k < nc; k++)
		if (weight[k] > weight[best])
			best = k;
	*samples = count[best];
	const struct ustack *u = kr_xmap_find(&ix->stacks, &id[best]);
	for (uint64_t f = 0; u && f < u->n && shown < n; f++) {
		char name[256];
		const char *s = kr_elfsyms_name(ix->sy, u->frames[f].module, u->frames[f].address, 0,
						name, sizeof(name));
		int w = snprintf(buf + len, cap - len, "%s%s", shown ? sep : "", s);

		if (w < 0 || (size_t)w >= cap - len)
			break;
		len += (size_t)w;
		shown++;
	}
	return shown;
}
