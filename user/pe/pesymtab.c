// SPDX-License-Identifier: GPL-2.0-only
/* A PE module's identity and function names (peunwind.h).  Identity: the
 * file header's TimeDateStamp (+4 after "PE\0\0"), SizeOfImage (optional
 * header +56), and the debug directory's (data directory 6, optional
 * header +160; 28-byte entries, Type 2 = CodeView at +12, PointerToRawData
 * at +24) "RSDS" record: GUID[16], Age u32, PDB path NUL-terminated.
 * Names: the COFF symbol table's function records (walked by pesyms.c's
 * katra_pe_coff_each: an rva is its section's VirtualAddress + its Value)
 * and the export directory's named entries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pesymtab.h"
#include "pesyms.h"

#define DIR_EXPORT_OFF 112
#define DIR_DEBUG_OFF 160
#define DEBUG_ENTRIES_MAX 64
#define COFF_NAME_MAX 4096 /* longer names are skipped */

int katra_pe_identity(const struct katra_blob *b, struct katra_peu_identity *id)
{
	struct katra_pe pe;
	const uint8_t *p = b->p;

	memset(id, 0, sizeof(*id));
	if (katra_pe_open(b, &pe))
		return -ENOEXEC;
	id->timestamp = katra_rd32(p + pe.opt - 20 + 4);
	id->image_size = katra_rd32(p + pe.opt + 56);
	if (pe.optsize < DIR_DEBUG_OFF + 8 || katra_rd32(p + pe.opt + 108) <= 6)
		return 0;
	uint32_t rva = katra_rd32(p + pe.opt + DIR_DEBUG_OFF);
	uint32_t size = katra_rd32(p + pe.opt + DIR_DEBUG_OFF + 4);
	uint64_t off = katra_pe_offset(&pe, rva);
	uint32_t n = size / 28;
	if (!rva || off == UINT64_MAX)
		return 0;
	if (n > DEBUG_ENTRIES_MAX)
		n = DEBUG_ENTRIES_MAX;
	for (uint32_t i = 0; i < n && katra_in_blob(b, off + 28ull * i, 28); i++) {
		const uint8_t *e = p + off + 28ull * i;
		uint32_t type = katra_rd32(e + 12), len = katra_rd32(e + 16), raw = katra_rd32(e + 24);
		if (type != 2 || len < 24 || !katra_in_blob(b, raw, len) || memcmp(p + raw, "RSDS", 4))
			continue;
		memcpy(id->guid, p + raw + 4, 16);
		id->age = katra_rd32(p + raw + 20);
		size_t left = len - 24 < sizeof(id->pdb) - 1 ? len - 24 : sizeof(id->pdb) - 1;
		const uint8_t *name = p + raw + 24, *nul = memchr(name, 0, left);
		memcpy(id->pdb, name, nul ? (size_t)(nul - name) : left);
		id->has_codeview = true;
		break;
	}
	return 0;
}

void katra_pe_identity_key(const struct katra_peu_identity *id, char *out, size_t n)
{
	const uint8_t *g = id->guid;

	if (!id->has_codeview) {
		snprintf(out, n, "%08X%x", id->timestamp, id->image_size);
		return;
	}
	snprintf(out, n, "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%x", katra_rd32(g),
		 katra_rd16(g + 4), katra_rd16(g + 6), g[8], g[9], g[10], g[11], g[12], g[13],
		 g[14], g[15], id->age);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct katra_pe_sym *x = a, *y = b;

	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	/* then by the name's place in the file: deterministic */
	return x->name < y->name ? -1 : x->name > y->name;
}

static int add(struct katra_pe_symtab *t, uint32_t *cap, uint32_t rva, const char *name,
	       uint32_t len)
{
	if (t->n == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 256;
		if (ncap > KATRA_PE_SYMTAB_MAX)
			return -EFBIG;
		void *s = realloc(t->syms, ncap * sizeof(*t->syms));
		if (!s)
			return -ENOMEM;
		t->syms = s;
		*cap = ncap;
	}
	t->syms[t->n++] = (struct katra_pe_sym){ rva, len, name };
	return 0;
}

struct coff_ctx {
	struct katra_pe_symtab *t;
	uint32_t *cap;
};

static int coff_one(void *ctx, const char *name, size_t len, const uint8_t *sec_hdr,
		    uint32_t value)
{
	struct coff_ctx *c = ctx;

	return len ? add(c->t, c->cap, katra_rd32(sec_hdr + 12) + value, name, (uint32_t)len) : 0;
}

/* pesyms.c's walk of the COFF function records; a file without them (or
 * with more than it reads) has none to add */
static int coff_functions(const struct katra_blob *b, struct katra_pe_symtab *t, uint32_t *cap)
{
	struct coff_ctx c = { t, cap };
	uint64_t work = 0;
	int rc = katra_pe_coff_each(b, COFF_NAME_MAX, coff_one, &c, &work);

	return rc == -ENOENT || rc == -EFBIG ? 0 : rc;
}

static int exports(const struct katra_blob *b, const struct katra_pe *pe,
		   struct katra_pe_symtab *t, uint32_t *cap)
{
	const uint8_t *p = b->p;
	uint32_t dir = katra_rd32(p + pe->opt + DIR_EXPORT_OFF);
	uint32_t dsize = katra_rd32(p + pe->opt + DIR_EXPORT_OFF + 4);
	uint64_t eoff = katra_pe_offset(pe, dir);

	if (!dir || eoff == UINT64_MAX || !katra_in_blob(b, eoff, 40))
		return 0;
	uint32_t nfuncs = katra_rd32(p + eoff + 20), nnames = katra_rd32(p + eoff + 24);
	uint64_t fo = katra_pe_offset(pe, katra_rd32(p + eoff + 28));
	uint64_t no = katra_pe_offset(pe, katra_rd32(p + eoff + 32));
	uint64_t oo = katra_pe_offset(pe, katra_rd32(p + eoff + 36));
	if (nnames > KATRA_PE_EXPORTS_MAX || fo == UINT64_MAX || no == UINT64_MAX ||
	    oo == UINT64_MAX || !katra_in_blob(b, fo, 4ull * nfuncs) ||
	    !katra_in_blob(b, no, 4ull * nnames) || !katra_in_blob(b, oo, 2ull * nnames))
		return 0;
	for (uint32_t i = 0; i < nnames; i++) {
		const char *name = katra_pe_string(pe, katra_rd32(p + no + 4ull * i));
		uint16_t ord = katra_rd16(p + oo + 2ull * i);
		if (!name || !*name || ord >= nfuncs)
			continue;
		uint32_t rva = katra_rd32(p + fo + 4ull * ord);
		if (rva >= dir && rva - dir < dsize)
			continue; /* a forwarder: a string, no code */
		int rc = add(t, cap, rva, name, (uint32_t)strlen(name));
		if (rc)
			return rc;
	}
	return 0;
}

int katra_pe_symtab(const struct katra_blob *b, struct katra_pe_symtab *t)
{
	struct katra_pe pe;
	uint32_t cap = 0;
	int rc;

	t->syms = NULL;
	t->n = 0;
	if (katra_pe_open(b, &pe))
		return -ENOEXEC;
	rc = coff_functions(b, t, &cap);
	if (!rc)
		rc = exports(b, &pe, t, &cap);
	if (rc) {
		katra_pe_symtab_free(t);
		return rc;
	}
	if (!t->n)
		return 0;
	qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	/* one name per rva: the first in that order */
	uint32_t k = 1;
	for (uint32_t i = 1; i < t->n; i++)
		if (t->syms[i].rva != t->syms[k - 1].rva)
			t->syms[k++] = t->syms[i];
	t->n = k;
	return 0;
}

void katra_pe_symtab_free(struct katra_pe_symtab *t)
{
	free(t->syms);
	t->syms = NULL;
	t->n = 0;
}

bool katra_pe_symbolize(const struct katra_pe_symtab *t, uint32_t rva, char *out, size_t n)
{
	uint32_t lo = 0, hi = t->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		snprintf(out, n, "0x%x", rva);
		return false;
	}
	const struct katra_pe_sym *s = &t->syms[lo - 1];
	int len = s->len > 255 ? 255 : (int)s->len;
	if (rva == s->rva)
		snprintf(out, n, "%.*s", len, s->name);
	else
		snprintf(out, n, "%.*s+0x%x", len, s->name, rva - s->rva);
	return true;
}
