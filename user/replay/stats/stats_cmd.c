// SPDX-License-Identifier: GPL-2.0-only
/* The stats command's driver: one pass over the trace feeding the overview
 * (stats.c) and the views (stats_track.c), then the sections asked for. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "katra/replay.h"
#include "replay/report/frame_sides.h"
#include "replay/util/open.h"
#include "stats.h"
#include "views.h"
#include "replay/util/window.h"

static uint64_t record_ts(const struct katra_record *rec)
{
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		return rec->u.event.ts_mono_ns;
	case KATRA_RECORD_EPOCH_MARKER:
		return rec->u.epoch.ts_mono_ns;
	case KATRA_RECORD_COUNTER:
		return rec->u.counter.ts_mono_ns;
	default:
		return 0;
	}
}

static int print_text(FILE *out, const struct kr_stats *s, const struct kr_views *v,
		      const struct katra_stats_opts *o, const char *path, const char *why)
{
	int ret = 0;

	if (o->views & KATRA_STATS_OVERVIEW)
		kr_stats_print_text(out, s, path, why);
	else
		kr_stats_print_text_head(out, s, path, why);
	if (o->views & KATRA_STATS_SYSCALLS)
		kr_syscalls_text(out, v, o->per_process);
	if (o->views & KATRA_STATS_CALLS)
		kr_calls_text(out, v, o->per_process);
	if (o->views & KATRA_STATS_GPU)
		kr_gpu_text(out, v);
	if (o->per_frame)
		ret = kr_perframe_text(out, v, s->windowed);
	if (o->views & KATRA_STATS_FILES)
		kr_files_text(out, v);
	if (o->views & KATRA_STATS_OFFCPU)
		kr_offcpu_text(out, v);
	if (o->views & KATRA_STATS_TOP)
		kr_top_text(out, v);
	if (o->views & (KATRA_STATS_FILES | KATRA_STATS_OFFCPU | KATRA_STATS_TOP))
		kr_files_unnamed_note(out, v);
	if (v->unmatched_ends || v->open_overflow || v->thread_overflow)
		fprintf(out, "\n(views: %llu %s without a Begin, %llu %s beyond the "
			"open-span table, %llu %s beyond the thread table)\n",
			(unsigned long long)v->unmatched_ends,
			katra_plural(v->unmatched_ends, "End", "Ends"),
			(unsigned long long)v->open_overflow,
			katra_plural(v->open_overflow, "Begin", "Begins"),
			(unsigned long long)v->thread_overflow,
			katra_plural(v->thread_overflow, "event", "events"));
	return ret;
}

static int print_json(FILE *out, const struct kr_stats *s, const struct kr_views *v,
		      const struct katra_stats_opts *o, const char *path, const char *why)
{
	int ret = 0;

	kr_stats_print_json_open(out, s, path, why, o->views & KATRA_STATS_OVERVIEW);
	if (o->views & KATRA_STATS_SYSCALLS)
		kr_syscalls_json(out, v, o->per_process);
	if (o->views & KATRA_STATS_CALLS)
		kr_calls_json(out, v, o->per_process);
	if (o->views & KATRA_STATS_GPU)
		kr_gpu_json(out, v);
	if (o->per_frame)
		ret = kr_perframe_json(out, v);
	if (o->views & KATRA_STATS_FILES)
		kr_files_json(out, v);
	if (o->views & KATRA_STATS_OFFCPU)
		kr_offcpu_json(out, v);
	if (o->views & KATRA_STATS_TOP)
		kr_top_json(out, v);
	fputs("}\n", out);
	return ret;
}

int katra_stats_with(const char *path, FILE *out, const struct katra_stats_opts *opts,
		     FILE *err)
{
	struct katra_stats_opts o = *opts;
	struct katra_reader *r = NULL;
	struct kr_stats *s = NULL;
	struct kr_views *v = NULL;
	struct kr_fsides *sides = NULL;
	struct kr_fsides_opts so = { 0 };
	struct katra_record rec;
	enum katra_read_status st;
	const char *why = NULL;
	struct kr_window w;
	int ret, fret, pret;

	if (o.stacks || o.folded)
		return kr_stacks_report(path, out, &o, err);
	if (o.per_frame && !(o.views & (KATRA_STATS_CALLS | KATRA_STATS_SYSCALLS)))
		o.views |= KATRA_STATS_CALLS;
	if (!o.views)
		o.views = KATRA_STATS_OVERVIEW | KATRA_STATS_SYSCALLS;
	if (o.per_process && !(o.views & KATRA_STATS_CALLS))
		o.views |= KATRA_STATS_SYSCALLS;
	ret = kr_open(&r, path, err);
	if (ret)
		return ret;
	s = malloc(sizeof(*s));
	v = malloc(sizeof(*v));
	if (!s || !v) {
		free(s);
		s = NULL;
		ret = -ENOMEM;
		fprintf(err, "katra-replay: out of memory\n");
		goto cleanup;
	}
	kr_stats_init(s, katra_reader_header(r));
	kr_views_init(v, &s->names, o.views & KATRA_STATS_TOP ? o.top : 0);
	v->calls_by_process = o.per_process;
	if (o.per_frame)
		kr_views_per_frame(v, o.views & KATRA_STATS_CALLS, o.views & KATRA_STATS_SYSCALLS);
	if (o.per_frame && kr_fsides_new(&sides, katra_reader_header(r), &so))
		v->oom = true;
	if ((o.views & KATRA_STATS_GPU) && !(v->gpu = kr_gpu_new()))
		v->oom = true;
	v->paths_recorded = katra_reader_header(r)->capture_options.record_paths;
	v->from = &o.from;
	v->to = &o.to;
	kr_window_init(&w, &o.from, &o.to);
	s->windowed = o.from.set || o.to.set;
	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		uint64_t ts = record_ts(&rec);

		if (rec.type != KATRA_RECORD_SESSION_SUMMARY && ts > s->capture_ts)
			s->capture_ts = ts;
		if (rec.type != KATRA_RECORD_SESSION_SUMMARY && !kr_window_has(&w, &rec)) {
			/* a process named before the window is still named in it */
			if (rec.type == KATRA_RECORD_EVENT)
				kr_procnames_see(&s->names, &rec.u.event);
			/* the GPU counts are cumulative: the window's from its base */
			if (rec.type == KATRA_RECORD_COUNTER && v->gpu)
				kr_gpu_counter(v->gpu, &rec.u.counter, false);
			continue;
		}
		kr_stats_add(s, &rec);
		kr_views_add(v, &rec);
		if (sides && kr_fsides_add(sides, &rec))
			v->oom = true;
	}
	kr_views_finish(v);
	if (sides && !v->oom && kr_fsides_finish(sides))
		v->oom = true;
	v->sides = sides;
	if (st != KATRA_READ_EOF) {
		why = katra_reader_message(r);
		if (!why || !why[0])
			why = "unreadable record";
	}
	if (s->oom || v->oom) {
		ret = -ENOMEM;
		fprintf(err, "katra-replay: out of memory\n");
		goto cleanup;
	}
	/* an epoch the window names and a complete trace lacks: the error
	 * alone, not the stats of an empty window */
	if (st == KATRA_READ_EOF && (ret = kr_window_check(&w, "stats", path, err)))
		goto cleanup;
	/* the stats of the good prefix are still worth printing */
	if (o.json)
		pret = print_json(out, s, v, &o, path, why);
	else
		pret = print_text(out, s, v, &o, path, why);
	fret = kr_flush_out(out, err);
	if (pret && !fret) {
		fprintf(err, "katra-replay: out of memory\n");
		fret = pret;
	}
	ret = kr_end_status(r, st, path, err);
	if (!ret)
		ret = fret;
	if (!ret)
		ret = kr_window_check(&w, "stats", path, err);
cleanup:
	kr_fsides_free(sides);
	if (s) {
		kr_views_free(v);
		kr_stats_free(s);
	}
	free(s);
	free(v);
	katra_reader_close(r);
	return ret;
}

int katra_stats(const char *path, FILE *out, bool json, FILE *err)
{
	struct katra_stats_opts o = { .json = json };

	return katra_stats_with(path, out, &o, err);
}
