// SPDX-License-Identifier: GPL-2.0-only
/* Names read from Wine's binaries (winenames.h): bounds-checked ELF64 and
 * PE32+ readers over a file held in memory.  The files come from whatever a
 * traced process maps (root reads them): every offset is checked against
 * the file, and every loop is bounded by the file's size times a constant
 * (header counts above what real binaries use are refused). */
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

#define ELF_PHDRS_MAX 256
#define ELF_SHDRS_MAX 4096
/* relocations of one offset looked at (more is no table of pointers) */
#define RELA_SAME_MAX 8

/* ---- PE32+: the export table and the Nt* stubs ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int katra_pe_nt_names(const struct katra_blob *dll, uint32_t table, char ***out, uint32_t *count)
{
	const uint8_t *p = dll->p;
	struct katra_pe pe;
	uint32_t exp_rva, nnames, funcs, namesp, ords, nfuncs;
	uint64_t opt, eoff;
	char **names;
	uint32_t top = 0, found = 0;

	*out = NULL;
	*count = 0;
	if (katra_pe_open(dll, &pe))
		return -ENOEXEC;
	opt = pe.opt;
	exp_rva = katra_rd32(p + opt + 112);
	eoff = katra_pe_offset(&pe, exp_rva);
	if (eoff == UINT64_MAX || !katra_in_blob(dll, eoff, 40))
		return -ENOEXEC;
	nfuncs = katra_rd32(p + eoff + 20);
	nnames = katra_rd32(p + eoff + 24);
	funcs = katra_rd32(p + eoff + 28);
	namesp = katra_rd32(p + eoff + 32);
	ords = katra_rd32(p + eoff + 36);
	uint64_t fo = katra_pe_offset(&pe, funcs), no = katra_pe_offset(&pe, namesp), oo = katra_pe_offset(&pe, ords);
	if (fo == UINT64_MAX || no == UINT64_MAX || oo == UINT64_MAX ||
	    !katra_in_blob(dll, fo, 4ull * nfuncs) || !katra_in_blob(dll, no, 4ull * nnames) ||
	    !katra_in_blob(dll, oo, 2ull * nnames))
		return -ENOEXEC;
	if (nnames > KATRA_PE_EXPORTS_MAX)
		return -E2BIG;
	names = calloc(KATRA_NT_MAX, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (uint32_t i = 0; i < nnames; i++) {
		const char *name = katra_pe_string(&pe, katra_rd32(p + no + 4ull * i));
		uint16_t ord = katra_rd16(p + oo + 2ull * i);
		uint64_t code;
		uint32_t nr;

		if (!name || strncmp(name, "Nt", 2) || ord >= nfuncs)
			continue;
		code = katra_pe_offset(&pe, katra_rd32(p + fo + 4ull * ord));
		/* mov r10, rcx (4c 8b d1); mov eax, imm32 (b8) */
		if (code == UINT64_MAX || !katra_in_blob(dll, code, 8) ||
		    memcmp(p + code, "\x4c\x8b\xd1\xb8", 4))
			continue;
		nr = katra_rd32(p + code + 4);
		if (nr >> 12 != table || names[nr & (KATRA_NT_MAX - 1)])
			continue; /* another table's (0x1000 * table + n), or an alias */
		nr &= KATRA_NT_MAX - 1;
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

	if (!katra_in_blob(b, 0, sizeof(*eh)) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum > ELF_PHDRS_MAX ||
	    eh->e_shnum > ELF_SHDRS_MAX ||
	    !katra_in_blob(b, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    !katra_in_blob(b, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) ||
	    ((eh->e_shoff | eh->e_phoff) & 7))
		return NULL;
	return eh;
}

/* Section i when its bytes are in the file (SHT_NOBITS has none: its
 * offset and size describe no bytes of the file), else NULL. */
static const Elf64_Shdr *elf_shdr(const struct katra_blob *b, unsigned i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->p;

	if (i >= eh->e_shnum)
		return NULL;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(b->p + eh->e_shoff) + i;
	if (sh->sh_type == SHT_NOBITS || !katra_in_blob(b, sh->sh_offset, sh->sh_size))
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
		if (ph[i].p_type != PT_LOAD || (exec && !(ph[i].p_flags & PF_X)) ||
		    !katra_in_blob(b, ph[i].p_offset, ph[i].p_filesz))
			continue;
		if (vaddr >= ph[i].p_vaddr && vaddr - ph[i].p_vaddr <= ph[i].p_filesz &&
		    len <= ph[i].p_filesz - (vaddr - ph[i].p_vaddr))
			return ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	}
	return UINT64_MAX;
}

/* Each defined dynamic symbol, until fn returns true: those of the first
 * SHT_DYNSYM section (ELF allows one; thousands of them over the same bytes
 * would multiply each lookup).  Its string table must end in a NUL (as ELF
 * requires), so that every name in it ends inside it. */
static const Elf64_Sym *each_dynsym(const struct katra_blob *b,
				    bool (*fn)(const char *name, const Elf64_Sym *s, const void *arg),
				    const void *arg, const char **name_out)
{
	const Elf64_Ehdr *eh = elf_hdr(b);

	for (unsigned i = 0; eh && i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = elf_shdr(b, i), *str;
		if (!sh || sh->sh_type != SHT_DYNSYM || sh->sh_entsize != sizeof(Elf64_Sym) ||
		    (sh->sh_offset & 7) || !(str = elf_shdr(b, sh->sh_link)) ||
		    str->sh_type != SHT_STRTAB || !str->sh_size ||
		    b->p[str->sh_offset + str->sh_size - 1])
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(b->p + sh->sh_offset);
		for (uint64_t k = 0; k < sh->sh_size / sizeof(*sym); k++) {
			if (sym[k].st_shndx == SHN_UNDEF || !sym[k].st_value ||
			    sym[k].st_name >= str->sh_size)
				continue;
			const char *nm = (const char *)b->p + str->sh_offset + sym[k].st_name;
			if (fn(nm, &sym[k], arg)) {
				if (name_out)
					*name_out = nm;
				return &sym[k];
			}
		}
		break;
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

uint64_t katra_elf_dynsym_sized(const struct katra_blob *elf, const char *name, uint64_t *size)
{
	const Elf64_Sym *s = each_dynsym(elf, sym_named, name, NULL);

	*size = s ? s->st_size : 0;
	return s ? s->st_value : 0;
}

uint64_t katra_elf_offset(const struct katra_blob *elf, uint64_t vaddr, uint64_t len, bool exec)
{
	return elf_hdr(elf) ? elf_off(elf, vaddr, len, exec) : UINT64_MAX;
}

const char *katra_elf_dynsym_at(const struct katra_blob *elf, uint64_t vaddr)
{
	const char *name = NULL;

	return each_dynsym(elf, sym_func_at, &vaddr, &name) ? name : NULL;
}

/* katra_elf_func_names: the slots (vaddr, index) sorted by vaddr */
struct slot {
	uint64_t vaddr;
	uint32_t i;
};

struct func_names {
	const struct slot *v;
	const char **names;
	uint32_t n;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static bool name_slots(const char *name, const Elf64_Sym *s, const void *arg)
{
	const struct func_names *f = arg;
	uint32_t lo = 0, hi = f->n;

	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC)
		return false;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->v[mid].vaddr < s->st_value)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the first symbol of a value names it; its slots are named at once */
	if (lo == f->n || f->v[lo].vaddr != s->st_value || f->names[f->v[lo].i])
		return false;
	for (uint32_t k = lo; k < f->n && f->v[k].vaddr == s->st_value; k++)
		f->names[f->v[k].i] = name;
	return false;
}

int katra_elf_func_names(const struct katra_blob *elf, const uint64_t *vaddrs, uint32_t n,
			 const char **names)
{
	struct slot *v;

	for (uint32_t i = 0; i < n; i++)
		names[i] = NULL;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = (struct slot){ vaddrs[i], i };
	qsort(v, n, sizeof(*v), cmp_slot);
	each_dynsym(elf, name_slots, &(struct func_names){ v, names, n }, NULL);
	free(v);
	return 0;
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
		for (uint64_t k = lo; k < rs[i].n && k - lo < RELA_SAME_MAX &&
				      rs[i].r[k].r_offset == vaddr; k++)
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

static bool has_u64(const uint64_t *v, size_t n, uint64_t x)
{
	return n && bsearch(&x, v, n, sizeof(*v), cmp_u64);
}

/* A growing list of vaddrs, up to max of them. */
struct u64s {
	uint64_t *v;
	size_t n, cap, max;
};

static int u64s_push(struct u64s *l, uint64_t x)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		uint64_t *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = x;
	return 0;
}

/* The slots (8-byte aligned vaddrs) whose pointer is one of targets[nt]
 * (sorted), up to out->max: relocations first, then raw words of the file
 * (a non-PIE binary); one pass over each, *work counting the positions
 * looked at.  0 or -ENOMEM. */
static int slots_to(const struct katra_blob *b, const struct rel *rs, size_t nrs,
		    const uint64_t *targets, size_t nt, struct u64s *out, uint64_t *work)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->p;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(b->p + eh->e_phoff);
	int rc = 0;

	for (size_t i = 0; i < nrs; i++)
		for (uint64_t k = 0; k < rs[i].n && out->n < out->max && !rc; k++) {
			++*work;
			if (ELF64_R_TYPE(rs[i].r[k].r_info) == R_X86_64_RELATIVE &&
			    !(rs[i].r[k].r_offset & 7) &&
			    has_u64(targets, nt, (uint64_t)rs[i].r[k].r_addend))
				rc = u64s_push(out, rs[i].r[k].r_offset);
		}
	if (rc || out->n || eh->e_type != ET_EXEC)
		return rc;
	for (unsigned i = 0; i < eh->e_phnum && out->n < out->max && !rc; i++) {
		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_X) ||
		    !katra_in_blob(b, ph[i].p_offset, ph[i].p_filesz))
			continue;
		for (uint64_t o = (8 - (ph[i].p_vaddr & 7)) & 7;
		     o + 8 <= ph[i].p_filesz && out->n < out->max && !rc; o += 8) {
			uint64_t v;
			++*work;
			memcpy(&v, b->p + ph[i].p_offset + o, 8);
			if (has_u64(targets, nt, v))
				rc = u64s_push(out, ph[i].p_vaddr + o);
		}
	}
	return rc;
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
	struct u64s cand = { .max = 16 };
	uint64_t work = 0;
	size_t nrs;
	int rc = -ENOENT;

	if (!elf_hdr(elf) || !fn0 || !fn1)
		return -ENOENT;
	nrs = elf_relas(elf, rs, 8);
	if (slots_to(elf, rs, nrs, &fn0, 1, &cand, &work))
		cand.n = 0;
	for (size_t i = 0; i < cand.n && rc; i++) {
		uint32_t n = 1;
		if (ptr_at(elf, rs, nrs, cand.v[i] + 8) != fn1)
			continue;
		while (n < KATRA_NT_MAX) {
			uint64_t f = ptr_at(elf, rs, nrs, cand.v[i] + 8ull * n);
			if (!f || elf_off(elf, f, 1, true) == UINT64_MAX)
				break;
			n++;
		}
		*table = cand.v[i];
		*count = n;
		rc = 0;
	}
	free(cand.v);
	return rc;
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

/* Every "new_process" that starts a string in a data segment, as vaddrs
 * (sorted, malloc'ed); *work counts a segment's 8-byte positions. */
static int ws_first_strings(const struct katra_blob *elf, uint64_t **out, size_t *nout,
			    uint64_t *work)
{
	static const char first[] = "new_process";
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf->p;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf->p + eh->e_phoff);
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;
	/* segments over the same bytes, again and again, would multiply it */
	uint64_t budget = *work + elf->len / 8 + ELF_PHDRS_MAX;

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_X) ||
		    !katra_in_blob(elf, ph[i].p_offset, ph[i].p_filesz))
			continue;
		*work += ph[i].p_filesz / 8 + 1;
		if (*work > budget)
			goto too_much;
		const uint8_t *seg = elf->p + ph[i].p_offset;
		size_t len = ph[i].p_filesz, pos = 0;
		while (pos + sizeof(first) <= len) {
			const uint8_t *at = memmem(seg + pos, len - pos, first, sizeof(first));
			if (!at)
				break;
			size_t o = (size_t)(at - seg);
			pos = o + sizeof(first);
			if (o && seg[o - 1])
				continue; /* the end of a longer string */
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 16;
				uint64_t *nv = realloc(v, nc * sizeof(*nv));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
				cap = nc;
			}
			v[n++] = ph[i].p_vaddr + o;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	*out = v;
	*nout = n;
	return 0;
too_much:
	free(v);
	return -E2BIG;
}

/* The table slots looked at, at most (a real wineserver's table is one run
 * of about 300) */
#define WS_RUN_WORK (64ull * (KATRA_NT_MAX + 1))

int katra_wineserver_requests_counted(const struct katra_blob *elf, char ***out, uint32_t *count,
				      uint64_t *positions)
{
	const Elf64_Ehdr *eh = elf_hdr(elf);
	uint64_t work = 0, best_slot = 0, end = 0, runs_from, *strs = NULL;
	struct u64s cand = { .max = SIZE_MAX };
	struct rel rs[8];
	uint32_t best = 0;
	size_t nrs, nstr = 0;
	int rc;

	*out = NULL;
	*count = 0;
	if (positions)
		*positions = 0;
	if (!eh)
		return -ENOEXEC;
	nrs = elf_relas(elf, rs, 8);
	/* one pass over the data for the strings, one over the relocations (or
	 * the words) for the pointers to them, then each candidate's run, in
	 * address order: a candidate inside a run already measured starts no
	 * longer one, so no slot is looked at twice */
	rc = ws_first_strings(elf, &strs, &nstr, &work);
	if (!rc && nstr)
		rc = slots_to(elf, rs, nrs, strs, nstr, &cand, &work);
	free(strs);
	if (rc)
		goto done;
	if (cand.n)
		qsort(cand.v, cand.n, sizeof(*cand.v), cmp_u64);
	runs_from = work;
	for (size_t k = 0; k < cand.n && work - runs_from < WS_RUN_WORK; k++) {
		const char *str;
		uint32_t n = 0;
		if (cand.v[k] < end)
			continue;
		while (n < KATRA_NT_MAX &&
		       ident_at(elf, ptr_at(elf, rs, nrs, cand.v[k] + 8ull * n), &str))
			n++;
		work += n + 1ull;
		end = cand.v[k] + 8ull * n;
		if (n > best) {
			best = n;
			best_slot = cand.v[k];
		}
	}
	if (best < 64) {
		rc = -ENOENT;
		goto done;
	}
	char **names = calloc(best, sizeof(*names));
	if (!names) {
		rc = -ENOMEM;
		goto done;
	}
	for (uint32_t n = 0; n < best; n++) {
		const char *s;
		size_t len = ident_at(elf, ptr_at(elf, rs, nrs, best_slot + 8ull * n), &s);
		names[n] = strndup(s, len);
		if (!names[n]) {
			katra_names_free(names, n);
			rc = -ENOMEM;
			goto done;
		}
	}
	*out = names;
	*count = best;
done:
	free(cand.v);
	if (positions)
		*positions = work;
	return rc;
}

int katra_wineserver_requests(const struct katra_blob *elf, char ***out, uint32_t *count)
{
	return katra_wineserver_requests_counted(elf, out, count, NULL);
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
