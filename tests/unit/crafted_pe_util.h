/* SPDX-License-Identifier: GPL-2.0-only */
/* PE32+ files made in memory for the parsers of user/record/uprobes/ (the
 * shape tests/fuzz/parser_seeds.py --overlapping writes as a file): a
 * header with image base 0, then section headers and bytes put where a
 * test wants them.  Sections that each map the whole file at their own
 * address make a parser that walks each section's bytes, or every section
 * per lookup, cost sections times the file. */
#ifndef KATRA_TESTS_CRAFTED_PE_UTIL_H
#define KATRA_TESTS_CRAFTED_PE_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CRAFTED_LFANEW 0x40u
#define CRAFTED_OPT (CRAFTED_LFANEW + 24u)
#define CRAFTED_SEC (CRAFTED_OPT + 240u) /* the section table */
#define SCN_CODE 0x60000020u             /* code, execute, read */
#define SCN_DATA 0xc0000040u             /* initialised data, read, write */

static inline void crafted_put32(uint8_t *f, uint64_t off, uint32_t v)
{
	memcpy(f + off, &v, 4);
}

static inline void crafted_put64(uint8_t *f, uint64_t off, uint64_t v)
{
	memcpy(f + off, &v, 8);
}

/* len zero bytes (calloc'ed) with the headers of a PE32+ of nsec sections
 * (their headers zero: crafted_section fills them). */
static inline uint8_t *crafted_pe(size_t len, uint16_t nsec)
{
	uint8_t *f = calloc(1, len);

	if (!f)
		return NULL;
	f[0] = 'M';
	f[1] = 'Z';
	crafted_put32(f, 0x3c, CRAFTED_LFANEW);
	memcpy(f + CRAFTED_LFANEW, "PE\0\0", 4);
	f[CRAFTED_LFANEW + 4] = 0x64;
	f[CRAFTED_LFANEW + 5] = 0x86;
	memcpy(f + CRAFTED_LFANEW + 6, &nsec, 2);
	f[CRAFTED_LFANEW + 20] = 240; /* SizeOfOptionalHeader */
	f[CRAFTED_OPT] = 0x0b;
	f[CRAFTED_OPT + 1] = 0x02; /* PE32+ */
	return f;
}

static inline void crafted_section(uint8_t *f, unsigned i, uint32_t va, uint32_t size,
				   uint32_t raw, uint32_t flags)
{
	uint64_t s = CRAFTED_SEC + 40ull * i;

	memcpy(f + s, ".sect\0\0\0", 8);
	crafted_put32(f, s + 8, size);
	crafted_put32(f, s + 12, va);
	crafted_put32(f, s + 16, size);
	crafted_put32(f, s + 20, raw);
	crafted_put32(f, s + 36, flags);
}

/* Sections first..nsec-1: data, each mapping the whole file (raw 0, len
 * bytes) at 0x10000000 + 0x1000 * (i - first); none holds rva 0, where
 * every zero word of the file points.  The first of them maps file offset
 * x at rva CRAFTED_DATA_RVA + x. */
#define CRAFTED_DATA_RVA 0x10000000u
static inline void crafted_overlapping(uint8_t *f, size_t len, unsigned first, unsigned nsec)
{
	for (unsigned i = first; i < nsec; i++)
		crafted_section(f, i, CRAFTED_DATA_RVA + 0x1000u * (i - first), (uint32_t)len, 0,
				SCN_DATA);
}

/* A 0x2400-byte image as a module of a stack: .text at rva 0x1000 (file
 * 0x400), .data at 0x2000 (file 0x1400), ImageBase 0x140000000, SizeOfImage
 * 0x3000, TimeDateStamp 0x5f000000, no CodeView (identity key
 * "5F0000003000"); NULL when out of memory. */
#define CRAFTED_IMAGE_LEN 0x2400u
static inline uint8_t *crafted_pe_image(void)
{
	uint8_t *f = crafted_pe(CRAFTED_IMAGE_LEN, 2);

	if (!f)
		return NULL;
	crafted_section(f, 0, 0x1000, 0x1000, 0x400, SCN_CODE);
	crafted_section(f, 1, 0x2000, 0x1000, 0x1400, SCN_DATA);
	crafted_put64(f, CRAFTED_OPT + 24, 0x140000000ull); /* ImageBase */
	crafted_put32(f, CRAFTED_OPT + 56, 0x3000);         /* SizeOfImage */
	crafted_put32(f, CRAFTED_OPT + 108, 16);            /* NumberOfRvaAndSizes */
	crafted_put32(f, CRAFTED_LFANEW + 8, 0x5f000000);   /* TimeDateStamp */
	return f;
}

#endif
