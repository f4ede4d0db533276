/* SPDX-License-Identifier: GPL-2.0-only */
/* Loader for the katra BPF probes (skeleton katra_bpf): open + load with the
 * user's settings, track processes, attach every probe it can, and hand the
 * per-CPU rings to the recorder.  Records are defined in <katra/wire.h>.
 *
 * Typical use:
 *	struct katra_probes_opts o = KATRA_PROBES_OPTS_DEFAULT;
 *	katra_probes_open(&o, &p);          // loads; needs root or CAP_BPF+CAP_PERFMON
 *	katra_probes_track_tgid(p, pid);    // before or after attach
 *	katra_probes_attach(p);             // names of what failed: katra_probes_failed()
 *	// read the rings katra_probes_ring_fd() names (rings.h), watermark first
 *	katra_probes_detach(p); katra_probes_destroy(p);
 */
#ifndef KATRA_PROBES_H
#define KATRA_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "katra/wire.h"
#include "select.h"

struct katra_probes;

struct katra_probes_opts {
	bool follow_children;  /* track processes forked by tracked ones */
	bool record_paths;     /* write KATRA_EV_PATH for openat/openat2/execve */
	int verbose;           /* libbpf's info (1) and debug (2) log to stderr; its
				* warnings are always printed */
	bool quiet;            /* no line per probe not attached (they are in the notes) */
	const struct katra_selection *select; /* -e; NULL = everything */
	uint32_t small_tables;  /* tests: the kernel's in-flight tables this small */
	uint32_t detach_pause_ms; /* tests: a pause between detaching the syscall probes
				   * and the others (their order is then what counts) */
	bool force_raw_tp;     /* testing: use the raw_tp fallback even where tp_btf works */
	bool bpf_stats;        /* --bpf-stats: the kernel counts the programs' runs
				* (katra_probes_read_runs) from open to destroy */
	uint32_t ring_bytes;   /* per-CPU ring size; rounded up to a power of two >= 4096;
				* 0 = KATRA_PROBES_DEFAULT_RING_BYTES */
	uint32_t max_tgids;    /* limit on tgids tracked through katra_probes_track_tgid
				* (0 = none); the in-kernel set is a bitmap over every
				* possible pid, so children followed by fork never fail */
	bool stacks;           /* --stacks: a thread's stacks at its switch-out (bpf/stacks.bpf.h) */
	uint64_t stack_threshold_ns; /* ... written when it was off the CPU this long or more */
	uint32_t sample_hz;    /* --sample-hz: timer samples of running traced threads, a
				* second a CPU (bpf/sample.bpf.c); 0: none (not loaded) */
	uint32_t wakeup_bytes; /* a ring wakes its consumer when its unread data crosses
				* this; 0 = ring_bytes / 4.  User space must also poll on
				* a short timer (e.g. 10 ms): below the threshold nobody
				* wakes it */
	/* Links to make during the load: called once, on a thread, when the
	 * Vulkan layer's programs (up_vk*, ur_vulkan*) are loaded, before
	 * the rest is; only katra_probes_program() for those and
	 * katra_probes_attach_uprobe_multi() / katra_probes_uprobe_multi()
	 * may use p there, and nothing after katra_probes_open fails.  Done
	 * before katra_probes_open returns.  NULL: none (probes_early.c). */
	void (*uprobes_ready)(void *ctx, struct katra_probes *p);
	void *uprobes_ctx;
};

/* ring_bytes = 0: the total budget shared by the possible CPUs, each ring a
 * power of two within [MIN, MAX] (memory does not grow with the CPU count) */
#define KATRA_PROBES_RING_BUDGET (64u << 20)
#define KATRA_PROBES_RING_MIN (1u << 20)
#define KATRA_PROBES_RING_MAX (32u << 20)
#define KATRA_PROBES_OPTS_DEFAULT                                                     \
	{                                                                             \
		.follow_children = true, .record_paths = false, .verbose = 0,     \
		.force_raw_tp = false, .ring_bytes = 0, .max_tgids = 0,               \
		.wakeup_bytes = 0,                                                    \
	}

/* Open and load the probes (nothing attached yet).  Returns 0 or -errno, with a
 * message on stderr naming what failed (EPERM: "needs root, or CAP_BPF +
 * CAP_PERFMON"). */
int katra_probes_open(const struct katra_probes_opts *opts, struct katra_probes **out);

/* ---- call stacks (--stacks; probes_stacks.c) ---- */
struct katra_stack_reader;
/* A reader of the stack ring: cb(ctx, record, size) for each struct
 * katra_stack_rec written (its header and stack_len bytes of data). */
int katra_probes_stack_reader(struct katra_probes *p,
			      int (*cb)(void *ctx, void *data, size_t size), void *ctx,
			      struct katra_stack_reader **out);
/* Waits up to timeout_ms for records, hands those there to cb: how many, or -errno */
int katra_probes_stack_poll(struct katra_stack_reader *r, int timeout_ms);
void katra_probes_stack_reader_free(struct katra_stack_reader *r);
/* The kernel stack id's return addresses (KATRA_STACK_KDEPTH, 0 past the
 * last): 0 or -errno (-ENOENT: not there) */
int katra_probes_kstack(const struct katra_probes *p, int32_t id, uint64_t *ips);
/* The timer samples (opts.sample_hz) started: a cpu-clock perf event on each
 * online CPU, the sampling program attached to each; stopped at destroy.
 * 0 or -errno (with a message) */
int katra_probes_sample_start(struct katra_probes *p);
/* Stacks lost in the kernel: [0] the slot table full, [1] the ring full */
void katra_probes_stack_drops(const struct katra_probes *p, uint64_t drops[2]);

/* Add / remove a process (thread-group id) to / from the in-kernel filter.
 * -ENOSPC when the table is full. */
int katra_probes_track_tgid(struct katra_probes *p, uint32_t tgid);
int katra_probes_untrack_tgid(struct katra_probes *p, uint32_t tgid);
/* The wineserver sockets (n pairs: the kernel's device number, MAJOR << 20
 * | MINOR, and inode of each DIR/socket) whose connecting processes the
 * probes track at once (a process joining a traced Wine session): 0, or
 * -ENOSPC past 8. */
int katra_probes_set_join_socks(struct katra_probes *p, const uint64_t (*socks)[2], size_t n);
/* Whether tgid is in the set (given, or followed from a fork). */
bool katra_probes_is_tracked(const struct katra_probes *p, uint32_t tgid);
/* Untracks the tracked processes that are gone or zombies (their last exit
 * record was lost, or they went while not being watched), calling gone() for
 * each; returns how many. */
unsigned katra_probes_reap(struct katra_probes *p, void (*gone)(void *ctx, uint32_t tgid),
			   void *ctx);
/* Drops what the kernel maps keep for an exited process (io_uring contexts). */
void katra_probes_forget_process(struct katra_probes *p, uint32_t tgid);
/* Untracks every process at once: the capture's end, the same instant for
 * every probe (each returns at its first check from then on). */
void katra_probes_untrack_all(struct katra_probes *p);
/* Number of tgids currently tracked (processes drop out when they exit). */
int katra_probes_tracked_count(struct katra_probes *p);
/* Whether the probes followed a fork of a tracked process (a child they
 * track, not yet untracked by user space). */
bool katra_probes_any_forked(struct katra_probes *p);

/* Attach every probe; one that cannot attach is recorded (and said on stderr)
 * and the others go on.  Returns 0 if at least one probe attached, else the
 * first error. */
int katra_probes_attach(struct katra_probes *p);

/* Probe names ("sys_enter", "sched_switch", "io_uring_complete", ...): what is
 * attached, and what failed ("name: reason").  Valid until destroy. */
size_t katra_probes_attached(const struct katra_probes *p, const char *const **names);
size_t katra_probes_failed(const struct katra_probes *p, const char *const **names);
/* One line per layer that is not whole: "layer io_uring off: io_uring_submit_req:
 * not in this kernel; ...".  Layers: core (syscalls and process lifecycle:
 * required), sched, faults, fault-durations, io_uring.  *core_ok is false when
 * a core probe is missing. */
#define KATRA_NOTE_MAX 240
size_t katra_probes_layer_notes(const struct katra_probes *p, char (*out)[KATRA_NOTE_MAX],
				size_t cap, bool *core_ok);
/* The same, less the layers only an expected fallback turned off (the
 * kernel refuses fexit on handle_mm_fault: page faults are recorded as
 * instants, said once by katra_probes_attach as information): what stderr
 * warns of.  The header keeps every note. */
size_t katra_probes_layer_warnings(const struct katra_probes *p, char (*out)[KATRA_NOTE_MAX],
				   size_t cap, bool *core_ok);
/* How many of katra_probes_failed's probes are off by an expected fallback. */
size_t katra_probes_fallbacks(const struct katra_probes *p);
/* "tp_btf", "raw_tp", or "tp_btf+raw_tp" when some probes fell back. */
const char *katra_probes_flavour(const struct katra_probes *p);

/* Under a narrowed -e, which path the syscalls take: "syscalls: attached
 * per syscall (fentry, N functions)" or "syscalls: raw tracepoints, filtered
 * in the kernel (...)"; NULL without -e (probes_fn.c). */
const char *katra_probes_syscall_path(const struct katra_probes *p);

/* Rings: one per possible CPU, ring i == CPU i == head.cpu of its records. */
unsigned katra_probes_ring_count(const struct katra_probes *p);
int katra_probes_ring_fd(const struct katra_probes *p, unsigned i); /* BPF_MAP_TYPE_RINGBUF */
uint32_t katra_probes_ring_bytes(const struct katra_probes *p);
/* The rings, mapped for the drain (rings.h) with the mappings the rings'
 * thread made (waited for: it makes them last, while the probes attach);
 * 0 or -errno, katra_rings_close() in either case, before
 * katra_probes_destroy(). */
struct katra_rings;
int katra_probes_rings_open(struct katra_probes *p, struct katra_rings *rs);
/* Unread bytes in ring i right now (for "ring fill" counters). */
uint64_t katra_probes_ring_unread(const struct katra_probes *p, unsigned i);

/* Failed reservations (records lost) per ring since open: fills drops[0..n) and
 * returns the total over all rings. */
uint64_t katra_probes_read_drops(const struct katra_probes *p, uint64_t *drops, unsigned n);

/* Entries the kernel maps refused, by table (KATRA_KTABLE_*), since open. */
void katra_probes_read_ktable_drops(const struct katra_probes *p, uint64_t *drops, unsigned n);

/* The GPU layer's totals per fence context (bpf/gpu_totals.bpf.h), each
 * given to fn; returns how many contexts, or -errno. */
typedef void (*katra_gpu_totals_fn)(void *ctx, uint32_t context,
				    const struct katra_gpu_totals *t);
int katra_probes_gpu_totals(const struct katra_probes *p, katra_gpu_totals_fn fn, void *ctx);

/* Runs of each attached probe's program that the kernel skipped since load
 * (recursion_misses: the program was already running on that CPU, e.g. a
 * preempted fexit, or a tracepoint hit again from an interrupt; 5.12+, 0 on
 * older kernels): skipped[k] for the probe katra_probes_attached() names at
 * k, k < n; also after katra_probes_detach(). */
void katra_probes_read_skipped(const struct katra_probes *p, uint64_t *skipped, unsigned n);

/* opts.bpf_stats: each attached probe's program runs and run time, as the
 * kernel counted them (bpf_stats, BPF_ENABLE_STATS) since open.  Runs for
 * threads not traced count too (a program runs before it can tell); the
 * per-syscall programs of -e count under their probe's name.  Also after
 * katra_probes_detach(). */
#define KATRA_PROBE_NAME_MAX 48
struct katra_probe_runs {
	char name[KATRA_PROBE_NAME_MAX];
	uint64_t runs, run_ns;
};
/* Fills out[0..n) in katra_probes_attached()'s order, then the uprobe
 * layers' programs that ran (by program name: up_NtWaitForSingleObject);
 * returns how many (0 without opts.bpf_stats, or where the kernel refused
 * to count). */
unsigned katra_probes_read_runs(const struct katra_probes *p, struct katra_probe_runs *out,
				unsigned n);

/* The watermark of ring `cpu`: a time below which every record of that ring
 * is already readable, from its CPU slot (wire.h); `now` is a clock reading
 * taken BEFORE this call, `prev` the ring's previous watermark (kept while a
 * probe of that CPU is between its clock read and its commit).  Read every
 * ring's watermark, then drain the rings. */
uint64_t katra_probes_ring_watermark(const struct katra_probes *p, unsigned cpu, uint64_t now,
				     uint64_t prev);
/* The probes' wake flag (bpf/common.bpf.h, consumer_wake): while it is set
 * the first record committed clears it and wakes the rings' pollers.  The
 * drain sets it before it sleeps for want of records. */
uint32_t *katra_probes_wake_flag(const struct katra_probes *p);
/* How many processes the probes began to track so far (forks, joins). */
uint64_t katra_probes_task_news(const struct katra_probes *p);
/* Per CPU, 8 words apart (bpf/common.bpf.h, mark_wake): the producer
 * position of its ring at which the next commit wakes the rings' pollers,
 * once (the probes clear it); 0 for none. */
uint64_t *katra_probes_mark_wake(const struct katra_probes *p);
/* Whether a CPU holds staged records not yet in its ring. */
bool katra_probes_any_staged(const struct katra_probes *p);
/* After katra_probes_detach(): the syscall CPU `cpu` was in when the probes
 * went away (its enter was never written), if any: 1 and *slot filled, or 0. */
int katra_probes_inflight_syscall(const struct katra_probes *p, unsigned cpu,
				  struct katra_cpu_slot *slot);

/* Detach every probe (nothing more reaches the rings), the syscall probes
 * first, and wait until no probe program is still running; drain the rings
 * after.  0, or -ETIMEDOUT when a CPU stayed busy for KATRA_DETACH_WAIT_MS
 * (its last records may then be missing). */
#define KATRA_DETACH_WAIT_MS 2000
int katra_probes_detach(struct katra_probes *p);
/* Whether TaskExit's group_dead is the kernel's own (the last thread, for
 * sure), not read from signal->live. */
bool katra_probes_exact_group_dead(const struct katra_probes *p);
/* Whether uprobe programs can read their attach cookie (5.15+). */
bool katra_probes_have_attach_cookie(const struct katra_probes *p);
/* Whether the uprobe programs attach as uprobe_multi links (Linux 6.6, not
 * under KATRA_TEST_NO_UPROBE_MULTI): "NAME_multi" is loaded instead of
 * NAME. */
bool katra_probes_uprobe_multi(const struct katra_probes *p);
/* Why not, when not: a static string; NULL when they are used. */
const char *katra_probes_uprobe_multi_off(const struct katra_probes *p);
/* A uprobe_multi link of the loaded program prog at path + offsets[i],
 * cookies[i] (NULL: 0), uretprobes when ret, for every process: its fd,
 * or -errno. */
struct bpf_program;
int katra_probes_attach_uprobe_multi(const struct bpf_program *prog, const char *path,
				     const uint64_t *offsets, const uint64_t *cookies,
				     uint32_t cnt, bool ret);
/* Whether probe `name` ("sched_switch", ...) is attached. */
bool katra_probes_is_attached(const struct katra_probes *p, const char *name);
/* The loaded program NAME ("up_NtReadFile", ...) for attachments made
 * elsewhere (uprobes.c), or NULL.  The Wine layer's programs are loaded at
 * the first call that names one of them (probes_late.c: ~0.1 s). */
struct bpf_program;
struct bpf_program *katra_probes_program(struct katra_probes *p, const char *name);
/* The fd of the loaded map NAME ("ucall_states", ...), or -ENOENT. */
int katra_probes_map_fd(const struct katra_probes *p, const char *name);

/* Detach and free everything; NULL is fine. */
void katra_probes_destroy(struct katra_probes *p);

#endif /* KATRA_PROBES_H */
