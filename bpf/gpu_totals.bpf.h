/* SPDX-License-Identifier: GPL-2.0-only */
/* The GPU layer's counts (included by gpu.bpf.c, which defines struct
 * fence_rec, gpu_fences, gpu_named and write_names): the rest of the
 * machine's GPU work, counted per fence context and never written as
 * events, so that a timeline's or a ring's utilization is true.  Per
 * context (struct katra_gpu_totals in wire.h): other processes' fences
 * signalled, their time in flight (summed, and the union of their flights:
 * init to signalled), their scheduler jobs done and the union of their runs
 * (run to done); and the unions over all the context's fences and jobs,
 * tracked processes' included.  A union is merged as stats merges one: the
 * intervals taken in the order they end, exact when they also start in
 * that order (a timeline's fences, a ring's jobs).  The counts are atomic
 * adds; a union's end is not: two CPUs ending work of one context at the
 * same instant may count their overlap twice.  User space reads the table
 * at each counter tick and at the capture's end (Counter records, instance
 * the context). */
#ifndef KATRA_GPU_TOTALS_BPF_H
#define KATRA_GPU_TOTALS_BPF_H

/* A fence in flight: when it was made, when its job ran (0: not seen). */
struct gpu_flight {
	__u64 init_ts;
	__u64 run_ts;
	__u32 other; /* made outside the tracked threads */
	__u32 pad;
};

/* (context << 32 | seqno) -> its flight, for every fence made during the
 * capture until it signals or is freed.  A full table is counted
 * (KTABLE_GPU_TOTALS): that fence is still counted, without its time. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct gpu_flight);
} gpu_flight SEC(".maps");

/* context -> its totals.  A full table is counted (KTABLE_GPU_TOTALS), one
 * per fence or job of a context it has no room for. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct katra_gpu_totals);
} gpu_totals SEC(".maps");

/* The context's totals, made when absent (*created then); NULL when the
 * table is full. */
static __always_inline struct katra_gpu_totals *totals_of(__u32 context, bool *created)
{
	struct katra_gpu_totals *t = bpf_map_lookup_elem(&gpu_totals, &context), zero = {};

	*created = false;
	if (t)
		return t;
	*created = !katra_map_put(&gpu_totals, &context, &zero, BPF_NOEXIST, KTABLE_GPU_TOTALS);
	return bpf_map_lookup_elem(&gpu_totals, &context);
}

/* Adds [start, end] to a union whose intervals come in the order they end. */
static __always_inline void totals_cover(__u64 *busy, __u64 *cover_end, __u64 start, __u64 end)
{
	__u64 at = *cover_end;

	if (start < at)
		start = at;
	if (end > start)
		__sync_fetch_and_add(busy, end - start);
	if (end > at)
		*cover_end = end;
}

/* Another process's context seen first: its names, once (unless the
 * tracked side named it already; it then does not name it again: a
 * timeline several processes share, virtio_gpu's controlq), outside any
 * thread. */
static __always_inline void totals_name(const struct fence_rec *r)
{
	__u32 ctxid = r->context, one = 1, cpu;

	if (bpf_map_lookup_elem(&gpu_named, &ctxid))
		return;
	bpf_map_update_elem(&gpu_named, &ctxid, &one, BPF_NOEXIST);
	cpu = katra_busy();
	write_names(r, cpu, 0, bpf_ktime_get_ns());
	katra_idle(cpu);
}

/* Whether a fence with no flight is another process's: not a tracked
 * process's in flight (made before the capture, or refused a flight).
 * TRACED: the caller found it a tracked process's already (gpu_fences). */
static __always_inline bool totals_other(__u64 key, bool traced)
{
	return !traced && !bpf_map_lookup_elem(&gpu_fences, &key);
}

/* A dma_fence event of any process.  MINE: in a tracked thread's own
 * context.  TS: the time of the event on_fence writes (its counts at that
 * same instant), 0 where none is written (the clock read here).  TRACED:
 * the fence was in gpu_fences (on_fence has taken a signalled one out). */
static __always_inline void totals_fence(const struct fence_rec *r, __u32 what, __u64 key,
					 bool mine, __u64 ts, bool traced)
{
	struct gpu_flight fl = {}, *f;
	struct katra_gpu_totals *t;
	bool other, created;
	__u64 now;

	if (what == KATRA_GPU_FENCE_DESTROY) {
		bpf_map_delete_elem(&gpu_flight, &key);
		return;
	}
	now = ts ? ts : bpf_ktime_get_ns();
	if (what == KATRA_GPU_FENCE_INIT) {
		fl.init_ts = now;
		fl.other = !mine;
		katra_map_put(&gpu_flight, &key, &fl, BPF_ANY, KTABLE_GPU_TOTALS);
		if (!mine && totals_of(r->context, &created) && created)
			totals_name(r);
		return;
	}
	if (what != KATRA_GPU_FENCE_SIGNALED)
		return;
	f = bpf_map_lookup_elem(&gpu_flight, &key);
	other = f ? f->other : totals_other(key, traced);
	if (!f && !other) /* a tracked fence made before the capture */
		return;
	t = totals_of(r->context, &created);
	if (t && other)
		__sync_fetch_and_add(&t->fences, 1);
	if (t && f) {
		__u64 start = f->init_ts;

		if (other) {
			__sync_fetch_and_add(&t->fence_ns, now > start ? now - start : 0);
			totals_cover(&t->busy_ns, &t->cover_end, start, now);
		}
		totals_cover(&t->all_busy_ns, &t->all_cover_end, start, now);
	}
	if (f)
		bpf_map_delete_elem(&gpu_flight, &key);
	/* a written event's context is named by on_fence (put_names) */
	if (created && other && !ts)
		totals_name(r);
}

/* A GPU scheduler job's run or completion, by its finished fence; TS and
 * TRACED as for totals_fence. */
static __always_inline void totals_job(__u32 context, __u64 key, __u32 what, __u64 ts,
				       bool traced)
{
	struct katra_gpu_totals *t;
	struct gpu_flight *f;
	bool other, created;
	__u64 now;

	if (what != KATRA_GPU_JOB_RUN && what != KATRA_GPU_JOB_DONE)
		return;
	now = ts ? ts : bpf_ktime_get_ns();
	f = bpf_map_lookup_elem(&gpu_flight, &key);
	if (what == KATRA_GPU_JOB_RUN) {
		if (f)
			f->run_ts = now;
		return;
	}
	other = f ? f->other : totals_other(key, traced);
	if (!f && !other)
		return;
	t = totals_of(context, &created);
	if (!t)
		return;
	if (other)
		__sync_fetch_and_add(&t->jobs, 1);
	if (f && f->run_ts) {
		if (other)
			totals_cover(&t->ring_busy_ns, &t->ring_cover_end, f->run_ts, now);
		totals_cover(&t->all_ring_busy_ns, &t->all_ring_cover_end, f->run_ts, now);
	}
}

#endif
