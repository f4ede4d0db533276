// SPDX-License-Identifier: GPL-2.0-only
/* report --frames, the GPU side of a frame: the fences the GPU layer
 * recorded (format/SPEC.md section 10, "The GPU layer"), kept from their
 * GpuFenceInit to their GpuFenceSignaled (and a scheduler job's GpuJobRun to
 * GpuJobDone), then per slow frame:
 * - its GPU time: the union of the flights of the fences its process made
 *   in the frame (run to done where the job's run and completion are known,
 *   else made to signalled), overlaps counted once;
 * - its critical path's GPU waits: a hop blocked in a GpuFenceWait span, or
 *   blocked in a syscall and woken from outside (an interrupt) while a
 *   recorded fence signalled, against the path's running time;
 * - the verdict: GPU-bound when the waits are longer than the running,
 *   CPU-bound otherwise, unknown when the trace has no GPU event.
 * Bounded: KR_FGPU_MAX fences (more are counted, not kept). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "report_frames_gpu.h"
#include "replay/util/gpukey.h"

#define KR_FGPU_MAX (1u << 20)
#define KR_FGPU_NAMES 256
#define KR_FGPU_SCAN 65536 /* fences looked back at for a signal (in flight at once) */

struct fgpu_fence {
	uint64_t ctx, seqno, pid, tid, init_seq;
	uint64_t key; /* kr_gpu_fence_key */
	uint64_t init_ns, signal_ns, run_ns, done_ns;
	bool in_call; /* made inside a syscall (its Init names the Begin) */
};

struct fgpu_name {
	uint64_t ctx;
	char driver[32], timeline[32];
};

struct fgpu_flip {
	uint64_t ts, pid;
	uint64_t commit_ns; /* the GpuFenceInit of the out-fence signalled with it, else 0 */
};

struct kr_fgpu {
	struct fgpu_fence *f;
	size_t n, cap;
	struct fgpu_flip *flips;   /* GpuVblankDelivered: a flip done (or a vblank wait over) */
	size_t nflips, flips_cap;
	uint64_t *presents;        /* the track's frame ends, in order */
	size_t npresents, presents_cap;
	struct fgpu_name names[KR_FGPU_NAMES];
	unsigned nnames;
	uint64_t events, not_kept;
};

int kr_fgpu_new(struct kr_fgpu **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void kr_fgpu_free(struct kr_fgpu *g)
{
	if (!g)
		return;
	free(g->f);
	free(g->flips);
	free(g->presents);
	free(g);
}

bool kr_fgpu_any(const struct kr_fgpu *g)
{
	return g && g->events;
}

/* Appends one item of size sz to *v (n, cap), bounded by KR_FGPU_MAX. */
static bool push(void **v, size_t *n, size_t *cap, size_t sz, const void *item)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		void *p;
		if (nc > KR_FGPU_MAX || !(p = realloc(*v, nc * sz)))
			return false;
		*v = p;
		*cap = nc;
	}
	memcpy((char *)*v + *n * sz, item, sz);
	(*n)++;
	return true;
}

void kr_fgpu_present(struct kr_fgpu *g, uint64_t end_ns)
{
	if (!push((void **)&g->presents, &g->npresents, &g->presents_cap, sizeof(end_ns), &end_ns))
		g->not_kept++;
}

static struct fgpu_fence *find(struct kr_fgpu *g, uint64_t key)
{
	size_t low = g->n > KR_FGPU_SCAN ? g->n - KR_FGPU_SCAN : 0;

	for (size_t i = g->n; i > low; i--)
		if (g->f[i - 1].key == key)
			return &g->f[i - 1];
	return NULL;
}

static void copy_name(char *dst, size_t cap, const struct katra_str *s)
{
	size_t n = s->len < cap - 1 ? s->len : cap - 1;

	memcpy(dst, s->ptr, n);
	dst[n] = 0;
}

static void name(struct kr_fgpu *g, const struct katra_event *e)
{
	unsigned i;

	for (i = 0; i < g->nnames; i++)
		if (g->names[i].ctx == e->payload.u.gpu_timeline.context)
			break;
	if (i == KR_FGPU_NAMES)
		return;
	if (i == g->nnames)
		g->nnames++;
	g->names[i].ctx = e->payload.u.gpu_timeline.context;
	copy_name(g->names[i].driver, sizeof(g->names[i].driver), &e->payload.u.gpu_timeline.driver);
	copy_name(g->names[i].timeline, sizeof(g->names[i].timeline),
		  &e->payload.u.gpu_timeline.timeline);
}

void kr_fgpu_event(struct kr_fgpu *g, const struct katra_event *e)
{
	if (e->scope != KATRA_SCOPE_GPU)
		return;
	g->events++;
	if (e->payload.type == KATRA_PAYLOAD_GPU_TIMELINE) {
		name(g, e);
		return;
	}
	if (e->kind == KATRA_KIND_GPU_VBLANK_DELIVERED) {
		struct fgpu_flip fl = { e->ts_mono_ns, e->process_id, 0 };
		size_t low = g->n > KR_FGPU_SCAN ? g->n - KR_FGPU_SCAN : 0;
		/* an atomic commit's flip: caused by its out-fence's init */
		for (uint64_t k = 0; k < e->causes.len && !fl.commit_ns; k++)
			for (size_t i = g->n; i > low && !fl.commit_ns; i--)
				if (g->f[i - 1].init_seq == e->causes.items[k])
					fl.commit_ns = g->f[i - 1].init_ns;
		if (!push((void **)&g->flips, &g->nflips, &g->flips_cap, sizeof(fl), &fl))
			g->not_kept++;
		return;
	}
	if (e->payload.type != KATRA_PAYLOAD_GPU_FENCE || e->kind == KATRA_KIND_GPU_FENCE_WAIT)
		return;
	uint64_t ctx = e->payload.u.gpu_fence.context, seqno = e->payload.u.gpu_fence.seqno;
	if (e->kind == KATRA_KIND_GPU_FENCE_INIT) {
		struct fgpu_fence f = { .ctx = ctx, .seqno = seqno, .key = kr_gpu_fence_key(e),
					.pid = e->process_id, .tid = e->thread_id,
					.init_seq = e->seq, .init_ns = e->ts_mono_ns,
					.in_call = e->causes.len > 0 };
		if (!push((void **)&g->f, &g->n, &g->cap, sizeof(f), &f))
			g->not_kept++;
		return;
	}
	struct fgpu_fence *f = find(g, kr_gpu_fence_key(e));
	if (!f)
		return; /* made before the capture, or not kept */
	if (e->kind == KATRA_KIND_GPU_FENCE_EMIT && !f->seqno)
		f->seqno = seqno; /* numbered at its emit (virtio_gpu) */
	if (e->kind == KATRA_KIND_GPU_FENCE_SIGNALED && !f->signal_ns)
		f->signal_ns = e->ts_mono_ns;
	else if (e->kind == KATRA_KIND_GPU_JOB_RUN && !f->run_ns)
		f->run_ns = e->ts_mono_ns;
	else if (e->kind == KATRA_KIND_GPU_JOB_DONE && !f->done_ns)
		f->done_ns = e->ts_mono_ns;
}

struct span2 {
	uint64_t a, b;
};

static int by_start(const void *x, const void *y)
{
	const struct span2 *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* The fence of a GPU wait hop: the last recorded fence to signal inside it
 * (of the hop's timeline when it names one). */
static const struct fgpu_fence *released(const struct kr_fgpu *g, const struct kr_hop *h)
{
	const struct fgpu_fence *best = NULL;
	bool ctx_known = h->res_domain == KATRA_RES_GPU_TIMELINE;

	for (size_t i = 0; i < g->n; i++) {
		const struct fgpu_fence *f = &g->f[i];
		if (!f->signal_ns || f->signal_ns < h->from_ns || f->signal_ns > h->to_ns)
			continue;
		if (ctx_known && (f->ctx & 0xffffffffu) != (h->res_id & 0xffffffffu))
			continue;
		if (!best || f->signal_ns >= best->signal_ns)
			best = f;
	}
	return best;
}

/* A hop that is the frame waiting for the GPU; *fence: the fence, or NULL. */
static bool gpu_wait(const struct kr_fgpu *g, const struct kr_hop *h,
		     const struct fgpu_fence **fence)
{
	*fence = NULL;
	if (h->type != KR_HOP_BLOCKED)
		return false;
	if (h->kind == KATRA_KIND_GPU_FENCE_WAIT) {
		*fence = released(g, h);
		return true;
	}
	if (h->kind == KR_KIND_NONE || !kr_waker_outside(h->other_tid))
		return false;
	*fence = released(g, h);
	return *fence != NULL;
}

/* The present ending at end_ns reached the screen at the flip of the last
 * commit the process made in its frame (from start_ns: a flip linked to
 * the commit ioctl that made its out-fence), else at the process's first
 * delivered vblank event after it, unless a later present came first: the
 * time between, else UINT64_MAX (as stats --per-frame counts it; 0 here
 * for a commit's flip before the present's end, which stats leaves out). */
static uint64_t to_flip(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns,
			uint64_t end_ns)
{
	const struct fgpu_flip *last = NULL;
	size_t lo = 0, hi = g->nflips;

	for (size_t i = 0; i < g->nflips; i++) {
		const struct fgpu_flip *fl = &g->flips[i];
		if (fl->pid == pid && fl->commit_ns >= start_ns && fl->commit_ns < end_ns &&
		    fl->commit_ns && (!last || fl->commit_ns >= last->commit_ns))
			last = fl;
	}
	if (last)
		return last->ts > end_ns ? last->ts - end_ns : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->flips[mid].ts < end_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < g->nflips && g->flips[lo].pid != pid; lo++)
		;
	if (lo == g->nflips)
		return UINT64_MAX;
	for (size_t i = 0; i < g->npresents; i++)
		if (g->presents[i] > end_ns && g->presents[i] <= g->flips[lo].ts)
			return UINT64_MAX;
	return g->flips[lo].ts - end_ns;
}

static int by_init(const void *x, const void *y)
{
	const struct fgpu_fence *p = x, *q = y;

	return p->init_ns < q->init_ns ? -1 : p->init_ns > q->init_ns;
}

void kr_fgpu_done(struct kr_fgpu *g)
{
	if (g->n)
		qsort(g->f, g->n, sizeof(*g->f), by_init);
}

/* The first fence made at or after start_ns (kr_fgpu_done sorted them). */
static size_t first_made(const struct kr_fgpu *g, uint64_t start_ns)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->f[mid].init_ns < start_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The union of the flights of process pid's fences made in [start_ns,
 * end_ns) (of timeline *ctx only when ctx is not NULL): 0 or -ENOMEM. */
static int gpu_time(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns, uint64_t end_ns,
		    const uint64_t *ctx, uint64_t *gpu_ns, uint64_t *fences)
{
	struct span2 *s = NULL;
	size_t ns = 0;

	*gpu_ns = *fences = 0;
	for (size_t i = first_made(g, start_ns); i < g->n && g->f[i].init_ns < end_ns; i++) {
		const struct fgpu_fence *f = &g->f[i];
		if (f->pid != pid || (ctx && f->ctx != *ctx))
			continue;
		(*fences)++;
		uint64_t a = f->run_ns && f->done_ns ? f->run_ns : f->init_ns;
		uint64_t b = f->run_ns && f->done_ns ? f->done_ns : f->signal_ns;
		if (!b || b < a)
			continue;
		if (!s && !(s = malloc((g->n - i) * sizeof(*s))))
			return -ENOMEM;
		s[ns++] = (struct span2){ a, b };
	}
	if (ns) {
		qsort(s, ns, sizeof(*s), by_start);
		uint64_t cover = 0;
		for (size_t i = 0; i < ns; i++) {
			uint64_t a = s[i].a > cover ? s[i].a : cover;
			if (s[i].b > a)
				*gpu_ns += s[i].b - a;
			if (s[i].b > cover)
				cover = s[i].b;
		}
	}
	free(s);
	return 0;
}

int kr_fgpu_frames_gpu(const struct kr_fgpu *g, uint64_t pid, const struct kr_bar *b, size_t n,
		       uint64_t *out)
{
	uint64_t fences;

	if (n != g->npresents)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint64_t end = g->presents[i], start = end - b[i].ns;
		int rc = gpu_time(g, pid, start, end, NULL, &out[i], &fences);
		if (rc)
			return rc;
	}
	return 0;
}

bool kr_fgpu_hop_kept(const struct kr_hop *h)
{
	return h->type == KR_HOP_BLOCKED && (h->kind == KATRA_KIND_GPU_FENCE_WAIT ||
					     (h->kind != KR_KIND_NONE && kr_waker_outside(h->other_tid)));
}

int kr_fgpu_rings(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns, uint64_t end_ns,
		  struct kr_fgpu_ring *out, unsigned max, unsigned *n)
{
	*n = 0;
	for (size_t i = first_made(g, start_ns); i < g->n && g->f[i].init_ns < end_ns; i++) {
		const struct fgpu_fence *f = &g->f[i];
		unsigned k;
		if (f->pid != pid)
			continue;
		for (k = 0; k < *n && out[k].ctx != f->ctx; k++)
			;
		if (k == *n) {
			if (*n == max)
				continue; /* beyond max timelines: in the frame's gpu_ns only */
			out[(*n)++] = (struct kr_fgpu_ring){ .ctx = f->ctx };
		}
		if (f->run_ns && f->done_ns)
			out[k].jobs++;
	}
	for (unsigned k = 0; k < *n; k++) {
		int rc = gpu_time(g, pid, start_ns, end_ns, &out[k].ctx, &out[k].gpu_ns,
				  &out[k].fences);
		if (rc)
			return rc;
	}
	return 0;
}

int kr_fgpu_frame_hops(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns,
		       uint64_t end_ns, uint64_t run_ns, const struct kr_hop *hops, size_t nhops,
		       struct kr_fgpu_frame *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = gpu_time(g, pid, start_ns, end_ns, NULL, &out->gpu_ns, &out->fences);
	if (rc)
		return rc;
	out->to_flip_ns = to_flip(g, pid, start_ns, end_ns);
	out->run_ns = run_ns;
	for (size_t k = 0; k < nhops; k++) {
		const struct fgpu_fence *f;
		if (gpu_wait(g, &hops[k], &f))
			out->gpu_wait_ns += hops[k].to_ns - hops[k].from_ns;
	}
	out->verdict = !kr_fgpu_any(g) ? KR_FGPU_UNKNOWN :
		       out->gpu_wait_ns > out->run_ns ? KR_FGPU_GPU_BOUND : KR_FGPU_CPU_BOUND;
	return kr_fgpu_rings(g, pid, start_ns, end_ns, out->rings, KR_FSIDES_RINGS, &out->nrings);
}

int kr_fgpu_frame(const struct kr_fgpu *g, uint64_t pid, uint64_t start_ns, uint64_t end_ns,
		  const struct kr_path *p, struct kr_fgpu_frame *out)
{
	return kr_fgpu_frame_hops(g, pid, start_ns, end_ns, p->by_type_ns[KR_HOP_RUN], p->hops,
				  p->nhops, out);
}

const char *kr_fgpu_bound(int v)
{
	return v == KR_FGPU_GPU_BOUND ? "gpu" : v == KR_FGPU_CPU_BOUND ? "cpu" : "unknown";
}

void kr_fgpu_ring_name(const struct kr_fgpu *g, uint64_t ctx, char *buf, size_t cap)
{
	for (unsigned i = 0; i < g->nnames; i++)
		if (g->names[i].ctx == ctx) {
			snprintf(buf, cap, "%s:%s", g->names[i].driver[0] ? g->names[i].driver : "?",
				 g->names[i].timeline);
			return;
		}
	snprintf(buf, cap, "?:ctx %" PRIu64, ctx);
}

const char *kr_fgpu_verdict(int v)
{
	return v == KR_FGPU_GPU_BOUND ? "GPU-bound" :
	       v == KR_FGPU_CPU_BOUND ? "CPU-bound" : "unknown (no GPU events)";
}

static const char *driver(const struct kr_fgpu *g, uint64_t ctx)
{
	for (unsigned i = 0; i < g->nnames; i++)
		if (g->names[i].ctx == ctx && g->names[i].driver[0])
			return g->names[i].driver;
	return "?";
}

/* "waited 3.200 ms for fence vgem:ctx 12 #7 (made in ioctl by 1234(game))" */
static void hop_words(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		      const struct kr_hop *h, const struct fgpu_fence *fc)
{
	fprintf(f, "waited %.3f ms for ", (double)(h->to_ns - h->from_ns) / 1e6);
	if (!fc) {
		fputs("a fence no recorded signal names", f);
		return;
	}
	fprintf(f, "fence %s:ctx %" PRIu64 " #%" PRIu64 " (made %sby ", driver(g, fc->ctx),
		fc->ctx, fc->seqno, fc->in_call ? "in ioctl " : "");
	kr_thread_text(f, rp, fc->tid, fc->pid);
	fputc(')', f);
}

void kr_fgpu_text(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		  const struct kr_fgpu_frame *fr, const struct kr_path *p)
{
	fprintf(f, "GPU side: CPU %.3f ms, GPU %.3f ms (%" PRIu64 " fences), critical path: %.3f ms running, "
		"%.3f ms waiting for the GPU: %s\n", (double)fr->cpu_ns / 1e6,
		(double)fr->gpu_ns / 1e6, fr->fences, (double)fr->run_ns / 1e6,
		(double)fr->gpu_wait_ns / 1e6, kr_fgpu_verdict(fr->verdict));
	if (fr->to_flip_ns != UINT64_MAX)
		fprintf(f, "  present to flip: %.3f ms\n", (double)fr->to_flip_ns / 1e6);
	else if (g->nflips)
		fputs("  present to flip: no flip of the process after it\n", f);
	for (uint32_t k = 0; k < p->nhops; k++) {
		const struct fgpu_fence *fc;
		if (!gpu_wait(g, &p->hops[k], &fc))
			continue;
		fputs("  GPU hop: ", f);
		kr_thread_text(f, rp, p->hops[k].tid, p->hops[k].pid);
		fputc(' ', f);
		hop_words(f, g, rp, &p->hops[k], fc);
		fputc('\n', f);
	}
}

void kr_fgpu_html(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		  const struct kr_fgpu_frame *fr, const struct kr_path *p)
{
	char *t = NULL;
	size_t tl = 0;
	FILE *m = open_memstream(&t, &tl);

	if (!m)
		return;
	kr_fgpu_text(m, g, rp, fr, p);
	fclose(m);
	/* escaping drops control bytes: the lines one by one */
	fputs("<pre class=\"gpu\">", f);
	for (char *line = t, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		kr_html_escape(f, line);
		if (nl)
			fputc('\n', f);
	}
	fputs("</pre>\n", f);
	free(t);
}

void kr_fgpu_json(FILE *f, const struct kr_fgpu *g, const struct kr_report *rp,
		  const struct kr_fgpu_frame *fr, const struct kr_path *p)
{
	bool first = true;
	char flip[24] = "null";

	if (fr->to_flip_ns != UINT64_MAX)
		snprintf(flip, sizeof(flip), "%" PRIu64, fr->to_flip_ns);
	fprintf(f, ",\"cpu_ns\":%" PRIu64 ",\"gpu_ns\":%" PRIu64 ",\"gpu_fences\":%" PRIu64
		",\"path_run_ns\":%" PRIu64 ",\"path_gpu_wait_ns\":%" PRIu64 ",\"bound\":\"%s\","
		"\"present_to_flip_ns\":%s,\"gpu_hops\":[", fr->cpu_ns, fr->gpu_ns, fr->fences, fr->run_ns, fr->gpu_wait_ns,
		kr_fgpu_bound(fr->verdict), flip);
	for (uint32_t k = 0; k < p->nhops; k++) {
		const struct kr_hop *h = &p->hops[k];
		const struct fgpu_fence *fc;
		if (!gpu_wait(g, h, &fc))
			continue;
		fprintf(f, "%s{\"tid\":%" PRIu64 ",\"from_ns\":%" PRIu64 ",\"to_ns\":%" PRIu64
			",\"fence\":", first ? "" : ",", h->tid, h->from_ns, h->to_ns);
		first = false;
		if (fc) {
			const char *d = driver(g, fc->ctx);
			fputs("{\"driver\":", f);
			katra_json_string(f, d, strlen(d));
			fprintf(f, ",\"context\":%" PRIu64 ",\"seqno\":%" PRIu64 ",\"made_by_tid\":%"
				PRIu64 ",\"made_in_call\":%s}", fc->ctx, fc->seqno, fc->tid,
				fc->in_call ? "true" : "false");
		} else
			fputs("null", f);
		fputc('}', f);
	}
	fputs("],\"gpu_rings\":[", f);
	for (unsigned k = 0; k < fr->nrings; k++) {
		const struct kr_fgpu_ring *r = &fr->rings[k];
		char ring[80];
		kr_fgpu_ring_name(g, r->ctx, ring, sizeof(ring));
		fputs(k ? ",{\"ring\":" : "{\"ring\":", f);
		katra_json_string(f, ring, strlen(ring));
		fprintf(f, ",\"context\":%" PRIu64 ",\"gpu_ns\":%" PRIu64 ",\"jobs\":%" PRIu64
			",\"fences\":%" PRIu64 "}", r->ctx, r->gpu_ns, r->jobs, r->fences);
	}
	fputc(']', f);
	(void)rp;
}
