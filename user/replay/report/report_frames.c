// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay report --frames`: a frame is the window between two Frame
 * epochs of one track (a process and a swapchain: format/SPEC.md section 10,
 * Frames), the first present opening the first one.  The report model runs
 * with every other marker filtered out, so its windows are exactly the
 * frames, each with its critical path ending at the track's process's last
 * event (the present that ended it).  Kept: every frame's length (8 bytes a
 * frame, for the distribution) and the slowest ones' paths
 * (KR_FRAMES_SLOWEST_MAX at most). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/names/frames.h"
#include "replay/names/stackidx.h"
#include "replay/util/open.h"
#include "replay/util/out.h"
#include "frame_sides.h"
#include "report_frames_gpu.h"
#include "report_render.h"

#define KR_FRAMES_SLOWEST_MAX 100
#define KR_FRAMES_OTHER_TRACKS 64

struct frame_row {
	uint64_t number, start_ns, end_ns;
	char name[KR_NAME_MAX];
	struct kr_path path;
	struct kr_fgpu_frame gpu;
};

struct frames_run {
	const struct katra_report_opts *o;
	struct kr_render r;
	struct kr_report *rp;
	struct kr_ftrack tr;                 /* the track's choice */
	bool have_track;
	struct kr_frame track;
	uint64_t presents;                   /* the track's Frame epochs */
	const struct katra_epoch_marker *closing; /* the track's marker being fed */
	struct kr_bar *lengths;              /* every frame's number and length, in order */
	size_t nlengths, cap;
	struct frame_row *slow;              /* longest first */
	unsigned nslow, max_slow;
	struct kr_frame others[KR_FRAMES_OTHER_TRACKS];
	unsigned nothers;                    /* other tracks (the first ones) */
	uint64_t other_presents, unreadable; /* Frame epochs of other tracks; unparsed names */
	struct kr_fgpu *gpu;                 /* the GPU layer's fences */
	int error;
};

static void other_track(struct frames_run *x, const struct kr_frame *f)
{
	x->other_presents++;
	for (unsigned i = 0; i < x->nothers; i++)
		if (x->others[i].pid == f->pid && x->others[i].swapchain == f->swapchain)
			return;
	if (x->nothers < KR_FRAMES_OTHER_TRACKS)
		x->others[x->nothers++] = *f;
}

/* Only the track's Frame epochs end and open windows; the first one seen
 * (of --pid's process when given) chooses the track. */
static bool keep_mark(void *ctx, const struct katra_epoch_marker *m)
{
	struct frames_run *x = ctx;
	struct kr_frame f;
	int k = kr_ftrack_see(&x->tr, x->rp, m, &f);

	if (k == -2)
		x->unreadable++;
	else if (k == 0)
		other_track(x, &f);
	if (k != 1)
		return false;
	x->have_track = true;
	x->track = x->tr.f;
	x->presents++;
	x->closing = m;
	return true;
}

static int keep_slow(struct frames_run *x, const struct kr_window *w, uint64_t number)
{
	uint64_t len = w->end_ns - w->start_ns;
	unsigned i;

	if (!x->max_slow)
		return 0;
	if (!x->slow) {
		x->slow = calloc(x->max_slow, sizeof(*x->slow));
		if (!x->slow)
			return -ENOMEM;
	}
	if (x->nslow == x->max_slow) {
		struct frame_row *last = &x->slow[x->nslow - 1];
		if (last->end_ns - last->start_ns >= len)
			return 0; /* equal lengths: the earlier frame stays */
		x->nslow--;
	}
	/* after the rows at least as long: an earlier frame of the same length first */
	for (i = x->nslow; i > 0; i--) {
		const struct frame_row *p = &x->slow[i - 1];
		if (p->end_ns - p->start_ns >= len)
			break;
	}
	memmove(&x->slow[i + 1], &x->slow[i], (x->nslow - i) * sizeof(*x->slow));
	x->nslow++;
	x->slow[i].number = number;
	x->slow[i].start_ns = w->start_ns;
	x->slow[i].end_ns = w->end_ns;
	x->slow[i].path = *w->path;
	memset(&x->slow[i].gpu, 0, sizeof(x->slow[i].gpu));
	for (uint32_t k = 0; k < w->nthreads; k++)
		if (w->threads[k].pid == x->track.pid)
			x->slow[i].gpu.cpu_ns += w->threads[k].on_cpu_ns;
	size_t n = x->closing->name.len < KR_NAME_MAX - 1 ? x->closing->name.len : KR_NAME_MAX - 1;
	memset(x->slow[i].name, 0, sizeof(x->slow[i].name));
	memcpy(x->slow[i].name, x->closing->name.ptr, n);
	return 0;
}

static void on_frame(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	struct frames_run *x = ctx;
	struct kr_frame f;
	int rc;

	(void)rp;
	/* the whole capture, and the tail after the last present, are no frame */
	if (!w->is_epoch || !x->closing || x->error || !kr_frame_parse(x->closing, &f))
		return;
	if (x->nlengths == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 1024;
		struct kr_bar *p = realloc(x->lengths, nc * sizeof(*p));
		if (!p) {
			x->error = -ENOMEM;
			return;
		}
		x->lengths = p;
		x->cap = nc;
	}
	x->lengths[x->nlengths++] = (struct kr_bar){ f.number, w->end_ns - w->start_ns, false };
	kr_fgpu_present(x->gpu, w->end_ns);
	rc = keep_slow(x, w, f.number);
	if (rc)
		x->error = rc;
}

static void gpu_event(void *ctx, const struct katra_event *e)
{
	kr_fgpu_event(((struct frames_run *)ctx)->gpu, e);
}

/* Each slow frame's GPU side, once every fence's signal is known. */
static int gpu_sides(struct frames_run *x)
{
	kr_fgpu_done(x->gpu);
	for (unsigned i = 0; i < x->nslow; i++) {
		struct frame_row *s = &x->slow[i];
		uint64_t cpu = s->gpu.cpu_ns;
		int rc = kr_fgpu_frame(x->gpu, x->track.pid, s->start_ns, s->end_ns, &s->path,
				       &s->gpu);
		if (rc)
			return rc;
		s->gpu.cpu_ns = cpu;
	}
	return 0;
}

/* The marker that ended a frame is known while its record is fed only. */
static void record_done(void *ctx)
{
	((struct frames_run *)ctx)->closing = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest length with at least pct % of the frames at or
 * below it. */
static uint64_t rank(const uint64_t *sorted, size_t n, unsigned pct)
{
	size_t k = (n * pct + 99) / 100;

	return sorted[k ? k - 1 : 0];
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void text(FILE *f, const struct frames_run *x, const uint64_t *sorted)
{
	size_t n = x->nlengths;

	kr_text_head(f, x->rp, &x->r);
	if (!x->have_track) {
		fputs("\nframes: none (no Frame epoch", f);
		if (x->o->path_pid)
			fprintf(f, " of process %" PRIu64, x->o->path_pid);
		fputs(" in the trace: katra-record writes one per present on a swapchain)\n", f);
		return;
	}
	fputs("\nframes of process ", f);
	kr_thread_text(f, x->rp, x->track.pid, x->track.pid);
	fprintf(f, ", swapchain 0x%" PRIx64 ": %" PRIu64 " presents, %zu frames (present to "
		"present)\n", x->track.swapchain, x->presents, n);
	if (n)
		fprintf(f, "frame time: p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms\n",
			ms(rank(sorted, n, 50)), ms(rank(sorted, n, 90)), ms(rank(sorted, n, 99)),
			ms(sorted[n - 1]));
	if (x->other_presents)
		fprintf(f, "other tracks: %u%s (%" PRIu64 " presents; --pid PID for another "
			"process's)\n", x->nothers, x->nothers == KR_FRAMES_OTHER_TRACKS ? "+" : "",
			x->other_presents);
	if (x->unreadable)
		fprintf(f, "NOTE: %" PRIu64 " Frame epochs with a name that is not 'frame N (pid P, "
			"swapchain 0xS)' are left out\n", x->unreadable);
	if (!x->nslow)
		return;
	fprintf(f, "\nslowest frames (%u of %zu, longest first):\n", x->nslow, n);
	for (unsigned i = 0; i < x->nslow; i++) {
		const struct frame_row *s = &x->slow[i];

		fprintf(f, "\n#%u frame %" PRIu64 ": %.3f ms, ", i + 1, s->number,
			ms(s->end_ns - s->start_ns));
		kr_ts(f, s->start_ns);
		fputs(" .. ", f);
		kr_ts(f, s->end_ns);
		fputc('\n', f);
		kr_text_path(f, x->rp, &s->path, x->r.top);
		fputc('\n', f);
		kr_fgpu_text(f, x->gpu, x->rp, &s->gpu, &s->path);
	}
}

static void json(FILE *f, const struct frames_run *x, const uint64_t *sorted)
{
	size_t n = x->nlengths;

	kr_json_head(f, x->rp, &x->r);
	fputs(",\"frames\":{\"track\":", f);
	if (x->have_track)
		fprintf(f, "{\"pid\":%" PRIu64 ",\"swapchain\":\"0x%" PRIx64 "\"}", x->track.pid,
			x->track.swapchain);
	else
		fputs("null", f);
	fprintf(f, ",\"presents\":%" PRIu64 ",\"frames\":%zu,\"frame_time_ns\":", x->presents, n);
	if (n)
		fprintf(f, "{\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64
			",\"max\":%" PRIu64 "}", rank(sorted, n, 50), rank(sorted, n, 90),
			rank(sorted, n, 99), sorted[n - 1]);
	else
		fputs("null", f);
	fprintf(f, ",\"other_tracks\":%u,\"other_presents\":%" PRIu64 ",\"unreadable_names\":%"
		PRIu64 ",\"slowest\":[", x->nothers, x->other_presents, x->unreadable);
	for (unsigned i = 0; i < x->nslow; i++) {
		const struct frame_row *s = &x->slow[i];

		fprintf(f, "%s{\"frame\":%" PRIu64 ",\"name\":", i ? "," : "", s->number);
		katra_json_string(f, s->name, strlen(s->name));
		fprintf(f, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"length_ns\":%" PRIu64,
			s->start_ns, s->end_ns, s->end_ns - s->start_ns);
		kr_json_path(f, x->rp, &s->path);
		kr_fgpu_json(f, x->gpu, x->rp, &s->gpu, &s->path);
		fputc('}', f);
	}
	fputs("]}}\n", f);
}

/* The page: the frame times as a chart (the slowest red, each a link), the
 * slowest frames' table, then each slow frame's critical path. */
static void html_page(FILE *f, struct frames_run *x, const uint64_t *sorted)
{
	size_t n = x->nlengths;

	kr_html_head(f, x->rp, &x->r);
	if (!x->have_track) {
		fputs("<h2>Frames</h2>\n<p>None: no Frame epoch", f);
		if (x->o->path_pid)
			fprintf(f, " of process %" PRIu64, x->o->path_pid);
		fputs(" in the trace (katra-record writes one per present on a swapchain).</p>\n", f);
		kr_html_tail(f);
		return;
	}
	fputs("<h2 id=\"frames\">Frame times of ", f);
	char *who = NULL;
	size_t wl = 0;
	FILE *m = open_memstream(&who, &wl);
	if (m) {
		kr_thread_text(m, x->rp, x->track.pid, x->track.pid);
		fclose(m);
		kr_html_escape(f, who);
	}
	free(who);
	fprintf(f, ", swapchain 0x%" PRIx64 "</h2>\n<p>%" PRIu64 " presents, %zu frames (present to "
		"present)", x->track.swapchain, x->presents, n);
	if (n)
		fprintf(f, ": p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms", ms(rank(sorted, n, 50)),
			ms(rank(sorted, n, 90)), ms(rank(sorted, n, 99)), ms(sorted[n - 1]));
	fputs(".</p>\n", f);
	if (x->other_presents)
		fprintf(f, "<p class=\"note\">Other tracks: %u%s (%" PRIu64 " presents; --pid PID for "
			"another process's).</p>\n", x->nothers,
			x->nothers == KR_FRAMES_OTHER_TRACKS ? "+" : "", x->other_presents);
	if (x->unreadable)
		fprintf(f, "<p class=\"note\">%" PRIu64 " Frame epochs with a name that is not 'frame N "
			"(pid P, swapchain 0xS)' are left out.</p>\n", x->unreadable);
	if (!n) {
		kr_html_tail(f);
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < x->nslow; k++)
			if (x->slow[k].number == x->lengths[i].id)
				x->lengths[i].slow = true;
	/* the GPU time of every frame as a second series, where fences were recorded */
	uint64_t *gpu = kr_fgpu_any(x->gpu) ? malloc(n * sizeof(*gpu)) : NULL;
	if (gpu && kr_fgpu_frames_gpu(x->gpu, x->track.pid, x->lengths, n, gpu)) {
		free(gpu);
		gpu = NULL;
	}
	kr_svg_bars_series(f, x->lengths, n, rank(sorted, n, 50), "frame", "frame", gpu,
			   "GPU time (its fences' flights)");
	free(gpu);
	fprintf(f, "<h2>The slowest frames (%u of %zu)</h2>\n<table><tr><th>#</th><th>frame</th>"
		"<th>from s</th><th>ms</th><th>x median</th><th class=\"l\">the critical path's "
		"biggest part</th></tr>\n", x->nslow, n);
	for (unsigned i = 0; i < x->nslow; i++) {
		const struct frame_row *s = &x->slow[i];
		const struct kr_path *p = &s->path;
		uint64_t len = s->end_ns - s->start_ns, med = rank(sorted, n, 50);
		const struct kr_hop *big = NULL;

		for (uint32_t k = 0; k < p->nhops; k++)
			if (!big || p->hops[k].to_ns - p->hops[k].from_ns > big->to_ns - big->from_ns)
				big = &p->hops[k];
		fprintf(f, "<tr><td>%u</td><td><a href=\"#frame-%" PRIu64 "\">%" PRIu64 "</a></td>"
			"<td>%.6f</td><td>%.3f</td><td>%.1f</td><td class=\"l\">", i + 1, s->number,
			s->number, s->start_ns / 1e9, ms(len), med ? (double)len / (double)med : 0.0);
		if (big && p->present) {
			char *t = NULL;
			size_t tl = 0;
			FILE *tf = open_memstream(&t, &tl);

			if (tf) {
				fprintf(tf, "%.3f ms: ", ms(big->to_ns - big->from_ns));
				kr_thread_text(tf, x->rp, big->tid, big->pid);
				fputs(" ", tf);
				kr_hop_text(tf, x->rp, big);
				fclose(tf);
				kr_html_escape(f, t);
			}
			free(t);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (unsigned i = 0; i < x->nslow; i++) {
		const struct frame_row *s = &x->slow[i];

		fprintf(f, "<section id=\"frame-%" PRIu64 "\"><h2>#%u frame %" PRIu64 ": %.3f ms, "
			"%.6f s .. %.6f s</h2>\n", s->number, i + 1, s->number,
			ms(s->end_ns - s->start_ns), s->start_ns / 1e9, s->end_ns / 1e9);
		kr_html_path(f, x->rp, &s->path, x->r.top);
		kr_fgpu_html(f, x->gpu, x->rp, &s->gpu, &s->path);
		fputs("<p><a href=\"#top\">back to the chart</a></p></section>\n", f);
	}
	kr_html_tail(f);
}

static int html(struct frames_run *x, const uint64_t *sorted, FILE *err)
{
	FILE *f = fopen(x->o->html_path, "we");
	int rc = 0;

	if (!f) {
		rc = -errno;
		fprintf(err, "katra-replay: report: cannot write '%s': %s\n", x->o->html_path,
			strerror(-rc));
		return rc;
	}
	html_page(f, x, sorted);
	if (fclose(f) != 0) {
		rc = -errno;
		fprintf(err, "katra-replay: report: cannot write '%s': %s\n", x->o->html_path,
			strerror(-rc));
	}
	return rc;
}

int kr_frames_report(const char *path, const struct katra_report_opts *o, FILE *out, FILE *err)
{
	struct frames_run x = { .o = o, .tr.want_pid = o->path_pid };
	struct kr_report_opts mo = { 0 };
	struct katra_reader *r = NULL;
	enum katra_read_status st = KATRA_READ_EOF;
	uint64_t *sorted = NULL;
	int ret, fret;

	ret = kr_open(&r, path, err);
	if (ret)
		return ret;
	x.r.path = path;
	x.r.h = katra_reader_header(r);
	x.r.top = o->top ? o->top : 10;
	x.r.compressed = katra_reader_compressed(r);
	x.max_slow = x.r.top < KR_FRAMES_SLOWEST_MAX ? x.r.top : KR_FRAMES_SLOWEST_MAX;
	mo.index_cap = o->index_cap;
	mo.on_window = on_frame;
	mo.mark_filter = keep_mark;
	mo.on_event = gpu_event;
	mo.ctx = &x;
	/* the slowest frames' paths are printed after the last record: their
	 * hops can show the call stacks, which follow the events */
	mo.stacks = kr_stackidx_new(o->symbols);
	ret = mo.stacks ? kr_fgpu_new(&x.gpu) : -ENOMEM;
	if (!ret)
		ret = kr_report_new(&x.rp, x.r.h, &mo);
	if (ret) {
		fprintf(err, "katra-replay: report: %s\n", ret == -EINVAL ?
			"--index-cap must be a power of two" : strerror(-ret));
		goto cleanup;
	}
	ret = kr_report_read_all(x.rp, r, &st, &x.r.error, record_done, &x, err);
	if (ret)
		goto cleanup;
	ret = x.error;
	if (!ret)
		ret = gpu_sides(&x);
	if (!ret && x.nlengths && !(sorted = malloc(x.nlengths * sizeof(*sorted))))
		ret = -ENOMEM;
	if (ret) {
		fprintf(err, "katra-replay: report: %s\n", strerror(-ret));
		goto cleanup;
	}
	if (x.nlengths) {
		for (size_t i = 0; i < x.nlengths; i++)
			sorted[i] = x.lengths[i].ns;
		qsort(sorted, x.nlengths, sizeof(*sorted), cmp_u64);
	}
	if (o->html_path)
		ret = html(&x, sorted, err);
	else if (o->json)
		json(out, &x, sorted);
	else
		text(out, &x, sorted);
	if (!ret && o->html_path && o->json)
		json(out, &x, sorted);
	if (ret)
		goto cleanup;
	fret = kr_flush_out(out, err);
	ret = kr_end_status(r, st, path, err);
	if (!ret)
		ret = fret;
cleanup:
	free(sorted);
	free(x.lengths);
	free(x.slow);
	kr_report_free(x.rp);
	kr_stackidx_free(mo.stacks);
	kr_fgpu_free(x.gpu);
	katra_reader_close(r);
	return ret;
}
