// SPDX-License-Identifier: GPL-2.0-only
/* Loader for the katra BPF probes: sizes the maps, creates one ring per
 * possible CPU, tracks processes, attaches what it can and says what it could
 * not.  Which flavour each probe loads as (tp_btf, raw_tp, fexit) is chosen in
 * probes_kernel.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"
#include "watermark.h"
#include "record/syscalls/syscalls.h"

static int verbose_log;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* warnings (a verifier log on a failed load) always, as libbpf-tools do;
	 * info with -v, debug with -vv */
	if ((level == LIBBPF_INFO && verbose_log < 1) || (level == LIBBPF_DEBUG && verbose_log < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void say_error(const char *what, int err)
{
	fprintf(stderr, "katra-record: %s: %s%s\n", what, strerror(err),
		err == EPERM ? " (needs root, or CAP_BPF + CAP_PERFMON)" : "");
}

static uint32_t round_ring_bytes(uint32_t want, unsigned nrings)
{
	uint32_t sz = 4096;

	if (!want) {
		/* the largest power of two that keeps all rings within the budget */
		sz = KATRA_PROBES_RING_MAX;
		while (sz > KATRA_PROBES_RING_MIN && (uint64_t)sz * nrings > KATRA_PROBES_RING_BUDGET)
			sz >>= 1;
		return sz;
	}
	while (sz < want && sz < (1u << 30))
		sz <<= 1;
	return sz;
}

/* .bss made here, zeroed by the kernel: libbpf would copy its 2.5 MiB of
 * zeros into a map it made (~12 ms at start, first-touch page faults and a
 * kernel copy).  No BTF: the programs keep no lock or timer there. */
static int create_bss(struct katra_probes *p)
{
	struct bpf_map *m = p->skel->maps.bss;
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = bpf_map__map_flags(m));
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "katra_bp.bss", sizeof(uint32_t),
			    bpf_map__value_size(m), 1, &mo);
	if (fd < 0)
		return -errno;
	err = bpf_map__reuse_fd(m, fd);
	close(fd); /* the skeleton holds its own */
	return err;
}

int katra_probes_open(const struct katra_probes_opts *opts, struct katra_probes **out)
{
	struct katra_probes_opts def = KATRA_PROBES_OPTS_DEFAULT;
	struct katra_probes *p;
	size_t elf_size;
	int err, ncpu;

	*out = NULL;
	if (!opts)
		opts = &def;
	verbose_log = opts->verbose;
	libbpf_set_print(print_libbpf);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->stats_fd = -1;
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		err = ncpu ? ncpu : -EINVAL;
		say_error("cannot count possible CPUs", -err);
		goto cleanup;
	}
	if (ncpu > 1024) {
		/* records carry their CPU as a ring index: refuse rather than lose some */
		fprintf(stderr, "katra-record: this machine has %d possible CPUs; katra-record "
			"handles CPUs 0-1023 (KATRA_MAX_CPUS in bpf/common.bpf.h)\n", ncpu);
		err = -E2BIG;
		goto cleanup;
	}
	p->nrings = ncpu;
	p->quiet = opts->quiet;
	p->ring_bytes = round_ring_bytes(opts->ring_bytes, p->nrings);
	/* before load: bpf_stats count from a program's first run */
	if (opts->bpf_stats && (p->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0)
		fprintf(stderr, "katra-record: cannot turn on bpf_stats: %s (the summary has no "
			"probe runs)\n", strerror(errno));
	/* one parse of the kernel's BTF for the whole load (probes_btf.c) */
	pk_btf_share(true);
	pk_timing("begin");
	/* CO-RE against the kernel's BTF cut to what it needs (probes_btfcore.c) */
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = pk_btf_core_path());
	p->skel = katra_bpf__open_opts(&oo);
	if (!p->skel) {
		err = -errno;
		say_error("cannot open BPF probes", -err);
		goto cleanup;
	}
	/* the kernel's struct names the programs never name left out of the
	 * shared parse (probes_btfnames.c): without them, it is as before */
	const void *elf = katra_bpf__elf_bytes(&elf_size);
	pk_elf_share(elf, elf_size); /* the copy the other objects open */
	if (pk_btf_keep_names(bpf_object__btf(p->skel->obj), elf, elf_size))
		pk_btf_keep_free();
	/* the kernel's BTF for each object parsed meanwhile (probes_split.c) */
	err = pk_split_prefetch(p);
	if (!err)
		err = pk_early_prefetch(p, opts->uprobes_ready, opts->uprobes_ctx);
	if (err) {
		say_error("cannot load BPF probes", -err);
		goto cleanup;
	}
	p->skel->rodata->follow_children = opts->follow_children;
	p->skel->rodata->record_paths = opts->record_paths;
	p->skel->rodata->record_stacks = opts->stacks;
	p->skel->rodata->stack_threshold_ns = opts->stack_threshold_ns;
	err = pk_stacks_size(p, opts->stacks, opts->sample_hz);
	/* Wine's syscall frame per process (bpf/stacks.bpf.h): one entry when
	 * off; tests: another fallback offset (then only what was read from
	 * ntdll.so joins) */
	if (!err && !opts->stacks)
		err = bpf_map__set_max_entries(p->skel->maps.wine_frames, 1);
	if (getenv("KATRA_TEST_WINE_FRAME_FALLBACK"))
		p->skel->rodata->wine_frame_fallback =
			(uint32_t)strtoul(getenv("KATRA_TEST_WINE_FRAME_FALLBACK"), NULL, 0);
	if (err) {
		say_error("cannot size the stack maps", -err);
		goto cleanup;
	}
	katra_syscall_record_bitmaps((uint64_t *)p->skel->rodata->decoded_nrs,
				     (uint64_t *)p->skel->rodata->mid_nrs);
	p->skel->rodata->wakeup_bytes = opts->wakeup_bytes && opts->wakeup_bytes < p->ring_bytes
						? opts->wakeup_bytes : p->ring_bytes / 4;
	if (p->ring_bytes / 4 < p->skel->rodata->stage_limit) /* a batch: a quarter ring at most */
		p->skel->rodata->stage_limit = p->ring_bytes / 4;
	p->max_tgids = opts->max_tgids;
	p->detach_pause_ms = opts->detach_pause_ms;
	p->select = opts->select;
	if (opts->select && (opts->select->classes & KATRA_SEL_ALL) != KATRA_SEL_ALL) {
		p->skel->rodata->select_all = false;
		memcpy((void *)p->skel->rodata->selected_nrs, opts->select->nrs,
		       sizeof(opts->select->nrs));
		p->skel->rodata->record_sched = (opts->select->classes & KATRA_SEL_SCHED) != 0;
	}
	/* the table's limit is what --small-tables tests: every flushed enter
	 * goes there, none with its thread */
	p->pend_in_table = opts->small_tables != 0;
	err = opts->small_tables
		      ? bpf_map__set_max_entries(p->skel->maps.flushed, opts->small_tables) : 0;
	if (!err)
		err = create_bss(p);
	if (err) {
		say_error("cannot size BPF maps", -err);
		goto cleanup;
	}
	/* the rings and the preallocated tables are made meanwhile
	 * (probes_rings.c, probes_bigmaps.c) */
	pk_bigmaps_start(p);
	err = pk_rings_start(p);
	if (err) {
		say_error("cannot create per-CPU rings", -err);
		goto cleanup;
	}
	pk_timing("opened");
	err = pk_choose_flavours(p, opts->force_raw_tp);
	if (!err)
		err = pk_late_plan(p);
	pk_timing("flavours");
	if (err) {
		say_error("cannot choose probe flavours", -err);
		goto cleanup;
	}
	/* the array of rings, typed by ring 0 (libbpf 1.1 cannot resize its
	 * inner template), in place of the skeleton's own */
	err = pk_rings_use(p);
	if (err) {
		say_error("cannot create per-CPU rings", -err);
		goto cleanup;
	}
	/* sys_enter and sys_exit meanwhile, in an object of their own */
	pk_bigmaps_use(p);
	err = pk_split_start(p);
	if (!err) /* the Vulkan layer's programs and links meanwhile (probes_early.c) */
		err = pk_early_start(p);
	if (err) {
		say_error("cannot load BPF probes", -err);
		goto cleanup;
	}
	err = katra_bpf__load(p->skel);
	pk_timing("skeleton loaded");
	if (!err)
		err = pk_split_finish(p);
	if (!err)
		err = pk_early_finish(p);
	if (!err) /* read whole by each open: its pages out of RSS now */
		pk_elf_drop();
	pk_timing("split joined");
	if (!err) {
		err = pk_rings_finish(p);
		pk_timing("rings joined");
		if (err) {
			say_error("cannot create per-CPU rings", -err);
			goto cleanup;
		}
	}
	if (!err)
		err = pk_fn_load_copies(p);
	if (!err)
		pk_stage_enable(p);
	pk_timing("staging on");
	if (err) {
		err = err < 0 ? err : -errno;
		say_error("cannot load BPF probes", -err);
		goto cleanup;
	}
	pk_btf_share(false);
	*out = p;
	return 0;
cleanup:
	katra_probes_destroy(p);
	pk_btf_share(false);
	return err;
}

/* The tracked set is a bitmap over pids in the mmap'ed .bss, shared with the
 * probes (which set bits on fork and clear them on exit). */
#define PID_LIMIT (sizeof(p->skel->bss->tracked_bits) * 8)

int katra_probes_track_tgid(struct katra_probes *p, uint32_t tgid)
{
	if (tgid == 0 || tgid >= PID_LIMIT)
		return -EINVAL;
	if (p->max_tgids && (unsigned)katra_probes_tracked_count(p) >= p->max_tgids)
		return -ENOSPC;
	__atomic_fetch_or(&p->skel->bss->tracked_bits[tgid / 64], 1ull << (tgid % 64),
			  __ATOMIC_SEQ_CST);
	return 0;
}

int katra_probes_untrack_tgid(struct katra_probes *p, uint32_t tgid)
{
	if (tgid == 0 || tgid >= PID_LIMIT)
		return -EINVAL;
	__atomic_fetch_and(&p->skel->bss->forked_bits[tgid / 64], ~(1ull << (tgid % 64)),
			   __ATOMIC_SEQ_CST);
	__atomic_fetch_and(&p->skel->bss->tracked_bits[tgid / 64], ~(1ull << (tgid % 64)),
			   __ATOMIC_SEQ_CST);
	return 0;
}

static int attach_one(struct katra_probes *p, struct probe *pr);

int katra_probes_set_join_socks(struct katra_probes *p, const uint64_t (*socks)[2], size_t n)
{
	size_t cap = sizeof(p->skel->bss->join_socks) / sizeof(p->skel->bss->join_socks[0]) / 2;

	if (n > cap)
		return -ENOSPC;
	/* its probe, the first time it has a socket to watch */
	for (unsigned i = 0; n && i < p->nprobes; i++) {
		struct probe *pr = &p->probes[i];
		if (pr->lacks != pk_on_demand || pr->link || strcmp(pr->name, "sys_exit_connect"))
			continue;
		pr->lacks = NULL;
		int err = attach_one(p, pr);
		if (err)
			return err;
	}
	/* the count last: the probe reads only pairs it covers */
	for (size_t i = 0; i < n; i++) {
		__atomic_store_n(&p->skel->bss->join_socks[2 * i], socks[i][0], __ATOMIC_RELAXED);
		__atomic_store_n(&p->skel->bss->join_socks[2 * i + 1], socks[i][1],
				 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&p->skel->bss->join_nsocks, (uint32_t)n, __ATOMIC_RELEASE);
	return 0;
}

bool katra_probes_is_tracked(const struct katra_probes *p, uint32_t tgid)
{
	if (tgid == 0 || tgid >= PID_LIMIT)
		return false;
	uint64_t bit = 1ull << (tgid % 64);
	return (__atomic_load_n(&p->skel->bss->tracked_bits[tgid / 64], __ATOMIC_SEQ_CST) |
		__atomic_load_n(&p->skel->bss->forked_bits[tgid / 64], __ATOMIC_SEQ_CST)) & bit;
}

/* Whether process pid is gone or a zombie (all its threads have exited). */
static bool process_gone(uint32_t pid)
{
	char path[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	if (!paren || (paren[2] != 'Z' && paren[2] != 'X'))
		return false;
	/* a zombie leader may still have threads running (an exit_group in
	 * progress): gone only once the leader is all that is left */
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	DIR *d = opendir(path);
	unsigned tasks = 0;
	struct dirent *de;
	if (!d)
		return true;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			tasks++;
	closedir(d);
	return tasks <= 1;
}

/* Words of the tracked bitmaps that can hold a pid now: no pid reaches
 * kernel.pid_max (32768 on many systems: 4 KiB of each 512 KiB map).  Read at
 * every scan, as root may raise it during a capture; all of them if unknown.
 * The scans run every 100 ms and used to stream 2 MiB through the caches the
 * traced program was using. */
static size_t pid_words(struct katra_probes *p)
{
	size_t all = PID_LIMIT / 64, now;
	char buf[32];
	ssize_t n;
	int fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return all;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return all;
	buf[n] = '\0';
	unsigned long long max = strtoull(buf, NULL, 10);
	if (!max || max > PID_LIMIT)
		return all;
	/* never shrinks: pids allocated before pid_max was lowered live on */
	now = (size_t)(max + 63) / 64;
	if (now > p->scan_words)
		p->scan_words = now;
	return p->scan_words;
}

unsigned katra_probes_reap(struct katra_probes *p, void (*gone)(void *ctx, uint32_t tgid),
			   void *ctx)
{
	size_t i, n = pid_words(p);
	unsigned reaped = 0;

	for (i = 0; i < n; i++) {
		uint64_t w = __atomic_load_n(&p->skel->bss->tracked_bits[i], __ATOMIC_RELAXED) |
			     __atomic_load_n(&p->skel->bss->forked_bits[i], __ATOMIC_RELAXED);
		while (w) {
			uint32_t tgid = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(w));
			w &= w - 1;
			if (!process_gone(tgid))
				continue;
			katra_probes_untrack_tgid(p, tgid);
			if (gone)
				gone(ctx, tgid);
			reaped++;
		}
	}
	return reaped;
}

void katra_probes_forget_process(struct katra_probes *p, uint32_t tgid)
{
	int fd = bpf_map__fd(p->skel->maps.uring_ctxs);
	uint64_t key, next;
	uint32_t owner;
	bool first = true, deleted = false;

	/* the io_uring contexts it owned: their completions are its no more */
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (!bpf_map_lookup_elem(fd, &key, &owner) && owner == tgid) {
			deleted |= !bpf_map_delete_elem(fd, &key);
			first = true; /* the walk restarts after a deletion */
		}
	}
	/* after the deletions: the submits' per-CPU caches of rings in the
	 * table (io_uring.bpf.h, known_ring) ask the table again */
	if (deleted)
		__atomic_fetch_add(&p->skel->bss->uring_gen[0], 1, __ATOMIC_SEQ_CST);
	/* its Wine syscall frame's place (--stacks): a reused tgid reads none */
	if (p->skel->rodata->record_stacks)
		bpf_map_delete_elem(bpf_map__fd(p->skel->maps.wine_frames), &tgid);
}


void katra_probes_untrack_all(struct katra_probes *p)
{
	size_t n = pid_words(p);

	/* a store per word: a few tens of microseconds for every pid there is */
	for (size_t i = 0; i < n; i++) {
		__atomic_store_n(&p->skel->bss->tracked_bits[i], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->skel->bss->forked_bits[i], 0, __ATOMIC_RELAXED);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int katra_probes_tracked_count(struct katra_probes *p)
{
	size_t i, n = pid_words(p);
	int count = 0;

	for (i = 0; i < n; i++) {
		uint64_t w = __atomic_load_n(&p->skel->bss->tracked_bits[i], __ATOMIC_RELAXED) |
			     __atomic_load_n(&p->skel->bss->forked_bits[i], __ATOMIC_RELAXED);

		if (w)
			count += __builtin_popcountll(w);
	}
	return count;
}

bool katra_probes_any_forked(struct katra_probes *p)
{
	size_t n = pid_words(p);

	for (size_t i = 0; i < n; i++)
		if (__atomic_load_n(&p->skel->bss->forked_bits[i], __ATOMIC_ACQUIRE))
			return true;
	return false;
}


/* Attaches one probe: 0, or -errno (said on stderr unless quiet, and kept
 * for the header's notes). */
static int attach_one(struct katra_probes *p, struct probe *pr)
{
	char *msg;
	int err;

	pr->link = pr->use ? bpf_program__attach(pr->use) : NULL;
	/* per-syscall attach: the copies for the other functions too */
	err = pr->link ? pk_fn_attach(p, pr->name) : 0;
	if (err) {
		bpf_link__destroy(pr->link);
		pr->link = NULL;
		pk_fn_detach(p, pr->name);
		errno = -err;
	}
	if (pr->link) {
		p->attached[p->nattached++] = pr->name;
		return 0;
	}
	err = pr->lacks ? ENOENT : !pr->use ? -pr->fexit_err : errno ? errno : EINVAL;
	if (asprintf(&msg, "%s: %s", pr->name, pr->lacks ? pr->lacks : strerror(err)) < 0)
		msg = NULL;
	if (msg)
		p->failed[p->nfailed++] = msg;
	if (is_fallback(pr)) {
		/* expected where the kernel allows no BPF trampolines: one line of
		 * information, the details in the header's notes */
		p->nfallback += msg != NULL;
		if (!p->fallback_said++ && !p->quiet)
			fprintf(stderr, "katra-record: page faults are recorded as instants, "
				"without their duration (this kernel refuses fexit on %s: %s)\n",
				pr->name, strerror(err));
		return -err;
	}
	if (!p->quiet)
		fprintf(stderr, "katra-record: probe %s not attached: %s\n", pr->name,
			pr->lacks ? pr->lacks : strerror(err));
	return -err;
}

int katra_probes_attach(struct katra_probes *p)
{
	int first_err = 0;
	unsigned i;

	for (i = 0; i < p->nprobes; i++) {
		struct probe *pr = &p->probes[i];

		if (pr->link || pr->lacks == pk_alt_in_use || pr->lacks == pk_not_needed ||
		    pr->lacks == pk_on_demand || pr->lacks == pk_gpu_absent ||
		    pr->lacks == pk_gpu_no_device)
			continue;
		int err = attach_one(p, pr);
		if (err && !first_err)
			first_err = err;
	}
	/* page faults are measured only once handle_mm_fault's fexit is live */
	for (i = 0; i < p->nprobes; i++)
		if (p->probes[i].link && !strcmp(p->probes[i].name, "handle_mm_fault"))
			p->skel->bss->fault_exit_live = 1;
	return p->nattached ? 0 : (first_err ? first_err : -ENOENT);
}

unsigned katra_probes_ring_count(const struct katra_probes *p)
{
	return p->nrings;
}

int katra_probes_ring_fd(const struct katra_probes *p, unsigned i)
{
	return i < p->nrings ? p->rings[i].fd : -EINVAL;
}

uint32_t katra_probes_ring_bytes(const struct katra_probes *p)
{
	return p->ring_bytes;
}

uint64_t katra_probes_ring_unread(const struct katra_probes *p, unsigned i)
{
	if (i >= p->nrings || !p->rings[i].prod)
		return 0;
	return __atomic_load_n(p->rings[i].prod, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(p->rings[i].cons, __ATOMIC_ACQUIRE);
}

uint64_t katra_probes_read_drops(const struct katra_probes *p, uint64_t *drops, unsigned n)
{
	uint64_t total = 0;
	unsigned i;

	for (i = 0; i < p->nrings; i++) {
		uint64_t d = __atomic_load_n(&p->skel->bss->ring_drops[i], __ATOMIC_RELAXED);

		if (i < n)
			drops[i] = d;
		total += d;
	}
	for (; i < n; i++)
		drops[i] = 0;
	return total;
}

void katra_probes_read_ktable_drops(const struct katra_probes *p, uint64_t *drops, unsigned n)
{
	unsigned k = sizeof(p->skel->bss->ktable_drops) / sizeof(p->skel->bss->ktable_drops[0]);

	for (unsigned i = 0; i < n; i++)
		drops[i] = i < k ? __atomic_load_n(&p->skel->bss->ktable_drops[i], __ATOMIC_RELAXED)
				 : 0;
}

/* The bpf_prog_info of the probe katra_probes_attached() names at k, with
 * its per-syscall programs' counts added; false if it has no program. */
static bool attached_info(const struct katra_probes *p, unsigned k, struct bpf_prog_info *info)
{
	const struct probe *pr = NULL;
	__u32 len = sizeof(*info);

	for (unsigned i = 0; i < p->nprobes && !pr; i++)
		if (p->probes[i].name == p->attached[k])
			pr = &p->probes[i];
	memset(info, 0, sizeof(*info));
	if (!pr || !pr->use || bpf_obj_get_info_by_fd(bpf_program__fd(pr->use), info, &len))
		return false;
	pk_fn_add_info(p, pr->name, info);
	return true;
}

void katra_probes_read_skipped(const struct katra_probes *p, uint64_t *skipped, unsigned n)
{
	struct bpf_prog_info info;

	for (unsigned k = 0; k < n; k++)
		skipped[k] = k < p->nattached && attached_info(p, k, &info) ? info.recursion_misses
									    : 0;
}

unsigned katra_probes_read_runs(const struct katra_probes *p, struct katra_probe_runs *out,
				unsigned n)
{
	struct bpf_prog_info info;
	unsigned m = 0;

	for (unsigned k = 0; p && p->stats_fd >= 0 && k < p->nattached && m < n; k++) {
		if (!attached_info(p, k, &info))
			continue;
		snprintf(out[m].name, sizeof(out[m].name), "%s", p->attached[k]);
		out[m].runs = info.run_cnt;
		out[m].run_ns = info.run_time_ns;
		m++;
	}
	return p && p->stats_fd >= 0 ? pk_uprobe_runs(p, out, m, n) : m;
}

/* A staged record older than this is flushed by user space: the watermark
 * holds back a millisecond's records anyway (the clock skew margin). */
#define KATRA_STAGE_FLUSH_NS 1000000ull

static const struct katra_cpu_slot *slot_of(const struct katra_probes *p, unsigned cpu)
{
	return (const struct katra_cpu_slot *)&p->skel->bss->pend_words[cpu * 16];
}

/* The fields the watermark reads (watermark.h), from the maps' memory. */
static uint64_t read_slot(void *ctx, unsigned cpu, enum katra_wm_field f)
{
	const struct katra_probes *p = ctx;
	const struct katra_cpu_slot *s = slot_of(p, cpu);

	switch (f) {
	case KATRA_WM_BUSY_SEQ:
		return __atomic_load_n(&s->busy_seq, __ATOMIC_ACQUIRE);
	case KATRA_WM_STATE:
		return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	case KATRA_WM_ENTER:
		return __atomic_load_n(&s->enter_ts, __ATOMIC_ACQUIRE);
	case KATRA_WM_FAULT:
		return __atomic_load_n(&s->fault_ts, __ATOMIC_ACQUIRE);
	case KATRA_WM_STAGED:
		return pk_staged_key(p, cpu);
	}
	return 0;
}

uint64_t katra_probes_ring_watermark(const struct katra_probes *p, unsigned cpu, uint64_t now,
				     uint64_t prev)
{
	const struct katra_wm_reader r = { read_slot, (void *)p };
	uint64_t staged;

	if (cpu >= p->nrings)
		return now;
	/* records staged on that CPU, older than what this round can release
	 * (the skew margin): into its ring now, or they hold the watermark */
	staged = pk_staged_key(p, cpu);
	if (staged && staged + KATRA_STAGE_FLUSH_NS <= now)
		pk_stage_flush(p, cpu);
	return katra_wm_of_slot(&r, cpu, now, prev);
}

uint32_t *katra_probes_wake_flag(const struct katra_probes *p)
{
	return &p->skel->bss->consumer_wake[0];
}

bool katra_probes_any_staged(const struct katra_probes *p)
{
	for (unsigned i = 0; i < p->nrings; i++)
		if (pk_staged_key(p, i))
			return true;
	return false;
}

int katra_probes_inflight_syscall(const struct katra_probes *p, unsigned cpu,
				  struct katra_cpu_slot *slot)
{
	if (cpu >= p->nrings)
		return 0;
	memcpy(slot, slot_of(p, cpu), sizeof(*slot));
	return (slot->state & KATRA_SLOT_ACTIVE) != 0;
}

static void detach_probe(struct probe *pr)
{
	bpf_link__destroy(pr->link);
	pr->link = NULL;
}

/* Whether a probe of some CPU is between its busy mark and its idle one. */
static bool any_cpu_busy(const struct katra_probes *p)
{
	for (unsigned i = 0; i < p->nrings; i++)
		if (__atomic_load_n(&slot_of(p, i)->busy, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

int katra_probes_detach(struct katra_probes *p)
{
	/* the syscall probes first, while the scheduler probes still move the
	 * slot of a thread that leaves its CPU mid-syscall to `flushed` with its
	 * Begin (detached first, they let another thread's enter overwrite a
	 * blocked thread's slot: its Begin vanished).  Exit before enter: an
	 * exit is then never written without its enter (an enter without its
	 * exit gets an inferred End); what stays in a slot is taken after */
	static const char *const first[] = { "sys_exit", "sys_enter" };
	unsigned i, f, waited_ms = 0;

	pk_sample_stop(p);
	if (!p)
		return 0;
	for (f = 0; f < sizeof(first) / sizeof(first[0]); f++)
		for (i = 0; i < p->nprobes; i++)
			if (p->probes[i].link && !strcmp(p->probes[i].name, first[f])) {
				detach_probe(&p->probes[i]);
				pk_fn_detach(p, first[f]);
			}
	if (p->detach_pause_ms)
		usleep(p->detach_pause_ms * 1000u);
	for (i = 0; i < p->nprobes; i++)
		detach_probe(&p->probes[i]);
	/* a program may still run after its link is gone: tracepoint, fexit
	 * and uprobe programs run inside RCU read sections, and a global
	 * membarrier waits for a grace period; then no CPU may stay busy (a
	 * probe between its clock read and its commit) */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) && errno != EINVAL)
		usleep(10000);
	while (any_cpu_busy(p)) {
		if (waited_ms++ == KATRA_DETACH_WAIT_MS)
			return -ETIMEDOUT;
		usleep(1000);
	}
	/* no probe runs: what they staged goes into the rings for the last drain */
	pk_stage_flush_all(p);
	return 0;
}

bool katra_probes_have_attach_cookie(const struct katra_probes *p)
{
	return p->skel->rodata->have_attach_cookie;
}

bool katra_probes_exact_group_dead(const struct katra_probes *p)
{
	return p->skel->rodata->exit_has_group_dead;
}

bool katra_probes_is_attached(const struct katra_probes *p, const char *name)
{
	for (size_t i = 0; i < p->nattached; i++)
		if (!strcmp(p->attached[i], name))
			return true;
	return false;
}

int katra_probes_map_fd(const struct katra_probes *p, const char *name)
{
	struct bpf_map *m = p && p->skel ? bpf_object__find_map_by_name(p->skel->obj, name) : NULL;

	return m ? bpf_map__fd(m) : -ENOENT;
}

void katra_probes_destroy(struct katra_probes *p)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned i;

	if (!p)
		return;
	pk_rings_end(p); /* the rings' thread ends first */
	pk_early_free(p);   /* and the early object's, which may be using p */
	pk_bigmaps_free(p);
	for (i = 0; i < p->nprobes; i++)
		bpf_link__destroy(p->probes[i].link);
	pk_fn_free(p);
	pk_split_free(p);
	pk_sample_stop(p);
	for (i = 0; p->rings && i < p->nrings; i++) {
		if (p->rings[i].cons)
			munmap((void *)p->rings[i].cons, page);
		if (p->rings[i].prod)
			munmap((void *)p->rings[i].prod, page + (size_t)p->ring_bytes);
		if (p->rings[i].fd >= 0)
			close(p->rings[i].fd);
	}
	free(p->rings);
	for (i = 0; i < p->nfailed; i++)
		free(p->failed[i]);
	pk_late_free(p);
	katra_bpf__destroy(p->skel);
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	free(p);
}
