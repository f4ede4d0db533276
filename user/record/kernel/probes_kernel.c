// SPDX-License-Identifier: GPL-2.0-only
/* What the running kernel offers the probes, read from its BTF and by test
 * loads before the skeleton loads: the flags the programs read (rodata), and
 * which flavour each probe loads as (tp_btf, its raw_tp twin, fexit) or why
 * it stays off, since one program the kernel refuses would fail the whole
 * load. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"
#include "preempt.h"

/* The number of arguments of tracepoint NAME in the kernel's BTF (the
 * btf_trace_NAME prototype, less its ctx), or -1 when the kernel has no such
 * tracepoint. */
static int tp_args(const struct btf *vmlinux, const char *name)
{
	const struct btf_type *t;
	char tname[96];
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = vmlinux ? btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF) : -ENOENT;
	if (id <= 0)
		return -1;
	t = btf__type_by_id(vmlinux, id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_func_proto(t) ? (int)btf_vlen(t) - 1 : -1;
}

/* Whether -e leaves tracepoint tp out: its class is not selected. */
static bool not_selected(const struct katra_selection *sel, const char *tp)
{
	if (!sel)
		return false;
	if (!strcmp(tp, "sched_waking") || !strcmp(tp, "sched_wakeup_new"))
		return !(sel->classes & KATRA_SEL_SCHED);
	if (!strcmp(tp, "page_fault_user") || !strcmp(tp, "handle_mm_fault") ||
	    !strcmp(tp, "signal_generate"))
		return !(sel->classes & KATRA_SEL_MEM);
	if (!strncmp(tp, "io_uring_", 9))
		return !(sel->classes & KATRA_SEL_IO);
	return false; /* syscalls are filtered in the kernel; sched_switch flushes */
}

/* the lacks of a probe whose newer twin is attached instead (probes_int.h) */
const char pk_alt_in_use[] = "its newer name is attached";
const char pk_not_needed[] = "page faults are not measured here";
const char pk_on_demand[] = "attached when a Wine session is traced";
const char pk_gpu_absent[] = "not in this kernel's tracefs";
const char pk_gpu_no_device[] = "no DRM device in /sys/class/drm when the capture started";
static const char gpu_sched_no_btf[] =
	"the gpu_sched module has no BTF (CONFIG_DEBUG_INFO_BTF_MODULES)";

/* Whether tracefs lists trace event SYS/NAME (either mount point). */
static bool have_trace_event(const char *sys, const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s", sys, name);
	if (!access(path, F_OK))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s/%s", sys, name);
	return !access(path, F_OK);
}

/* Whether the object has a classic tracepoint program ("gp_EVENT") for
 * EVENT too. */
static bool gp_twin(struct bpf_object *obj, const char *event)
{
	char name[96];

	snprintf(name, sizeof(name), "gp_%s", event);
	return bpf_object__find_program_by_name(obj, name) != NULL;
}

/* Whether the kernel has a DRM device (a card or a render node): without
 * one no GPU driver makes fences or vblanks, and the GPU layer's programs
 * would be verified, attached (each a tracepoint's static key, patched on
 * every CPU) and detached for nothing. */
static bool have_drm_device(void)
{
	DIR *d = opendir("/sys/class/drm");
	struct dirent *de;
	bool any = false;

	while (d && !any && (de = readdir(d)))
		any = !strncmp(de->d_name, "card", 4) || !strncmp(de->d_name, "renderD", 7);
	if (d)
		closedir(d);
	return any;
}

/* Whether tracepoint tp's first argument is a pointer to struct NAME. */
static bool first_arg_is(const struct btf *vmlinux, const char *tp, const char *name)
{
	const struct btf_type *t;
	char tname[96];
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return false;
	t = btf__type_by_id(vmlinux, id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 2)
		return false;
	t = btf__type_by_id(vmlinux, btf_params(t)[1].type); /* [0] is the ctx */
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_struct(t) && !strcmp(btf__name_by_offset(vmlinux, t->name_off), name);
}

/* What the kernel offers that the programs read behind a flag (rodata), and
 * why a probe this kernel cannot carry stays off: NULL when it can. */
static const char *kernel_lacks(struct katra_probes *p, const struct btf *vmlinux,
				const char *tp)
{
	int n = tp_args(vmlinux, tp);

	if (not_selected(p->select, tp))
		return "not selected (-e)";
	if (!strcmp(tp, "io_uring_submit_sqe")) {
		/* the older name of io_uring_submit_req: one of the two, with a request */
		if (tp_args(vmlinux, "io_uring_submit_req") >= 0)
			return pk_alt_in_use;
		if (n < 0 || !first_arg_is(vmlinux, tp, "io_kiocb"))
			return "this kernel's io_uring_submit_sqe has no request to pair on";
		return NULL;
	}
	if (n < 0)
		return "not in this kernel";
	if (!strcmp(tp, "io_uring_complete")) {
		if (n != 3 && n != 7)
			return "this kernel's io_uring_complete has no request to pair on";
		p->skel->rodata->uring_complete_args = (uint32_t)n;
	}
	if (!strcmp(tp, "io_uring_cqe_overflow") && n != 5)
		return "this kernel's io_uring_cqe_overflow has another layout";
	return NULL;
}

/* What the kernel's helpers offer, told by test loads that need no BTF:
 * probed, and pend_tasks made, while the kernel's BTF is parsed on another
 * thread (the skeleton is only read meanwhile: its map's value size). */
struct kernel_helpers {
	bool task_btf, task_pt_regs, attach_cookie;
	bool task_storage; /* pend_tasks is task local storage */
	int pend_fd;       /* pend_tasks, or -errno */
};

/* pend_tasks (common.bpf.h): task local storage where tracing programs may
 * use it (5.12) with a BTF current (5.11), else a one-entry hash no program
 * reaches (have_task_storage false), since a map a program names must exist.
 * Made here, before the load, so that the split object shares it; a local
 * storage map needs a BTF of its value, here one of its own (the object's
 * is loaded only with the object). */
static int make_pend_tasks(uint32_t vsz, bool want, bool *task_storage)
{
	int fd = -1;

	want = want && libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
					       BPF_FUNC_task_storage_get, NULL) == 1;
	if (want) {
		struct btf *btf = btf__new_empty();

		if (btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) == 1 &&
		    btf__add_struct(btf, "katra_task_pend", vsz) == 2 &&
		    !btf__load_into_kernel(btf)) {
			LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC,
				    .btf_fd = btf__fd(btf), .btf_key_type_id = 1,
				    .btf_value_type_id = 2);

			fd = bpf_map_create(BPF_MAP_TYPE_TASK_STORAGE, "pend_tasks", sizeof(int),
					    vsz, 0, &mo);
		}
		btf__free(btf); /* the map holds the kernel's copy */
	}
	*task_storage = fd >= 0;
	if (fd < 0)
		fd = bpf_map_create(BPF_MAP_TYPE_HASH, "pend_tasks", sizeof(int), vsz, 1, NULL);
	return fd < 0 ? -errno : fd;
}

static void probe_helpers(struct katra_probes *p, struct kernel_helpers *h)
{
	/* bpf_get_current_task_btf(): 5.11 */
	h->task_btf = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
					      BPF_FUNC_get_current_task_btf, NULL) == 1;
	/* bpf_task_pt_regs(): 5.15 */
	h->task_pt_regs = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
						  BPF_FUNC_task_pt_regs, NULL) == 1;
	/* bpf_get_attach_cookie() for uprobes (perf-event links): 5.15 */
	h->attach_cookie = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
						   BPF_FUNC_get_attach_cookie, NULL) == 1;
	h->pend_fd = make_pend_tasks(bpf_map__value_size(p->skel->maps.pend_tasks),
				     h->task_btf && !p->pend_in_table, &h->task_storage);
}

static void set_kernel_flags(struct katra_probes *p, const struct btf *vmlinux,
			     const struct kernel_helpers *h)
{
	/* sched_process_exit(p, group_dead): 6.16; sched_switch(.., prev_state): 5.18 */
	p->skel->rodata->exit_has_group_dead = tp_args(vmlinux, "sched_process_exit") == 2;
	p->skel->rodata->switch_has_prev_state = tp_args(vmlinux, "sched_switch") >= 4;
	p->skel->rodata->have_task_btf = h->task_btf;
	/* the bpf_rdonly_cast() kfunc: 6.2 */
	p->skel->rodata->have_rdonly_cast =
		btf__find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	p->skel->rodata->have_task_pt_regs = h->task_pt_regs;
	p->skel->rodata->have_attach_cookie = h->attach_cookie;
	p->skel->rodata->have_task_storage = h->task_storage;
	p->skel->rodata->syscall_tp_unpreempted = katra_kernel_preempt_never();
}

static bool fault_fexit_usable(const struct katra_probes *p)
{
	for (unsigned i = 0; i < p->nprobes; i++)
		if (!strcmp(p->probes[i].name, "handle_mm_fault"))
			return p->probes[i].use != NULL;
	return false;
}

/* Pair each tp_btf program with its raw_tp twin; keep one of them, or
 * neither where the kernel lacks what it needs (one program the kernel
 * refuses would fail the whole load). */
int pk_choose_flavours(struct katra_probes *p, bool force_raw)
{
	struct kernel_helpers h;
	struct btf *vmlinux;
	struct bpf_program *prog;
	int err = 0;

	probe_helpers(p, &h); /* while the kernel's BTF is parsed */
	pk_timing("helpers probed");
	vmlinux = btf__load_vmlinux_btf(); /* mapped, shared: probes_btf.c */
	if (!vmlinux) {
		fprintf(stderr, "katra-record: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"katra-record needs CONFIG_DEBUG_INFO_BTF=y\n");
		if (h.pend_fd >= 0)
			close(h.pend_fd);
		return -ENOENT;
	}
	/* the skeleton's own parse, on a thread meanwhile, is over before the
	 * skeleton is touched again */
	pk_split_skel_ready(p);
	set_kernel_flags(p, vmlinux, &h);
	err = h.pend_fd < 0 ? h.pend_fd : bpf_map__reuse_fd(p->skel->maps.pend_tasks, h.pend_fd);
	if (h.pend_fd >= 0)
		close(h.pend_fd); /* the skeleton holds its own */
	if (err) {
		btf__free(vmlinux);
		return err;
	}
	pk_choose_uprobe_flavour(p);
	err = pk_fn_plan(p, vmlinux);
	if (err) {
		btf__free(vmlinux);
		return err;
	}
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);
		struct bpf_program *twin;
		struct probe *pr;
		char raw[96];

		if (strncmp(name, "tpb_", 4))
			continue;
		if (p->nprobes == PROBE_MAX) {
			err = -E2BIG;
			break;
		}
		snprintf(raw, sizeof(raw), "raw_%s", name + 4);
		twin = bpf_object__find_program_by_name(p->skel->obj, raw);
		pr = &p->probes[p->nprobes++];
		pr->name = name + 4;
		pr->lacks = kernel_lacks(p, vmlinux, pr->name);
		/* tp_btf where it works (typed, direct loads); raw_tp as the fallback
		 * and when forced (tests: a fallback is never dead code) */
		pr->use = pr->lacks ? NULL : (force_raw && twin) ? twin : prog;
		/* -e: the selected syscalls' own functions, where they can be */
		if (!pr->lacks && pk_fn_program(p, pr->name))
			pr->use = pk_fn_program(p, pr->name);
		bpf_program__set_autoload(prog, pr->use == prog);
		if (twin)
			bpf_program__set_autoload(twin, pr->use == twin);
	}
	/* fexit programs ("fx_FUNC"): only where the kernel's BTF has FUNC */
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);
		bool have_func;

		if (strncmp(name, "fx_", 3))
			continue;
		if (p->nprobes == PROBE_MAX) {
			err = -E2BIG;
			break;
		}
		struct probe *pr = &p->probes[p->nprobes++];
		bool unselected = not_selected(p->select, name + 3);

		pr->fexit_err = unselected ? -ENOENT : pk_probe_fexit(vmlinux, name + 3);
		pr->lacks = unselected ? "not selected (-e)" : NULL;
		have_func = !pr->fexit_err;
		bpf_program__set_autoload(prog, have_func);
		pr->name = name + 3;
		pr->use = have_func ? prog : NULL;
	}
	/* syscall trace events ("tp_EVENT": a process joining a Wine session):
	 * wherever the kernel has them, as it has raw_syscalls; attached only
	 * when they have work (each adds a check to every syscall's exit) */
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);

		if (strncmp(name, "tp_", 3))
			continue;
		if (p->nprobes == PROBE_MAX) {
			err = -E2BIG;
			break;
		}
		struct probe *pr = &p->probes[p->nprobes++];
		pr->name = name + 3;
		pr->use = prog;
		pr->lacks = pk_on_demand;
	}
	/* the GPU layer's trace events ("gp_EVENT", section tracepoint/SYS/EVENT;
	 * "gs_EVENT", the GPU scheduler's raw tracepoints; "gv_EVENT", raw
	 * dma_fence tracepoints, named by the program where a "gp_" one has
	 * the event too; "gw_EVENT", virtio_gpu's raw tracepoints): where
	 * tracefs lists them (a driver's module may be loaded or not) and a DRM
	 * device exists */
	bool drm = have_drm_device();
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog), *sec, *sys;
		char sysname[64];

		if (strncmp(name, "gp_", 3) && strncmp(name, "gs_", 3) && strncmp(name, "gv_", 3) &&
		    strncmp(name, "gw_", 3))
			continue;
		if (p->nprobes == PROBE_MAX) {
			err = -E2BIG;
			break;
		}
		struct probe *pr = &p->probes[p->nprobes++];
		sec = bpf_program__section_name(prog);
		sys = sec ? strchr(sec, '/') : NULL;
		snprintf(sysname, sizeof(sysname), "%.*s", sys ? (int)strcspn(sys + 1, "/") : 0,
			 sys ? sys + 1 : "");
		if (name[1] == 's')
			snprintf(sysname, sizeof(sysname), "gpu_scheduler");
		else if (name[1] == 'v')
			snprintf(sysname, sizeof(sysname), "dma_fence");
		else if (name[1] == 'w')
			snprintf(sysname, sizeof(sysname), "virtio_gpu");
		pr->name = name + 3;
		pr->lacks = !have_trace_event(sysname, pr->name) ? pk_gpu_absent
			    : !drm && !getenv("KATRA_TEST_GPU_ANYWAY") ? pk_gpu_no_device : NULL;
		if (name[1] == 'v' && gp_twin(p->skel->obj, pr->name))
			pr->name = name;
		/* the scheduler's programs read its structs by the module's BTF */
		if (!pr->lacks && name[1] == 's' && access("/sys/kernel/btf/gpu_sched", F_OK))
			pr->lacks = gpu_sched_no_btf;
		pr->use = pr->lacks ? NULL : prog;
		bpf_program__set_autoload(prog, pr->use != NULL);
	}
	/* no GPU program loads: its tables, preallocated at their full size (~1.7
	 * MiB, ~0.6 ms to make), as small as a map can be */
	bool gpu = false;
	for (unsigned i = 0; i < p->nprobes; i++) {
		const char *prog = p->probes[i].use ? bpf_program__name(p->probes[i].use) : "";

		gpu |= !strncmp(prog, "gp_", 3) || !strncmp(prog, "gs_", 3) ||
		       !strncmp(prog, "gv_", 3) || !strncmp(prog, "gw_", 3);
	}
	if (!gpu && !err) {
		err = bpf_map__set_max_entries(p->skel->maps.gpu_fences, 1);
		err = err ? err : bpf_map__set_max_entries(p->skel->maps.gpu_named, 1);
		err = err ? err : bpf_map__set_max_entries(p->skel->maps.gpu_drm_files, 1);
		err = err ? err : bpf_map__set_max_entries(p->skel->maps.gpu_flight, 1);
		err = err ? err : bpf_map__set_max_entries(p->skel->maps.gpu_totals, 1);
		err = err ? err : bpf_map__set_max_entries(p->skel->maps.gpu_fence_ptrs, 1);
		err = err ? err : bpf_map__set_max_entries(p->skel->maps.gpu_cmds, 1);
	}
	/* no fexit on handle_mm_fault: faults are instants, and the table of
	 * their starts (~1.8 MiB preallocated, ~0.5 ms to make) is never used */
	if (!err && !fault_fexit_usable(p))
		err = bpf_map__set_max_entries(p->skel->maps.fault_starts, 1);
	/* the refusals of faults end only what handle_mm_fault's fexit measures */
	for (unsigned i = 0; i < p->nprobes; i++) {
		struct probe *pr = &p->probes[i];

		if (strcmp(pr->name, "signal_generate") || pr->lacks || fault_fexit_usable(p))
			continue;
		pr->lacks = pk_not_needed;
		bpf_program__set_autoload(pr->use, false);
		pr->use = NULL;
	}
	btf__free(vmlinux);
	return err;
}
