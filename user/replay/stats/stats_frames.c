// SPDX-License-Identifier: GPL-2.0-only
/* stats --per-frame, the accumulation (perframe.h): the tracks' presents
 * from their Frame epochs, and per row the calls of each frame.  A row keeps
 * the frame it last saw open (calls mostly end in order); a call that ends
 * after a later frame of its row was opened becomes a cell of its own,
 * merged when the cells are sorted at the end. */
#include <stdlib.h>
#include <string.h>

#include "perframe.h"
#include "replay/names/frames.h"
#include "replay/util/gpukey.h"

struct kr_perframe *kr_pf_new(bool calls, bool syscalls)
{
	struct kr_perframe *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->calls = calls;
	pf->syscalls = syscalls;
	kr_xmap_init(&pf->rows, sizeof(struct kr_pf_key), sizeof(struct kr_pf_row),
		     KR_PF_MAX_ROWS);
	kr_xmap_init(&pf->trackless, 8, 8, KR_PF_MAX_PIDS);
	kr_xmap_init(&pf->fences, 8, sizeof(struct kr_pf_fence), KR_PF_MAX_FENCES);
	kr_xmap_init(&pf->inits, 8, 8, KR_PF_MAX_FENCES);
	return pf;
}

void kr_pf_free(struct kr_perframe *pf)
{
	if (!pf)
		return;
	for (unsigned i = 0; i < pf->ntracks; i++) {
		free(pf->tracks[i].seq);
		free(pf->tracks[i].ts);
		free(pf->tracks[i].number);
		free(pf->tracks[i].flip);
	}
	kr_xmap_free(&pf->rows);
	kr_xmap_free(&pf->trackless);
	kr_xmap_free(&pf->fences);
	kr_xmap_free(&pf->inits);
	free(pf->cells);
	free(pf->row_first);
	free(pf);
}

static struct kr_pf_track *track_of(struct kr_perframe *pf, const struct kr_frame *f)
{
	struct kr_pf_track *t;

	for (unsigned i = 0; i < pf->ntracks; i++)
		if (pf->tracks[i].pid == f->pid && pf->tracks[i].swapchain == f->swapchain)
			return &pf->tracks[i];
	if (pf->ntracks == KR_PF_MAX_TRACKS)
		return NULL;
	t = &pf->tracks[pf->ntracks++];
	t->pid = f->pid;
	t->swapchain = f->swapchain;
	return t;
}

static bool grow(uint64_t **p, size_t cap)
{
	uint64_t *n = realloc(*p, cap * sizeof(**p));

	if (!n)
		return false;
	*p = n;
	return true;
}

void kr_pf_epoch(struct kr_perframe *pf, const struct katra_epoch_marker *m)
{
	struct kr_pf_track *t;
	struct kr_frame f;

	if (m->kind != KATRA_EPOCH_FRAME)
		return;
	if (!kr_frame_parse(m, &f)) {
		pf->unreadable++;
		return;
	}
	t = track_of(pf, &f);
	if (!t) {
		pf->track_overflow++;
		return;
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		if (!grow(&t->seq, nc) || !grow(&t->ts, nc) || !grow(&t->number, nc)) {
			pf->oom = true;
			return;
		}
		t->cap = nc;
	}
	t->seq[t->n] = m->seq;
	t->ts[t->n] = m->ts_mono_ns;
	t->number[t->n] = f.number;
	t->n++;
}

static void push_cell(struct kr_perframe *pf, uint64_t row, uint64_t frame, uint64_t count,
		      uint64_t ns)
{
	if (pf->ncells == pf->cap) {
		size_t nc = pf->cap ? pf->cap * 2 : 4096;
		struct kr_pf_cell *c;

		if (pf->cap >= KR_PF_MAX_CELLS) {
			pf->cell_overflow += count;
			return;
		}
		c = realloc(pf->cells, nc * sizeof(*c));
		if (!c) {
			pf->oom = true;
			return;
		}
		pf->cells = c;
		pf->cap = nc;
	}
	pf->cells[pf->ncells++] = (struct kr_pf_cell){ (uint32_t)row, (uint32_t)frame, count, ns };
}

/* The frame of track t whose window holds a Begin at seq: the index of the
 * last present before it; false before the first. */
static bool frame_at(const struct kr_pf_track *t, uint64_t seq, uint64_t *frame)
{
	size_t lo = 0, hi = t->n;

	if (!t->n || seq < t->seq[0])
		return false;
	if (seq > t->seq[t->n - 1]) {
		*frame = t->n - 1;
		return true;
	}
	while (hi - lo > 1) { /* seq[lo] < seq <= seq[hi] */
		size_t mid = lo + (hi - lo) / 2;
		if (t->seq[mid] < seq)
			lo = mid;
		else
			hi = mid;
	}
	*frame = lo;
	return true;
}

static void add_to(struct kr_perframe *pf, unsigned ti, unsigned cls, uint64_t what,
		   uint64_t frame, uint64_t dur)
{
	struct kr_pf_key k = { ti, cls, what };
	bool created;
	struct kr_pf_row *r = kr_xmap_get(&pf->rows, &k, &created);

	if (!r) {
		pf->row_overflow++;
		return;
	}
	if (created) {
		r->id = pf->nrows++;
		r->cur_frame = frame;
	}
	if (frame == r->cur_frame) {
		r->cur_count++;
		r->cur_ns += dur;
	} else if (frame > r->cur_frame) {
		if (r->cur_count)
			push_cell(pf, r->id, r->cur_frame, r->cur_count, r->cur_ns);
		r->cur_frame = frame;
		r->cur_count = 1;
		r->cur_ns = dur;
	} else {
		push_cell(pf, r->id, frame, 1, dur); /* it began frames ago */
	}
}

void kr_pf_add(struct kr_perframe *pf, uint64_t pid, uint64_t begin_seq, unsigned cls,
	       uint64_t what, uint64_t dur)
{
	bool tracked = false, created;
	uint64_t frame, *n;

	if (cls != KR_PF_GPU && !(cls == KR_PF_CALL ? pf->calls : pf->syscalls))
		return;
	for (unsigned i = 0; i < pf->ntracks; i++) {
		struct kr_pf_track *t = &pf->tracks[i];

		if (t->pid != pid)
			continue;
		tracked = true;
		if (frame_at(t, begin_seq, &frame))
			add_to(pf, i, cls, what, frame, dur);
		else
			t->before++;
	}
	if (tracked)
		return;
	/* its process may present later: then the call was before its first present */
	n = kr_xmap_get(&pf->trackless, &pid, &created);
	if (n)
		(*n)++;
	else
		pf->no_frames++; /* beyond the pid table: said as without frames */
}

static int by_row_frame(const void *a, const void *b)
{
	const struct kr_pf_cell *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int cmp_flip(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void kr_pf_finish(struct kr_perframe *pf)
{
	struct kr_pf_row *r;
	const uint64_t *n;
	size_t it = 0, out = 0;

	for (unsigned i = 0; i < pf->ntracks; i++)
		if (pf->tracks[i].nflip)
			qsort(pf->tracks[i].flip, pf->tracks[i].nflip, sizeof(uint64_t), cmp_flip);
	while ((r = kr_xmap_next(&pf->rows, &it)))
		if (r->cur_count)
			push_cell(pf, r->id, r->cur_frame, r->cur_count, r->cur_ns);
	if (pf->ncells)
		qsort(pf->cells, pf->ncells, sizeof(*pf->cells), by_row_frame);
	for (size_t i = 0; i < pf->ncells; i++) {
		if (out && pf->cells[out - 1].row == pf->cells[i].row &&
		    pf->cells[out - 1].frame == pf->cells[i].frame) {
			pf->cells[out - 1].count += pf->cells[i].count;
			pf->cells[out - 1].ns += pf->cells[i].ns;
		} else {
			pf->cells[out++] = pf->cells[i];
		}
	}
	pf->ncells = out;
	pf->row_first = calloc(pf->nrows + 1, sizeof(*pf->row_first));
	if (!pf->row_first) {
		pf->oom = true;
		return;
	}
	/* row_first[id] .. row_first[id + 1]: the row's cells */
	for (size_t i = 0; i < pf->ncells; i++)
		pf->row_first[pf->cells[i].row + 1]++;
	for (uint64_t id = 0; id < pf->nrows; id++)
		pf->row_first[id + 1] += pf->row_first[id];
	/* the frame after a track's last present never ended */
	it = 0;
	while ((r = kr_xmap_next(&pf->rows, &it))) {
		const struct kr_pf_key *k = kr_xmap_key(&pf->rows, r);
		struct kr_pf_track *t = &pf->tracks[k->track];

		for (size_t i = pf->row_first[r->id]; i < pf->row_first[r->id + 1]; i++)
			if (pf->cells[i].frame >= kr_pf_frames(t))
				t->after += pf->cells[i].count;
	}
	it = 0;
	while ((n = kr_xmap_next(&pf->trackless, &it))) {
		uint64_t pid = *(const uint64_t *)kr_xmap_key(&pf->trackless, n);
		bool tracked = false;

		for (unsigned i = 0; i < pf->ntracks; i++)
			if (pf->tracks[i].pid == pid) {
				pf->tracks[i].before += *n;
				tracked = true;
			}
		if (!tracked)
			pf->no_frames += *n;
	}
}

/* The index of track t's first present after seq (t->n: none yet). */
static size_t present_after(const struct kr_pf_track *t, uint64_t seq)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->seq[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void kr_pf_gpu(struct kr_perframe *pf, const struct katra_event *e)
{
	const uint64_t what = (uint64_t)e->kind << 32;
	struct kr_pf_fence *f;
	bool created;

	if (e->kind == KATRA_KIND_GPU_VBLANK_DELIVERED) {
		uint64_t commit = UINT64_MAX;
		kr_pf_add(pf, e->process_id, e->seq, KR_PF_GPU, what, 0);
		pf->gpu_events++;
		/* an atomic commit's flip: caused by its out-fence's init */
		for (uint64_t k = 0; k < e->causes.len && commit == UINT64_MAX; k++)
			if (kr_xmap_find(&pf->inits, &e->causes.items[k]))
				commit = e->causes.items[k];
		for (unsigned i = 0; i < pf->ntracks; i++) {
			struct kr_pf_track *t = &pf->tracks[i];
			size_t p = t->n;
			if (t->pid != e->process_id)
				continue;
			if (commit != UINT64_MAX) /* the present that ends the commit's frame */
				p = present_after(t, commit);
			else if (t->n > t->flipped)
				p = t->n - 1;
			if (p < t->n && p + 1 == t->flipped && t->nflip && commit != UINT64_MAX &&
			    t->flip_commit && commit > t->flip_commit) {
				/* a later commit of the same frame: its flip is the frame's */
				t->flip[t->nflip - 1] = e->ts_mono_ns > t->ts[p] ?
								e->ts_mono_ns - t->ts[p] : 0;
				t->flip_commit = commit;
				continue;
			}
			if (p >= t->n || p < t->flipped)
				continue; /* not presented yet, or matched already */
			t->flipped = p + 1;
			t->flip_commit = commit != UINT64_MAX ? commit : 0;
			if (t->nflip == t->flip_cap) {
				size_t nc = t->flip_cap ? t->flip_cap * 2 : 256;
				if (!grow(&t->flip, nc)) {
					pf->oom = true;
					return;
				}
				t->flip_cap = nc;
			}
			uint64_t at = t->ts[p];
			t->flip[t->nflip++] = e->ts_mono_ns > at ? e->ts_mono_ns - at : 0;
		}
		return;
	}
	if (e->payload.type != KATRA_PAYLOAD_GPU_FENCE)
		return;
	uint64_t key = kr_gpu_fence_key(e);
	switch (e->kind) {
	case KATRA_KIND_GPU_FENCE_INIT:
		f = kr_xmap_get(&pf->fences, &key, &created);
		if (f) {
			uint64_t *in = created ? NULL : kr_xmap_find(&pf->inits, &f->init_seq);
			if (in) /* the same fence made again: the new init only */
				kr_xmap_remove(&pf->inits, in);
			in = kr_xmap_get(&pf->inits, &e->seq, &created);
			*f = (struct kr_pf_fence){ e->seq, e->ts_mono_ns, 0 };
			if (in)
				*in = key;
		}
		return;
	case KATRA_KIND_GPU_JOB_RUN:
		if ((f = kr_xmap_find(&pf->fences, &key)))
			f->run_ts = e->ts_mono_ns;
		return;
	case KATRA_KIND_GPU_JOB_DONE:
		if (!(f = kr_xmap_find(&pf->fences, &key)) || !f->run_ts)
			return;
		kr_pf_add(pf, e->process_id, f->init_seq, KR_PF_GPU, what,
			  e->ts_mono_ns > f->run_ts ? e->ts_mono_ns - f->run_ts : 0);
		pf->gpu_events++;
		return;
	case KATRA_KIND_GPU_FENCE_SIGNALED:
	case KATRA_KIND_GPU_FENCE_DESTROY:
		if (!(f = kr_xmap_find(&pf->fences, &key)))
			return;
		if (e->kind == KATRA_KIND_GPU_FENCE_SIGNALED) {
			kr_pf_add(pf, e->process_id, f->init_seq, KR_PF_GPU, what,
				  e->ts_mono_ns > f->init_ts ? e->ts_mono_ns - f->init_ts : 0);
			pf->gpu_events++;
		}
		uint64_t *in = kr_xmap_find(&pf->inits, &f->init_seq);
		if (in)
			kr_xmap_remove(&pf->inits, in);
		kr_xmap_remove(&pf->fences, f);
		return;
	default:
		return;
	}
}
