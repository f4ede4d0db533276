// SPDX-License-Identifier: GPL-2.0-only
/* Names read from Wine's binaries (winenames.h): bounds-checked ELF64 and
 * PE32+ readers over a file held in memory. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "katra/wire.h"
#include "winenames.h"

int katra_blob_read(const char *path, size_t max, struct katra_blob *b)
{
	struct stat st;
	size_t got = 0;
	int fd;

	b->p = NULL;
	b->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	b->p = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b->p) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, b->p + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	b->len = got;
	return 0;
}

void katra_blob_free(struct katra_blob *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

void katra_names_free(char **names, uint32_t count)
{
	if (!names)
		return;
	for (uint32_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

static bool in_blob(const struct katra_blob *b, uint64_t off, uint64_t len)
{
	return off <= b->len && len <= b->len - off;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* ---- PE32+: the export table and the Nt* stubs ---- */

struct pe {
	const struct katra_blob *b;
	uint32_t nsec;
	uint64_t sec; /* offset of the section table */
};

/* The file offset of rva, or UINT64_MAX. */
static uint64_t pe_off(const struct pe *pe, uint32_t rva)
{
	for (uint32_t i = 0; i < pe->nsec; i++) {
		const uint8_t *s = pe->b->p + pe->sec + 40ull * i;
		uint32_t va = rd32(s + 12), vsize = rd32(s + 8), raw = rd32(s + 20),
			 rsize = rd32(s + 16);
		uint32_t size = vsize > rsize ? vsize : rsize;
		if (rva >= va && rva - va < size && rva - va < rsize)
			return (uint64_t)raw + (rva - va);
	}
	return UINT64_MAX;
}

static const char *pe_str(const struct pe *pe, uint32_t rva)
{
	uint64_t off = pe_off(pe, rva);

	if (off >= pe->b->len || !memchr(pe->b->p + off, 0, pe->b->len - off))
		return NULL;
	return (const char *)pe->b->p + off;
}

int katra_pe_nt_names(const struct katra_blob *dll, char ***out, uint32_t *count)
{
	const uint8_t *p = dll->p;
	struct pe pe = { .b = dll };
	uint32_t lfanew, exp_rva, nnames, funcs, namesp, ords, nfuncs;
	uint64_t opt, eoff;
	uint16_t optsize;
	char **names;
	uint32_t top = 0, found = 0;

	*out = NULL;
	*count = 0;
	if (!in_blob(dll, 0, 64) || p[0] != 'M' || p[1] != 'Z')
		return -ENOEXEC;
	lfanew = rd32(p + 0x3c);
	if (!in_blob(dll, lfanew, 24) || memcmp(p + lfanew, "PE\0\0", 4))
		return -ENOEXEC;
	pe.nsec = rd16(p + lfanew + 6);
	optsize = rd16(p + lfanew + 20);
	opt = lfanew + 24ull;
	/* PE32+ (0x20b); the export directory is data directory 0, at 112 */
	if (!in_blob(dll, opt, optsize) || optsize < 120 || rd16(p + opt) != 0x20b)
		return -ENOEXEC;
	exp_rva = rd32(p + opt + 112);
	pe.sec = opt + optsize;
	if (!in_blob(dll, pe.sec, 40ull * pe.nsec))
		return -ENOEXEC;
	eoff = pe_off(&pe, exp_rva);
	if (eoff == UINT64_MAX || !in_blob(dll, eoff, 40))
		return -ENOEXEC;
	nfuncs = rd32(p + eoff + 20);
	nnames = rd32(p + eoff + 24);
	funcs = rd32(p + eoff + 28);
	namesp = rd32(p + eoff + 32);
	ords = rd32(p + eoff + 36);
	uint64_t fo = pe_off(&pe, funcs), no = pe_off(&pe, namesp), oo = pe_off(&pe, ords);
	if (fo == UINT64_MAX || no == UINT64_MAX || oo == UINT64_MAX ||
	    !in_blob(dll, fo, 4ull * nfuncs) || !in_blob(dll, no, 4ull * nnames) ||
	    !in_blob(dll, oo, 2ull * nnames))
		return -ENOEXEC;
	names = calloc(KATRA_NT_MAX, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (uint32_t i = 0; i < nnames; i++) {
		const char *name = pe_str(&pe, rd32(p + no + 4ull * i));
		uint16_t ord = rd16(p + oo + 2ull * i);
		uint64_t code;
		uint32_t nr;

		if (!name || strncmp(name, "Nt", 2) || ord >= nfuncs)
			continue;
		code = pe_off(&pe, rd32(p + fo + 4ull * ord));
		/* mov r10, rcx (4c 8b d1); mov eax, imm32 (b8) */
		if (code == UINT64_MAX || !in_blob(dll, code, 8) ||
		    memcmp(p + code, "\x4c\x8b\xd1\xb8", 4))
			continue;
		nr = rd32(p + code + 4);
		if (nr >= KATRA_NT_MAX || names[nr])
			continue; /* another table's (0x1000 + n), or an alias */
		names[nr] = strdup(name);
		if (!names[nr])
			break;
		found++;
		if (nr + 1 > top)
			top = nr + 1;
	}
	if (!found) {
		free(names);
		return -ENOEXEC;
	}
	*out = names;
	*count = top;
	return 0;
}

/* ---- ELF64 ---- */

static const Elf64_Ehdr *elf_hdr(const struct katra_blob *b)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->p;

	if (!in_blob(b, 0, sizeof(*eh)) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_blob(b, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    !in_blob(b, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) ||
	    ((eh->e_shoff | eh->e_phoff) & 7))
		return NULL;
	return eh;
}

static const Elf64_Shdr *elf_shdr(const struct katra_blob *b, unsigned i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->p;

	if (i >= eh->e_shnum)
		return NULL;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(b->p + eh->e_shoff) + i;
	if (sh->sh_type != SHT_NOBITS && !in_blob(b, sh->sh_offset, sh->sh_size))
		return NULL;
	return sh;
}

/* The file offset of vaddr (len bytes in one PT_LOAD's file part), or
 * UINT64_MAX; exec: only in an executable segment. */
static uint64_t elf_off(const struct katra_blob *b, uint64_t vaddr, uint64_t len, bool exec)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->p;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(b->p + eh->e_phoff);

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || (exec && !(ph[i].p_flags & PF_X)))
			continue;
		if (vaddr >= ph[i].p_vaddr && vaddr - ph[i].p_vaddr <= ph[i].p_filesz &&
		    len <= ph[i].p_filesz - (vaddr - ph[i].p_vaddr)) {
			uint64_t off = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
			return in_blob(b, off, len) ? off : UINT64_MAX;
		}
	}
	return UINT64_MAX;
}

/* Each defined dynamic symbol, until fn returns true. */
static const Elf64_Sym *each_dynsym(const struct katra_blob *b,
				    bool (*fn)(const char *name, const Elf64_Sym *s, const void *arg),
				    const void *arg, const char **name_out)
{
	const Elf64_Ehdr *eh = elf_hdr(b);

	for (unsigned i = 0; eh && i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = elf_shdr(b, i), *str;
		if (!sh || sh->sh_type != SHT_DYNSYM || sh->sh_entsize != sizeof(Elf64_Sym) ||
		    (sh->sh_offset & 7) || !(str = elf_shdr(b, sh->sh_link)))
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(b->p + sh->sh_offset);
		for (uint64_t k = 0; k < sh->sh_size / sizeof(*sym); k++) {
			if (sym[k].st_shndx == SHN_UNDEF || !sym[k].st_value ||
			    sym[k].st_name >= str->sh_size)
				continue;
			const char *nm = (const char *)b->p + str->sh_offset + sym[k].st_name;
			if (!memchr(nm, 0, str->sh_size - sym[k].st_name))
				continue;
			if (fn(nm, &sym[k], arg)) {
				if (name_out)
					*name_out = nm;
				return &sym[k];
			}
		}
	}
	return NULL;
}

static bool sym_named(const char *name, const Elf64_Sym *s, const void *arg)
{
	(void)s;
	return !strcmp(name, arg);
}

static bool sym_func_at(const char *name, const Elf64_Sym *s, const void *arg)
{
	(void)name;
	return ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_value == *(const uint64_t *)arg;
}

uint64_t katra_elf_dynsym(const struct katra_blob *elf, const char *name)
{
	const Elf64_Sym *s = each_dynsym(elf, sym_named, name, NULL);

	return s ? s->st_value : 0;
}

const char *katra_elf_dynsym_at(const struct katra_blob *elf, uint64_t vaddr)
{
	const char *name = NULL;

	return each_dynsym(elf, sym_func_at, &vaddr, &name) ? name : NULL;
}

/* The R_X86_64_RELATIVE relocations: (r_offset, r_addend), in file order. */
struct rel {
	const Elf64_Rela *r;
	uint64_t n;
};

static size_t elf_relas(const struct katra_blob *b, struct rel *out, size_t cap)
{
	const Elf64_Ehdr *eh = elf_hdr(b);
	size_t n = 0;

	for (unsigned i = 0; eh && i < eh->e_shnum && n < cap; i++) {
		const Elf64_Shdr *sh = elf_shdr(b, i);
		if (!sh || sh->sh_type != SHT_RELA || sh->sh_entsize != sizeof(Elf64_Rela) ||
		    (sh->sh_offset & 7))
			continue;
		out[n].r = (const Elf64_Rela *)(b->p + sh->sh_offset);
		out[n].n = sh->sh_size / sizeof(Elf64_Rela);
		n++;
	}
	return n;
}

static bool relative_at(const struct rel *rs, size_t nrs, uint64_t vaddr, uint64_t *addend)
{
	for (size_t i = 0; i < nrs; i++) {
		/* relocations are sorted by offset in practice: binary search,
		 * then a linear look if that fails */
		uint64_t lo = 0, hi = rs[i].n;
		while (lo < hi) {
			uint64_t mid = (lo + hi) / 2;
			if (rs[i].r[mid].r_offset < vaddr)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint64_t k = lo; k < rs[i].n && rs[i].r[k].r_offset == vaddr; k++)
			if (ELF64_R_TYPE(rs[i].r[k].r_info) == R_X86_64_RELATIVE) {
				*addend = (uint64_t)rs[i].r[k].r_addend;
				return true;
			}
	}
	return false;
}

uint64_t katra_elf_pointer(const struct katra_blob *elf, uint64_t vaddr)
{
	struct rel rs[8];
	size_t nrs;
	uint64_t v = 0, off;

	if (!elf_hdr(elf))
		return 0;
	nrs = elf_relas(elf, rs, 8);
	if (relative_at(rs, nrs, vaddr, &v))
		return v;
	off = elf_off(elf, vaddr, 8, false);
	if (off != UINT64_MAX)
		memcpy(&v, elf->p + off, 8);
	return v;
}

/* The slots (8-byte aligned vaddrs) whose pointer is target: relocations
 * first, then raw words of the file (a non-PIE binary). */
static size_t slots_to(const struct katra_blob *b, const struct rel *rs, size_t nrs,
		       uint64_t target, uint64_t *out, size_t cap)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->p;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(b->p + eh->e_phoff);
	size_t n = 0;

	for (size_t i = 0; i < nrs; i++)
		for (uint64_t k = 0; k < rs[i].n && n < cap; k++)
			if (ELF64_R_TYPE(rs[i].r[k].r_info) == R_X86_64_RELATIVE &&
			    (uint64_t)rs[i].r[k].r_addend == target && !(rs[i].r[k].r_offset & 7))
				out[n++] = rs[i].r[k].r_offset;
	if (n || eh->e_type != ET_EXEC)
		return n;
	for (unsigned i = 0; i < eh->e_phnum && n < cap; i++) {
		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_X) ||
		    !in_blob(b, ph[i].p_offset, ph[i].p_filesz))
			continue;
		for (uint64_t o = (8 - (ph[i].p_vaddr & 7)) & 7; o + 8 <= ph[i].p_filesz && n < cap;
		     o += 8) {
			uint64_t v;
			memcpy(&v, b->p + ph[i].p_offset + o, 8);
			if (v == target)
				out[n++] = ph[i].p_vaddr + o;
		}
	}
	return n;
}

static uint64_t ptr_at(const struct katra_blob *b, const struct rel *rs, size_t nrs,
		       uint64_t vaddr)
{
	uint64_t v = 0, off;

	if (relative_at(rs, nrs, vaddr, &v))
		return v;
	if (((const Elf64_Ehdr *)b->p)->e_type != ET_EXEC)
		return 0;
	off = elf_off(b, vaddr, 8, false);
	if (off != UINT64_MAX)
		memcpy(&v, b->p + off, 8);
	return v;
}

int katra_elf_find_table(const struct katra_blob *elf, uint64_t fn0, uint64_t fn1,
			 uint64_t *table, uint32_t *count)
{
	struct rel rs[8];
	uint64_t cand[16];
	size_t nrs, nc;

	if (!elf_hdr(elf) || !fn0 || !fn1)
		return -ENOENT;
	nrs = elf_relas(elf, rs, 8);
	nc = slots_to(elf, rs, nrs, fn0, cand, 16);
	for (size_t i = 0; i < nc; i++) {
		uint32_t n = 1;
		if (ptr_at(elf, rs, nrs, cand[i] + 8) != fn1)
			continue;
		while (n < KATRA_NT_MAX) {
			uint64_t f = ptr_at(elf, rs, nrs, cand[i] + 8ull * n);
			if (!f || elf_off(elf, f, 1, true) == UINT64_MAX)
				break;
			n++;
		}
		*table = cand[i];
		*count = n;
		return 0;
	}
	return -ENOENT;
}

/* A NUL-terminated lower-case identifier at vaddr: its length, else 0. */
static size_t ident_at(const struct katra_blob *b, uint64_t vaddr, const char **s)
{
	uint64_t off = elf_off(b, vaddr, 1, false);
	size_t n = 0;

	if (off == UINT64_MAX)
		return 0;
	while (off + n < b->len && n < 128) {
		char c = (char)b->p[off + n];
		if (!c)
			break;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
		n++;
	}
	if (!n || off + n >= b->len || b->p[off + n])
		return 0;
	*s = (const char *)b->p + off;
	return n;
}

int katra_wineserver_requests(const struct katra_blob *elf, char ***out, uint32_t *count)
{
	static const char first[] = "new_process";
	const Elf64_Ehdr *eh = elf_hdr(elf);
	struct rel rs[8];
	uint64_t best_slot = 0, cand[16];
	uint32_t best = 0;
	size_t nrs;

	*out = NULL;
	*count = 0;
	if (!eh)
		return -ENOEXEC;
	nrs = elf_relas(elf, rs, 8);
	/* every "new_process\0" that starts a string, as a vaddr */
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf->p + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_X) ||
		    !in_blob(elf, ph[i].p_offset, ph[i].p_filesz))
			continue;
		const uint8_t *seg = elf->p + ph[i].p_offset;
		size_t len = ph[i].p_filesz, pos = 0;
		while (pos + sizeof(first) <= len) {
			const uint8_t *at = memmem(seg + pos, len - pos, first, sizeof(first));
			if (!at)
				break;
			size_t o = (size_t)(at - seg);
			pos = o + 1;
			if (o && seg[o - 1])
				continue; /* the end of a longer string */
			size_t nc = slots_to(elf, rs, nrs, ph[i].p_vaddr + o, cand, 16);
			for (size_t k = 0; k < nc; k++) {
				const char *str;
				uint32_t n = 0;
				while (n < KATRA_NT_MAX &&
				       ident_at(elf, ptr_at(elf, rs, nrs, cand[k] + 8ull * n), &str))
					n++;
				if (n > best) {
					best = n;
					best_slot = cand[k];
				}
			}
		}
	}
	if (best < 64)
		return -ENOENT;
	char **names = calloc(best, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (uint32_t n = 0; n < best; n++) {
		const char *s;
		size_t len = ident_at(elf, ptr_at(elf, rs, nrs, best_slot + 8ull * n), &s);
		names[n] = strndup(s, len);
		if (!names[n]) {
			katra_names_free(names, n);
			return -ENOMEM;
		}
	}
	*out = names;
	*count = best;
	return 0;
}

int katra_wine_nt_abi(const uint8_t *code, size_t n)
{
	static const uint8_t ms[2][3] = { { 0x4c, 0x89, 0xd1 }, { 0x49, 0x8b, 0xca } };
	static const uint8_t sysv[2][3] = { { 0x4c, 0x89, 0xd7 }, { 0x49, 0x8b, 0xfa } };

	for (size_t i = n >= 3 ? n - 3 + 1 : 0; i-- > 0;)
		for (int k = 0; k < 2; k++) {
			if (!memcmp(code + i, ms[k], 3))
				return 0;
			if (!memcmp(code + i, sysv[k], 3))
				return KATRA_NT_ABI_SYSV;
		}
	return -ENOENT;
}
