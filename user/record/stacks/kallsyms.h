/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's text symbols (/proc/kallsyms), to name kernel frames at the
 * end of a capture (their addresses mean nothing on another boot). */
#ifndef KATRA_RECORD_KALLSYMS_H
#define KATRA_RECORD_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kallsyms;

/* path: "/proc/kallsyms"; 0 or -errno */
int kallsyms_load(const char *path, struct kallsyms **out);
void kallsyms_free(struct kallsyms *k);
/* "symbol+0xoff" (or "0xaddr" when no symbol is below it) into buf */
void kallsyms_name(const struct kallsyms *k, uint64_t addr, char *buf, size_t cap);

#endif
