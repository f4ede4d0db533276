// SPDX-License-Identifier: GPL-2.0-only
/* export: the ids a viewer sorts by.  speedscope makes one profile per (pid,
 * tid), sorts them by pid then tid and opens the first: events outside the
 * traced set (pid 0) are written under KX_OUTSIDE_PID, above any pid, so
 * that they never come first; with --speedscope a first pass over the trace
 * sums each traced thread's time in spans (what a viewer draws as slices)
 * and renumbers processes and threads from 1, busiest first, their names
 * carrying the real ids (export.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export.h"
#include "katra/replay.h"
#include "replay/util/open_cmd.h"

#define PROCESS UINT64_MAX /* k2 of a process's entry */

void kx_ids(struct kx_state *s, uint64_t *pid, uint64_t *tid)
{
	struct kr_idmap_slot *p, *t;

	if (!s->ranked) {
		if (*pid == 0)
			*pid = KX_OUTSIDE_PID;
		return;
	}
	p = kr_idmap_find(&s->ids, *pid, PROCESS);
	t = p ? kr_idmap_find(&s->ids, *pid, *tid) : NULL;
	if (!p) {
		*pid = *pid ? KX_OUTSIDE_PID + *pid : KX_OUTSIDE_PID;
		return;
	}
	*pid = p->v1;
	*tid = t ? t->v1 : KX_OUTSIDE_PID + *tid; /* a frames pseudo-thread */
}

/* Processes by their busiest thread's time in spans, most first, then by
 * pid. */
static int by_busiest(const void *x, const void *y)
{
	const struct kr_idmap_slot *a = x, *b = y;

	if ((a->k2 == PROCESS) != (b->k2 == PROCESS))
		return a->k2 == PROCESS ? -1 : 1;
	if (a->k2 == PROCESS) {
		if (a->v1 != b->v1)
			return a->v1 > b->v1 ? -1 : 1;
		return a->k1 < b->k1 ? -1 : a->k1 > b->k1;
	}
	/* threads: by their process's new number (v2), then time, then tid */
	if (a->v2 != b->v2)
		return a->v2 < b->v2 ? -1 : 1;
	if (a->v1 != b->v1)
		return a->v1 > b->v1 ? -1 : 1;
	return a->k2 < b->k2 ? -1 : a->k2 > b->k2;
}

/* Sorted entries written back: a process's v1 becomes its number, a
 * thread's v1 its number within its process. */
static int number(struct kx_state *s, bool threads)
{
	struct kr_idmap_slot *v, *e;
	uint64_t last_pid = 0, n = 0;
	size_t len;

	v = kr_idmap_sorted(&s->ids, &len, by_busiest);
	if (!v && s->ids.len)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		if ((v[i].k2 == PROCESS) == threads)
			continue;
		e = kr_idmap_find(&s->ids, v[i].k1, v[i].k2);
		if (!threads) {
			e->v1 = ++n;
			continue;
		}
		if (v[i].v2 != last_pid)
			n = 0;
		last_pid = v[i].v2;
		e->v1 = ++n;
	}
	free(v);
	return 0;
}

int kx_order_busiest(struct kx_state *s, const char *path, FILE *err)
{
	struct katra_reader *r;
	struct katra_record rec;
	struct kr_idmap_slot *t, *p, *b;
	struct kr_idmap open;
	struct stat st;
	bool created;
	int ret;

	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		fprintf(err, "katra-replay: export: --speedscope: '%s' is not a regular file, "
			"read once: threads keep their ids (speedscope opens the lowest pid)\n",
			path);
		return 0;
	}
	ret = kr_open_cmd(&r, path, "export", err);
	if (ret)
		return ret;
	kr_idmap_init(&open, EXPORT_MAX_OPEN_SPANS); /* (tid, span_id) -> v1 Begin ts */
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD) {
		const struct katra_event *e = &rec.u.event;
		uint64_t dur = 0;

		if (rec.type != KATRA_RECORD_EVENT || !e->process_id || !e->thread_id ||
		    !kx_pid_shown(s, e->process_id))
			continue;
		if (e->span_id.present && e->phase == KATRA_PHASE_BEGIN) {
			b = kr_idmap_get(&open, e->thread_id, (uint64_t)e->span_id.value, &created);
			if (b)
				b->v1 = e->ts_mono_ns;
		} else if (e->span_id.present && e->phase == KATRA_PHASE_END &&
			   (b = kr_idmap_find(&open, e->thread_id, (uint64_t)e->span_id.value))) {
			dur = e->ts_mono_ns > b->v1 ? e->ts_mono_ns - b->v1 : 0;
			kr_idmap_remove(&open, b);
		}
		t = kr_idmap_get(&s->ids, e->process_id, e->thread_id, &created);
		p = t ? kr_idmap_get(&s->ids, e->process_id, PROCESS, &created) : NULL;
		if (!p)
			continue; /* beyond the table: written under KX_OUTSIDE_PID + id */
		t = kr_idmap_find(&s->ids, e->process_id, e->thread_id);
		/* time in spans, and 1 per event: a thread of instants still ranks */
		t->v1 += dur + 1;
		if (t->v1 > p->v1)
			p->v1 = t->v1;
	}
	kr_idmap_free(&open);
	katra_reader_close(r);
	/* the processes' numbers first, then each thread's within them */
	ret = number(s, false);
	for (size_t i = 0; !ret && i < s->ids.cap; i++) {
		t = &s->ids.slots[i];
		if (t->used && t->k2 != PROCESS)
			t->v2 = kr_idmap_find(&s->ids, t->k1, PROCESS)->v1;
	}
	if (!ret)
		ret = number(s, true);
	s->ranked = !ret;
	return ret;
}
