/* SPDX-License-Identifier: GPL-2.0-only */
/* A trace's modules (Module records) found among the binaries at hand and
 * their addresses named by ELF symbols (.symtab, else .dynsym).  A module's
 * file is looked for, in order: in the --symbols directory (DIR/NAME,
 * DIR/.build-id/xx/rest.debug, DIR/BUILDID/executable and
 * DIR/BUILDID/debuginfo as debuginfod's cache lays them out), at its name
 * when it is a path, in /usr/lib/debug/.build-id, in the usual library
 * directories, then (none found, or one without .symtab or DWARF) from the
 * debuginfod servers of DEBUGINFOD_URLS (debuginfod.h); a file whose build
 * id differs from the module's is never used.  A PE module (Wine's DLLs, a
 * game's .exe), found by its identity, is named by its DWARF (mingw -g,
 * pedwarf.h), else its COFF symbols and exports. */
#ifndef KATRA_REPLAY_ELFSYMS_H
#define KATRA_REPLAY_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kr_elfsyms;

/* dir: --symbols, or NULL.  NULL when out of memory. */
struct kr_elfsyms *kr_elfsyms_new(const char *dir);
void kr_elfsyms_free(struct kr_elfsyms *s);
/* A Module record's id, name and build id (hex): copied */
int kr_elfsyms_module(struct kr_elfsyms *s, uint32_t id, const char *name, size_t name_len,
		      const char *build_id, size_t bid_len);
/* The frame (module, address) as "symbol+0xoff" (with_offset) or "symbol";
 * without a symbol "module+0xaddr", without a module "0xaddr".  buf holds it. */
const char *kr_elfsyms_name(struct kr_elfsyms *s, uint32_t module, uint64_t address,
			    int with_offset, char *buf, size_t cap);
/* The module's name ("?" when none) and whether its file was found */
const char *kr_elfsyms_module_name(const struct kr_elfsyms *s, uint32_t module, int *found);

#endif
