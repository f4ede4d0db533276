// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's BTF, mapped rather than read.  /sys/kernel/btf/vmlinux reads
 * a page per read() call: libbpf 1.1's btf__load_vmlinux_btf makes ~1,350
 * of them for 5.5 MiB (~12-20 ms here, most of it in the kernel), and a
 * start-up parses it three times (the flavours' choice, the skeleton's load,
 * the syscall probes' object: probes_split.c).  Since Linux 6.16 the file
 * can be mapped (private, read-only); parsed from the mapping it takes ~5 ms.
 * This definition takes the place of libbpf's for libbpf's own calls too
 * (it calls it through its PLT, so the executable's comes first); where the
 * file cannot be mapped, libbpf's own runs, unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "probes_int.h"

static struct btf *map_vmlinux_btf(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	struct stat st;
	void *m;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			btf = btf__new(m, (__u32)st.st_size); /* a copy: unmapped after */
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return btf;
}

/* Whether the kernel's BTF file can be mapped (Linux 6.16+). */
bool pk_btf_mappable(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *m = MAP_FAILED;

	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && st.st_size > 0)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	munmap(m, (size_t)st.st_size);
	return true;
}

struct btf *btf__load_vmlinux_btf(void)
{
	struct btf *(*libbpfs)(void);
	struct btf *btf = map_vmlinux_btf();

	if (btf)
		return btf;
	libbpfs = (struct btf *(*)(void))dlsym(RTLD_NEXT, "btf__load_vmlinux_btf");
	if (!libbpfs) {
		errno = ENOENT;
		return NULL;
	}
	return libbpfs();
}
