/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the probes loader (probes.c: open, rings, tracking, attach, notes;
 * probes_kernel.c: what the running kernel offers and which flavour each
 * probe loads as): the state they share and the helpers they call. */
#ifndef KATRA_RECORD_PROBES_INT_H
#define KATRA_RECORD_PROBES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "probes.h"
#include "select.h"

#define PROBE_MAX 48

struct bpf_link;
struct bpf_program;
struct btf;
struct katra_bpf;

struct probe {
	const char *name;            /* tracepoint name, e.g. "sys_enter" */
	struct bpf_program *use;     /* the flavour that is loaded, NULL if none */
	const char *lacks;           /* why this kernel cannot carry it, or NULL */
	struct bpf_link *link;
	int fexit_err;               /* fexit programs: why the kernel refuses them */
};

struct ring {
	int fd;
	const unsigned long *cons; /* mmap'ed consumer / producer positions */
	const unsigned long *prod;
};

struct katra_probes {
	struct katra_bpf *skel;
	const struct katra_selection *select;
	struct probe probes[PROBE_MAX];
	unsigned nprobes;
	bool quiet;
	struct ring *rings;
	unsigned nrings;
	uint32_t ring_bytes;
	uint32_t max_tgids;
	uint32_t detach_pause_ms;
	size_t scan_words;      /* words of the tracked bitmaps scanned (pid_words) */
	const char *attached[PROBE_MAX];
	size_t nattached;
	char *failed[PROBE_MAX];
	size_t nfailed;
	size_t nfallback;      /* of those, off by an expected fallback (is_fallback) */
	unsigned fallback_said; /* the fallback's line of information was printed */
	int stats_fd;           /* bpf_stats on while open (--bpf-stats), or -1 */
	struct pk_fn *fn;       /* per-syscall attach (probes_fn.c), NULL: tracepoints */
	char syscall_note[KATRA_NOTE_MAX]; /* which syscall path ran, under -e */
	bool uprobe_multi;      /* the uprobe programs' _multi twins are loaded */
	const char *uprobe_multi_off; /* why not (static), or NULL */
	struct pk_late *late;   /* programs loaded on first use (probes_late.c) */
	struct pk_early *early; /* programs loaded first, with links (probes_early.c) */
	struct pk_bigmaps *bigmaps; /* the preallocated tables being made (probes_bigmaps.c) */
	struct pk_rings_job *rings_job; /* the rings being made (probes_rings.c) */
	struct pk_split *split; /* the syscall probes' own object (probes_split.c) */
	bool pend_in_table;     /* flushed enters in `flushed` only (--small-tables) */
	uint32_t sample_hz;     /* --sample-hz (probes_stacks.c) */
	uint32_t kstack_depth;  /* the kstacks map's frames: kernel.perf_event_max_stack or less */
	struct bpf_link **sample_links; /* one a CPU while sampling, or NULL */
	int nsample_links;
};

/* Whether map m of a second object (late, split) is the skeleton's `own`,
 * found by its name: the same shape (by type, but for pend_tasks, which the
 * loader may have made a placeholder of another type: common.bpf.h; by
 * value size, but for kstacks, sized by the sysctl: probes_stacks.c). */
static inline bool pk_same_map(const struct bpf_map *own, const struct bpf_map *m)
{
	return own && bpf_map__key_size(own) == bpf_map__key_size(m) &&
	       (bpf_map__value_size(own) == bpf_map__value_size(m) ||
		!strcmp(bpf_map__name(m), "kstacks")) &&
	       (bpf_map__type(own) == bpf_map__type(m) ||
		!strcmp(bpf_map__name(m), "pend_tasks"));
}

/* m, a second object's map, made the skeleton's own; not made where the
 * skeleton's is not (kstacks without --stacks): 0 or -errno */
static inline int pk_reuse_map(const struct bpf_map *own, struct bpf_map *m)
{
	if (!pk_same_map(own, m))
		return -ENOENT;
	if (!bpf_map__autocreate(own))
		return bpf_map__set_autocreate(m, false);
	return bpf_map__reuse_fd(m, bpf_map__fd(own));
}

/* A probe's `lacks` when its newer twin is attached instead: not a failure,
 * not a note (compared by address). */
extern const char pk_alt_in_use[];
/* ... and when what it serves is off (signal_generate ends the faults that
 * handle_mm_fault's fexit measures): not a failure either. */
extern const char pk_not_needed[];
/* the lacks of a probe attached only once it has work: the join probe, when
 * the first wineserver socket is handed to it (katra_probes_set_join_socks) */
extern const char pk_on_demand[];
/* the lacks of a GPU trace event tracefs does not list: said by the layer's
 * one note (probes_notes.c), not per probe */
extern const char pk_gpu_absent[];
/* ... and of every GPU trace event when the kernel has no DRM device:
 * said by the same note */
extern const char pk_gpu_no_device[];

/* Before load: the kernel's flags in rodata, then p->probes[] filled with
 * each tp_btf program and its raw_tp twin (one of them loaded, or neither
 * where the kernel lacks what it needs) and each fexit program that loads
 * here; force_raw picks raw_tp wherever it exists.  0 or -errno. */
int pk_choose_flavours(struct katra_probes *p, bool force_raw);

/* uprobe_multi links (probes_umulti.c): whether the kernel has them; the
 * uprobe programs' flavour (p->uprobe_multi, autoloads); a link of program
 * fd prog_fd on path (fd, or -errno). */
bool pk_have_uprobe_multi(void);
void pk_choose_uprobe_flavour(struct katra_probes *p);
int pk_uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t cnt, bool ret);
/* A _multi twin's type and attach type, set before load (libbpf 1.1 does
 * not know its section). */
void pk_uprobe_multi_type(struct bpf_program *prog);

/* Programs loaded on first use (probes_late.c): before load, the uprobe
 * layers' programs but Vulkan's are left out of the skeleton's load (most of
 * the verifier's time at start-up, for captures that never meet Wine);
 * katra_probes_program() loads them all, once, into an object of their own
 * that shares every map.  late_find: such a program, loaded now (NULL:
 * not one of them, or its load failed: said on stderr once). */
int pk_late_plan(struct katra_probes *p);
/* --bpf-stats: the uprobe layers' programs that ran, after out[0..m) (at most
 * n in all); returns the new count. */
unsigned pk_uprobe_runs(const struct katra_probes *p, struct katra_probe_runs *out, unsigned m,
			unsigned n);
struct bpf_program *pk_late_find(struct katra_probes *p, const char *name);
void pk_late_free(struct katra_probes *p);
/* The skeleton's ELF: one copy for every object opened (each file that
 * called katra_bpf__elf_bytes() had its own, 1 MiB each, all read), and
 * its pages (the executable's) out of RSS once the first objects loaded. */
void pk_elf_share(const void *elf, size_t n);
const void *pk_elf(size_t *n);
void pk_elf_drop(void);
/* A second object opened from that ELF under the skeleton's name, so that
 * its internal maps pair with the skeleton's namesakes (katra_bp.rodata,
 * katra_bp.bss); btf_path: libbpf's CO-RE BTF (NULL: the kernel's).  NULL
 * with *err = -errno on failure. */
struct bpf_object *pk_open_twin(const char *btf_path, int *err);

/* The preallocated tables made on a thread (probes_bigmaps.c): start (once
 * the skeleton is sized), use (before the split object's maps are made:
 * the skeleton takes them), free (on failure paths).  Nothing fails: what
 * was not made there the skeleton makes. */
void pk_bigmaps_start(struct katra_probes *p);
void pk_bigmaps_use(struct katra_probes *p);
void pk_bigmaps_free(struct katra_probes *p);

/* Programs loaded first, on a thread, then handed to ready(ctx, p) there
 * (probes_early.c): prefetch (right after open, ready NULL: nothing; the
 * object opened on a thread), start (after pk_split_start: the Vulkan
 * layer's programs taken from the skeleton and loaded on the maps made
 * then, unless they were not made), finish (waits for the thread and its
 * ready: before katra_probes_open returns), find (one of its programs, or
 * NULL), object (NULL: none), free (waits too, on failure paths).  0 or
 * -errno. */
int pk_early_prefetch(struct katra_probes *p, void (*ready)(void *, struct katra_probes *),
		      void *ctx);
int pk_early_start(struct katra_probes *p);
int pk_early_finish(struct katra_probes *p);
struct bpf_program *pk_early_find(struct katra_probes *p, const char *name);
struct bpf_object *pk_early_object(const struct katra_probes *p);
void pk_early_free(struct katra_probes *p);

/* The rings (probes_rings.c), made on a thread of their own while the
 * programs load: start (p->nrings, p->ring_bytes set; p->rings allocated
 * here), use (before load: waits for the array of rings and has the
 * skeleton take it), finish (waits until every ring is in the array: before
 * attach), mapped (waits for their mappings: before p->rings[].cons/prod
 * are read), end (ends the thread, once the fill's grace period is over:
 * before p->rings is freed).  0 or -errno. */
int pk_rings_start(struct katra_probes *p);
int pk_rings_use(struct katra_probes *p);
int pk_rings_finish(struct katra_probes *p);
int pk_rings_mapped(struct katra_probes *p);
void pk_rings_end(struct katra_probes *p);

/* The BPF load spread over the CPUs (probes_split.c): prefetch (right after
 * open: the kernel's BTF parsed for the skeleton and for a second object on
 * threads); skel_ready (waits for the skeleton's, before the skeleton is
 * touched again); start (after the flavours' choice and pk_rings_use, before
 * load: makes the maps the skeleton has not been given, loads sys_enter and
 * sys_exit into the second object on a thread); finish (after load: waits,
 * then each split probe's `use` is the second object's program); free
 * (waits too, on failure paths).  0 or -errno. */
int pk_split_prefetch(struct katra_probes *p);
bool pk_btf_mappable(void);
/* While on, every btf__load_vmlinux_btf() returns one shared copy, parsed
 * by the first caller (probes_btf.c); off: each parses its own again, and
 * the shared copy is freed by its last holder's btf__free(). */
void pk_btf_share(bool on);
/* The CO-RE relocations' types' essential names, from the object's ELF
 * (.BTF.ext) and its BTF: the shared
 * copy parsed while they are set blanks the names of the kernel's structs
 * and unions that no program type names, for libbpf's CO-RE candidate
 * search (probes_btfnames.c).  keep_names: 0 or -ENOMEM (then nothing is
 * blanked); blank_names: the copy, before its first reader; keep_free: off. */
int pk_btf_keep_names(const struct btf *local, const void *elf, size_t elf_size);
void pk_btf_blank_names(const struct btf *btf);
void pk_btf_keep_free(void);
bool pk_btf_keep_ready(void);
/* whether name's essential name is a relocated type's; *follow: whether a
 * type-based relocation of it reads past its candidates' kind */
bool pk_btf_name_kept(const char *name, bool *follow);
/* The kernel's BTF cut to what libbpf's CO-RE relocations can reach, ids
 * kept (probes_btfcore.c): NULL on failure.  pk_btf_core_path: the path
 * to open objects with as btf_custom_path, whose btf__parse() returns it
 * (probes_btf.c), or NULL where it is not used (module BTFs, no sharing,
 * KATRA_TEST_FULL_BTF=1). */
struct btf *pk_btf_core_build(const struct btf *vmlinux);
const char *pk_btf_core_path(void);
/* The cut kept by an earlier capture (btfcache.h, probes_btfcore.c): NULL
 * where none holds; key (cap bytes) is this run's, for pk_btf_core_keep,
 * which keeps a cut just made. */
struct btf *pk_btf_core_cached(char *key, size_t cap);
void pk_btf_core_keep(const char *key, const struct btf *core);
/* An index of a BTF's typedefs by name (probes_btfindex.c), for the shared
 * copy's lookups: build (NULL: no memory), find (what
 * btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) finds: the first id,
 * or -ENOENT; name not empty), free. */
struct pk_btf_index;
struct pk_btf_index *pk_btf_index_build(const struct btf *btf);
int pk_btf_index_find(const struct pk_btf_index *ix, const struct btf *btf, const char *name);
void pk_btf_index_free(struct pk_btf_index *ix);
void pk_split_skel_ready(struct katra_probes *p);
int pk_split_start(struct katra_probes *p);
int pk_split_finish(struct katra_probes *p);
void pk_split_free(struct katra_probes *p);

/* Whether an fexit program on FUNC loads and attaches here.  0 or -errno. */
struct btf;
int pk_probe_fexit(const struct btf *vmlinux, const char *func);

/* Per-syscall attach (probes_fn.c).  Before load: choose it under a narrowed
 * -e where fexit works (the fn_ programs retargeted and autoloaded, p->fn
 * set), else leave the tracepoints; the note says which.  0 or -errno. */
int pk_fn_plan(struct katra_probes *p, const struct btf *vmlinux);
/* The program that carries probe "sys_enter"/"sys_exit" instead of the
 * tracepoint's, or NULL when the tracepoints stay. */
struct bpf_program *pk_fn_program(struct katra_probes *p, const char *probe);
/* After load: a copy of each program for every other function.  0 or -errno. */
int pk_fn_load_copies(struct katra_probes *p);
/* Attach / detach the copies of probe "sys_enter" or "sys_exit" (the
 * skeleton's own program is the probe's link).  0 or the first -errno. */
int pk_fn_attach(struct katra_probes *p, const char *probe);
void pk_fn_detach(struct katra_probes *p, const char *probe);
struct bpf_prog_info;
/* Adds the per-syscall programs' run counts, run time and skipped runs of
 * probe ("sys_enter" or "sys_exit") to *sum. */
void pk_fn_add_info(const struct katra_probes *p, const char *probe, struct bpf_prog_info *sum);
void pk_fn_free(struct katra_probes *p);

/* The staging areas (probes_staging.c): enable them where user space can flush one
 * on request (after load); the smallest key CPU cpu holds staged (0: none);
 * flush CPU cpu's (0 or -errno), or every CPU's that holds records. */
void pk_stage_enable(struct katra_probes *p);
uint64_t pk_staged_key(const struct katra_probes *p, unsigned cpu);
int pk_stage_flush(const struct katra_probes *p, unsigned cpu);
void pk_stage_flush_all(const struct katra_probes *p);

/* An fexit program the kernel refuses (no BPF trampolines, or no such
 * function in its BTF): the tracepoint path goes on without what it measured.
 * The only fexit programs are handle_mm_fault's (page faults as instants, the
 * line attach_one says).  Not a probe -e left out. */
static inline bool is_fallback(const struct probe *pr)
{
	return pr->fexit_err && !pr->lacks;
}

/* probes_stacks.c: the stack maps' sizes, one entry each when off; the
 * sampling program loaded only with sample_hz; the samples stopped (again: none) */
int pk_stacks_size(struct katra_probes *p, bool on, uint32_t sample_hz);
void pk_sample_stop(struct katra_probes *p);

/* KATRA_TIMING=1: the end of a step of the probes' load on stderr, in ms
 * since the load began (the first step), with the process's CPU time then
 * (all threads); any thread may call it (probes_split.c) */
void pk_timing(const char *step);

#endif
