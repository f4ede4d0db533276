// SPDX-License-Identifier: GPL-2.0-only
/* One side of compare: tokens, renumbering, labels and hashes (see
 * cmp_trace.h). */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_trace.h"
#include "replay/util/fnv.h"

#define PAGE_SLOTS (1u << KR_CMP_PAGE_BITS)
#define MAX_PAGES (1u << 24)
/* label of a seq: 0 unknown, LABEL_IGNORED an event of an ignored kind,
 * else (thread index + 1) << 6 | kind */
#define LABEL_IGNORED 1u

void kr_cmp_trace_init(struct kr_cmp_trace *t, kr_kindset ignore)
{
	memset(t, 0, sizeof(*t));
	t->ignore = ignore;
	kr_idmap_init(&t->thread_ix, KR_CMP_MAX_THREADS);
	kr_idmap_init(&t->procs, KR_CMP_MAX_THREADS);
	kr_idmap_init(&t->pages, MAX_PAGES);
	kr_idmap_init(&t->open, KR_CMP_MAX_OPEN_SPANS);
	kr_procnames_init(&t->names);
}

void kr_cmp_trace_free(struct kr_cmp_trace *t)
{
	for (uint32_t i = 0; i < t->nthreads; i++)
		free(t->threads[i].tok);
	free(t->threads);
	free(t->order);
	for (size_t i = 0; i < t->pages.cap; i++)
		if (t->pages.slots[i].used)
			free((void *)(uintptr_t)t->pages.slots[i].v1);
	kr_idmap_free(&t->thread_ix);
	kr_idmap_free(&t->procs);
	kr_idmap_free(&t->pages);
	kr_idmap_free(&t->open);
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++)
		free(t->kinds[k].dur);
	kr_procnames_free(&t->names);
	memset(t, 0, sizeof(*t));
}

static void set_label(struct kr_cmp_trace *t, uint64_t seq, uint32_t label)
{
	struct kr_idmap_slot *s;
	bool created;
	uint32_t *page;

	s = kr_idmap_get(&t->pages, seq >> KR_CMP_PAGE_BITS, 0, &created);
	if (!s) {
		t->oom = true;
		return;
	}
	if (created) {
		page = calloc(PAGE_SLOTS, sizeof(*page));
		if (!page) {
			kr_idmap_remove(&t->pages, s);
			t->oom = true;
			return;
		}
		s->v1 = (uint64_t)(uintptr_t)page;
	}
	page = (uint32_t *)(uintptr_t)s->v1;
	page[seq & (PAGE_SLOTS - 1)] = label;
}

static uint32_t get_label(struct kr_cmp_trace *t, uint64_t seq)
{
	struct kr_idmap_slot *s = kr_idmap_find(&t->pages, seq >> KR_CMP_PAGE_BITS, 0);

	return s ? ((uint32_t *)(uintptr_t)s->v1)[seq & (PAGE_SLOTS - 1)] : 0;
}

/* The thread of (pid, tid), numbered on first sight; NULL when full. */
static struct kr_cmp_thread *thread_of(struct kr_cmp_trace *t, uint64_t pid, uint64_t tid,
				       uint32_t *index)
{
	struct kr_idmap_slot *s, *p;
	struct kr_cmp_thread *th;
	bool created;

	s = kr_idmap_get(&t->thread_ix, pid, tid, &created);
	if (!s) {
		t->thread_overflow++;
		return NULL;
	}
	if (!created) {
		*index = (uint32_t)s->v1;
		return &t->threads[s->v1];
	}
	p = kr_idmap_get(&t->procs, pid, 0, &created);
	if (!p)
		goto full;
	if (created)
		p->v1 = t->nprocs++;
	if (t->nthreads == t->cap_threads) {
		uint32_t cap = t->cap_threads ? t->cap_threads * 2 : 16;
		struct kr_cmp_thread *n = realloc(t->threads, cap * sizeof(*n));

		if (!n) {
			t->oom = true;
			goto full;
		}
		t->threads = n;
		t->cap_threads = cap;
	}
	th = &t->threads[t->nthreads];
	memset(th, 0, sizeof(*th));
	th->pid = pid;
	th->tid = tid;
	th->proc_no = (uint32_t)p->v1;
	th->thread_no = (uint32_t)p->v2++;
	th->edge_hash = KR_FNV_INIT;
	th->want = UINT64_MAX;
	s->v1 = t->nthreads;
	*index = t->nthreads++;
	return th;
full:
	kr_idmap_remove(&t->thread_ix, s);
	t->thread_overflow++;
	return NULL;
}

static void push_token(struct kr_cmp_trace *t, struct kr_cmp_thread *th, uint16_t tok)
{
	if (th->len == th->cap) {
		uint64_t cap = th->cap ? th->cap * 2 : 64;
		uint16_t *n = realloc(th->tok, cap * sizeof(*n));

		if (!n) {
			t->oom = true;
			return;
		}
		th->tok = n;
		th->cap = cap;
	}
	th->tok[th->len++] = tok;
}

static void span_durations(struct kr_cmp_trace *t, const struct katra_event *e)
{
	struct kr_idmap_slot *s;
	bool created;

	if (!e->span_id.present || e->kind >= KATRA_KIND_COUNT)
		return;
	if (e->phase == KATRA_PHASE_BEGIN) {
		s = kr_idmap_get(&t->open, e->thread_id, e->span_id.value, &created);
		if (!s)
			t->span_overflow++;
		else
			s->v1 = e->ts_mono_ns;
	} else if (e->phase == KATRA_PHASE_END) {
		struct kr_cmp_kind *k = &t->kinds[e->kind];

		s = kr_idmap_find(&t->open, e->thread_id, e->span_id.value);
		if (!s)
			return;
		if (!k->dur && !(k->dur = calloc(1, sizeof(*k->dur)))) {
			t->oom = true;
			return;
		}
		kr_histo_add(k->dur, e->ts_mono_ns >= s->v1 ? e->ts_mono_ns - s->v1 : 0);
		kr_idmap_remove(&t->open, s);
	}
}

static void add_event(struct kr_cmp_trace *t, const struct katra_event *e)
{
	struct kr_cmp_thread *th;
	uint32_t ix;

	t->events++;
	if (e->kind < KATRA_KIND_COUNT)
		t->kinds[e->kind].count++;
	span_durations(t, e);
	if (kr_kindset_has(t->ignore, e->kind)) {
		set_label(t, e->seq, LABEL_IGNORED);
		return;
	}
	th = thread_of(t, e->process_id, e->thread_id, &ix);
	if (!th)
		return;
	t->compared++;
	push_token(t, th, kr_cmp_token(e->scope, e->kind, e->phase));
	set_label(t, e->seq, (ix + 1) << 6 | (e->kind & 63));
	for (uint64_t i = 0; i < e->causes.len; i++) {
		uint32_t label = get_label(t, e->causes.items[i]);
		const struct kr_cmp_thread *src;
		uint64_t h = th->edge_hash;

		if (label == LABEL_IGNORED) {
			t->ignored_causes++;
			continue;
		}
		if (!label) {
			t->unresolved_causes++;
			continue;
		}
		src = &t->threads[(label >> 6) - 1];
		h = kr_fnv_le(h, src->proc_no, 4);
		h = kr_fnv_le(h, src->thread_no, 4);
		h = kr_fnv_le(h, label & 63, 1);
		h = kr_fnv_le(h, e->kind, 1);
		th->edge_hash = h;
		th->edges++;
		t->edges++;
	}
}

void kr_cmp_trace_add(struct kr_cmp_trace *t, const struct katra_record *rec)
{
	if (rec->type != KATRA_RECORD_EVENT)
		return;
	kr_procnames_see(&t->names, &rec->u.event);
	add_event(t, &rec->u.event);
}

static int by_number(const void *x, const void *y, void *base)
{
	const struct kr_cmp_thread *a = (const struct kr_cmp_thread *)base + *(const uint32_t *)x;
	const struct kr_cmp_thread *b = (const struct kr_cmp_thread *)base + *(const uint32_t *)y;

	if (a->proc_no != b->proc_no)
		return a->proc_no < b->proc_no ? -1 : 1;
	return a->thread_no < b->thread_no ? -1 : a->thread_no > b->thread_no;
}

int kr_cmp_trace_finish(struct kr_cmp_trace *t)
{
	uint64_t hs = KR_FNV_INIT, hc = KR_FNV_INIT;

	free(t->order);
	t->order = malloc((t->nthreads ? t->nthreads : 1) * sizeof(*t->order));
	if (!t->order)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nthreads; i++)
		t->order[i] = i;
	qsort_r(t->order, t->nthreads, sizeof(*t->order), by_number, t->threads);
	for (uint32_t i = 0; i < t->nthreads; i++) {
		const struct kr_cmp_thread *th = &t->threads[t->order[i]];

		hs = kr_fnv_le(hs, th->proc_no, 4);
		hs = kr_fnv_le(hs, th->thread_no, 4);
		hs = kr_fnv_le(hs, th->len, 8);
		for (uint64_t j = 0; j < th->len; j++)
			hs = kr_fnv_le(hs, th->tok[j], 2);
		hc = kr_fnv_le(hc, th->proc_no, 4);
		hc = kr_fnv_le(hc, th->thread_no, 4);
		hc = kr_fnv_le(hc, th->edges, 8);
		hc = kr_fnv_le(hc, th->edge_hash, 8);
	}
	t->structural_hash = hs;
	t->causal_hash = hc;
	return 0;
}
