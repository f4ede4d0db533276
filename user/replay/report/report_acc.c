// SPDX-License-Identifier: GPL-2.0-only
/* A window's sums (one epoch, or the whole capture): per-thread time, the
 * off-CPU reason rows, the files and futexes waited on; and turning them
 * into a finished, sorted, bounded kr_window. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "replay/names/resnames.h"

int kr_acc_init(struct kr_acc *a, uint64_t start_ns)
{
	memset(a, 0, sizeof(*a));
	a->start_ns = start_ns;
	kr_idmap_init(&a->reason_map, KR_REPORT_MAX_ROWS);
	kr_idmap_init(&a->res_map, KR_REPORT_MAX_ROWS);
	return 0;
}

void kr_acc_free(struct kr_acc *a)
{
	free(a->t);
	free(a->reasons);
	free(a->res);
	kr_idmap_free(&a->reason_map);
	kr_idmap_free(&a->res_map);
	memset(a, 0, sizeof(*a));
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, (size_t)ncap * elem);
	if (!np)
		return -ENOMEM;
	memset((char *)np + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
	*p = np;
	*cap = ncap;
	return 0;
}

struct kr_tsum *kr_acc_tsum(struct kr_acc *a, const struct kr_report *rp, uint32_t thread)
{
	struct kr_tsum *t;

	if (grow((void **)&a->t, &a->t_cap, thread + 1, sizeof(*a->t)))
		return NULL;
	if (a->t_len < thread + 1)
		a->t_len = thread + 1;
	t = &a->t[thread];
	t->tid = rp->threads[thread].tid;
	t->pid = rp->threads[thread].pid;
	t->touched = true;
	return t;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static struct kr_reason *reason_row(struct kr_acc *a, uint32_t thread, uint8_t cls,
				    uint16_t kind, uint16_t nt, uint8_t dom, uint64_t res,
				    uint64_t res_pid, uint64_t waker)
{
	uint64_t key = mix(mix(mix(mix(mix(mix(cls, kind), nt), dom), res), res_pid), waker);
	struct kr_idmap_slot *s;
	struct kr_reason *r;
	bool created;

	s = kr_idmap_get(&a->reason_map, thread, key, &created);
	if (!s)
		return NULL;
	if (!created)
		return &a->reasons[s->v1];
	if (grow((void **)&a->reasons, &a->reasons_cap, a->nreasons + 1, sizeof(*a->reasons))) {
		kr_idmap_remove(&a->reason_map, s);
		return NULL;
	}
	s->v1 = a->nreasons;
	r = &a->reasons[a->nreasons++];
	r->thread = thread;
	r->cls = cls;
	r->kind = kind;
	r->nt = nt;
	r->res_domain = dom;
	r->res_id = res;
	r->res_pid = res_pid;
	r->waker = waker;
	return r;
}

static struct kr_resource *resource_row(struct kr_acc *a, uint8_t dom, uint64_t id,
					uint64_t pid)
{
	struct kr_idmap_slot *s;
	struct kr_resource *r;
	bool created;

	s = kr_idmap_get(&a->res_map, dom | (pid << 8), id, &created);
	if (!s)
		return NULL;
	if (!created)
		return &a->res[s->v1];
	if (grow((void **)&a->res, &a->res_cap, a->nres + 1, sizeof(*a->res))) {
		kr_idmap_remove(&a->res_map, s);
		return NULL;
	}
	s->v1 = a->nres;
	r = &a->res[a->nres++];
	r->domain = dom;
	r->id = id;
	r->pid = pid;
	return r;
}

static void add_waiter(struct kr_resource *r, uint64_t tid, uint64_t ns)
{
	for (int i = 0; i < KR_RES_WAITERS; i++) {
		if (r->waiter_ns[i] && r->waiter_tid[i] != tid)
			continue;
		r->waiter_tid[i] = tid;
		r->waiter_ns[i] += ns;
		return;
	}
	r->other_waiters_ns += ns;
}

int kr_acc_unknown(struct kr_acc *a, const struct kr_report *rp, uint32_t thread,
		   uint64_t from, uint64_t to)
{
	struct kr_tsum *t;

	if (from < a->start_ns)
		from = a->start_ns;
	if (to <= from)
		return 0;
	t = kr_acc_tsum(a, rp, thread);
	if (!t)
		return -ENOMEM;
	t->unknown_ns += to - from;
	return 0;
}

int kr_acc_off(struct kr_acc *a, const struct kr_report *rp, uint32_t thread, uint8_t cls,
	       uint16_t kind, uint16_t nt, uint8_t dom, uint64_t res, uint64_t res_pid,
	       uint64_t waker, uint64_t from, uint64_t to, uint64_t runq_ns)
{
	struct kr_tsum *t;
	struct kr_reason *r;
	uint64_t ns;

	if (from < a->start_ns)
		from = a->start_ns;
	if (to <= from)
		return 0;
	ns = to - from;
	if (runq_ns > ns)
		runq_ns = ns;
	t = kr_acc_tsum(a, rp, thread);
	if (!t)
		return -ENOMEM;
	t->off_cpu_ns += ns;
	t->class_ns[cls] += ns;
	t->runq_ns += runq_ns;
	r = reason_row(a, thread, cls, kind, nt, dom, res, res_pid, waker);
	if (r) {
		r->ns += ns;
		r->count++;
		r->runq_ns += runq_ns;
		if (ns > r->max_ns)
			r->max_ns = ns;
	} else {
		a->dropped_ns += ns;
		a->rows_dropped++;
	}
	if (cls != KR_OFF_SYSCALL || (!kr_res_is_open_file(dom) && dom != KATRA_RES_FUTEX))
		return 0;
	struct kr_resource *x = resource_row(a, dom, res, dom == KATRA_RES_FUTEX ? res_pid : 0);
	if (!x) {
		a->rows_dropped++;
		return 0;
	}
	x->wait_ns += ns;
	x->waits++;
	if (ns > x->max_ns)
		x->max_ns = ns;
	add_waiter(x, t->tid, ns);
	return 0;
}

/* ---- finishing a window ---- */

static int by_on_cpu(const void *pa, const void *pb)
{
	const struct kr_tsum *a = pa, *b = pb;

	if (a->on_cpu_ns != b->on_cpu_ns)
		return a->on_cpu_ns > b->on_cpu_ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static const uint32_t *rank_of; /* qsort has no context argument */

static int by_rank_then_ns(const void *pa, const void *pb)
{
	const struct kr_reason *a = pa, *b = pb;
	uint32_t ra = rank_of[a->thread], rb = rank_of[b->thread];

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->count > b->count ? -1 : a->count < b->count;
}

static int by_wait(const void *pa, const void *pb)
{
	const struct kr_resource *a = pa, *b = pb;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static int finish_threads(struct kr_acc *a, const struct kr_report *rp, uint64_t end_ns,
			  struct kr_window *w, uint32_t **rank_out)
{
	uint32_t n = 0;
	uint32_t *rank;

	w->threads = calloc(rp->nthreads ? rp->nthreads : 1, sizeof(*w->threads));
	rank = malloc((rp->nthreads ? rp->nthreads : 1) * sizeof(*rank));
	if (!w->threads || !rank) {
		free(rank);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < rp->nthreads; i++) {
		const struct kr_thread *th = &rp->threads[i];
		struct kr_tsum t = { 0 };

		rank[i] = UINT32_MAX;
		if (i < a->t_len && a->t[i].touched)
			t = a->t[i];
		if (!th->seen && !t.touched)
			continue;
		uint64_t death = th->exited && th->exit_ns < end_ns ? th->exit_ns : end_ns;
		t.tid = th->tid;
		t.pid = th->pid;
		t.alive_ns = th->seen ? overlap(th->born_ns, death, a->start_ns, end_ns) : 0;
		if (!t.alive_ns && !t.touched)
			continue;
		if (t.alive_ns < t.off_cpu_ns + t.unknown_ns)
			t.alive_ns = t.off_cpu_ns + t.unknown_ns; /* off since before its known birth */
		t.on_cpu_ns = t.alive_ns - t.off_cpu_ns - t.unknown_ns;
		w->on_cpu_total_ns += t.on_cpu_ns;
		w->unknown_total_ns += t.unknown_ns;
		t.reason_first = i; /* the thread index, until the sort below */
		w->threads[n++] = t;
	}
	qsort(w->threads, n, sizeof(*w->threads), by_on_cpu);
	w->threads_total = n;
	w->nthreads = n < KR_WINDOW_THREADS ? n : KR_WINDOW_THREADS;
	for (uint32_t k = 0; k < w->nthreads; k++) {
		rank[w->threads[k].reason_first] = k;
		w->threads[k].reason_first = 0;
		w->threads[k].reason_n = 0;
	}
	*rank_out = rank;
	return 0;
}

static int finish_reasons(struct kr_acc *a, struct kr_window *w, const uint32_t *rank)
{
	uint32_t n = 0, out = 0;

	w->reasons = malloc((a->nreasons ? a->nreasons : 1) * sizeof(*w->reasons));
	if (!w->reasons)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->nreasons; i++)
		if (rank[a->reasons[i].thread] != UINT32_MAX)
			w->reasons[n++] = a->reasons[i];
	rank_of = rank;
	qsort(w->reasons, n, sizeof(*w->reasons), by_rank_then_ns);
	for (uint32_t i = 0; i < n; i++) {
		struct kr_tsum *t = &w->threads[rank[w->reasons[i].thread]];

		if (!t->reason_n)
			t->reason_first = out;
		if (t->reason_n >= KR_WINDOW_REASONS)
			continue;
		w->reasons[out] = w->reasons[i];
		w->reasons[out].tid = t->tid;
		out++;
		t->reason_n++;
	}
	w->nreasons = out;
	return 0;
}

static int finish_resources(struct kr_acc *a, struct kr_window *w)
{
	size_t cap = a->nres ? a->nres : 1;

	w->files = malloc(cap * sizeof(*w->files));
	w->futexes = malloc(cap * sizeof(*w->futexes));
	if (!w->files || !w->futexes)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->nres; i++) {
		if (a->res[i].domain == KATRA_RES_FUTEX)
			w->futexes[w->futexes_total++] = a->res[i];
		else
			w->files[w->files_total++] = a->res[i];
	}
	qsort(w->files, w->files_total, sizeof(*w->files), by_wait);
	qsort(w->futexes, w->futexes_total, sizeof(*w->futexes), by_wait);
	w->nfiles = w->files_total < KR_WINDOW_RESOURCES ? w->files_total : KR_WINDOW_RESOURCES;
	w->nfutexes = w->futexes_total < KR_WINDOW_RESOURCES ? w->futexes_total
							       : KR_WINDOW_RESOURCES;
	return 0;
}

int kr_acc_finish(struct kr_acc *a, const struct kr_report *rp, uint64_t end_ns,
		  struct kr_window *w)
{
	uint32_t *rank = NULL;
	int rc;

	w->start_ns = a->start_ns;
	w->end_ns = end_ns > a->start_ns ? end_ns : a->start_ns;
	w->events = a->events;
	w->reasons_dropped_ns = a->dropped_ns;
	w->path = calloc(1, sizeof(*w->path));
	if (!w->path)
		return -ENOMEM;
	rc = finish_threads(a, rp, w->end_ns, w, &rank);
	if (!rc)
		rc = finish_reasons(a, w, rank);
	if (!rc)
		rc = finish_resources(a, w);
	free(rank);
	return rc;
}

void kr_window_release(struct kr_window *w)
{
	free(w->threads);
	free(w->reasons);
	free(w->files);
	free(w->futexes);
	free(w->path);
	memset(w, 0, sizeof(*w));
}
