// SPDX-License-Identifier: GPL-2.0-only
/* export: the open spans, a pool indexed from an id map, bounded by
 * EXPORT_MAX_OPEN_SPANS.  A Begin's payload is kept (its strings copied) so
 * the complete event written at the End can carry it. */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "replay/names/payload_fields.h"

#define NO_FREE UINT32_MAX

/* Copies the payload's string fields into one block owned by sp. */
static int keep_strings(struct kx_span *sp)
{
	const struct kr_payload_desc *d = kr_payload_desc(sp->payload.type);
	size_t total = 0;
	char *p;

	for (unsigned i = 0; d && i < d->count; i++) {
		void *v = (char *)&sp->payload + d->fields[i].off;

		if (d->fields[i].type == KR_OPT_STR && ((struct katra_opt_str *)v)->present)
			total += ((struct katra_opt_str *)v)->value.len;
		else if (d->fields[i].type == KR_STR)
			total += ((struct katra_str *)v)->len;
	}
	if (!total)
		return 0;
	sp->strings = p = malloc(total);
	if (!p)
		return -1;
	for (unsigned i = 0; i < d->count; i++) {
		void *v = (char *)&sp->payload + d->fields[i].off;
		struct katra_str *str = NULL;

		if (d->fields[i].type == KR_OPT_STR && ((struct katra_opt_str *)v)->present)
			str = &((struct katra_opt_str *)v)->value;
		else if (d->fields[i].type == KR_STR)
			str = v;
		if (!str || !str->len)
			continue;
		memcpy(p, str->ptr, str->len);
		str->ptr = p;
		p += str->len;
	}
	return 0;
}

struct kx_span *kx_span_open(struct kx_state *s, const struct katra_event *e)
{
	struct kr_idmap_slot *slot;
	struct kx_span *sp;
	uint32_t ix;
	bool created;

	slot = kr_idmap_get(&s->open, e->thread_id, e->span_id.value, &created);
	if (!slot || !created) {
		s->st.span_table_full += !slot; /* begun twice: the trace is invalid, keep the first */
		return NULL;
	}
	if (s->free_head != NO_FREE) {
		ix = s->free_head;
		s->free_head = s->spans[ix].next_free;
	} else {
		if (s->nspans == s->cap_spans) {
			uint32_t cap = s->cap_spans ? s->cap_spans * 2 : 64;
			struct kx_span *n = realloc(s->spans, cap * sizeof(*n));

			if (!n) {
				kr_idmap_remove(&s->open, slot);
				s->oom = true;
				return NULL;
			}
			s->spans = n;
			s->cap_spans = cap;
		}
		ix = s->nspans++;
	}
	sp = &s->spans[ix];
	memset(sp, 0, sizeof(*sp));
	sp->pid = e->process_id;
	sp->tid = e->thread_id;
	sp->span_id = e->span_id.value;
	sp->seq = e->seq;
	sp->ts = e->ts_mono_ns;
	sp->scope = e->scope;
	sp->kind = e->kind;
	sp->resource = e->resource;
	sp->payload = e->payload;
	sp->next_free = NO_FREE;
	if (keep_strings(sp)) {
		memset(&sp->payload, 0, sizeof(sp->payload)); /* keep the span, lose its strings */
		s->oom = true;
	}
	slot->v1 = ix;
	return sp;
}

struct kx_span *kx_span_find(struct kx_state *s, uint64_t tid, uint64_t span_id)
{
	struct kr_idmap_slot *slot = kr_idmap_find(&s->open, tid, span_id);

	return slot ? &s->spans[slot->v1] : NULL;
}

void kx_span_close(struct kx_state *s, struct kx_span *sp)
{
	struct kr_idmap_slot *slot = kr_idmap_find(&s->open, sp->tid, sp->span_id);
	uint32_t ix = (uint32_t)(sp - s->spans);

	free(sp->strings);
	sp->strings = NULL;
	if (slot)
		kr_idmap_remove(&s->open, slot);
	sp->next_free = s->free_head;
	s->free_head = ix;
}
