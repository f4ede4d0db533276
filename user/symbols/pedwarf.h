/* SPDX-License-Identifier: GPL-2.0-only */
/* The DWARF of a PE file built by mingw with -g (.debug_info, .debug_line,
 * ...: sections whose long names are in the COFF string table, "/4"), for
 * libdw, which reads only ELF: an ELF image in memory holding those
 * sections at their addresses (ImageBase + VirtualAddress, the addresses
 * the linked DWARF uses), nothing else. */
#ifndef KATRA_REPLAY_PEDWARF_H
#define KATRA_REPLAY_PEDWARF_H

#include <stddef.h>

#include "pe/pe.h"

/* The ELF image (malloc'd, *len bytes) in *image: 0, -ENOENT when the file
 * has no .debug_info, -ENOMEM */
int kr_pe_dwarf_image(const struct katra_pe *pe, void **image, size_t *len);

#endif
