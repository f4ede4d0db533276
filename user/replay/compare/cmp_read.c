// SPDX-License-Identifier: GPL-2.0-only
/* Reading a trace for compare: the load pass and the second pass that
 * describes the events where threads first differ. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_trace.h"
#include "replay/util/open_cmd.h"
#include "replay/util/xmap.h"

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

static void set_path(char *to, const struct katra_opt_str *p)
{
	size_t n;

	if (!p->present)
		return;
	n = p->value.len < KR_CMP_PATH_MAX - 1 ? (size_t)p->value.len : KR_CMP_PATH_MAX - 1;
	memcpy(to, p->value.ptr, n);
	to[n] = 0;
}

/* The path a FileOpen, Execve or TaskExec names, or NULL. */
static const struct katra_opt_str *path_of(const struct katra_event *e)
{
	switch (e->payload.type) {
	case KATRA_PAYLOAD_FILE_OPEN:
		return &e->payload.u.file_open.path;
	case KATRA_PAYLOAD_EXECVE:
		return &e->payload.u.execve.path;
	case KATRA_PAYLOAD_TASK_EXEC:
		return &e->payload.u.task_exec.path;
	default:
		return NULL;
	}
}

/* The second pass's memory of paths: a FileOpen names its path at the
 * Begin and its file at the End (resource File), as stats reads them. */
struct path_memory {
	struct kr_xmap by_file; /* file id -> path */
	struct kr_xmap opening; /* (tid, span) of a FileOpen in flight -> path */
};

static void describe(struct kr_cmp_event *at, const struct katra_event *e,
		     const struct path_memory *m)
{
	uint64_t key[2] = { e->thread_id, e->span_id.value };
	const char *known = NULL;
	const struct katra_opt_str *p = path_of(e);

	memset(at, 0, sizeof(*at));
	at->present = true;
	at->seq = e->seq;
	at->ts_mono_ns = e->ts_mono_ns;
	at->scope = e->scope;
	at->kind = e->kind;
	at->phase = e->phase;
	at->res_domain = e->resource.domain;
	at->res_id = e->resource.id;
	if (e->payload.type == KATRA_PAYLOAD_SYSCALL) {
		at->has_nr = true;
		at->nr = e->payload.u.syscall.nr;
	} else if (e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN) {
		at->has_nr = true;
		at->nr = e->payload.u.syscall_return.nr;
	}
	if (p) {
		set_path(at->path, p);
		return;
	}
	if (e->kind == KATRA_KIND_FILE_OPEN && e->phase == KATRA_PHASE_END && e->span_id.present)
		known = kr_xmap_find(&m->opening, key);
	if (!known && e->resource.domain == KATRA_RES_FILE)
		known = kr_xmap_find(&m->by_file, &e->resource.id);
	if (known)
		snprintf(at->path, sizeof(at->path), "%s", known);
}

static void remember_path(struct path_memory *m, const struct katra_event *e)
{
	const struct katra_opt_str *p = path_of(e);
	uint64_t key[2] = { e->thread_id, e->span_id.value };
	bool created;
	char *v;

	if (e->kind == KATRA_KIND_FILE_OPEN && e->phase == KATRA_PHASE_BEGIN && p && p->present &&
	    e->span_id.present && (v = kr_xmap_get(&m->opening, key, &created))) {
		v[0] = 0;
		set_path(v, p);
		return;
	}
	if (e->kind != KATRA_KIND_FILE_OPEN || e->phase != KATRA_PHASE_END || !e->span_id.present)
		return;
	char *opened = kr_xmap_find(&m->opening, key);
	if (!opened)
		return;
	if (e->resource.domain == KATRA_RES_FILE &&
	    (v = kr_xmap_get(&m->by_file, &e->resource.id, &created)))
		memcpy(v, opened, KR_CMP_PATH_MAX);
	kr_xmap_remove(&m->opening, opened);
}

int kr_cmp_trace_fetch(struct kr_cmp_trace *t, const char *path, FILE *err)
{
	struct katra_reader *r;
	struct katra_record rec;
	enum katra_read_status st = KATRA_READ_EOF;
	struct path_memory paths;
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
	kr_xmap_init(&paths.by_file, sizeof(uint64_t), KR_CMP_PATH_MAX, KR_CMP_MAX_PATHS);
	kr_xmap_init(&paths.opening, 2 * sizeof(uint64_t), KR_CMP_PATH_MAX, KR_CMP_MAX_PATHS);
	while (pending && (st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		const struct katra_event *e = &rec.u.event;
		struct kr_idmap_slot *s;
		struct kr_cmp_thread *th;

		if (rec.type != KATRA_RECORD_EVENT)
			continue;
		s = kr_kindset_has(t->ignore, e->kind) ? NULL :
			kr_idmap_find(&t->thread_ix, e->process_id, e->thread_id);
		th = s ? &t->threads[s->v1] : NULL;
		if (th && th->seen++ == th->want) {
			describe(&th->at, e, &paths);
			pending--;
		}
		remember_path(&paths, e); /* an ignored kind can still name a file */
	}
	ret = pending ? kr_end_status_cmd(r, st, path, "compare", err) : 0;
	kr_xmap_free(&paths.by_file);
	kr_xmap_free(&paths.opening);
	katra_reader_close(r);
	return ret;
}
