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
 * pedwarf.h), else its COFF symbols and exports.  A module none of these
 * finds is named by the trace's Symbols records, where it has them. */
#ifndef KATRA_REPLAY_ELFSYMS_H
#define KATRA_REPLAY_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kr_elfsyms;
struct katra_symbols;

/* dir: --symbols, or NULL.  NULL when out of memory. */
struct kr_elfsyms *kr_elfsyms_new(const char *dir);
void kr_elfsyms_free(struct kr_elfsyms *s);
/* A Module record's id, name and build id (hex): copied */
int kr_elfsyms_module(struct kr_elfsyms *s, uint32_t id, const char *name, size_t name_len,
		      const char *build_id, size_t bid_len);
/* The module's file as an open descriptor (the recorder: the very file the
 * process mapped, opened inside its root): dup'd, used instead of looking
 * for one; never debuginfod */
int kr_elfsyms_module_fd(struct kr_elfsyms *s, uint32_t id, const char *name, int fd);
/* A Symbols record's names (copied): what names a frame of its module when
 * no file of it is found (a file found by build id wins: a debug file there
 * may name more); -ENOMEM */
int kr_elfsyms_trace_names(struct kr_elfsyms *s, const struct katra_symbols *sy);
/* The function holding the frame (module, address) from its file, in buf,
 * and address's offset from its start: 0, or -ENOENT when no symbol or DWARF
 * of the file names it (or no file was found) */
int kr_elfsyms_symbol(struct kr_elfsyms *s, uint32_t module, uint64_t address, char *buf,
		      size_t cap, uint64_t *offset);
/* The frame (module, address) as "symbol+0xoff" (with_offset) or "symbol";
 * without a symbol "module+0xaddr", without a module "0xaddr".  buf holds it. */
const char *kr_elfsyms_name(struct kr_elfsyms *s, uint32_t module, uint64_t address,
			    int with_offset, char *buf, size_t cap);
/* The module's name ("?" when none) and whether its file was found */
const char *kr_elfsyms_module_name(const struct kr_elfsyms *s, uint32_t module, int *found);

#endif
