// SPDX-License-Identifier: GPL-2.0-only
/* The dump command: stream every record through the text or JSON-lines
 * formatter, with the filters of struct katra_dump_opts.  Memory stays that
 * of the reader plus the bounded dump context (dump_ctx.h); a bad tail still
 * leaves the good prefix on out. */
#include <stdio.h>
#include <string.h>

#include "katra/replay.h"
#include "dump_ctx.h"
#include "replay/util/open.h"
#include "replay/util/window.h"

static bool in_list(const uint64_t *v, unsigned n, uint64_t x)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool wanted(const struct katra_dump_opts *o, struct kr_window *w,
		   const struct katra_record *rec)
{
	bool ev_filter = o->npids || o->ntids || o->kinds_set;

	/* first: the window must see every marker to move */
	if (!kr_window_has(w, rec))
		return false;
	switch (rec->type) {
	case KATRA_RECORD_EVENT: {
		const struct katra_event *e = &rec->u.event;

		if (o->npids && !in_list(o->pids, o->npids, e->process_id))
			return false;
		if (o->ntids && !in_list(o->tids, o->ntids, e->thread_id))
			return false;
		return !o->kinds_set || (e->kind < 64 && (o->event_kinds >> e->kind & 1));
	}
	case KATRA_RECORD_EPOCH_MARKER:
		return !o->kinds_set || (o->record_types >> rec->type & 1);
	case KATRA_RECORD_COUNTER:
		return o->kinds_set ? (o->record_types >> rec->type & 1) : !ev_filter;
	default: /* SessionSummary */
		if (o->kinds_set)
			return o->record_types >> rec->type & 1;
		return !ev_filter && !o->from.set && !o->to.set;
	}
}

int katra_dump_filtered(const char *path, FILE *out, const struct katra_dump_opts *o,
			FILE *err)
{
	struct katra_reader *r = NULL;
	struct kr_window w;
	struct kr_dump_ctx ctx;
	struct katra_record rec;
	enum katra_read_status st;
	int ret, fret;

	ret = kr_open(&r, path, err);
	if (ret)
		return ret;
	kr_dump_ctx_init(&ctx);
	ctx.path = path;
	kr_window_init(&w, &o->from, &o->to);
	if (o->jsonl)
		katra_jsonl_header(out, katra_reader_header(r));
	else
		katra_dump_header_text(out, katra_reader_header(r));
	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		kr_dump_ctx_see(&ctx, &rec);
		if (!wanted(o, &w, &rec))
			continue;
		if (o->jsonl)
			kr_jsonl_record(out, &rec, &ctx);
		else
			kr_text_record(out, &rec, &ctx);
	}
	/* the good prefix goes out before the reason the stream stopped */
	fret = kr_flush_out(out, err);
	ret = kr_end_status(r, st, path, err);
	if (!ret)
		ret = fret;
	if (!ret)
		ret = kr_window_check(&w, "dump", path, err);
	kr_dump_ctx_free(&ctx);
	katra_reader_close(r);
	return ret;
}

int katra_dump(const char *path, FILE *out, bool jsonl, FILE *err)
{
	struct katra_dump_opts o;

	memset(&o, 0, sizeof(o));
	o.jsonl = jsonl;
	return katra_dump_filtered(path, out, &o, err);
}
