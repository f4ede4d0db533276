// SPDX-License-Identifier: GPL-2.0-only
/* stats --per-frame, the output: per track (most presents first) the
 * frames' headline (count, frame time p50/p99/max, the slowest frames),
 * then per row the distribution over the track's frames of its calls and
 * its time in each (a frame without the row's calls counts 0; nearest-rank
 * percentiles, exact), rows by time-per-frame p99, then max, longest first;
 * then each of the slowest frames with its calls, those most above their
 * row's p50 frame first: the ones that made that frame slow. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "katra/replay.h"
#include "perframe.h"
#include "views.h"

struct pf_stat {
	const struct kr_pf_key *key;
	const struct kr_pf_cell *cells; /* the complete frames' cells, by frame */
	size_t ncells;
	uint64_t calls, total, cnt_p50, cnt_max, p50, p99, max;
};

struct pf_track_out {
	const struct kr_pf_track *t;
	size_t nframes;
	uint64_t *sorted;  /* frame lengths, ascending */
	size_t slow[KR_PF_SLOWEST];
	unsigned nslow;
	struct pf_stat *rows;
	size_t nrows;
};

static uint64_t len_of(const struct kr_pf_track *t, size_t frame)
{
	return t->ts[frame + 1] - t->ts[frame];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank over n values of which the first zeros are 0 and the rest
 * sorted (ascending) in v. */
static uint64_t rank(const uint64_t *v, size_t n, size_t zeros, unsigned pct)
{
	size_t k = (n * pct + 99) / 100;

	if (!k)
		k = 1;
	return k <= zeros ? 0 : v[k - zeros - 1];
}

static int by_p99(const void *a, const void *b)
{
	const struct pf_stat *x = a, *y = b;

	if (x->p99 != y->p99)
		return x->p99 > y->p99 ? -1 : 1;
	if (x->max != y->max)
		return x->max > y->max ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->key->cls != y->key->cls)
		return x->key->cls < y->key->cls ? -1 : 1;
	return x->key->what < y->key->what ? -1 : x->key->what > y->key->what;
}

static int stat_row(struct pf_stat *s, size_t nframes, uint64_t *cnt, uint64_t *ns)
{
	size_t n = s->ncells;

	for (size_t i = 0; i < n; i++) {
		cnt[i] = s->cells[i].count;
		ns[i] = s->cells[i].ns;
		s->calls += cnt[i];
		s->total += ns[i];
	}
	qsort(cnt, n, sizeof(*cnt), cmp_u64);
	qsort(ns, n, sizeof(*ns), cmp_u64);
	s->cnt_p50 = rank(cnt, nframes, nframes - n, 50);
	s->cnt_max = n ? cnt[n - 1] : 0;
	s->p50 = rank(ns, nframes, nframes - n, 50);
	s->p99 = rank(ns, nframes, nframes - n, 99);
	s->max = n ? ns[n - 1] : 0;
	return 0;
}

/* The track's rows with their distributions, sorted for the table. */
static int track_rows(const struct kr_perframe *pf, unsigned ti, struct pf_track_out *o)
{
	const struct kr_pf_row *r;
	uint64_t *cnt, *ns;
	size_t it = 0, n = 0;

	o->rows = calloc(pf->rows.len ? pf->rows.len : 1, sizeof(*o->rows));
	cnt = malloc((o->nframes ? o->nframes : 1) * sizeof(*cnt));
	ns = malloc((o->nframes ? o->nframes : 1) * sizeof(*ns));
	if (!o->rows || !cnt || !ns) {
		free(cnt);
		free(ns);
		return -1;
	}
	while ((r = kr_xmap_next(&pf->rows, &it))) {
		const struct kr_pf_key *k = kr_xmap_key(&pf->rows, r);
		struct pf_stat *s = &o->rows[n];
		size_t first = pf->row_first[r->id], end = pf->row_first[r->id + 1];

		if (k->track != ti)
			continue;
		s->key = k;
		s->cells = pf->cells + first;
		while (end > first && pf->cells[end - 1].frame >= o->nframes)
			end--; /* after the last present */
		s->ncells = end - first;
		if (!s->ncells)
			continue;
		stat_row(s, o->nframes, cnt, ns);
		n++;
	}
	o->nrows = n;
	qsort(o->rows, n, sizeof(*o->rows), by_p99);
	free(cnt);
	free(ns);
	return 0;
}

static int track_out(const struct kr_perframe *pf, unsigned ti, struct pf_track_out *o)
{
	const struct kr_pf_track *t = &pf->tracks[ti];

	memset(o, 0, sizeof(*o));
	o->t = t;
	o->nframes = kr_pf_frames(t);
	o->sorted = malloc((o->nframes ? o->nframes : 1) * sizeof(*o->sorted));
	if (!o->sorted)
		return -1;
	for (size_t i = 0; i < o->nframes; i++) {
		uint64_t len = len_of(t, i);
		unsigned j;

		o->sorted[i] = len;
		/* the slowest, longest first, an earlier frame first among equals */
		if (o->nslow == KR_PF_SLOWEST && len_of(t, o->slow[o->nslow - 1]) >= len)
			continue;
		if (o->nslow < KR_PF_SLOWEST)
			o->nslow++;
		for (j = o->nslow - 1; j > 0 && len_of(t, o->slow[j - 1]) < len; j--)
			o->slow[j] = o->slow[j - 1];
		o->slow[j] = i;
	}
	qsort(o->sorted, o->nframes, sizeof(*o->sorted), cmp_u64);
	return track_rows(pf, ti, o);
}

static void track_out_free(struct pf_track_out *o)
{
	free(o->sorted);
	free(o->rows);
}

/* Tracks with the most presents first, then in the order they appeared. */
static unsigned *track_order(const struct kr_perframe *pf)
{
	unsigned *ord = malloc((pf->ntracks ? pf->ntracks : 1) * sizeof(*ord));

	if (!ord)
		return NULL;
	for (unsigned i = 0; i < pf->ntracks; i++) {
		unsigned j = i;
		for (; j > 0 && pf->tracks[ord[j - 1]].n < pf->tracks[i].n; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	return ord;
}

struct pf_slow_call {
	const struct pf_stat *s;
	uint64_t count, ns;
	size_t order;
};

static const struct kr_pf_cell *cell_in(const struct pf_stat *s, size_t frame)
{
	size_t lo = 0, hi = s->ncells;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->cells[mid].frame < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ncells && s->cells[lo].frame == frame ? &s->cells[lo] : NULL;
}

static int by_excess(const void *a, const void *b)
{
	const struct pf_slow_call *x = a, *y = b;
	int64_t ex = (int64_t)(x->ns - x->s->p50), ey = (int64_t)(y->ns - y->s->p50);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Frame's calls, most above their p50 frame first (KR_PF_SLOW_CALLS at most). */
static size_t slow_calls(const struct pf_track_out *o, size_t frame, struct pf_slow_call *c)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nrows; i++) {
		const struct kr_pf_cell *x = cell_in(&o->rows[i], frame);
		if (x)
			c[n++] = (struct pf_slow_call){ &o->rows[i], x->count, x->ns, i };
	}
	qsort(c, n, sizeof(*c), by_excess);
	return n < KR_PF_SLOW_CALLS ? n : KR_PF_SLOW_CALLS;
}

static const char *row_name(const struct kr_views *v, const struct kr_pf_key *k, char *buf,
			    size_t cap)
{
	char sys[32];

	if (k->cls == KR_PF_CALL)
		return kr_call_label(v, k->what, buf, cap);
	if (k->cls == KR_PF_GPU) {
		uint32_t kind = (uint32_t)(k->what >> 32);
		snprintf(buf, cap, "%s",
			 kind == KATRA_KIND_GPU_JOB_DONE ? "GPU job (run to done)" :
			 kind == KATRA_KIND_GPU_VBLANK_DELIVERED ? "display event delivered" :
								  "GPU fence (made to signalled)");
		return buf;
	}
	snprintf(buf, cap, "%s", kr_syskey_name(k->what, sys));
	return buf;
}

static const char *row_layer(const struct kr_pf_key *k)
{
	return k->cls == KR_PF_CALL ? kr_call_layer(k->what) : k->cls == KR_PF_GPU ? "gpu" : "linux";
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static const char rule[] =
	"------ ------ --------- ------- ----------- ----------- ----------- ----------------\n";

static void text_track(FILE *f, const struct kr_views *v, const struct pf_track_out *o,
		       struct pf_slow_call *c)
{
	const struct kr_pf_track *t = o->t;
	size_t n = o->nframes;
	char buf[96];

	kr_s(f, "\nframes of process ");
	kr_put_pid(f, v->names, t->pid);
	fprintf(f, ", swapchain 0x%" PRIx64 ": %zu %s, %zu %s\n", t->swapchain, t->n,
		katra_plural(t->n, "present", "presents"), n, katra_plural(n, "frame", "frames"));
	if (n) {
		fprintf(f, "frame time: p50 %.3f ms  p99 %.3f ms  max %.3f ms\nslowest:",
			ms(rank(o->sorted, n, 0, 50)), ms(rank(o->sorted, n, 0, 99)),
			ms(o->sorted[n - 1]));
		for (unsigned i = 0; i < o->nslow; i++)
			fprintf(f, "%s frame %" PRIu64 " %.3f ms", i ? "," : "",
				t->number[o->slow[i] + 1], ms(len_of(t, o->slow[i])));
		kr_s(f, "\n");
	}
	if (t->nflip)
		fprintf(f, "present to flip: p50 %.3f ms  p99 %.3f ms  max %.3f ms (%zu of %zu "
			"presents)\n", ms(rank(t->flip, t->nflip, 0, 50)),
			ms(rank(t->flip, t->nflip, 0, 99)), ms(t->flip[t->nflip - 1]), t->nflip, t->n);
	if (o->nrows) {
		fprintf(f, "       frames  calls per frame     usecs per frame\n"
			   "layer    seen       p50     max         p50         p99         max name\n%s",
			rule);
		for (size_t i = 0; i < o->nrows; i++) {
			const struct pf_stat *s = &o->rows[i];
			fprintf(f, "%-6s %6zu %9" PRIu64 " %7" PRIu64 " %11.3f %11.3f %11.3f %s\n",
				row_layer(s->key), s->ncells, s->cnt_p50, s->cnt_max, us(s->p50),
				us(s->p99), us(s->max), row_name(v, s->key, buf, sizeof(buf)));
		}
	}
	if (t->before || t->after)
		fprintf(f, "(calls in no frame: %" PRIu64 " before the first present, %" PRIu64
			" after the last)\n", t->before, t->after);
	for (unsigned i = 0; i < o->nslow; i++) {
		size_t k = o->slow[i], m = slow_calls(o, k, c);

		fprintf(f, "\nframe %" PRIu64 ", %.3f ms: its calls, most above their p50 frame "
			"first\nlayer   calls  usecs in frame   p50 usecs name\n", t->number[k + 1],
			ms(len_of(t, k)));
		for (size_t j = 0; j < m; j++)
			fprintf(f, "%-6s %6" PRIu64 " %15.3f %11.3f %s\n", row_layer(c[j].s->key),
				c[j].count, us(c[j].ns), us(c[j].s->p50),
				row_name(v, c[j].s->key, buf, sizeof(buf)));
	}
}

static void notes(FILE *f, const struct kr_perframe *pf)
{
	if (pf->no_frames)
		fprintf(f, "\n(%" PRIu64 " %s of processes that presented no frame %s not "
			"counted)\n", pf->no_frames, katra_plural(pf->no_frames, "call", "calls"),
			katra_plural(pf->no_frames, "is", "are"));
	if (pf->unreadable)
		fprintf(f, "(%" PRIu64 " Frame epochs with a name that is not 'frame N (pid P, "
			"swapchain 0xS)' are left out)\n", pf->unreadable);
	if (pf->track_overflow || pf->row_overflow || pf->cell_overflow)
		fprintf(f, "(beyond the tables, not counted: %" PRIu64 " presents past %u "
			"swapchains, %" PRIu64 " calls past %u rows, %" PRIu64 " calls past %u "
			"cells)\n", pf->track_overflow, KR_PF_MAX_TRACKS, pf->row_overflow,
			KR_PF_MAX_ROWS, pf->cell_overflow, KR_PF_MAX_CELLS);
}

/* A track ready to print, and room for its slowest frames' calls. */
static bool prepared(const struct kr_perframe *pf, unsigned ti, struct pf_track_out *o,
		     struct pf_slow_call **c)
{
	if (track_out(pf, ti, o) || !(*c = malloc((o->nrows ? o->nrows : 1) * sizeof(**c)))) {
		track_out_free(o);
		return false;
	}
	return true;
}

int kr_perframe_text(FILE *f, const struct kr_views *v, bool windowed)
{
	const struct kr_perframe *pf = v->pf;
	unsigned *ord;
	int ret = 0;

	if (!pf->ntracks) {
		fprintf(f, "\ncalls per frame: none (no Frame epoch in this %s: katra-record "
			"writes one per present on a swapchain)\n", windowed ? "window" : "trace");
		notes(f, pf);
		return 0;
	}
	kr_s(f, "\ncalls per frame (a frame: present to present on one swapchain; a call: in "
		"the frame that holds its Begin,\non each swapchain of its process; times summed "
		"over its threads; a frame without the call counts 0)\n");
	ord = track_order(pf);
	if (!ord)
		return -ENOMEM;
	for (unsigned i = 0; i < pf->ntracks; i++) {
		struct pf_track_out o;
		struct pf_slow_call *c = NULL;

		if (!prepared(pf, ord[i], &o, &c)) {
			ret = -ENOMEM;
			break;
		}
		text_track(f, v, &o, c);
		free(c);
		track_out_free(&o);
	}
	free(ord);
	if (!pf->gpu_events)
		kr_s(f, "(GPU side: no GPU events in this trace)\n");
	else
		kr_fsides_text(f, v);
	notes(f, pf);
	return ret;
}

static void json_row_head(FILE *f, const struct kr_views *v, const struct kr_pf_key *k)
{
	char buf[96];
	const char *name = row_name(v, k, buf, sizeof(buf));
	uint32_t kind = (uint32_t)(k->what >> 32);

	fprintf(f, "{\"layer\":\"%s\",\"kind\":", row_layer(k));
	if (k->cls == KR_PF_CALL) {
		fprintf(f, "\"%s\",\"number\":%u", katra_kind_name(kind) ? katra_kind_name(kind) : "?",
			kr_call_index(k->what));
		if (kind == KATRA_KIND_WIN_TO_UNIX) /* two libraries may share an index */
			fprintf(f, ",\"handle\":%llu",
				(unsigned long long)kr_call_handle(v, k->what));
	} else if (k->cls == KR_PF_GPU) {
		fprintf(f, "\"%s\",\"number\":null", katra_kind_name(kind) ? katra_kind_name(kind) : "?");
	} else if (k->what & KR_SYSKEY_KIND)
		kr_s(f, "\"syscall\",\"number\":null");
	else
		fprintf(f, "\"syscall\",\"number\":%" PRIu64, k->what);
	kr_s(f, ",\"name\":");
	katra_json_string(f, name, strlen(name));
}

static void json_track(FILE *f, const struct kr_views *v, const struct pf_track_out *o,
		       struct pf_slow_call *c)
{
	const struct kr_pf_track *t = o->t;
	size_t n = o->nframes;

	fprintf(f, "{\"process_id\":%" PRIu64 ",\"process_name\":", t->pid);
	kr_json_pname(f, v, t->pid);
	fprintf(f, ",\"swapchain\":\"0x%" PRIx64 "\",\"presents\":%zu,\"frames\":%zu,"
		"\"frame_time_ns\":", t->swapchain, t->n, n);
	if (n)
		fprintf(f, "{\"p50\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 "}",
			rank(o->sorted, n, 0, 50), rank(o->sorted, n, 0, 99), o->sorted[n - 1]);
	else
		kr_s(f, "null");
	kr_s(f, ",\"present_to_flip_ns\":");
	if (t->nflip)
		fprintf(f, "{\"presents\":%zu,\"p50\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"max\":%"
			PRIu64 "}", t->nflip, rank(t->flip, t->nflip, 0, 50),
			rank(t->flip, t->nflip, 0, 99), t->flip[t->nflip - 1]);
	else
		kr_s(f, "null");
	fprintf(f, ",\"calls_before_first_present\":%" PRIu64 ",\"calls_after_last_present\":%"
		PRIu64 ",\"rows\":[", t->before, t->after);
	for (size_t i = 0; i < o->nrows; i++) {
		const struct pf_stat *s = &o->rows[i];

		kr_s(f, i ? "," : "");
		json_row_head(f, v, s->key);
		fprintf(f, ",\"frames_seen\":%zu,\"calls\":%" PRIu64 ",\"total_ns\":%" PRIu64
			",\"calls_per_frame\":{\"p50\":%" PRIu64 ",\"max\":%" PRIu64 "},"
			"\"time_per_frame_ns\":{\"p50\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"max\":%"
			PRIu64 "}}", s->ncells, s->calls, s->total, s->cnt_p50, s->cnt_max, s->p50,
			s->p99, s->max);
	}
	kr_s(f, "],\"slowest\":[");
	for (unsigned i = 0; i < o->nslow; i++) {
		size_t k = o->slow[i], m = slow_calls(o, k, c);

		fprintf(f, "%s{\"frame\":%" PRIu64 ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
			",\"length_ns\":%" PRIu64 ",\"calls\":[", i ? "," : "", t->number[k + 1],
			t->ts[k], t->ts[k + 1], len_of(t, k));
		for (size_t j = 0; j < m; j++) {
			kr_s(f, j ? "," : "");
			json_row_head(f, v, c[j].s->key);
			fprintf(f, ",\"calls\":%" PRIu64 ",\"time_ns\":%" PRIu64 ",\"p50_frame_ns\":%"
				PRIu64 "}", c[j].count, c[j].ns, c[j].s->p50);
		}
		kr_s(f, "]}");
	}
	kr_s(f, "]}");
}

/* ,"per_frame":{"tracks":[{"process_id","process_name","swapchain","presents",
 *   "frames","frame_time_ns":{p50,p99,max}|null,
 *   "present_to_flip_ns":{presents,p50,p99,max}|null,"calls_before_first_present",
 *   "calls_after_last_present","rows":[{"layer","kind","number","name",
 *   "frames_seen","calls","total_ns","calls_per_frame":{p50,max},
 *   "time_per_frame_ns":{p50,p99,max}}],"slowest":[{"frame","start_ns","end_ns",
 *   "length_ns","calls":[{"layer","kind","number","name","calls","time_ns",
 *   "p50_frame_ns"}]}]}],"sides":{..} (stats_frames_sides.c),"calls_without_frames",
 *   "unreadable_frame_names","gpu_events",
 *   "overflow":{"tracks","rows","cells"}} */
int kr_perframe_json(FILE *f, const struct kr_views *v)
{
	const struct kr_perframe *pf = v->pf;
	unsigned *ord = track_order(pf);
	int ret = ord ? 0 : -ENOMEM;

	kr_s(f, ",\"per_frame\":{\"tracks\":[");
	for (unsigned i = 0; ord && i < pf->ntracks; i++) {
		struct pf_track_out o;
		struct pf_slow_call *c = NULL;

		if (!prepared(pf, ord[i], &o, &c)) {
			ret = -ENOMEM;
			break;
		}
		kr_s(f, i ? "," : "");
		json_track(f, v, &o, c);
		free(c);
		track_out_free(&o);
	}
	free(ord);
	kr_s(f, "]");
	kr_fsides_json(f, v);
	fprintf(f, ",\"calls_without_frames\":%" PRIu64 ",\"unreadable_frame_names\":%" PRIu64
		",\"gpu_events\":%" PRIu64 ",\"overflow\":{\"tracks\":%" PRIu64 ",\"rows\":%" PRIu64
		",\"cells\":%" PRIu64 "}}",
		pf->no_frames, pf->unreadable, pf->gpu_events, pf->track_overflow, pf->row_overflow,
		pf->cell_overflow);
	return ret;
}
