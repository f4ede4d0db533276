/* SPDX-License-Identifier: GPL-2.0-only */
/* A PE32+ file's COFF symbol table: the one MinGW's ld leaves in a DLL it
 * does not strip (Wine's wined3d.dll, where vkd3d lives, keeps its static
 * functions there: d3d12_command_queue_ExecuteCommandLists, ...).  No
 * libbpf, no libelf; bounded by the file (fuzzed: tests/fuzz/fuzz_pesyms.c). */
#ifndef KATRA_PE_PESYMS_H
#define KATRA_PE_PESYMS_H

#include <stdint.h>

#include "pe.h"

#define KATRA_PE_SYMS_MAX 2000000u /* symbols looked at (wined3d.dll: ~35,000) */

/* The file offsets of the functions names[0..n) (COFF symbols of function
 * type, external or static, in an executable section's file bytes): offs[i]
 * = UINT64_MAX for a name not found; the first symbol of a name wins.
 * Returns how many were found (0 is no error), -ENOEXEC (no PE32+ file),
 * -ENOENT (no COFF symbol table: a stripped DLL), -EFBIG (a table larger
 * than KATRA_PE_SYMS_MAX), -ENOTSUP (code sections that are not page-aligned
 * in the file: the loader copies them, and a uprobe on the file never
 * fires). */
int katra_pe_coff_functions(const struct katra_blob *dll, const char *const *names, uint32_t n,
			    uint64_t *offs);
/* The same, and *work: the records and name bytes looked at, at most
 * (9 + the longest of names) a record: a record's name is looked at only
 * as far as the longest name looked for. */
int katra_pe_coff_functions_counted(const struct katra_blob *dll, const char *const *names,
				    uint32_t n, uint64_t *offs, uint64_t *work);

/* Each COFF record of a function (external or static, in a section
 * 1..nsec) whose name is at most look bytes: fn(ctx, name, len, its
 * section's header, its Value: the offset in that section); name points
 * into the file, not NUL-terminated when it is an 8-byte short name.  A
 * non-zero return of fn ends the walk and is returned; else 0, -ENOEXEC,
 * -ENOENT (no COFF symbol table), -EFBIG (more than KATRA_PE_SYMS_MAX
 * records).  *work += the records and name bytes looked at. */
typedef int (*katra_coff_fn)(void *ctx, const char *name, size_t len, const uint8_t *sec_hdr,
			     uint32_t value);
int katra_pe_coff_each(const struct katra_blob *dll, size_t look, katra_coff_fn fn, void *ctx,
		       uint64_t *work);

#endif
