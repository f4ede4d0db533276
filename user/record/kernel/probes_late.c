// SPDX-License-Identifier: GPL-2.0-only
/* Programs loaded on first use.  The verifier spends most of the start-up on
 * the uprobe layers' programs (the Wine NT layer's walk of nested calls:
 * ~100 ms of ~130 on this kind of machine), which a capture that never meets
 * Wine never runs.  They are left out of the skeleton's load; the first
 * lookup of one (the uprobes worker, about to attach it: a Wine launcher
 * before its command runs, a Wine process's ntdll.so at start or when one
 * maps it) loads them all into a second object opened from the same ELF,
 * every map of which is the skeleton's own (bpf_map__reuse_fd: the rings,
 * the tables, .bss and the frozen .rodata the verifier reads).  The Vulkan
 * layer's programs stay in the skeleton: cheap to verify, and a command's
 * drivers are probed before it runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

struct pk_late {
	pthread_mutex_t lock;
	const char **names;     /* the programs left out (the skeleton's strings) */
	size_t n;
	struct bpf_object *obj; /* loaded once asked for */
	int err;                /* its load's: then nothing more is tried */
};

/* The uprobe layers' programs (bpf/wine.bpf.c, bpf/vulkan.bpf.c: up_*, ur_*)
 * but Vulkan's. */
static bool loads_late(const char *name)
{
	if (strncmp(name, "up_", 3) && strncmp(name, "ur_", 3))
		return false;
	return strncmp(name, "up_vk", 5) && strncmp(name, "ur_vulkan", 9);
}

int pk_late_plan(struct katra_probes *p)
{
	struct bpf_program *prog;
	struct pk_late *l;
	size_t cap = 0;

	if (getenv("KATRA_TEST_LOAD_ALL")) /* tests: everything at start, as before */
		return 0;
	bpf_object__for_each_program(prog, p->skel->obj)
		cap++;
	l = calloc(1, sizeof(*l));
	if (!l || !(l->names = calloc(cap, sizeof(*l->names)))) {
		free(l);
		return -ENOMEM;
	}
	pthread_mutex_init(&l->lock, NULL);
	/* after the twins' choice: only the one in use is named */
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);

		if (!bpf_program__autoload(prog) || !loads_late(name))
			continue;
		bpf_program__set_autoload(prog, false);
		l->names[l->n++] = name;
	}
	p->late = l;
	return 0;
}

static bool is_late(const struct pk_late *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

/* The second object: the late programs only, on the skeleton's maps. */
static int load_late(struct katra_probes *p, struct pk_late *l)
{
	struct bpf_program *prog;
	struct bpf_map *m;
	struct bpf_object *obj;
	int err;

	obj = pk_open_twin(NULL, &err);
	if (!obj)
		return err;
	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		bool late = is_late(l, name);

		bpf_program__set_autoload(prog, late);
		if (late && p->uprobe_multi && strstr(name, "_multi"))
			pk_uprobe_multi_type(prog);
	}
	err = 0;
	bpf_object__for_each_map(m, obj) {
		struct bpf_map *own = bpf_object__find_map_by_name(p->skel->obj, bpf_map__name(m));

		err = pk_reuse_map(own, m);
		if (err)
			break;
	}
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		bpf_object__close(obj);
		return err;
	}
	l->obj = obj;
	return 0;
}

struct bpf_program *pk_late_find(struct katra_probes *p, const char *name)
{
	struct pk_late *l = p->late;
	struct bpf_program *prog = NULL;

	if (!l || !is_late(l, name))
		return NULL;
	pthread_mutex_lock(&l->lock);
	if (!l->obj && !l->err) {
		l->err = load_late(p, l);
		if (l->err)
			fprintf(stderr, "katra-record: cannot load the BPF programs of the uprobe "
				"layers (Wine): %s\n", strerror(-l->err));
	}
	if (l->obj)
		prog = bpf_object__find_program_by_name(l->obj, name);
	pthread_mutex_unlock(&l->lock);
	return prog;
}

void pk_late_free(struct katra_probes *p)
{
	struct pk_late *l = p->late;

	if (!l)
		return;
	bpf_object__close(l->obj);
	pthread_mutex_destroy(&l->lock);
	free(l->names);
	free(l);
	p->late = NULL;
}

/* The uprobe layers' programs that ran (up_*, ur_*: the skeleton's loaded
 * ones, the late object's and the early one's), by program name, after out[0..m); returns
 * the new count (at most n). */
unsigned pk_uprobe_runs(const struct katra_probes *p, struct katra_probe_runs *out, unsigned m,
			unsigned n)
{
	struct bpf_object *objs[3] = { p->skel->obj, p->late ? p->late->obj : NULL,
				       pk_early_object(p) };
	struct bpf_program *prog;

	for (int i = 0; i < 3; i++) {
		if (!objs[i])
			continue;
		bpf_object__for_each_program(prog, objs[i]) {
			const char *name = bpf_program__name(prog);
			struct bpf_prog_info info;
			__u32 len = sizeof(info);
			int fd = bpf_program__fd(prog);

			memset(&info, 0, sizeof(info));
			if (m >= n || fd < 0 || (strncmp(name, "up_", 3) && strncmp(name, "ur_", 3)) ||
			    bpf_obj_get_info_by_fd(fd, &info, &len) || !info.run_cnt)
				continue;
			snprintf(out[m].name, sizeof(out[m].name), "%s", name);
			out[m].runs = info.run_cnt;
			out[m].run_ns = info.run_time_ns;
			m++;
		}
	}
	return m;
}

struct bpf_program *katra_probes_program(struct katra_probes *p, const char *name)
{
	struct bpf_program *prog;

	if (!p || !p->skel)
		return NULL;
	prog = pk_late_find(p, name); /* loaded now if it was left for later */
	if (!prog)
		prog = pk_early_find(p, name);
	return prog ? prog : bpf_object__find_program_by_name(p->skel->obj, name);
}
