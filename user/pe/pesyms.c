// SPDX-License-Identifier: GPL-2.0-only
/* A PE32+ file's COFF symbol table (pesyms.h).  Layout (PE/COFF spec): the
 * file header's PointerToSymbolTable (at +12 after "PE\0\0") and
 * NumberOfSymbols (+16); 18-byte records: Name[8] (or 4 zero bytes then an
 * offset into the string table), Value u32 (the offset in its section),
 * SectionNumber i16 (1-based), Type u16 (0x20: function), StorageClass u8
 * (2 external, 3 static), NumberOfAuxSymbols u8 (records that follow); the
 * string table right after the records, its u32 size first (counting
 * itself). */
#include <errno.h>
#include <string.h>

#include "pesyms.h"

#define COFF_SYM 18
#define COFF_FUNCTION 0x20
#define COFF_EXTERNAL 2
#define COFF_STATIC 3
#define SCN_EXECUTE 0x20000000u
#define PAGE 4096u

/* The symbol's name in name[0..len) (no NUL needed): false when it points
 * outside the string table, or is longer than look bytes (no name looked
 * for is: a string table without NULs, which every record points into,
 * would make each record's scan as long as the table); *work += the bytes
 * looked at. */
static bool sym_name(const uint8_t *sym, const uint8_t *strs, uint64_t nstrs, size_t look,
		     const char **name, size_t *len, uint64_t *work)
{
	if (katra_rd32(sym)) {
		const void *nul = memchr(sym, 0, 8);
		*name = (const char *)sym;
		*len = nul ? (size_t)((const uint8_t *)nul - sym) : 8;
		*work += 8;
		return true;
	}
	uint32_t off = katra_rd32(sym + 4);
	if (off < 4 || off >= nstrs)
		return false;
	uint64_t left = nstrs - off < look + 1 ? nstrs - off : look + 1;
	const void *nul = memchr(strs + off, 0, left);
	*work += nul ? (uint64_t)((const uint8_t *)nul - (strs + off)) + 1 : left;
	if (!nul)
		return false;
	*name = (const char *)strs + off;
	*len = (size_t)((const uint8_t *)nul - (strs + off));
	return true;
}

int katra_pe_coff_functions(const struct katra_blob *dll, const char *const *names, uint32_t n,
			    uint64_t *offs)
{
	uint64_t work;

	return katra_pe_coff_functions_counted(dll, names, n, offs, &work);
}

int katra_pe_coff_each(const struct katra_blob *dll, size_t look, katra_coff_fn fn, void *ctx,
		       uint64_t *work)
{
	struct katra_pe pe;
	const uint8_t *p = dll->p;
	uint64_t symoff, nsyms, strsoff, nstrs = 0;
	int err = katra_pe_open(dll, &pe);

	if (err)
		return err;
	/* the file header is just before the optional header */
	symoff = katra_rd32(p + pe.opt - 20 + 8);
	nsyms = katra_rd32(p + pe.opt - 20 + 12);
	if (!symoff || !nsyms)
		return -ENOENT;
	if (nsyms > KATRA_PE_SYMS_MAX)
		return -EFBIG;
	if (!katra_in_blob(dll, symoff, nsyms * COFF_SYM))
		return -ENOENT;
	strsoff = symoff + nsyms * COFF_SYM;
	if (katra_in_blob(dll, strsoff, 4)) {
		nstrs = katra_rd32(p + strsoff);
		if (nstrs < 4 || !katra_in_blob(dll, strsoff, nstrs))
			nstrs = 0;
	}
	for (uint64_t i = 0; i < nsyms; i += 1 + (uint64_t)p[symoff + i * COFF_SYM + 17]) {
		const uint8_t *s = p + symoff + i * COFF_SYM;
		uint16_t sec = katra_rd16(s + 12), type = katra_rd16(s + 14);
		const char *name;
		size_t len;

		++*work;
		if (type != COFF_FUNCTION || (s[16] != COFF_EXTERNAL && s[16] != COFF_STATIC) ||
		    sec < 1 || sec > pe.nsec ||
		    !sym_name(s, p + strsoff, nstrs, look, &name, &len, work))
			continue;
		const uint8_t *h = p + pe.sec + 40ull * (sec - 1);
		err = fn(ctx, name, len, h, katra_rd32(s + 8));
		if (err)
			return err;
	}
	return 0;
}

/* The names looked for, and what was found */
struct want {
	const struct katra_blob *dll;
	const char *const *names;
	uint32_t n;
	uint64_t *offs;
	int found;
};

static int match(void *ctx, const char *name, size_t len, const uint8_t *h, uint32_t value)
{
	struct want *w = ctx;

	for (uint32_t k = 0; k < w->n; k++) {
		if (w->offs[k] != UINT64_MAX || strlen(w->names[k]) != len ||
		    memcmp(w->names[k], name, len))
			continue;
		uint32_t va = katra_rd32(h + 12), raw = katra_rd32(h + 20);
		uint32_t rsize = katra_rd32(h + 16), flags = katra_rd32(h + 36);
		if (!(flags & SCN_EXECUTE) || value >= rsize ||
		    !katra_in_blob(w->dll, (uint64_t)raw + value, 1))
			return 0;
		if ((raw | va) % PAGE)
			return -ENOTSUP;
		w->offs[k] = (uint64_t)raw + value;
		w->found++;
		return 0;
	}
	return 0;
}

int katra_pe_coff_functions_counted(const struct katra_blob *dll, const char *const *names,
				    uint32_t n, uint64_t *offs, uint64_t *work)
{
	struct want w = { dll, names, n, offs, 0 };
	size_t look = 0;

	*work = 0;
	for (uint32_t i = 0; i < n; i++) {
		offs[i] = UINT64_MAX;
		if (strlen(names[i]) > look)
			look = strlen(names[i]);
	}
	int err = katra_pe_coff_each(dll, look, match, &w, work);
	return err ? err : w.found;
}
