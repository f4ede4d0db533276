// SPDX-License-Identifier: GPL-2.0-only
/* uprobe_multi links (Linux 6.6): many uprobes of one program on one file
 * in one link, registered by one bpf() call and released by one close (one
 * grace period for all, not one per uprobe under the kernel's event_mutex as
 * perf-event links are).  libbpf 1.1 (Debian 12) has neither the link type
 * nor the "uprobe.multi" section: the link is made by the bpf() syscall
 * itself, the programs' type is set before load (probes_kernel.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

/* The kernel's UAPI values (linux/bpf.h of 6.6), absent from older headers */
#define UMULTI_LINK_CREATE 28         /* BPF_LINK_CREATE */
#define UMULTI_ATTACH_TYPE 48         /* BPF_TRACE_UPROBE_MULTI */
#define UMULTI_F_RETURN 1u            /* BPF_F_UPROBE_MULTI_RETURN */

/* union bpf_attr's link_create with its uprobe_multi member, as laid out
 * by the kernel (the rest of the union reads as zero: a shorter size is
 * zero-extended by bpf()) */
struct umulti_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, umulti_flags, pid;
	uint32_t pad;
};
_Static_assert(offsetof(struct umulti_attr, path) == 16, "link_create.uprobe_multi.path");
_Static_assert(offsetof(struct umulti_attr, cnt) == 48, "link_create.uprobe_multi.cnt");
_Static_assert(offsetof(struct umulti_attr, pid) == 56, "link_create.uprobe_multi.pid");

int pk_uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t cnt, bool ret)
{
	struct umulti_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = UMULTI_ATTACH_TYPE;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = cnt;
	a.umulti_flags = ret ? UMULTI_F_RETURN : 0;
	a.pid = 0; /* every process that maps the file */
	fd = syscall(__NR_bpf, UMULTI_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/* As libbpf 1.3 probes it: a program of this attach type loads, and a link
 * on "/" is refused for the file (EBADF: not a regular file), not for the
 * attach type (EINVAL before 6.6). */
bool pk_have_uprobe_multi(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = (enum bpf_attach_type)UMULTI_ATTACH_TYPE);
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	uint64_t offset = 0;
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &lo);
	if (prog < 0)
		return false;
	link = pk_uprobe_multi_link(prog, "/", &offset, NULL, 1, false);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -EBADF;
}

/* The twins (bpf/ucall.bpf.h UPROBE_TWINS): NAME and NAME_multi; only the
 * one in use loads.  Forced off (tests: the fallback is never dead code) by
 * KATRA_TEST_NO_UPROBE_MULTI. */
void pk_choose_uprobe_flavour(struct katra_probes *p)
{
	struct bpf_program *prog;
	const char *force_off = getenv("KATRA_TEST_NO_UPROBE_MULTI");

	if (force_off && *force_off)
		p->uprobe_multi_off = "turned off (KATRA_TEST_NO_UPROBE_MULTI)";
	else if (!pk_have_uprobe_multi())
		p->uprobe_multi_off = "this kernel has no uprobe_multi links (Linux 6.6)";
	p->uprobe_multi = !p->uprobe_multi_off;
	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);
		size_t len = strlen(name);
		struct bpf_program *single;
		char base[96];

		if (len < 7 || len - 6 >= sizeof(base) || strcmp(name + len - 6, "_multi") ||
		    (strncmp(name, "up_", 3) && strncmp(name, "ur_", 3)))
			continue;
		memcpy(base, name, len - 6);
		base[len - 6] = 0;
		single = bpf_object__find_program_by_name(p->skel->obj, base);
		if (single)
			bpf_program__set_autoload(single, !p->uprobe_multi);
		bpf_program__set_autoload(prog, p->uprobe_multi);
		if (p->uprobe_multi)
			pk_uprobe_multi_type(prog);
	}
}

void pk_uprobe_multi_type(struct bpf_program *prog)
{
	/* libbpf before 1.3 does not know the section */
	bpf_program__set_type(prog, BPF_PROG_TYPE_KPROBE);
	bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)UMULTI_ATTACH_TYPE);
}

bool katra_probes_uprobe_multi(const struct katra_probes *p)
{
	return p && p->uprobe_multi;
}

const char *katra_probes_uprobe_multi_off(const struct katra_probes *p)
{
	return p && !p->uprobe_multi ? p->uprobe_multi_off : NULL;
}

int katra_probes_attach_uprobe_multi(const struct bpf_program *prog, const char *path,
				     const uint64_t *offsets, const uint64_t *cookies,
				     uint32_t cnt, bool ret)
{
	int fd = prog ? bpf_program__fd(prog) : -ENOENT;

	return fd < 0 ? fd : pk_uprobe_multi_link(fd, path, offsets, cookies, cnt, ret);
}
