// SPDX-License-Identifier: GPL-2.0-only
/* Every frame's sides (frame_sides.h): while the records are fed, per
 * frame of the track its window, its threads' on-CPU time, its critical
 * path's running and the path's hops that can be GPU waits (a few per
 * frame); once every fence's signal is known, kr_fgpu_frame_hops per frame
 * (its GPU time per ring too). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "frame_sides.h"
#include "report_frames_gpu.h"

struct fs_frame {
	uint64_t number, start_ns, end_ns, cpu_ns, run_ns;
	size_t hop_first, nhops; /* into kr_fsides.hops */
	size_t ring_first;       /* into kr_fsides.rings, by kr_fsides_finish */
};

struct kr_fsides {
	struct kr_fsides_opts o;
	struct kr_report *rp;
	struct kr_fgpu *gpu;
	struct kr_ftrack track;
	const struct katra_epoch_marker *closing; /* the track's marker being fed */
	struct kr_frame closing_f;
	struct fs_frame *fr;
	size_t nfr, fr_cap;
	struct kr_hop *hops;
	size_t nhops, hops_cap;
	struct kr_fside *out; /* after kr_fsides_finish */
	struct kr_fgpu_ring *rings; /* the frames' rings, each frame's in a row */
	size_t nrings, rings_cap;
	int error;
};

int kr_ftrack_see(struct kr_ftrack *t, struct kr_report *rp, const struct katra_epoch_marker *m,
		  struct kr_frame *f)
{
	if (m->kind != KATRA_EPOCH_FRAME)
		return -1;
	if (!kr_frame_parse(m, f))
		return -2;
	if (!t->have && (!t->want_pid || f->pid == t->want_pid)) {
		t->have = true;
		t->f = *f;
		kr_report_set_path_pid(rp, f->pid);
	}
	return t->have && f->pid == t->f.pid && f->swapchain == t->f.swapchain;
}

static bool keep_mark(void *ctx, const struct katra_epoch_marker *m)
{
	struct kr_fsides *s = ctx;

	if (kr_ftrack_see(&s->track, s->rp, m, &s->closing_f) != 1)
		return false;
	s->closing = m;
	return true;
}

static void on_hop(void *ctx, const struct kr_hop *h)
{
	struct kr_fsides *s = ctx;

	if (s->o.on_hop)
		s->o.on_hop(s->o.ctx, h);
}

static void on_event(void *ctx, const struct katra_event *e)
{
	kr_fgpu_event(((struct kr_fsides *)ctx)->gpu, e);
}

static bool grow(void **v, size_t *cap, size_t need, size_t sz)
{
	size_t nc = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return true;
	while (nc < need)
		nc *= 2;
	if (!(p = realloc(*v, nc * sz)))
		return false;
	*v = p;
	*cap = nc;
	return true;
}

static void on_window(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	struct kr_fsides *s = ctx;
	const struct kr_path *p = w->path && w->path->present ? w->path : NULL;
	bool frame = w->is_epoch && s->closing;
	struct fs_frame *fr;

	if (frame && !s->error) {
		size_t kept = 0;
		if (p)
			for (uint32_t k = 0; k < p->nhops; k++)
				kept += kr_fgpu_hop_kept(&p->hops[k]);
		if (!grow((void **)&s->fr, &s->fr_cap, s->nfr + 1, sizeof(*s->fr)) ||
		    !grow((void **)&s->hops, &s->hops_cap, s->nhops + kept, sizeof(*s->hops))) {
			s->error = -ENOMEM;
		} else {
			fr = &s->fr[s->nfr++];
			*fr = (struct fs_frame){ s->closing_f.number, w->start_ns, w->end_ns, 0,
						 p ? p->by_type_ns[KR_HOP_RUN] : 0, s->nhops, 0, 0 };
			for (uint32_t k = 0; k < w->nthreads; k++)
				if (w->threads[k].pid == s->track.f.pid)
					fr->cpu_ns += w->threads[k].on_cpu_ns;
			for (uint32_t k = 0; p && k < p->nhops; k++)
				if (kr_fgpu_hop_kept(&p->hops[k]))
					s->hops[s->nhops++] = p->hops[k];
			fr->nhops = s->nhops - fr->hop_first;
			kr_fgpu_present(s->gpu, w->end_ns);
		}
	}
	if (s->o.on_window)
		s->o.on_window(s->o.ctx, rp, w, frame ? &s->closing_f : NULL);
}

int kr_fsides_new(struct kr_fsides **out, const struct katra_header *h,
		  const struct kr_fsides_opts *o)
{
	struct kr_report_opts mo = { 0 };
	struct kr_fsides *s = calloc(1, sizeof(*s));
	int rc;

	*out = s;
	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->track.want_pid = o->pid;
	mo.on_window = on_window;
	mo.mark_filter = keep_mark;
	mo.on_hop = on_hop;
	mo.on_event = on_event;
	mo.ctx = s;
	rc = kr_fgpu_new(&s->gpu);
	if (!rc)
		rc = kr_report_new(&s->rp, h, &mo);
	return rc;
}

void kr_fsides_free(struct kr_fsides *s)
{
	if (!s)
		return;
	kr_report_free(s->rp);
	kr_fgpu_free(s->gpu);
	free(s->fr);
	free(s->hops);
	free(s->out);
	free(s->rings);
	free(s);
}

int kr_fsides_add(struct kr_fsides *s, const struct katra_record *rec)
{
	int rc = kr_report_add(s->rp, rec);

	s->closing = NULL; /* known while its record is fed only */
	return rc ? rc : s->error;
}

int kr_fsides_finish(struct kr_fsides *s)
{
	int rc = kr_report_finish(s->rp);

	if (rc || s->error)
		return rc ? rc : s->error;
	kr_fgpu_done(s->gpu);
	if (s->nfr && !(s->out = calloc(s->nfr, sizeof(*s->out))))
		return -ENOMEM;
	for (size_t i = 0; i < s->nfr && !rc; i++) {
		struct fs_frame *f = &s->fr[i];
		struct kr_fside *o = &s->out[i];
		struct kr_fgpu_frame g;

		o->number = f->number;
		o->start_ns = f->start_ns;
		o->end_ns = f->end_ns;
		rc = kr_fgpu_frame_hops(s->gpu, s->track.f.pid, f->start_ns, f->end_ns, f->run_ns,
					s->hops + f->hop_first, f->nhops, &g);
		o->cpu_ns = f->cpu_ns;
		o->gpu_ns = g.gpu_ns;
		o->fences = g.fences;
		o->to_flip_ns = g.to_flip_ns;
		o->bound = g.verdict;
		o->nrings = g.nrings;
		if (!rc && !grow((void **)&s->rings, &s->rings_cap, s->nrings + g.nrings,
				 sizeof(*s->rings)))
			rc = -ENOMEM;
		if (!rc && g.nrings) {
			f->ring_first = s->nrings; /* the pool may move while it grows */
			memcpy(s->rings + s->nrings, g.rings, g.nrings * sizeof(*g.rings));
			s->nrings += g.nrings;
		}
	}
	for (size_t i = 0; i < s->nfr && !rc; i++)
		if (s->out[i].nrings)
			s->out[i].rings = s->rings + s->fr[i].ring_first;
	return rc;
}

const struct kr_frame *kr_fsides_track(const struct kr_fsides *s)
{
	return s && s->track.have ? &s->track.f : NULL;
}

const struct kr_fside *kr_fsides_frames(const struct kr_fsides *s, size_t *n)
{
	*n = s && s->out ? s->nfr : 0;
	return *n ? s->out : NULL;
}

const struct kr_fside *kr_fsides_find(const struct kr_fsides *s, uint64_t pid,
				      uint64_t swapchain, uint64_t number)
{
	size_t n, lo = 0, hi;
	const struct kr_fside *f = kr_fsides_frames(s, &n);

	if (!n || pid != s->track.f.pid || swapchain != s->track.f.swapchain)
		return NULL;
	/* numbered in order (the recorder counts the presents) */
	for (hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (f[mid].number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && f[lo].number == number ? &f[lo] : NULL;
}

void kr_fsides_ring_name(const struct kr_fsides *s, uint64_t ctx, char *buf, size_t cap)
{
	kr_fgpu_ring_name(s->gpu, ctx, buf, cap);
}
