// SPDX-License-Identifier: GPL-2.0-only
/* Reading a trace for compare: the load pass and the second pass that
 * describes the events where threads first differ. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_trace.h"
#include "replay/util/open_cmd.h"

int kr_cmp_trace_load(struct kr_cmp_trace *t, const char *path, kr_kindset ignore, FILE *err)
{
	struct katra_reader *r;
	struct katra_record rec;
	enum katra_read_status st;
	int ret;

	kr_cmp_trace_init(t, ignore);
	ret = kr_open_cmd(&r, path, "compare", err);
	if (ret)
		return ret;
	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD && !t->oom)
		kr_cmp_trace_add(t, &rec);
	if (t->oom) {
		fprintf(err, "katra-replay: compare: out of memory reading '%s'\n", path);
		ret = -ENOMEM;
	} else {
		ret = kr_end_status_cmd(r, st, path, "compare", err);
	}
	katra_reader_close(r);
	if (!ret && kr_cmp_trace_finish(t)) {
		fprintf(err, "katra-replay: compare: out of memory\n");
		ret = -ENOMEM;
	}
	return ret;
}

static void describe(struct kr_cmp_event *at, const struct katra_event *e)
{
	at->present = true;
	at->seq = e->seq;
	at->ts_mono_ns = e->ts_mono_ns;
	at->scope = e->scope;
	at->kind = e->kind;
	at->phase = e->phase;
	if (e->payload.type == KATRA_PAYLOAD_SYSCALL) {
		at->has_nr = true;
		at->nr = e->payload.u.syscall.nr;
	} else if (e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN) {
		at->has_nr = true;
		at->nr = e->payload.u.syscall_return.nr;
	}
}

int kr_cmp_trace_fetch(struct kr_cmp_trace *t, const char *path, FILE *err)
{
	struct katra_reader *r;
	struct katra_record rec;
	enum katra_read_status st = KATRA_READ_EOF;
	uint64_t pending = 0;
	int ret;

	for (uint32_t i = 0; i < t->nthreads; i++) {
		t->threads[i].seen = 0;
		if (t->threads[i].want < t->threads[i].len)
			pending++;
	}
	if (!pending)
		return 0;
	ret = kr_open_cmd(&r, path, "compare", err);
	if (ret)
		return ret;
	while (pending && (st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		const struct katra_event *e = &rec.u.event;
		struct kr_idmap_slot *s;
		struct kr_cmp_thread *th;

		if (rec.type != KATRA_RECORD_EVENT || kr_kindset_has(t->ignore, e->kind))
			continue;
		s = kr_idmap_find(&t->thread_ix, e->process_id, e->thread_id);
		if (!s)
			continue;
		th = &t->threads[s->v1];
		if (th->seen++ == th->want) {
			describe(&th->at, e);
			pending--;
		}
	}
	ret = pending ? kr_end_status_cmd(r, st, path, "compare", err) : 0;
	katra_reader_close(r);
	return ret;
}
