// SPDX-License-Identifier: GPL-2.0-only
/* What the layers' probes (uprobes_wine.c, uprobes_vk.c) share: names and
 * failures, ELF symbols and offsets (libelf), attaching per file (pid -1),
 * and the files already probed.  It calls none of the layers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "uprobes_int.h"
#include "winenames.h"

/* ---- ELF: symbols and virtual addresses as file offsets ---- */

int up_elf_open(int fd, struct elf_file *ef, const char **why)
{
	GElf_Ehdr eh;

	ef->e = NULL;
	ef->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (ef->fd < 0) {
		*why = strerror(errno);
		return -errno;
	}
	if (elf_version(EV_CURRENT) == EV_NONE || !(ef->e = elf_begin(ef->fd, ELF_C_READ, NULL)) ||
	    elf_kind(ef->e) != ELF_K_ELF || !gelf_getehdr(ef->e, &eh)) {
		*why = "not an ELF file";
		goto bad;
	}
	if (gelf_getclass(ef->e) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		*why = "not an x86_64 ELF file (32-bit libraries are not probed)";
		goto bad;
	}
	return 0;
bad:
	if (ef->e)
		elf_end(ef->e);
	close(ef->fd);
	ef->e = NULL;
	ef->fd = -1;
	return -ENOEXEC;
}

void up_elf_close(struct elf_file *ef)
{
	if (ef->e)
		elf_end(ef->e);
	if (ef->fd >= 0)
		close(ef->fd);
}

/* The file offset of virtual address vaddr (in a PT_LOAD with file bytes). */
int up_elf_vaddr_to_offset(Elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* A symbol table's strings: in a section of type SHT_STRTAB that ends in a
 * NUL.  libelf's elf_strptr looks for a NUL from the table's end on each
 * call when the last byte is none: a crafted file's symbols would cost
 * (symbols x table size). */
static bool strtab_ends_in_nul(Elf *e, size_t index)
{
	Elf_Scn *scn = elf_getscn(e, index);
	GElf_Shdr sh;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return false;
	d = elf_getdata(scn, NULL);
	return d && d->d_buf && d->d_size && !((const char *)d->d_buf)[d->d_size - 1];
}

/* A defined symbol's value (the first .dynsym, then the first .symtab);
 * -ENOENT when absent. */
int up_elf_symbol(Elf *e, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	for (int pass = 0; pass < 2; pass++) {
		uint32_t want = pass ? SHT_SYMTAB : SHT_DYNSYM;
		scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize ||
			    !strtab_ends_in_nul(e, sh.sh_link))
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			size_t n = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				const char *sn;
				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
					continue;
				sn = elf_strptr(e, sh.sh_link, s.st_name);
				if (sn && !strcmp(sn, name)) {
					*value = s.st_value;
					return 0;
				}
			}
			break; /* ELF allows one table of each type */
		}
	}
	return -ENOENT;
}

/* ---- attaching ---- */

int up_keep_link(struct katra_uprobes *u, struct bpf_link *l)
{
	if (u->nlinks == u->cap_links) {
		size_t cap = u->cap_links ? 2 * u->cap_links : 32;
		struct bpf_link **m = realloc(u->links, cap * sizeof(*m));
		if (!m) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		u->links = m;
		u->cap_links = cap;
	}
	u->links[u->nlinks++] = l;
	return 0;
}

/* Attaches program prog_name at path+offset (ret: as a uretprobe): a
 * perf-event link, or where the kernel has them queued for a uprobe_multi
 * link (up_attach_multi). */
int up_attach_cookie(struct katra_uprobes *u, const char *label, const char *prog_name,
			 const char *path, uint64_t offset, bool ret, uint64_t cookie)
{
	struct bpf_program *prog;
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = cookie);
	struct bpf_link *l;
	char *s, kpath[32];
	int err;

	if (katra_probes_uprobe_multi(u->probes))
		return up_attach_multi(u, label, prog_name, path, offset, ret, cookie);
	if ((err = up_via_name(u, label, path, kpath, sizeof(kpath))))
		return err;
	prog = katra_probes_program(u->probes, prog_name);
	if (!prog) {
		up_failed(u, label, "no BPF program %s", prog_name);
		return -ENOENT;
	}
	l = bpf_program__attach_uprobe_opts(prog, -1, kpath, (size_t)offset, &uo);
	if (!l) {
		err = -errno;
		up_failed(u, label, "%s at %s+0x%llx: %s", ret ? "uretprobe" : "uprobe", path,
		       (unsigned long long)offset, strerror(-err));
		return err ? err : -EINVAL;
	}
	err = up_keep_link(u, l);
	if (err)
		return err;
	if (asprintf(&s, "%s %s", ret ? "uretprobe" : "uprobe", label) >= 0)
		up_add_name(u->attached, &u->nattached, s);
	return 0;
}

int up_attach_at(struct katra_uprobes *u, const char *label, const char *prog_name,
		     const char *path, uint64_t offset, bool ret)
{
	return up_attach_cookie(u, label, prog_name, path, offset, ret, 0);
}

/* A function's entry (and return, when ret_prog): label "FILE:NAME". */
int up_attach_function(struct katra_uprobes *u, Elf *e, const char *path, const char *sym,
			   const char *entry_prog, const char *ret_prog)
{
	char label[160];
	uint64_t value, off;
	int n = 0;

	snprintf(label, sizeof(label), "%.96s:%.60s", up_base_name(path), sym);
	if (up_elf_symbol(e, sym, &value)) {
		up_failed(u, label, "no such symbol in %s", path);
		return 0;
	}
	if (up_elf_vaddr_to_offset(e, value, &off)) {
		up_failed(u, label, "address 0x%llx of the symbol is in no loadable segment of %s",
		       (unsigned long long)value, path);
		return 0;
	}
	/* the return first: a call is seen whole or not at all (one begun while
	 * only the entry was attached would have no End) */
	if (ret_prog && !up_attach_at(u, label, ret_prog, path, off, true))
		n++;
	if (!up_attach_at(u, label, entry_prog, path, off, false))
		n++;
	return n;
}

struct probed_file *up_find_file(struct katra_uprobes *u, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].dev == dev && u->files[i].ino == ino)
			return &u->files[i];
	return NULL;
}

struct probed_file *up_add_file(struct katra_uprobes *u, const struct stat *st,
				    const char *path, unsigned what)
{
	/* each new inode a traced process maps costs a read and a parse: a
	 * capture probes at most UP_FILES_MAX of them, said once */
	if (u->nfiles >= u->files_max) {
		if (!u->files_capped) {
			u->files_capped = true;
			up_failed(u, "uprobes", "%s and any later file: not probed (more than %zu "
				  "files probed in one capture)", path, u->files_max);
		}
		return NULL;
	}
	if (u->nfiles == u->cap_files) {
		size_t cap = u->cap_files ? 2 * u->cap_files : 8;
		struct probed_file *m = realloc(u->files, cap * sizeof(*m));
		if (!m)
			return NULL;
		u->files = m;
		u->cap_files = cap;
	}
	struct probed_file *f = &u->files[u->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->what = what;
	snprintf(f->path, sizeof(f->path), "%s", path);
	return f;
}
