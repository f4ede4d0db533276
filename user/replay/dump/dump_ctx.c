// SPDX-License-Identifier: GPL-2.0-only
/* The dump's streaming context (see dump_ctx.h). */
#include "dump_ctx.h"
#include "replay/stats/stats.h"

void kr_dump_ctx_init(struct kr_dump_ctx *c)
{
	kr_procnames_init(&c->names);
	kr_idmap_init(&c->open, KR_MAX_OPEN_SPANS);
	c->have_dur = false;
	c->dur_ns = 0;
	c->path = NULL;
}

void kr_dump_ctx_free(struct kr_dump_ctx *c)
{
	kr_procnames_free(&c->names);
	kr_idmap_free(&c->open);
}

void kr_dump_ctx_see(struct kr_dump_ctx *c, const struct katra_record *rec)
{
	const struct katra_event *e = &rec->u.event;
	struct kr_idmap_slot *s;
	bool created;

	c->have_dur = false;
	if (rec->type != KATRA_RECORD_EVENT)
		return;
	if (e->payload.type == KATRA_PAYLOAD_PROCESS_INFO ||
	    e->payload.type == KATRA_PAYLOAD_WINE_SERVER_REQUESTS ||
	    e->payload.type == KATRA_PAYLOAD_TASK_RENAME)
		kr_procnames_see(&c->names, e);
	/* a unix library's call names follow its first calls */
	if (e->kind == KATRA_KIND_WIN_TO_UNIX && !c->names.looked_ahead)
		kr_procnames_look_ahead(&c->names, c->path);
	if (!e->span_id.present)
		return;
	if (e->phase == KATRA_PHASE_BEGIN) {
		s = kr_idmap_get(&c->open, e->thread_id, e->span_id.value, &created);
		if (s)
			s->v1 = e->ts_mono_ns;
	} else if (e->phase == KATRA_PHASE_END) {
		s = kr_idmap_find(&c->open, e->thread_id, e->span_id.value);
		if (!s)
			return;
		c->have_dur = true;
		c->dur_ns = e->ts_mono_ns >= s->v1 ? e->ts_mono_ns - s->v1 : 0;
		kr_idmap_remove(&c->open, s);
	}
}
