/* SPDX-License-Identifier: GPL-2.0-only */
/* A PE file's identity (what symbol servers index it by) and its function
 * names by rva: shared by the recorder (Module.pe) and katra-replay
 * (--symbols).  Functions return 0 or -errno. */
#ifndef KATRA_PE_PESYMTAB_H
#define KATRA_PE_PESYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pe.h"

struct katra_peu_identity {
	uint32_t timestamp;   /* the file header's TimeDateStamp */
	uint32_t image_size;  /* SizeOfImage */
	bool has_codeview;    /* a CodeView RSDS debug entry was found */
	uint8_t guid[16];     /* its GUID, as stored */
	uint32_t age;
	char pdb[256];        /* its PDB name (NUL-terminated, cut at 255) */
};
/* 0 (has_codeview false when the file has no RSDS entry), -ENOEXEC. */
int katra_pe_identity(const struct katra_blob *b, struct katra_peu_identity *id);
/* "GUID-age" as symbol servers spell it (32 hex digits then the age in
 * hex, upper case), or "TIMESTAMPSIZE" (8 + hex size) without CodeView;
 * out of at least 48 bytes. */
void katra_pe_identity_key(const struct katra_peu_identity *id, char *out, size_t n);

/* A PE file's function names by rva: its COFF symbol table's functions
 * (MinGW's ld keeps them unless stripped, static ones included) and its
 * exports, sorted.  Names point into the file. */
struct katra_pe_sym {
	uint32_t rva;
	uint32_t len;
	const char *name;
};
struct katra_pe_symtab {
	struct katra_pe_sym *syms;
	uint32_t n;
};
#define KATRA_PE_SYMTAB_MAX 2000000u
int katra_pe_symtab(const struct katra_blob *b, struct katra_pe_symtab *t);
void katra_pe_symtab_free(struct katra_pe_symtab *t);
/* "name+0xoff" (or "name") of rva into out, the nearest symbol at or
 * below it; false (out "0xRVA") when there is none. */
bool katra_pe_symbolize(const struct katra_pe_symtab *t, uint32_t rva, char *out, size_t n);

#endif
