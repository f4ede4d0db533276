// SPDX-License-Identifier: GPL-2.0-only
/* The GPU layer: dma_fence trace events of the tracked processes' fences and
 * of the fences their threads touch or wait on (katra_ev_gpu_fence in
 * wire.h); the rest of the machine's fences and jobs counted per context,
 * not written (gpu_totals.bpf.h).  Classic tracepoints ("gp_EVENT",
 * attached where tracefs lists the event): their records carry the driver
 * and timeline names, which only the fence's ops can give (a call BPF
 * cannot make).  Their layout is the one every supported kernel's format
 * file shows (5.10 to 6.18):
 *   __data_loc char[] driver; __data_loc char[] timeline;
 *   unsigned int context; unsigned int seqno; */
#include "common.bpf.h"

struct fence_rec {
	__u64 common;       /* the kernel's pt_regs pointer when BPF reads it */
	__u32 driver_loc;   /* __data_loc: offset in the low 16 bits, length above */
	__u32 timeline_loc;
	__u32 context;
	__u32 seqno;
};

/* Whose a fence is: the tracked tgid that made it, and the probes' number
 * for a fence the driver numbers at its emit (katra_ev_gpu_fence.token). */
struct gpu_owner {
	__u32 tgid;
	__u32 token;
};

/* (context << 32 | seqno) -> its owner; an entry leaves when the fence
 * signals or is freed.  A full table is counted (the fence's later events
 * in other contexts are then not written). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct gpu_owner);
} gpu_fences SEC(".maps");

/* A fence made with seqno 0 (virtio_gpu: the driver numbers it at its
 * emit, possibly in a worker), by its struct dma_fence * (the raw
 * tracepoints' argument): its owner (tgid 0: made outside the tracked
 * threads) and when it was made, until its emit moves them into
 * gpu_fences and gpu_flight under its number.  LRU: one never emitted (a
 * commit that failed) ages out. */
struct gpu_fence_ptr {
	struct gpu_owner own;
	__u64 init_ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct gpu_fence_ptr);
} gpu_fence_ptrs SEC(".maps");

/* Per CPU: the next token's count (tokens are bit 31 | cpu << 24 | count:
 * unique without an atomic fetch, which 5.10's BPF lacks). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gpu_tokens SEC(".maps");

/* Contexts whose names were written (KATRA_EV_GPU_TIMELINE): once each. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} gpu_named SEC(".maps");

/* The context's names (KATRA_EV_GPU_TIMELINE), written now. */
static __always_inline void write_names(const struct fence_rec *r, __u32 cpu, __u64 pid_tgid,
					__u64 ts)
{
	struct katra_ev_gpu_timeline *t;
	__u32 ctxid = r->context;
	void *rb;

	t = katra_reserve(&rb, cpu, sizeof(*t), 1);
	if (!t)
		return;
	katra_head(&t->head, KATRA_EV_GPU_TIMELINE, cpu, pid_tgid, ts);
	t->context = ctxid;
	t->pad = 0;
	if (bpf_probe_read_kernel_str(t->driver, sizeof(t->driver),
				      (void *)r + (r->driver_loc & 0xffff)) < 0)
		t->driver[0] = 0;
	if (bpf_probe_read_kernel_str(t->timeline, sizeof(t->timeline),
				      (void *)r + (r->timeline_loc & 0xffff)) < 0)
		t->timeline[0] = 0;
	katra_submit(rb, t, cpu);
}

static __always_inline void put_names(const struct fence_rec *r, __u32 cpu, __u64 pid_tgid,
				      __u64 ts)
{
	__u32 ctxid = r->context, one = 1;

	if (bpf_map_lookup_elem(&gpu_named, &ctxid))
		return;
	/* a full table: the names again next time, never none */
	bpf_map_update_elem(&gpu_named, &ctxid, &one, BPF_NOEXIST);
	write_names(r, cpu, pid_tgid, ts);
}

/* Whether the probe runs on the current task's own stack (its syscall, a
 * fault of it) rather than in an interrupt that came while it ran (x86_64
 * runs hard and soft interrupts and NMIs on stacks of their own): the
 * address of this program's stack, compared as katra_in_task() compares a
 * raw tracepoint's arguments.  (The record's common_flags would say it, but
 * the kernel overwrites the common fields with a pt_regs pointer before a
 * BPF program sees the record.) */
static __always_inline bool in_own_task(void)
{
	volatile __u64 marker = 0;
	__u64 lo = katra_current_stack(), hi = lo + KATRA_THREAD_SIZE, at = (__u64)&marker;

	asm volatile("" : "+r"(hi));
	return at >= lo && at < hi;
}

/* One fence event of OWN's fence (pid_tgid 0: not in a tracked thread). */
static __always_inline void put_fence(__u32 cpu, __u64 pid_tgid, __u64 ts, __u32 context,
				      __u32 seqno, __u32 what, const struct gpu_owner *own)
{
	struct katra_ev_gpu_fence *e;
	void *rb;

	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		return;
	katra_head(&e->head, KATRA_EV_GPU_FENCE, cpu, pid_tgid, ts);
	e->context = context;
	e->seqno = seqno;
	e->what = what;
	e->owner_tgid = own->tgid;
	e->token = own->token;
	e->pad = 0;
	katra_submit(rb, e, cpu);
}

#include "gpu_totals.bpf.h"

/* A display event delivered to a DRM file not known to be a traced
 * process's (its opener unread: the drm module has no BTF), kept per CPU
 * until the next delivery or fence signal on that CPU: the kernel signals
 * an atomic commit's out-fence right after sending its event (under the
 * event lock, interrupts off), so when that next signal is a traced
 * process's fence on a CRTC's timeline ("CRTC:<id>-<name>"), the event was
 * that process's commit's and is written then, just before the signal
 * (stamped with the signal's time). */
struct gpu_delivery {
	__u64 file;
	__s32 crtc;
	__u32 seq;
	__u32 set;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gpu_delivery);
} gpu_delivery SEC(".maps");

static __always_inline void put_vblank_at(__u32 what, __s32 crtc, __u32 seq, __u32 owner,
					  __u64 pid_tgid, __u32 cpu, __u64 ts);
static __always_inline void own_file(__u64 file, __s32 crtc, __u32 owner);

/* At a fence's signal: the delivery this CPU kept, written where it was
 * owner's out-fence's (the fence on a CRTC timeline); the slot emptied. */
static __always_inline void delivery_with_fence(const struct fence_rec *r, __u32 owner, __u32 cpu,
						__u64 ts)
{
	__u32 zero = 0;
	struct gpu_delivery *d = bpf_map_lookup_elem(&gpu_delivery, &zero);
	char tl[5];

	if (!d || !d->set)
		return;
	d->set = 0;
	if (!owner || bpf_probe_read_kernel(tl, sizeof(tl), (void *)r + (r->timeline_loc & 0xffff)) ||
	    tl[0] != 'C' || tl[1] != 'R' || tl[2] != 'T' || tl[3] != 'C' || tl[4] != ':')
		return;
	own_file(d->file, d->crtc, owner);
	put_vblank_at(KATRA_GPU_VBLANK_DELIVERED, d->crtc, d->seq, owner, 0, cpu, ts);
}

static __always_inline int on_fence(const struct fence_rec *r, __u32 what)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 key = (__u64)r->context << 32 | r->seqno;
	bool mine = katra_tracked(pid_tgid >> 32) && in_own_task();
	struct gpu_owner own = { 0, 0 }, *o = NULL;
	bool traced = false;
	__u32 cpu;
	__u64 ts;

	if (what == KATRA_GPU_FENCE_INIT) {
		if (!mine) {
			totals_fence(r, what, key, false, 0, false);
			return 0;
		}
		own.tgid = pid_tgid >> 32;
		/* numbered at its emit: its init is gv_dma_fence_init's, by
		 * its pointer; only its names here */
		if (r->seqno)
			katra_map_put(&gpu_fences, &key, &own, BPF_ANY, KTABLE_GPU);
	} else if ((o = bpf_map_lookup_elem(&gpu_fences, &key))) {
		own = *o;
		traced = true;
		if (what == KATRA_GPU_FENCE_SIGNALED || what == KATRA_GPU_FENCE_DESTROY)
			bpf_map_delete_elem(&gpu_fences, &key);
	} else if (!mine || what == KATRA_GPU_FENCE_DESTROY) {
		/* another process's fence, or one that signalled: its free is
		 * not the traced program's */
		totals_fence(r, what, key, mine, 0, false);
		if (what == KATRA_GPU_FENCE_SIGNALED)
			delivery_with_fence(r, 0, 0, 0);
		return 0;
	}
	cpu = katra_busy();
	ts = bpf_ktime_get_ns();
	/* the counts at the written event's own time */
	totals_fence(r, what, key, mine, ts, traced);
	if (!mine)
		pid_tgid = 0;
	put_names(r, cpu, pid_tgid, ts);
	if (what == KATRA_GPU_FENCE_SIGNALED)
		delivery_with_fence(r, o ? own.tgid : 0, cpu, ts);
	if (what != KATRA_GPU_FENCE_INIT || r->seqno)
		put_fence(cpu, pid_tgid, ts, r->context, r->seqno, what, &own);
	katra_idle(cpu);
	return 0;
}

SEC("tracepoint/dma_fence/dma_fence_init")
int gp_dma_fence_init(struct fence_rec *r)
{
	return on_fence(r, KATRA_GPU_FENCE_INIT);
}

/* ---- fences numbered at their emit (virtio_gpu_fence_alloc inits with
 * seqno 0, virtio_gpu_fence_emit numbers it, in the submitting thread or a
 * commit's worker): raw tracepoints, whose argument is the struct
 * dma_fence * itself (vmlinux BTF, on every supported kernel), carry such a
 * fence from its init to its number.  The classic init above writes its
 * timeline's names; the emit is this program's for every fence. */

/* The last fence a tracked process owns that this CPU emitted: a
 * virtio_gpu command queued right after it (same thread, the queue's lock
 * held) with its fence_id is that fence's. */
struct gpu_emitted {
	__u64 seqno;
	__u32 context;
	struct gpu_owner own;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gpu_emitted);
} gpu_last_emit SEC(".maps");

SEC("raw_tp/dma_fence_init")
int BPF_PROG(gv_dma_fence_init, struct dma_fence *fence)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), ptr = (__u64)fence;
	struct gpu_fence_ptr p = {};
	__u32 zero = 0, cpu, *n;

	if (BPF_CORE_READ(fence, seqno))
		return 0;
	p.init_ts = bpf_ktime_get_ns();
	if (!katra_tracked(pid_tgid >> 32) || !in_own_task()) {
		/* another process's: only its flight, for the counts */
		katra_map_put(&gpu_fence_ptrs, &ptr, &p, BPF_ANY, KTABLE_GPU_TOTALS);
		return 0;
	}
	n = bpf_map_lookup_elem(&gpu_tokens, &zero);
	if (!n)
		return 0;
	cpu = katra_busy();
	p.own.tgid = pid_tgid >> 32;
	p.own.token = 0x80000000u | (cpu & 0x7f) << 24 | (++*n & 0xffffff);
	katra_map_put(&gpu_fence_ptrs, &ptr, &p, BPF_ANY, KTABLE_GPU);
	put_fence(cpu, pid_tgid, p.init_ts, (__u32)BPF_CORE_READ(fence, context), 0,
		  KATRA_GPU_FENCE_INIT, &p.own);
	katra_idle(cpu);
	return 0;
}

SEC("raw_tp/dma_fence_emit")
int BPF_PROG(gv_dma_fence_emit, struct dma_fence *fence)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), ptr = (__u64)fence, seqno64;
	bool mine = katra_tracked(pid_tgid >> 32) && in_own_task();
	struct gpu_owner own = { 0, 0 }, *o;
	struct gpu_flight fl = {};
	struct gpu_emitted *last;
	struct gpu_fence_ptr *p;
	__u32 context, zero = 0, cpu;
	__u64 key;

	context = (__u32)BPF_CORE_READ(fence, context);
	seqno64 = BPF_CORE_READ(fence, seqno);
	key = (__u64)context << 32 | (__u32)seqno64;
	if ((p = bpf_map_lookup_elem(&gpu_fence_ptrs, &ptr))) {
		/* numbered now: from here on known by (context, seqno), its
		 * flight (counted at its signal) too */
		own = p->own;
		fl.init_ts = p->init_ts;
		fl.other = !own.tgid;
		bpf_map_delete_elem(&gpu_fence_ptrs, &ptr);
		katra_map_put(&gpu_flight, &key, &fl, BPF_ANY, KTABLE_GPU_TOTALS);
		if (own.tgid)
			katra_map_put(&gpu_fences, &key, &own, BPF_ANY, KTABLE_GPU);
	} else if ((o = bpf_map_lookup_elem(&gpu_fences, &key))) {
		own = *o;
	} else if (mine) {
		own.tgid = pid_tgid >> 32;
	}
	/* this CPU's last emitted fence, whoever's (tgid 0: not a tracked
	 * process's): a command queued next with its fence_id is its */
	last = bpf_map_lookup_elem(&gpu_last_emit, &zero);
	if (last) {
		last->seqno = seqno64;
		last->context = context;
		last->own = own;
	}
	if (!own.tgid)
		return 0;
	cpu = katra_busy();
	put_fence(cpu, mine ? pid_tgid : 0, bpf_ktime_get_ns(), context, (__u32)seqno64,
		  KATRA_GPU_FENCE_EMIT, &own);
	katra_idle(cpu);
	return 0;
}

SEC("tracepoint/dma_fence/dma_fence_enable_signal")
int gp_dma_fence_enable_signal(struct fence_rec *r)
{
	return on_fence(r, KATRA_GPU_FENCE_ENABLE_SIGNAL);
}

SEC("tracepoint/dma_fence/dma_fence_signaled")
int gp_dma_fence_signaled(struct fence_rec *r)
{
	return on_fence(r, KATRA_GPU_FENCE_SIGNALED);
}

SEC("tracepoint/dma_fence/dma_fence_wait_start")
int gp_dma_fence_wait_start(struct fence_rec *r)
{
	return on_fence(r, KATRA_GPU_FENCE_WAIT_START);
}

SEC("tracepoint/dma_fence/dma_fence_wait_end")
int gp_dma_fence_wait_end(struct fence_rec *r)
{
	return on_fence(r, KATRA_GPU_FENCE_WAIT_END);
}

SEC("tracepoint/dma_fence/dma_fence_destroy")
int gp_dma_fence_destroy(struct fence_rec *r)
{
	return on_fence(r, KATRA_GPU_FENCE_DESTROY);
}

/* ---- the GPU scheduler (drm_sched, a module: gpu-sched): a job's queueing
 * (in the submitting thread's ioctl), its run on the ring and its
 * completion.  Up to 6.16 the events are drm_sched_job, drm_run_job and
 * drm_sched_process_job; from 6.17 drm_sched_job_queue, drm_sched_job_run
 * and drm_sched_job_done.  Their record layouts differ, their arguments do
 * not: (struct drm_sched_job *, struct drm_sched_entity *) for the first
 * two, (struct drm_sched_fence *) for the last, so raw tracepoints read the
 * job's finished fence from the structs (CO-RE against the module's BTF)
 * on every version.  That fence's dma_fence_init ran in the submitting
 * thread (drm_sched_job_arm, in its ioctl): it is in gpu_fences when the
 * job is a traced process's, and its names (driver "drm_sched", timeline
 * the ring) are already written.  Attached where tracefs lists the event
 * (the loader); never loaded elsewhere, so a kernel without the module
 * needs none of these types. */
struct drm_sched_fence___katra {
	struct dma_fence finished;
} __attribute__((preserve_access_index));

struct drm_sched_job___katra {
	struct drm_sched_fence___katra *s_fence;
} __attribute__((preserve_access_index));

static __always_inline int on_job(struct drm_sched_fence___katra *sf, __u32 what)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	bool mine = katra_tracked(pid_tgid >> 32) && in_own_task();
	struct gpu_owner own, *o;
	__u32 cpu, context, seqno;
	__u64 key, ts;

	/* a layout without the fence: nothing read (the reads are dead code,
	 * never loaded as relocations the kernel cannot resolve) */
	if (!sf || !bpf_core_field_exists(sf->finished))
		return 0;
	context = (__u32)BPF_CORE_READ(sf, finished.context);
	seqno = (__u32)BPF_CORE_READ(sf, finished.seqno);
	key = (__u64)context << 32 | seqno;
	o = bpf_map_lookup_elem(&gpu_fences, &key);
	if (!o && !mine) {
		totals_job(context, key, what, 0, false);
		return 0;
	}
	if (o) {
		own = *o;
	} else {
		own.tgid = pid_tgid >> 32;
		own.token = 0;
	}
	cpu = katra_busy();
	ts = bpf_ktime_get_ns();
	totals_job(context, key, what, ts, o != NULL);
	put_fence(cpu, mine ? pid_tgid : 0, ts, context, seqno, what, &own);
	katra_idle(cpu);
	return 0;
}

/* The job's fences (NULL where the layout has no s_fence). */
static __always_inline struct drm_sched_fence___katra *job_fence(struct drm_sched_job___katra *job)
{
	if (!bpf_core_field_exists(job->s_fence))
		return NULL;
	return BPF_CORE_READ(job, s_fence);
}

SEC("raw_tp/drm_sched_job")
int BPF_PROG(gs_drm_sched_job, struct drm_sched_job___katra *job)
{
	return on_job(job_fence(job), KATRA_GPU_JOB_QUEUE);
}

SEC("raw_tp/drm_run_job")
int BPF_PROG(gs_drm_run_job, struct drm_sched_job___katra *job)
{
	return on_job(job_fence(job), KATRA_GPU_JOB_RUN);
}

SEC("raw_tp/drm_sched_process_job")
int BPF_PROG(gs_drm_sched_process_job, struct drm_sched_fence___katra *fence)
{
	return on_job(fence, KATRA_GPU_JOB_DONE);
}

SEC("raw_tp/drm_sched_job_queue")
int BPF_PROG(gs_drm_sched_job_queue, struct drm_sched_job___katra *job)
{
	return on_job(job_fence(job), KATRA_GPU_JOB_QUEUE);
}

SEC("raw_tp/drm_sched_job_run")
int BPF_PROG(gs_drm_sched_job_run, struct drm_sched_job___katra *job)
{
	return on_job(job_fence(job), KATRA_GPU_JOB_RUN);
}

SEC("raw_tp/drm_sched_job_done")
int BPF_PROG(gs_drm_sched_job_done, struct drm_sched_fence___katra *fence)
{
	return on_job(fence, KATRA_GPU_JOB_DONE);
}

/* ---- the display (drm, a module): drm_vblank_event (a vblank on a CRTC,
 * in the vblank's interrupt or timer), drm_vblank_event_queued (a vblank
 * event asked for: DRM_IOCTL_WAIT_VBLANK with an event, or a CRTC sequence
 * queued, in the asking thread's ioctl) and drm_vblank_event_delivered (the
 * event sent to its DRM file: a page flip or atomic commit done, a wait
 * over).  Their layouts on every supported kernel (5.10 to 6.18; 6.1 added
 * fields after these only):
 *   drm_vblank_event:            int crtc; unsigned int seq; ...
 *   drm_vblank_event_{queued,delivered}:
 *                                struct drm_file *file; int crtc; unsigned int seq;
 * A DRM file is a tracked process's once a tracked thread queued an event on
 * it, had one delivered in its own context, or when its opener is a tracked
 * process (read through the drm module's BTF); vblanks are written on the
 * CRTCs such a file had events on. */
struct vblank_rec {
	__u64 common;
	__s32 crtc;
	__u32 seq;
};

struct vblank_file_rec {
	__u64 common;
	__u64 file;
	__s32 crtc;
	__u32 seq;
};

#define GPU_CRTCS 64

/* struct drm_file * of a tracked process -> its tgid */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u32);
} gpu_drm_files SEC(".maps");

/* CRTC index -> the tgid whose DRM file had events on it (0: none) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GPU_CRTCS);
	__type(key, __u32);
	__type(value, __u32);
} gpu_crtcs SEC(".maps");

/* A display record, by a probe that holds the CPU busy. */
static __always_inline void put_vblank_at(__u32 what, __s32 crtc, __u32 seq, __u32 owner,
					  __u64 pid_tgid, __u32 cpu, __u64 ts)
{
	struct gpu_owner own = { owner, 0 };

	put_fence(cpu, pid_tgid, ts, (__u32)crtc, seq, what, &own);
}

static __always_inline int put_vblank(__u32 what, __s32 crtc, __u32 seq, __u32 owner,
				      __u64 pid_tgid)
{
	__u32 cpu = katra_busy();

	put_vblank_at(what, crtc, seq, owner, pid_tgid, cpu, bpf_ktime_get_ns());
	katra_idle(cpu);
	return 0;
}

/* The CRTC's owner becomes OWNER (its vblanks are written from now on). */
static __always_inline void own_crtc(__s32 crtc, __u32 owner)
{
	__u32 idx = (__u32)crtc, *slot;

	if (idx < GPU_CRTCS && (slot = bpf_map_lookup_elem(&gpu_crtcs, &idx)))
		*slot = owner;
}

SEC("tracepoint/drm/drm_vblank_event")
int gp_drm_vblank_event(struct vblank_rec *r)
{
	__u32 idx = (__u32)r->crtc, *owner;

	if (idx >= GPU_CRTCS || !(owner = bpf_map_lookup_elem(&gpu_crtcs, &idx)) || !*owner)
		return 0;
	return put_vblank(KATRA_GPU_VBLANK, r->crtc, r->seq, *owner, 0);
}

SEC("tracepoint/drm/drm_vblank_event_queued")
int gp_drm_vblank_event_queued(struct vblank_file_rec *r)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), file = r->file;
	__u32 tgid = pid_tgid >> 32;

	if (!katra_tracked(tgid) || !in_own_task())
		return 0;
	bpf_map_update_elem(&gpu_drm_files, &file, &tgid, BPF_ANY);
	own_crtc(r->crtc, tgid);
	return put_vblank(KATRA_GPU_VBLANK_QUEUED, r->crtc, r->seq, tgid, pid_tgid);
}

/* The DRM file's opener (drm_file.pid: the opening thread's pid up to 6.3,
 * its process's from 6.4; a pid's first PIDTYPE_PID task is its task), as
 * its process's tgid; 0 where the drm module has no BTF or the opener is
 * gone.  A page flip's or atomic commit's event is queued with no trace
 * event and delivered from a worker or an interrupt: this is how its file
 * is known to be a tracked process's. */
struct drm_file___katra {
	struct pid *pid;
} __attribute__((preserve_access_index));

static __always_inline __u32 file_opener(__u64 file)
{
	struct drm_file___katra *f = (void *)file;
	struct hlist_node *first;
	struct task_struct *t;
	struct pid *pid;

	if (!bpf_core_field_exists(f->pid))
		return 0;
	pid = BPF_CORE_READ(f, pid);
	if (!pid)
		return 0;
	first = BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first);
	if (!first)
		return 0;
	t = (void *)first - bpf_core_field_offset(struct task_struct, pid_links);
	return BPF_CORE_READ(t, tgid);
}

/* The DRM file is owner's from now on, and the CRTC its events were on. */
static __always_inline void own_file(__u64 file, __s32 crtc, __u32 owner)
{
	bpf_map_update_elem(&gpu_drm_files, &file, &owner, BPF_ANY);
	own_crtc(crtc, owner);
}

SEC("tracepoint/drm/drm_vblank_event_delivered")
int gp_drm_vblank_event_delivered(struct vblank_file_rec *r)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), file = r->file;
	bool mine = katra_tracked(pid_tgid >> 32) && in_own_task();
	struct gpu_delivery *d;
	__u32 *o, owner, zero = 0;

	d = bpf_map_lookup_elem(&gpu_delivery, &zero);
	if (d)
		d->set = 0;
	/* an event with no file: the kernel's own (a commit's completion
	 * that nobody asked for) */
	if (!file)
		return 0;
	o = bpf_map_lookup_elem(&gpu_drm_files, &file);
	if (o) {
		owner = *o;
	} else {
		owner = mine ? pid_tgid >> 32 : file_opener(file);
		if (!owner || !katra_tracked(owner)) {
			/* known, maybe, by the out-fence signalled next */
			if (d && !owner) {
				d->file = file;
				d->crtc = r->crtc;
				d->seq = r->seq;
				d->set = 1;
			}
			return 0;
		}
		bpf_map_update_elem(&gpu_drm_files, &file, &owner, BPF_ANY);
	}
	own_crtc(r->crtc, owner);
	return put_vblank(KATRA_GPU_VBLANK_DELIVERED, r->crtc, r->seq, owner, mine ? pid_tgid : 0);
}

/* ---- virtio_gpu's commands (virtio_gpu:virtio_gpu_cmd_queue, _response;
 * katra_ev_gpu_cmd in wire.h): raw tracepoints, whose first two arguments
 * are (struct virtqueue *, struct virtio_gpu_ctrl_hdr *) on every kernel;
 * the header is the virtio uapi's, the same on all (le32 type, le32 flags,
 * le64 fence_id, le32 ctx_id, ...), so no module BTF is needed.  A fenced
 * command of a tracked process is kept by (virtqueue, fence_id) until its
 * response. */
struct virtio_hdr___katra {
	__u32 type;
	__u32 flags;
	__u64 fence_id;
	__u32 ctx_id;
};

#define VIRTIO_GPU_FLAG_FENCE_ 1u

struct gpu_cmd_key {
	__u64 vq;
	__u64 fence_id;
};

struct gpu_cmd_val {
	struct gpu_owner own;
	__u32 context;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct gpu_cmd_key);
	__type(value, struct gpu_cmd_val);
} gpu_cmds SEC(".maps");

static __always_inline void put_cmd(__u64 pid_tgid, __u32 what, const struct virtio_hdr___katra *h,
				    const struct gpu_cmd_val *v)
{
	struct katra_ev_gpu_cmd *e;
	__u32 cpu = katra_busy();
	void *rb;

	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		goto out;
	katra_head(&e->head, KATRA_EV_GPU_CMD, cpu, pid_tgid, bpf_ktime_get_ns());
	e->fence_id = h->flags & VIRTIO_GPU_FLAG_FENCE_ ? h->fence_id : 0;
	e->what = what;
	e->type = h->type;
	e->flags = h->flags;
	e->ctx_id = h->ctx_id;
	e->context = v->context;
	e->token = v->own.token;
	e->owner_tgid = v->own.tgid;
	e->pad = 0;
	katra_submit(rb, e, cpu);
out:
	katra_idle(cpu);
}

SEC("raw_tp/virtio_gpu_cmd_queue")
int BPF_PROG(gw_virtio_gpu_cmd_queue, void *vq, struct virtio_hdr___katra *hdr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	bool mine = katra_tracked(pid_tgid >> 32) && in_own_task();
	struct gpu_cmd_val v = { { 0, 0 }, 0, 0 };
	struct virtio_hdr___katra h;
	struct gpu_emitted *last;
	__u32 zero = 0;

	if (bpf_probe_read_kernel(&h, sizeof(h), hdr))
		return 0;
	last = bpf_map_lookup_elem(&gpu_last_emit, &zero);
	if ((h.flags & VIRTIO_GPU_FLAG_FENCE_) && last && last->own.tgid &&
	    last->seqno == h.fence_id) {
		/* the fence emitted just before, in this thread, under the
		 * queue's lock */
		struct gpu_cmd_key k = { (__u64)vq, h.fence_id };

		v.own = last->own;
		v.context = last->context;
		last->own.tgid = 0;
		katra_map_put(&gpu_cmds, &k, &v, BPF_ANY, KTABLE_GPU);
	} else if (mine) {
		v.own.tgid = pid_tgid >> 32;
	} else {
		return 0;
	}
	put_cmd(mine ? pid_tgid : 0, KATRA_GPU_CMD_QUEUE, &h, &v);
	return 0;
}

SEC("raw_tp/virtio_gpu_cmd_response")
int BPF_PROG(gw_virtio_gpu_cmd_response, void *vq, struct virtio_hdr___katra *hdr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	bool mine = katra_tracked(pid_tgid >> 32) && in_own_task();
	struct virtio_hdr___katra h;
	struct gpu_cmd_val *o, v;
	struct gpu_cmd_key k;

	if (bpf_probe_read_kernel(&h, sizeof(h), hdr) || !(h.flags & VIRTIO_GPU_FLAG_FENCE_))
		return 0;
	k.vq = (__u64)vq;
	k.fence_id = h.fence_id;
	o = bpf_map_lookup_elem(&gpu_cmds, &k);
	if (!o)
		return 0;
	v = *o;
	bpf_map_delete_elem(&gpu_cmds, &k);
	put_cmd(mine ? pid_tgid : 0, KATRA_GPU_CMD_RESPONSE, &h, &v);
	return 0;
}
