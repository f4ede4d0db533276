// SPDX-License-Identifier: GPL-2.0-only
/* export: reading the trace once, deciding what is inside the filters, and
 * the end of the output (see export.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "export.h"
#include "katra/replay.h"
#include "replay/names/stackidx.h"
#include "replay/report/frame_sides.h"
#include "replay/util/open_cmd.h"

/* Records are in time order within the recorder's reorder window; reading
 * stops this long after --to (at least 100 ms). */
#define MIN_STOP_SLACK_NS 100000000ull

int kx_init(struct kx_state *s, const struct kx_options *opt, const struct katra_header *h,
	    FILE *out)
{
	memset(s, 0, sizeof(*s));
	s->opt = *opt;
	s->header = h;
	s->recorder_pid = h->process_id;
	s->free_head = UINT32_MAX;
	kr_idmap_init(&s->open, EXPORT_MAX_OPEN_SPANS);
	kr_idmap_init(&s->named, EXPORT_MAX_THREADS);
	kr_idmap_init(&s->exited, EXPORT_MAX_THREADS);
	kr_idmap_init(&s->ids, EXPORT_MAX_THREADS);
	kr_idmap_init(&s->gpu_fences, EXPORT_MAX_GPU_FENCES);
	if (opt->speedscope)
		s->opt.no_args = true;
	kr_procnames_init(&s->unix_names);
	s->seen = malloc(sizeof(*s->seen) << EXPORT_SEEN_BITS);
	s->sources = malloc(sizeof(*s->sources) << EXPORT_SOURCE_BITS);
	if (!s->seen || !s->sources) {
		kx_free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < (1u << EXPORT_SEEN_BITS); i++)
		s->seen[i].seq = UINT64_MAX;
	for (size_t i = 0; i < (1u << EXPORT_SOURCE_BITS); i++)
		s->sources[i].seq = UINT64_MAX;
	/* numeric bounds are known now; epoch names when their marker is read */
	s->opt.from.resolved = !opt->from.set || !opt->from.by_epoch;
	s->opt.to.resolved = opt->to.set && !opt->to.by_epoch;
	kr_chrome_begin(&s->w, out);
	return 0;
}

void kx_free(struct kx_state *s)
{
	for (uint32_t i = 0; i < s->nspans; i++)
		free(s->spans[i].strings);
	free(s->spans);
	free(s->seen);
	free(s->sources);
	kr_idmap_free(&s->open);
	kr_idmap_free(&s->named);
	kr_idmap_free(&s->exited);
	kr_idmap_free(&s->ids);
	kr_idmap_free(&s->gpu_fences);
	kr_procnames_free(&s->unix_names);
	s->spans = NULL;
	s->seen = s->sources = NULL;
}

static uint64_t window_from(const struct kx_state *s)
{
	return s->opt.from.set ? s->opt.from.ns : 0;
}

static uint64_t window_to(const struct kx_state *s)
{
	return s->opt.to.set && s->opt.to.resolved ? s->opt.to.ns : UINT64_MAX;
}

static bool in_window(const struct kx_state *s, uint64_t ts)
{
	return s->opt.from.resolved && ts >= window_from(s) && ts <= window_to(s);
}

static void see_epoch(struct kx_state *s, const struct katra_epoch_marker *m)
{
	struct kx_bound *b[2] = { &s->opt.from, &s->opt.to };

	for (int i = 0; i < 2; i++)
		if (b[i]->set && b[i]->by_epoch && !b[i]->resolved &&
		    m->name.len == strlen(b[i]->epoch) &&
		    !memcmp(m->name.ptr, b[i]->epoch, m->name.len)) {
			b[i]->resolved = true;
			b[i]->ns = m->ts_mono_ns;
		}
}

/* The part of [b, e] inside the window, or false. */
static bool clip(const struct kx_state *s, uint64_t b, uint64_t e, uint64_t *cb, uint64_t *ce)
{
	uint64_t lo = window_from(s), hi = window_to(s);

	if (!s->opt.from.resolved || e < lo || b > hi)
		return false;
	*cb = b > lo ? b : lo;
	*ce = e < hi ? e : hi;
	return true;
}

static void end_span(struct kx_state *s, const struct katra_event *e)
{
	struct kx_span *sp = kx_span_find(s, e->thread_id, e->span_id.value);
	uint64_t b, en;

	if (!sp) {
		s->st.unmatched_ends++;
		return;
	}
	if (clip(s, sp->ts, e->ts_mono_ns, &b, &en))
		kx_emit_span(s, sp, e, b, en, b != sp->ts || en != e->ts_mono_ns, false);
	kx_span_close(s, sp);
}

/* A thread's time ends at its exit: the spans it still has open (the
 * exit_group that never returns) end there, unfinished. */
static void thread_exit(struct kx_state *s, const struct katra_event *e)
{
	struct kx_span *open[16];
	unsigned n;
	bool created;
	uint64_t b, en;

	do {
		n = 0;
		for (size_t i = 0; i < s->open.cap && n < 16; i++)
			if (s->open.slots[i].used && s->open.slots[i].k1 == e->thread_id)
				open[n++] = &s->spans[s->open.slots[i].v1];
		for (unsigned k = 0; k < n; k++) {
			s->st.spans_unfinished++;
			if (clip(s, open[k]->ts, e->ts_mono_ns, &b, &en))
				kx_emit_span(s, open[k], NULL, b, en, b != open[k]->ts, true);
			kx_span_close(s, open[k]);
		}
	} while (n == 16);
	kr_idmap_get(&s->exited, e->thread_id, 0, &created);
}

/* Whether e is the off-CPU time of a thread that has exited (its final
 * switch-out, an Inferred End after it): a dead thread is not off the CPU.
 * What it still does on its way out (waking its parent) is drawn.  A fork
 * that reuses the tid brings it back. */
static bool after_exit(struct kx_state *s, const struct katra_event *e)
{
	struct kr_idmap_slot *x;

	if (e->kind == KATRA_KIND_TASK_FORK && e->payload.type == KATRA_PAYLOAD_TASK_FORK &&
	    (x = kr_idmap_find(&s->exited, e->payload.u.task_fork.child_tid, 0)))
		kr_idmap_remove(&s->exited, x);
	if (e->kind != KATRA_KIND_OFF_CPU || !s->exited.len ||
	    !kr_idmap_find(&s->exited, e->thread_id, 0))
		return false;
	s->st.after_exit++;
	return true;
}

static void event(struct kx_state *s, const struct katra_event *e)
{
	bool mine = kx_pid_shown(s, e->process_id);
	bool shown = mine && in_window(s, e->ts_mono_ns);
	bool span = e->span_id.present && e->phase != KATRA_PHASE_INSTANT;
	uint64_t own_begin = UINT64_MAX;

	if (e->thread_id && after_exit(s, e))
		return;
	kx_seen_put(s, e, shown);
	if (e->kind == KATRA_KIND_WINE_UNIX_CALL_NAMES)
		kr_procnames_see(&s->unix_names, e);
	else if (e->kind == KATRA_KIND_WIN_TO_UNIX && !s->unix_names.looked_ahead)
		kr_procnames_look_ahead(&s->unix_names, s->path); /* its names come later */
	if (!mine)
		return;
	if (shown || e->kind == KATRA_KIND_PROCESS_INFO || e->kind == KATRA_KIND_TASK_RENAME)
		kx_emit_names(s, e);
	if (span && e->phase == KATRA_PHASE_BEGIN) {
		kx_span_open(s, e);
	} else if (span) {
		struct kx_span *sp = kx_span_find(s, e->thread_id, e->span_id.value);

		own_begin = sp ? sp->seq : UINT64_MAX;
		end_span(s, e);
	} else if (shown) {
		kx_emit_instant(s, e);
	}
	if (shown)
		kx_emit_links(s, e, own_begin);
	if (e->scope == KATRA_SCOPE_GPU)
		kx_emit_gpu(s, e, shown);
	if (e->kind == KATRA_KIND_TASK_EXIT && e->thread_id)
		thread_exit(s, e);
}

void kx_record(struct kx_state *s, const struct katra_record *rec)
{
	uint64_t ts;

	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		ts = rec->u.event.ts_mono_ns;
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		ts = rec->u.epoch.ts_mono_ns;
		see_epoch(s, &rec->u.epoch);
		break;
	case KATRA_RECORD_COUNTER:
		ts = rec->u.counter.ts_mono_ns;
		break;
	default:
		return;
	}
	if (s->opt.to.set && s->opt.to.resolved) {
		uint64_t slack = 2 * s->header->capture_options.reorder_window_ns;

		if (slack < MIN_STOP_SLACK_NS)
			slack = MIN_STOP_SLACK_NS;
		if (ts > s->opt.to.ns && ts - s->opt.to.ns > slack) {
			s->done = true;
			return;
		}
	}
	if (ts > s->last_ts)
		s->last_ts = ts;
	if (rec->type == KATRA_RECORD_EVENT)
		event(s, &rec->u.event);
	else if (rec->type == KATRA_RECORD_EPOCH_MARKER) {
		if (in_window(s, ts))
			kx_emit_epoch(s, &rec->u.epoch);
		if (rec->u.epoch.kind == KATRA_EPOCH_FRAME)
			kx_emit_frame(s, &rec->u.epoch, in_window(s, ts));
	} else if (rec->type == KATRA_RECORD_COUNTER && in_window(s, ts))
		kx_emit_counter(s, &rec->u.counter);
}

static void other_data(struct kx_state *s, const char *path)
{
	struct kr_chrome *w = &s->w;
	const struct katra_header *h = s->header;
	char buf[32];

	kr_chrome_other_data(w);
	kr_chrome_cstr(w, "source", "katra-replay export");
	kr_chrome_cstr(w, "trace", path);
	kr_chrome_str(w, "workload", h->workload.ptr, h->workload.len);
	kr_chrome_str(w, "tool_version", h->tool_version.ptr, h->tool_version.len);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)h->start_wall_ns);
	kr_chrome_cstr(w, "start_wall_ns", buf);
	if (s->opt.from.set)
		kr_chrome_u64(w, "from_ns", s->opt.from.ns);
	if (s->opt.to.set && s->opt.to.resolved)
		kr_chrome_u64(w, "to_ns", s->opt.to.ns);
	kr_chrome_u64(w, "spans", s->st.spans);
	kr_chrome_u64(w, "instants", s->st.instants);
	kr_chrome_u64(w, "flows", s->st.flows);
	kr_chrome_u64(w, "flows_lost", s->st.flows_lost);
	kr_chrome_u64(w, "counters", s->st.counters);
	kr_chrome_u64(w, "epochs", s->st.epochs);
	kr_chrome_u64(w, "frames", s->st.frames);
	kr_chrome_u64(w, "fences", s->st.fences);
	kr_chrome_u64(w, "vblanks", s->st.vblanks);
	kr_chrome_u64(w, "spans_unfinished", s->st.spans_unfinished);
	kr_chrome_u64(w, "span_table_full", s->st.span_table_full);
	kr_chrome_u64(w, "unmatched_ends", s->st.unmatched_ends);
	kr_chrome_u64(w, "events_after_exit", s->st.after_exit);
	kr_chrome_finish(w);
}

void kx_finish(struct kx_state *s, const char *path)
{
	/* spans still open: cut at --to, or unfinished at the trace's last time */
	for (size_t i = 0; i < s->open.cap; i++) {
		struct kx_span *sp;
		uint64_t b, e, end = s->done ? window_to(s) : s->last_ts;

		if (!s->open.slots[i].used)
			continue;
		sp = &s->spans[s->open.slots[i].v1];
		if (end < sp->ts)
			end = sp->ts;
		if (!s->done)
			s->st.spans_unfinished++;
		if (clip(s, sp->ts, end, &b, &e))
			kx_emit_span(s, sp, NULL, b, e, s->done || b != sp->ts, !s->done);
	}
	other_data(s, path);
}

/* --stacks: a first pass for the stack records (they follow the events) */
static int load_stacks(struct kx_state *s, const char *path, FILE *err)
{
	struct katra_reader *r;
	struct katra_record rec;
	int ret = kr_open_cmd(&r, path, "export", err);

	if (ret)
		return ret;
	s->stacks = kr_stackidx_new(s->opt.symbols);
	ret = s->stacks ? 0 : -ENOMEM;
	while (!ret && katra_reader_next(r, &rec) == KATRA_READ_RECORD)
		ret = kr_stackidx_add(s->stacks, &rec);
	katra_reader_close(r);
	if (ret)
		fprintf(err, "katra-replay: export: out of memory\n");
	return ret;
}

/* Whether the capture ran the GPU layer (its header's "layer gpu: ..."):
 * without it every frame's verdict is unknown and it has no flip. */
static bool gpu_layer(const struct katra_header *h)
{
	for (uint64_t i = 0; i < h->notes.len; i++)
		if (h->notes.items[i].len >= 10 && !memcmp(h->notes.items[i].ptr, "layer gpu:", 10))
			return true;
	return false;
}

/* A first pass for the frames' sides (a fence signals after its frame
 * ends): the frame slices' args. */
static int load_sides(struct kx_state *s, const char *path, FILE *err)
{
	struct kr_fsides_opts o = { 0 };
	struct katra_reader *r;
	struct katra_record rec;
	int ret = kr_open_cmd(&r, path, "export", err);

	if (ret)
		return ret;
	ret = kr_fsides_new(&s->sides, katra_reader_header(r), &o);
	while (!ret && katra_reader_next(r, &rec) == KATRA_READ_RECORD)
		ret = kr_fsides_add(s->sides, &rec);
	if (!ret)
		ret = kr_fsides_finish(s->sides);
	katra_reader_close(r);
	if (ret)
		fprintf(err, "katra-replay: export: out of memory\n");
	return ret;
}

int katra_export_chrome(const char *path, const struct kx_options *opt, FILE *out, FILE *err)
{
	struct katra_reader *r;
	struct katra_record rec;
	enum katra_read_status st = KATRA_READ_EOF;
	struct kx_state *s;
	int ret = kr_open_cmd(&r, path, "export", err);

	if (ret)
		return ret;
	s = malloc(sizeof(*s));
	if (!s || kx_init(s, opt, katra_reader_header(r), out)) {
		free(s);
		katra_reader_close(r);
		fprintf(err, "katra-replay: export: out of memory\n");
		return -ENOMEM;
	}
	s->path = path;
	if (opt->stacks && !opt->no_args && !opt->speedscope)
		ret = load_stacks(s, path, err);
	if (!ret && !opt->no_args && !opt->speedscope && gpu_layer(katra_reader_header(r)))
		ret = load_sides(s, path, err);
	if (!ret && opt->speedscope) {
		ret = kx_order_busiest(s, path, err);
		if (ret) {
			kr_fsides_free(s->sides);
			kr_stackidx_free(s->stacks);
			kx_free(s);
			free(s);
			katra_reader_close(r);
			return ret;
		}
		kx_emit_thread_ids(s);
	}
	while (!s->done && (st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD)
		kx_record(s, &rec);
	kx_finish(s, path);
	if (!s->done)
		ret = kr_end_status_cmd(r, st, path, "export", err);
	if (s->oom) {
		fprintf(err, "katra-replay: export: out of memory: some spans lost their strings\n");
		ret = ret ? ret : 1;
	}
	if (s->st.span_table_full)
		fprintf(err, "katra-replay: export: %llu %s not exported: more than %u open at "
			"once\n", (unsigned long long)s->st.span_table_full,
			katra_plural(s->st.span_table_full, "span", "spans"), EXPORT_MAX_OPEN_SPANS);
	for (int i = 0; i < 2; i++) {
		const struct kx_bound *b = i ? &s->opt.to : &s->opt.from;

		if (b->set && b->by_epoch && !b->resolved) {
			fprintf(err, "katra-replay: export: %s: no epoch named '%s' in '%s'\n",
				i ? "--to" : "--from", b->epoch, path);
			ret = ret ? ret : 1;
		}
	}
	kr_stackidx_free(s->stacks);
	kr_fsides_free(s->sides);
	kx_free(s);
	free(s);
	katra_reader_close(r);
	return ret;
}
