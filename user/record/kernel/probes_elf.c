// SPDX-License-Identifier: GPL-2.0-only
/* The skeleton's ELF, one copy for every object opened (probes_int.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "probes_int.h"

static const void *elf_data;
static size_t elf_len;

void pk_elf_share(const void *elf, size_t n)
{
	elf_data = elf;
	elf_len = n;
}

const void *pk_elf(size_t *n)
{
	*n = elf_len;
	return elf_data;
}

/* Each open parses the ELF whole, which left it resident for the whole
 * capture.  Its pages are clean file pages: dropped, they come back from
 * the page cache should the late object's open read them again. */
void pk_elf_drop(void)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)elf_data + pg - 1) & ~(pg - 1);
	uintptr_t hi = ((uintptr_t)elf_data + elf_len) & ~(pg - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

struct bpf_object *pk_open_twin(const char *btf_path, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "katra_bpf",
		    .btf_custom_path = btf_path);
	struct bpf_object *obj = bpf_object__open_mem(elf_data, elf_len, &oo);

	*err = obj ? 0 : errno ? -errno : -EINVAL;
	return obj;
}
