// SPDX-License-Identifier: GPL-2.0-only
/* stats --gpu: the GPU layer's dma_fences per fence timeline (context),
 * named by their GpuTimeline events: fences made, signalled, their time in
 * flight (GpuFenceInit to GpuFenceSignaled: p50, p99, max), the timeline's
 * busy time (some fence of it in flight), the waits on it; a GPU
 * scheduler's ring (its jobs' finished fences' timeline): its jobs' time on
 * the ring (GpuJobRun to GpuJobDone: busy, p50, p99, max); then per process
 * its fences and its share of all fence time; a GPU driver's fenced
 * commands (GpuCmdQueue to its GpuCmdResponse, by the fence's timeline) and
 * the count of its commands without a fence.  The rest of the machine's
 * GPU work, counted per context in the kernel and written as Counters at
 * the capture's end (GpuOther*: other processes' fences, their time, jobs;
 * GpuTimelineBusyNs, GpuRingBusyNs: the union over all the context's work),
 * goes beside the traced processes' per timeline and ring, and as one
 * "other processes" row in the shares.  Bounded like every view: what does
 * not fit is counted. */
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "katra/plural.h"
#include "views.h"
#include "replay/util/gpukey.h"

#define KR_MAX_GPU_TIMELINES 4096
#define KR_MAX_GPU_FENCES (1u << 16)
#define KR_MAX_GPU_PROCS 4096
/* the GPU layer's Counter kinds, from GpuOtherFences on */
#define KR_GPU_COUNTERS (KATRA_COUNTER_GPU_RING_BUSY_NS - KATRA_COUNTER_GPU_OTHER_FENCES + 1)
#define OC(k) (KATRA_COUNTER_##k - KATRA_COUNTER_GPU_OTHER_FENCES)

struct kr_gpu_tl {
	char driver[32], timeline[32];
	uint64_t fences, signaled, destroyed, busy_ns, cover_end, waits, wait_ns;
	struct kr_histo dur;
	uint64_t jobs, ring_busy_ns, ring_cover_end;
	struct kr_histo ring; /* run to done */
	uint64_t cmds, responses;
	struct kr_histo cmd;  /* a fenced command queued to its response */
	uint64_t oc[KR_GPU_COUNTERS]; /* the context's GPU Counters in the window */
	uint64_t ob[KR_GPU_COUNTERS]; /* their last values before the window */
	uint32_t oin;                 /* kinds seen in the window (bits) */
};

struct kr_gpu_fence {
	uint64_t init_ts, pid, run_ts;
};

struct kr_gpu_proc {
	uint64_t fences, signaled, fence_ns;
};

struct kr_gpu {
	struct kr_xmap tls;    /* context -> struct kr_gpu_tl */
	struct kr_xmap fences; /* context << 32 | seqno -> struct kr_gpu_fence (in flight) */
	struct kr_xmap procs;  /* pid -> struct kr_gpu_proc */
	struct kr_xmap waits;  /* tid << 32 ^ span -> Begin ts */
	struct kr_xmap cmdq;   /* a fenced command's request_id -> its GpuCmdQueue ts */
	uint64_t overflow, total_ns, unfenced_cmds;
	bool counted; /* the trace has the GPU layer's Counters */
};

struct kr_gpu *kr_gpu_new(void)
{
	struct kr_gpu *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	kr_xmap_init(&g->tls, 8, sizeof(struct kr_gpu_tl), KR_MAX_GPU_TIMELINES);
	kr_xmap_init(&g->fences, 8, sizeof(struct kr_gpu_fence), KR_MAX_GPU_FENCES);
	kr_xmap_init(&g->procs, 8, sizeof(struct kr_gpu_proc), KR_MAX_GPU_PROCS);
	kr_xmap_init(&g->waits, 16, sizeof(uint64_t), KR_MAX_GPU_FENCES);
	kr_xmap_init(&g->cmdq, 8, sizeof(uint64_t), KR_MAX_GPU_FENCES);
	return g;
}

void kr_gpu_free(struct kr_gpu *g)
{
	if (!g)
		return;
	kr_xmap_free(&g->tls);
	kr_xmap_free(&g->fences);
	kr_xmap_free(&g->procs);
	kr_xmap_free(&g->waits);
	kr_xmap_free(&g->cmdq);
	free(g);
}

static void copy_name(char *dst, size_t cap, const struct katra_str *s)
{
	size_t n = s->len < cap - 1 ? s->len : cap - 1;

	memcpy(dst, s->ptr, n);
	dst[n] = 0;
}

/* Adds [start, end] to a union of intervals taken in the order they end
 * (exact when they also start in order: a ring's fences and jobs). */
static void cover(uint64_t *busy, uint64_t *cover_end, uint64_t start, uint64_t end)
{
	if (start < *cover_end)
		start = *cover_end;
	if (end > start)
		*busy += end - start;
	if (end > *cover_end)
		*cover_end = end;
}

/* A driver's command (GpuCmdQueue) or its device's response: a fenced one
 * on its fence's timeline (its resource), queued to response. */
static void add_cmd(struct kr_gpu *g, const struct katra_event *e)
{
	uint64_t ctx = e->resource.id, rid = e->request_id.value, *q;
	bool created;

	if (e->resource.domain != KATRA_RES_GPU_TIMELINE || !e->request_id.present) {
		g->unfenced_cmds += e->kind == KATRA_KIND_GPU_CMD_QUEUE;
		return;
	}
	struct kr_gpu_tl *t = kr_xmap_get(&g->tls, &ctx, &created);
	if (!t) {
		g->overflow++;
		return;
	}
	if (e->kind == KATRA_KIND_GPU_CMD_QUEUE) {
		t->cmds++;
		if ((q = kr_xmap_get(&g->cmdq, &rid, &created)))
			*q = e->ts_mono_ns;
		else
			g->overflow++;
	} else if (e->kind == KATRA_KIND_GPU_CMD_RESPONSE && (q = kr_xmap_find(&g->cmdq, &rid))) {
		t->responses++;
		kr_histo_add(&t->cmd, e->ts_mono_ns > *q ? e->ts_mono_ns - *q : 0);
		kr_xmap_remove(&g->cmdq, q);
	}
}

void kr_gpu_add(struct kr_gpu *g, const struct katra_event *e)
{
	bool created;

	if (e->payload.type == KATRA_PAYLOAD_GPU_TIMELINE) {
		uint64_t ctx = e->payload.u.gpu_timeline.context;
		struct kr_gpu_tl *t = kr_xmap_get(&g->tls, &ctx, &created);
		if (!t) {
			g->overflow++;
			return;
		}
		copy_name(t->driver, sizeof(t->driver), &e->payload.u.gpu_timeline.driver);
		copy_name(t->timeline, sizeof(t->timeline), &e->payload.u.gpu_timeline.timeline);
		return;
	}
	if (e->payload.type == KATRA_PAYLOAD_GPU_CMD) {
		add_cmd(g, e);
		return;
	}
	if (e->payload.type != KATRA_PAYLOAD_GPU_FENCE)
		return;
	uint64_t ctx = e->payload.u.gpu_fence.context;
	uint64_t key = kr_gpu_fence_key(e);
	struct kr_gpu_tl *t = kr_xmap_get(&g->tls, &ctx, &created);
	if (!t) {
		g->overflow++;
		return;
	}
	switch (e->kind) {
	case KATRA_KIND_GPU_FENCE_INIT: {
		struct kr_gpu_fence *f = kr_xmap_get(&g->fences, &key, &created);
		struct kr_gpu_proc *p = kr_xmap_get(&g->procs, &e->process_id, &created);
		t->fences++;
		if (p)
			p->fences++;
		if (!f) {
			g->overflow++;
			return;
		}
		f->init_ts = e->ts_mono_ns;
		f->pid = e->process_id;
		break;
	}
	case KATRA_KIND_GPU_FENCE_SIGNALED:
	case KATRA_KIND_GPU_FENCE_DESTROY: {
		struct kr_gpu_fence *f = kr_xmap_find(&g->fences, &key);
		if (!f)
			return; /* another process's fence, or made before the capture */
		uint64_t start = f->init_ts, end = e->ts_mono_ns, dur = end > start ? end - start : 0;
		struct kr_gpu_proc *p = kr_xmap_find(&g->procs, &f->pid);
		kr_xmap_remove(&g->fences, f);
		if (e->kind == KATRA_KIND_GPU_FENCE_DESTROY) {
			t->destroyed++;
			return;
		}
		t->signaled++;
		kr_histo_add(&t->dur, dur);
		g->total_ns += dur;
		if (p) {
			p->signaled++;
			p->fence_ns += dur;
		}
		/* busy: the union of the fences' flights */
		cover(&t->busy_ns, &t->cover_end, start, end);
		break;
	}
	case KATRA_KIND_GPU_JOB_RUN: {
		struct kr_gpu_fence *f = kr_xmap_find(&g->fences, &key);
		if (f)
			f->run_ts = e->ts_mono_ns;
		break;
	}
	case KATRA_KIND_GPU_JOB_DONE: {
		struct kr_gpu_fence *f = kr_xmap_find(&g->fences, &key);
		if (!f || !f->run_ts)
			return;
		uint64_t start = f->run_ts, end = e->ts_mono_ns;
		t->jobs++;
		kr_histo_add(&t->ring, end > start ? end - start : 0);
		/* the ring's busy time: the union of its jobs' runs (the jobs a
		 * ring runs at once counted once) */
		cover(&t->ring_busy_ns, &t->ring_cover_end, start, end);
		break;
	}
	case KATRA_KIND_GPU_FENCE_WAIT: {
		uint64_t wkey[2] = { e->thread_id, e->span_id.value };
		if (e->phase == KATRA_PHASE_BEGIN) {
			uint64_t *b = kr_xmap_get(&g->waits, wkey, &created);
			if (b)
				*b = e->ts_mono_ns;
			else
				g->overflow++;
		} else if (e->phase == KATRA_PHASE_END) {
			uint64_t *b = kr_xmap_find(&g->waits, wkey);
			if (!b)
				return;
			t->waits++;
			t->wait_ns += e->ts_mono_ns > *b ? e->ts_mono_ns - *b : 0;
			kr_xmap_remove(&g->waits, b);
		}
		break;
	}
	default:
		break;
	}
}

void kr_gpu_counter(struct kr_gpu *g, const struct katra_counter *c, bool in_window)
{
	uint32_t k = c->kind - KATRA_COUNTER_GPU_OTHER_FENCES;
	uint64_t ctx = c->instance;
	struct kr_gpu_tl *t;
	bool created;

	if (c->kind < KATRA_COUNTER_GPU_OTHER_FENCES || c->kind > KATRA_COUNTER_GPU_RING_BUSY_NS)
		return;
	t = kr_xmap_get(&g->tls, &ctx, &created);
	if (!t) {
		g->overflow++;
		return;
	}
	if (!in_window) {
		/* cumulative: the window's share is its last value less the
		 * last one before it (one after the window changes nothing) */
		if (!(t->oin & 1u << k))
			t->ob[k] = c->value;
		return;
	}
	g->counted = true;
	t->oin |= 1u << k;
	t->oc[k] = c->value > t->ob[k] ? c->value - t->ob[k] : 0;
}

/* The timeline's busy time over all its work: the kernel's union where the
 * trace has it, else the traced fences' and the others' added. */
static uint64_t tl_total(const struct kr_gpu_tl *t)
{
	return t->oc[OC(GPU_TIMELINE_BUSY_NS)] ? t->oc[OC(GPU_TIMELINE_BUSY_NS)]
					       : t->busy_ns + t->oc[OC(GPU_OTHER_BUSY_NS)];
}

static uint64_t ring_total(const struct kr_gpu_tl *t)
{
	return t->oc[OC(GPU_RING_BUSY_NS)] ? t->oc[OC(GPU_RING_BUSY_NS)]
					   : t->ring_busy_ns + t->oc[OC(GPU_OTHER_RING_BUSY_NS)];
}

/* Whether the timeline has events of the traced processes (not only
 * others' counts). */
static bool tl_traced(const struct kr_gpu_tl *t)
{
	return t->fences || t->signaled || t->destroyed || t->waits || t->jobs;
}

/* All timelines' others' counts, added (fences, fence_ns, busy_ns, jobs,
 * ring_busy_ns); the timelines with any. */
static unsigned others_sum(void **tl, size_t n, uint64_t sum[KR_GPU_COUNTERS])
{
	unsigned with = 0;

	memset(sum, 0, KR_GPU_COUNTERS * sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		const struct kr_gpu_tl *t = tl[i];
		bool any = false;
		for (unsigned k = 0; k < KR_GPU_COUNTERS; k++)
			sum[k] += t->oc[k];
		for (unsigned k = 0; k <= OC(GPU_OTHER_RING_BUSY_NS); k++)
			any |= t->oc[k] != 0;
		with += any;
	}
	return with;
}

static int by_busy(const void *a, const void *b)
{
	const struct kr_gpu_tl *x = *(void *const *)a, *y = *(void *const *)b;
	uint64_t xb = tl_total(x), yb = tl_total(y);

	if (xb != yb)
		return xb < yb ? 1 : -1;
	if (x->busy_ns != y->busy_ns)
		return x->busy_ns < y->busy_ns ? 1 : -1;
	return x->fences < y->fences ? 1 : x->fences > y->fences ? -1 : 0;
}

static int by_time(const void *a, const void *b)
{
	const struct kr_gpu_proc *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->fence_ns != y->fence_ns)
		return x->fence_ns < y->fence_ns ? 1 : -1;
	return x->fences < y->fences ? 1 : x->fences > y->fences ? -1 : 0;
}

static double usecs(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static const char *nm(const char *s)
{
	return s[0] ? s : "?";
}

static uint64_t tl_ctx(const struct kr_gpu *g, const struct kr_gpu_tl *t)
{
	return *(const uint64_t *)kr_xmap_key(&g->tls, t);
}

/* One table of text_beside: per timeline with any of the unit (fences, or
 * a ring's jobs), the traced processes' count and busy time beside the
 * others' and the total. */
static void beside_table(FILE *f, const struct kr_gpu *g, void **tl, size_t n, bool rings)
{
	const char *unit = rings ? "jobs" : "fences";

	fprintf(f, "%10s %-12s %-16s %7s %11s %7s %11s %11s\n", "context", "driver", "timeline",
		"traced", "traced busy", "others", "others busy", "total busy");
	fprintf(f, "%10s %-12s %-16s %7s %11s %7s %11s %11s\n", "", "", "", unit, "usecs", unit,
		"usecs", "usecs");
	for (size_t i = 0; i < n; i++) {
		const struct kr_gpu_tl *t = tl[i];
		uint64_t mine = rings ? t->jobs : t->signaled, busy = rings ? t->ring_busy_ns : t->busy_ns;
		uint64_t others = t->oc[rings ? OC(GPU_OTHER_JOBS) : OC(GPU_OTHER_FENCES)];
		uint64_t obusy = t->oc[rings ? OC(GPU_OTHER_RING_BUSY_NS) : OC(GPU_OTHER_BUSY_NS)];
		if (!(rings ? t->jobs : t->fences) && !others)
			continue;
		fprintf(f, "%10llu %-12s %-16s %7llu %11.1f %7llu %11.1f %11.1f\n",
			(unsigned long long)tl_ctx(g, t), nm(t->driver), nm(t->timeline),
			(unsigned long long)mine, usecs(busy), (unsigned long long)others,
			usecs(obusy), usecs(rings ? ring_total(t) : tl_total(t)));
	}
}

/* The traced processes' work per timeline (and per ring, where jobs ran)
 * beside the other processes', and the total. */
static void text_beside(FILE *f, const struct kr_gpu *g, void **tl, size_t n)
{
	bool jobs = false;

	for (size_t i = 0; i < n; i++) {
		const struct kr_gpu_tl *t = tl[i];
		jobs |= t->jobs || t->oc[OC(GPU_OTHER_JOBS)];
	}
	kr_s(f, "\nGPU timelines: traced processes beside the others (others counted in the "
		"kernel, not recorded)\n");
	beside_table(f, g, tl, n, false);
	if (!jobs)
		return;
	kr_s(f, "\nGPU scheduler rings: traced processes beside the others (jobs: run to done)\n");
	beside_table(f, g, tl, n, true);
}

void kr_gpu_text(FILE *f, const struct kr_views *v)
{
	const struct kr_gpu *g = v->gpu;
	size_t n = 0, np = 0, traced = 0;
	void **tl = g ? kr_xmap_sorted(&g->tls, &n, by_busy) : NULL;
	void **pr = g ? kr_xmap_sorted(&g->procs, &np, by_time) : NULL;
	uint64_t others[KR_GPU_COUNTERS] = { 0 };
	unsigned with_others = others_sum(tl, n, others);

	for (size_t i = 0; i < n; i++)
		traced += tl_traced(tl[i]);
	kr_s(f, "\nGPU fence timelines (dma_fence: made to signalled; p50/p99 within 1/32)\n");
	if (!traced) {
		kr_s(f, g && g->counted ? "(no GPU fences of the traced processes" : "(no GPU fences");
		kr_put_scope(f, v);
		kr_s(f, ")\n");
	} else {
		fprintf(f, "%10s %-12s %-16s %7s %7s %11s %10s %10s %10s %6s %10s\n", "context",
			"driver", "timeline", "fences", "signal", "busy usecs", "p50 usecs",
			"p99 usecs", "max usecs", "waits", "wait usecs");
		for (size_t i = 0; i < n; i++) {
			const struct kr_gpu_tl *t = tl[i];
			if (!tl_traced(t))
				continue;
			fprintf(f, "%10llu %-12s %-16s %7llu %7llu %11.1f %10.1f %10.1f %10.1f %6llu %10.1f\n",
				(unsigned long long)tl_ctx(g, t), nm(t->driver), nm(t->timeline),
				(unsigned long long)t->fences, (unsigned long long)t->signaled,
				usecs(t->busy_ns), usecs(kr_histo_percentile(&t->dur, 500)),
				usecs(kr_histo_percentile(&t->dur, 990)), usecs(t->dur.max),
				(unsigned long long)t->waits, usecs(t->wait_ns));
		}
	}
	bool jobs = false;
	for (size_t i = 0; i < n; i++)
		jobs |= ((const struct kr_gpu_tl *)tl[i])->jobs != 0;
	if (jobs) {
		kr_s(f, "\nGPU scheduler rings (jobs: run to done; p50/p99 within 1/32)\n");
		fprintf(f, "%10s %-12s %-16s %7s %11s %10s %10s %10s\n", "context", "driver",
			"timeline", "jobs", "busy usecs", "p50 usecs", "p99 usecs", "max usecs");
		for (size_t i = 0; i < n; i++) {
			const struct kr_gpu_tl *t = tl[i];
			if (!t->jobs)
				continue;
			fprintf(f, "%10llu %-12s %-16s %7llu %11.1f %10.1f %10.1f %10.1f\n",
				(unsigned long long)tl_ctx(g, t), nm(t->driver), nm(t->timeline),
				(unsigned long long)t->jobs, usecs(t->ring_busy_ns),
				usecs(kr_histo_percentile(&t->ring, 500)),
				usecs(kr_histo_percentile(&t->ring, 990)), usecs(t->ring.max));
		}
	}
	bool cmds = false;
	for (size_t i = 0; i < n; i++)
		cmds |= ((const struct kr_gpu_tl *)tl[i])->cmds != 0;
	if (cmds || (g && g->unfenced_cmds)) {
		kr_s(f, "\nGPU driver commands (fenced: queued to the device's response; p50/p99 "
			"within 1/32)\n");
		fprintf(f, "%10s %-12s %-16s %7s %9s %10s %10s %10s\n", "context", "driver",
			"timeline", "cmds", "responses", "p50 usecs", "p99 usecs", "max usecs");
		for (size_t i = 0; i < n; i++) {
			const struct kr_gpu_tl *t = tl[i];
			if (!t->cmds)
				continue;
			fprintf(f, "%10llu %-12s %-16s %7llu %9llu %10.1f %10.1f %10.1f\n",
				(unsigned long long)tl_ctx(g, t), nm(t->driver), nm(t->timeline),
				(unsigned long long)t->cmds, (unsigned long long)t->responses,
				usecs(kr_histo_percentile(&t->cmd, 500)),
				usecs(kr_histo_percentile(&t->cmd, 990)), usecs(t->cmd.max));
		}
		fprintf(f, "  %llu %s without a fence (their responses name no command)\n",
			(unsigned long long)g->unfenced_cmds,
			katra_plural(g->unfenced_cmds, "command", "commands"));
	}
	if (with_others)
		text_beside(f, g, tl, n);
	if (np || with_others) {
		uint64_t all = g->total_ns + others[OC(GPU_OTHER_FENCE_NS)];
		kr_s(f, "\nGPU fences per process (time in flight, share of all fence time)\n");
		fprintf(f, "%-28s %7s %7s %12s %7s\n", "process", "fences", "signal", "usecs", "share");
		for (size_t i = 0; i < np; i++) {
			const struct kr_gpu_proc *p = pr[i];
			uint64_t pid = *(const uint64_t *)kr_xmap_key(&g->procs, p);
			char name[64];
			kr_pid_label(v->names, pid, name, sizeof(name));
			fprintf(f, "%-28s %7llu %7llu %12.1f %6.1f%%\n", name,
				(unsigned long long)p->fences, (unsigned long long)p->signaled,
				usecs(p->fence_ns),
				all ? 100.0 * (double)p->fence_ns / (double)all : 0.0);
		}
		if (with_others)
			fprintf(f, "%-28s %7llu %7llu %12.1f %6.1f%%\n", "other processes",
				(unsigned long long)others[OC(GPU_OTHER_FENCES)],
				(unsigned long long)others[OC(GPU_OTHER_FENCES)],
				usecs(others[OC(GPU_OTHER_FENCE_NS)]),
				all ? 100.0 * (double)others[OC(GPU_OTHER_FENCE_NS)] / (double)all
				    : 0.0);
	}
	if (g && g->overflow)
		fprintf(f, "  (%llu GPU %s beyond the tables not counted)\n",
			(unsigned long long)g->overflow, katra_plural(g->overflow, "event", "events"));
	free(tl);
	free(pr);
}

/* "gpu":{"timelines":[{"context":N,"driver":"..","timeline":"..","fences":N,
 *   "signaled":N,"destroyed":N,"busy_ns":N,"p50_ns":N,"p99_ns":N,"max_ns":N,
 *   "waits":N,"wait_ns":N,"jobs":N,"ring_busy_ns":N,"ring_p50_ns":N,"ring_p99_ns":N,
 *   "ring_max_ns":N,"cmds":N,"cmd_responses":N,"cmd_p50_ns":N,"cmd_p99_ns":N,
 *   "cmd_max_ns":N,"other_fences":N,"other_fence_ns":N,"other_busy_ns":N,
 *   "other_jobs":N,"other_ring_busy_ns":N,"total_busy_ns":N,"total_ring_busy_ns":N},..],
 *   "processes":[{"process_id":N,"process_name":..,"fences":N,"signaled":N,
 *   "fence_ns":N},..],"traced":{"fences":N,"signaled":N,"fence_ns":N,"jobs":N},
 *   "others":{"timelines":N,"fences":N,"fence_ns":N,"busy_ns":N,"jobs":N,
 *   "ring_busy_ns":N},"unfenced_cmds":N,"overflow":N}
 * (the others' counts from the trace's Counters: 0 without them; busy_ns
 * and ring_busy_ns there are the timelines' added) */
void kr_gpu_json(FILE *f, const struct kr_views *v)
{
	const struct kr_gpu *g = v->gpu;
	size_t n = 0, np = 0;
	void **tl = g ? kr_xmap_sorted(&g->tls, &n, by_busy) : NULL;
	void **pr = g ? kr_xmap_sorted(&g->procs, &np, by_time) : NULL;
	uint64_t others[KR_GPU_COUNTERS], tr[4] = { 0 };
	unsigned with_others = others_sum(tl, n, others);

	kr_s(f, ",\"gpu\":{\"timelines\":[");
	for (size_t i = 0; i < n; i++) {
		const struct kr_gpu_tl *t = tl[i];
		fprintf(f, "%s{\"context\":%llu,\"driver\":", i ? "," : "",
			(unsigned long long)tl_ctx(g, t));
		katra_json_string(f, t->driver, strlen(t->driver));
		kr_s(f, ",\"timeline\":");
		katra_json_string(f, t->timeline, strlen(t->timeline));
		fprintf(f, ",\"fences\":%llu,\"signaled\":%llu,\"destroyed\":%llu,\"busy_ns\":%llu,"
			"\"p50_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,\"waits\":%llu,\"wait_ns\":%llu,"
			"\"jobs\":%llu,\"ring_busy_ns\":%llu,\"ring_p50_ns\":%llu,\"ring_p99_ns\":%llu,"
			"\"ring_max_ns\":%llu,\"cmds\":%llu,\"cmd_responses\":%llu,\"cmd_p50_ns\":%llu,"
			"\"cmd_p99_ns\":%llu,\"cmd_max_ns\":%llu",
			(unsigned long long)t->fences, (unsigned long long)t->signaled,
			(unsigned long long)t->destroyed, (unsigned long long)t->busy_ns,
			(unsigned long long)kr_histo_percentile(&t->dur, 500),
			(unsigned long long)kr_histo_percentile(&t->dur, 990),
			(unsigned long long)t->dur.max, (unsigned long long)t->waits,
			(unsigned long long)t->wait_ns, (unsigned long long)t->jobs,
			(unsigned long long)t->ring_busy_ns,
			(unsigned long long)kr_histo_percentile(&t->ring, 500),
			(unsigned long long)kr_histo_percentile(&t->ring, 990),
			(unsigned long long)t->ring.max, (unsigned long long)t->cmds,
			(unsigned long long)t->responses,
			(unsigned long long)kr_histo_percentile(&t->cmd, 500),
			(unsigned long long)kr_histo_percentile(&t->cmd, 990),
			(unsigned long long)t->cmd.max);
		fprintf(f, ",\"other_fences\":%llu,\"other_fence_ns\":%llu,\"other_busy_ns\":%llu,"
			"\"other_jobs\":%llu,\"other_ring_busy_ns\":%llu,\"total_busy_ns\":%llu,"
			"\"total_ring_busy_ns\":%llu}",
			(unsigned long long)t->oc[OC(GPU_OTHER_FENCES)],
			(unsigned long long)t->oc[OC(GPU_OTHER_FENCE_NS)],
			(unsigned long long)t->oc[OC(GPU_OTHER_BUSY_NS)],
			(unsigned long long)t->oc[OC(GPU_OTHER_JOBS)],
			(unsigned long long)t->oc[OC(GPU_OTHER_RING_BUSY_NS)],
			(unsigned long long)tl_total(t), (unsigned long long)ring_total(t));
		tr[0] += t->fences;
		tr[1] += t->signaled;
		tr[3] += t->jobs;
	}
	kr_s(f, "],\"processes\":[");
	for (size_t i = 0; i < np; i++) {
		const struct kr_gpu_proc *p = pr[i];
		uint64_t pid = *(const uint64_t *)kr_xmap_key(&g->procs, p);
		fprintf(f, "%s{\"process_id\":%llu,\"process_name\":", i ? "," : "",
			(unsigned long long)pid);
		kr_json_pname(f, v, pid);
		fprintf(f, ",\"fences\":%llu,\"signaled\":%llu,\"fence_ns\":%llu}",
			(unsigned long long)p->fences, (unsigned long long)p->signaled,
			(unsigned long long)p->fence_ns);
	}
	tr[2] = g ? g->total_ns : 0;
	fprintf(f, "],\"traced\":{\"fences\":%llu,\"signaled\":%llu,\"fence_ns\":%llu,\"jobs\":%llu}"
		",\"others\":{\"timelines\":%u,\"fences\":%llu,\"fence_ns\":%llu,\"busy_ns\":%llu,"
		"\"jobs\":%llu,\"ring_busy_ns\":%llu}",
		(unsigned long long)tr[0], (unsigned long long)tr[1], (unsigned long long)tr[2],
		(unsigned long long)tr[3], with_others,
		(unsigned long long)others[OC(GPU_OTHER_FENCES)],
		(unsigned long long)others[OC(GPU_OTHER_FENCE_NS)],
		(unsigned long long)others[OC(GPU_OTHER_BUSY_NS)],
		(unsigned long long)others[OC(GPU_OTHER_JOBS)],
		(unsigned long long)others[OC(GPU_OTHER_RING_BUSY_NS)]);
	fprintf(f, ",\"unfenced_cmds\":%llu,\"overflow\":%llu}",
		(unsigned long long)(g ? g->unfenced_cmds : 0), (unsigned long long)(g ? g->overflow : 0));
	free(tl);
	free(pr);
}
