// SPDX-License-Identifier: GPL-2.0-only
/* Per-syscall attach for -e (bpf/syscalls_fn.bpf.c): where the kernel runs
 * BPF trampolines, the selected syscalls get an fentry and an fexit program
 * on their __x64_sys_* function and the raw syscall tracepoints stay off, so
 * an unselected syscall costs nothing (the tracepoints put every syscall of
 * every task on the slow path).  A tracing program is bound to one function
 * when it loads: the skeleton's pair is loaded for the first function and a
 * copy of its relocated instructions for each other one.  A function the
 * kernel's BTF lacks (or types otherwise: the SYSCALL_DEFINE0 ones, fork,
 * vfork, rt_sigreturn) gets a kprobe and a kretprobe instead; a child's
 * return from clone/fork, which passes no fexit, is written at its
 * schedule_tail.  Where trampolines are refused, or a function needs a
 * kprobe and the kernel has none, the tracepoints stay, filtered in the
 * kernel; the header's note says which path ran. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

struct pk_fn_target {
	uint32_t nr;
	int btf_id;            /* 0: kprobes on fn */
	bool exists;           /* in the BTF or kallsyms (else: not in this kernel) */
	bool returns;          /* exit and exit_group never do: no fexit */
	int prog[2], link[2];  /* [0] enter, [1] exit; -1 if none, -2 the skeleton's own */
	struct bpf_link *kprobe[2];
	char fn[48];
};

struct pk_fn {
	unsigned n, nkprobes;
	struct bpf_link *child_return;
	struct pk_fn_target t[KATRA_SELECT_NR_LIMIT];
};

static const char tp_note[] = "syscalls: raw tracepoints, filtered in the kernel";

/* Whether an fexit program on FUNC loads and attaches here: some kernels
 * (or sandboxes) refuse BPF trampolines, and one program the kernel refuses
 * would fail the whole object's load.  0 or -errno. */
int pk_probe_fexit(const struct btf *vmlinux, const char *func)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FEXIT);
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) : -ENOENT;
	int fd, link, err = 0;

	if (id <= 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	link = bpf_link_create(fd, 0, BPF_TRACE_FEXIT, NULL);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(fd);
	return err;
}

static bool narrowed(const struct katra_selection *sel)
{
	return sel && (sel->classes & KATRA_SEL_ALL) != KATRA_SEL_ALL &&
	       !(sel->classes & KATRA_SEL_SYSCALLS);
}

/* The tracepoints stay: say so, and why per-syscall attach did not happen. */
static int keep_tracepoints(struct katra_probes *p, const char *why, int err)
{
	snprintf(p->syscall_note, sizeof(p->syscall_note), "%s (no per-syscall attach: %s%s%s)",
		 tp_note, why, err ? ": " : "", err ? strerror(-err) : "");
	return 0;
}

/* Whether BTF function id takes the user registers, as every __x64_sys_*
 * wrapper does (an fentry program reads them as its argument); some
 * kernels' BTF gives a wrapper another function's prototype. */
static bool takes_regs(const struct btf *vmlinux, const struct btf_type *t)
{
	t = btf__type_by_id(vmlinux, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) != 1)
		return false;
	t = btf__type_by_id(vmlinux, btf_params(t)[0].type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(vmlinux, t->type);
	while (t && (btf_is_const(t) || btf_is_typedef(t) || btf_is_volatile(t)))
		t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_struct(t) && !strcmp(btf__name_by_offset(vmlinux, t->name_off), "pt_regs");
}

static struct pk_fn_target *target_named(struct pk_fn *f, const char *fn)
{
	for (unsigned i = 0; i < f->n; i++)
		if (!strcmp(f->t[i].fn, fn))
			return &f->t[i];
	return NULL;
}

/* One pass over the kernel's BTF (a lookup by name is a linear scan): each
 * target's fentry-able function, and which ones the BTF has at all. */
static void find_in_btf(struct pk_fn *f, const struct btf *vmlinux)
{
	__u32 n = btf__type_cnt(vmlinux);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(vmlinux, id);
		const char *name;
		struct pk_fn_target *tg;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(vmlinux, t->name_off);
		if (!name || strncmp(name, "__x64_sys_", 10) || !(tg = target_named(f, name)))
			continue;
		tg->exists = true;
		if (takes_regs(vmlinux, t))
			tg->btf_id = (int)id;
	}
}

/* One pass over /proc/kallsyms: which targets the BTF lacks the kernel has. */
static void find_in_kallsyms(struct pk_fn *f)
{
	char line[256];
	FILE *ks = fopen("/proc/kallsyms", "re");

	if (!ks)
		return;
	while (fgets(line, sizeof(line), ks)) {
		char *name = strrchr(line, ' ');
		struct pk_fn_target *tg;

		if (!name || strncmp(name + 1, "__x64_sys_", 10))
			continue;
		name[1 + strcspn(name + 1, "\n\t")] = '\0';
		if ((tg = target_named(f, name + 1)))
			tg->exists = true;
	}
	fclose(ks);
}

/* The skeleton's fn_ and kp_ programs load only on the per-syscall path. */
static void autoload(struct katra_probes *p, bool fentry, bool kprobes)
{
	bpf_program__set_autoload(p->skel->progs.fn_sys_enter, fentry);
	bpf_program__set_autoload(p->skel->progs.fn_sys_exit, fentry);
	bpf_program__set_autoload(p->skel->progs.fn_child_return, fentry);
	bpf_program__set_autoload(p->skel->progs.kp_sys_enter, kprobes);
	bpf_program__set_autoload(p->skel->progs.kp_sys_exit, kprobes);
}

static int plan(struct katra_probes *p, const struct btf *vmlinux, struct pk_fn *f)
{
	char missing[KATRA_NOTE_MAX] = "";
	size_t mlen = 0;
	int err, first = -1, first_exit = -1;

	/* first what decides on most machines, cheaply: trampolines at all */
	err = pk_probe_fexit(vmlinux, "__x64_sys_close");
	if (err)
		return keep_tracepoints(p, "fexit refused here", err);
	if (btf__find_by_name_kind(vmlinux, "schedule_tail", BTF_KIND_FUNC) <= 0)
		return keep_tracepoints(p, "no schedule_tail in this kernel's BTF", 0);
	for (uint32_t nr = 0; nr < KATRA_SELECT_NR_LIMIT; nr++) {
		const char *name;

		if (!katra_select_has_nr(p->select, nr))
			continue;
		name = katra_select_fn_name(nr);
		if (!name)
			return keep_tracepoints(p, "a selected syscall has no known function", 0);
		struct pk_fn_target *t = &f->t[f->n++];
		snprintf(t->fn, sizeof(t->fn), "__x64_sys_%s", name);
		t->nr = nr;
		t->returns = nr != 60 && nr != 231; /* exit, exit_group */
		t->prog[0] = t->prog[1] = t->link[0] = t->link[1] = -1;
	}
	find_in_btf(f, vmlinux);
	find_in_kallsyms(f);
	for (unsigned i = 0; i < f->n; i++) {
		struct pk_fn_target *t = &f->t[i];

		if (!t->exists) {
			/* a syscall this kernel does not have (futex_waitv before
			 * 5.16): its calls fail with ENOSYS, unrecorded */
			mlen += (size_t)snprintf(missing + mlen,
						 mlen < sizeof(missing) ? sizeof(missing) - mlen : 0,
						 "%s%s", mlen ? ", " : "", t->fn + 10);
			memmove(t, t + 1, (f->n - i - 1) * sizeof(*t));
			f->n--;
			i--;
			continue;
		}
		if (!t->btf_id)
			f->nkprobes++;
		else if (first < 0)
			first = (int)i;
		if (t->btf_id && t->returns && first_exit < 0)
			first_exit = (int)i;
	}
	if (first < 0 || first_exit < 0)
		return keep_tracepoints(p, "no selected syscall function in this kernel's BTF", 0);
	if (f->nkprobes && access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		return keep_tracepoints(p, "some selected syscalls' functions need kprobes, and this "
					"kernel has none", 0);
	err = bpf_program__set_attach_target(p->skel->progs.fn_sys_enter, 0, f->t[first].fn);
	if (!err)
		err = bpf_program__set_attach_target(p->skel->progs.fn_sys_exit, 0,
						     f->t[first_exit].fn);
	if (err)
		return err;
	/* the skeleton's programs serve the first function of each kind */
	f->t[first].prog[0] = -2;
	f->t[first_exit].prog[1] = -2;
	int len = snprintf(p->syscall_note, sizeof(p->syscall_note),
			   "syscalls: attached per syscall (fentry, %u functions", f->n - f->nkprobes);
	if (f->nkprobes && len > 0 && (size_t)len < sizeof(p->syscall_note))
		len += snprintf(p->syscall_note + len, sizeof(p->syscall_note) - (size_t)len,
				"; kprobes, %u functions", f->nkprobes);
	if (len > 0 && (size_t)len < sizeof(p->syscall_note))
		snprintf(p->syscall_note + len, sizeof(p->syscall_note) - (size_t)len, ")%s%s",
			 mlen ? "; not in this kernel: " : "", missing);
	return 1;
}

int pk_fn_plan(struct katra_probes *p, const struct btf *vmlinux)
{
	struct pk_fn *f;
	int r;

	autoload(p, false, false);
	p->syscall_note[0] = '\0';
	if (!narrowed(p->select))
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	r = plan(p, vmlinux, f);
	if (r <= 0) {
		free(f);
		return r;
	}
	autoload(p, true, f->nkprobes > 0);
	p->fn = f;
	return 0;
}

struct bpf_program *pk_fn_program(struct katra_probes *p, const char *probe)
{
	if (!p->fn)
		return NULL;
	if (!strcmp(probe, "sys_enter"))
		return p->skel->progs.fn_sys_enter;
	if (!strcmp(probe, "sys_exit"))
		return p->skel->progs.fn_sys_exit;
	return NULL;
}

int pk_fn_load_copies(struct katra_probes *p)
{
	struct bpf_program *progs[2] = { p->skel->progs.fn_sys_enter, p->skel->progs.fn_sys_exit };

	if (!p->fn)
		return 0;
	for (unsigned i = 0; i < p->fn->n; i++) {
		struct pk_fn_target *t = &p->fn->t[i];

		for (int k = 0; k < 2; k++) {
			LIBBPF_OPTS(bpf_prog_load_opts, opts,
				    .expected_attach_type = bpf_program__expected_attach_type(progs[k]),
				    .attach_btf_id = (__u32)t->btf_id);
			if (t->prog[k] == -2 || !t->btf_id || (k == 1 && !t->returns))
				continue;
			t->prog[k] = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(progs[k]),
						   "GPL", bpf_program__insns(progs[k]),
						   bpf_program__insn_cnt(progs[k]), &opts);
			if (t->prog[k] < 0) {
				int err = -errno;

				fprintf(stderr, "katra-record: cannot load the %s program for syscall %u: %s\n",
					k ? "fexit" : "fentry", t->nr, strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

int pk_fn_attach(struct katra_probes *p, const char *probe)
{
	int k = !strcmp(probe, "sys_exit"), first_err = 0;
	struct bpf_program *kp = k ? p->skel->progs.kp_sys_exit : p->skel->progs.kp_sys_enter;

	if (!p->fn)
		return 0;
	for (unsigned i = 0; i < p->fn->n; i++) {
		struct pk_fn_target *t = &p->fn->t[i];
		int err = 0;

		if (!t->btf_id && (!k || t->returns) && !t->kprobe[k]) {
			t->kprobe[k] = bpf_program__attach_kprobe(kp, k, t->fn);
			err = t->kprobe[k] ? 0 : -errno;
		} else if (t->prog[k] >= 0 && t->link[k] < 0) {
			t->link[k] = bpf_raw_tracepoint_open(NULL, t->prog[k]);
			err = t->link[k] < 0 ? -errno : 0;
		}
		if (err && !first_err) {
			first_err = err;
			fprintf(stderr, "katra-record: cannot attach to %s: %s\n", t->fn, strerror(-err));
		}
	}
	if (k && !p->fn->child_return) {
		p->fn->child_return = bpf_program__attach(p->skel->progs.fn_child_return);
		if (!p->fn->child_return && !first_err)
			first_err = -errno;
	}
	return first_err;
}

void pk_fn_detach(struct katra_probes *p, const char *probe)
{
	int k = !strcmp(probe, "sys_exit");

	if (!p->fn)
		return;
	for (unsigned i = 0; i < p->fn->n; i++) {
		struct pk_fn_target *t = &p->fn->t[i];

		if (t->link[k] >= 0) {
			close(t->link[k]);
			t->link[k] = -1;
		}
		bpf_link__destroy(t->kprobe[k]);
		t->kprobe[k] = NULL;
	}
	if (k) {
		bpf_link__destroy(p->fn->child_return);
		p->fn->child_return = NULL;
	}
}

void pk_fn_add_info(const struct katra_probes *p, const char *probe, struct bpf_prog_info *sum)
{
	int k = !strcmp(probe, "sys_exit");

	if (k == 0 && strcmp(probe, "sys_enter"))
		return;
	for (unsigned i = 0; p->fn && i < p->fn->n; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (p->fn->t[i].prog[k] < 0 || bpf_obj_get_info_by_fd(p->fn->t[i].prog[k], &info, &len))
			continue;
		sum->recursion_misses += info.recursion_misses;
		sum->run_cnt += info.run_cnt;
		sum->run_time_ns += info.run_time_ns;
	}
}

void pk_fn_free(struct katra_probes *p)
{
	if (!p->fn)
		return;
	pk_fn_detach(p, "sys_exit");
	pk_fn_detach(p, "sys_enter");
	for (unsigned i = 0; i < p->fn->n; i++)
		for (int k = 0; k < 2; k++)
			if (p->fn->t[i].prog[k] >= 0)
				close(p->fn->t[i].prog[k]);
	free(p->fn);
	p->fn = NULL;
}

const char *katra_probes_syscall_path(const struct katra_probes *p)
{
	return p->syscall_note[0] ? p->syscall_note : NULL;
}
