// SPDX-License-Identifier: GPL-2.0-only
/* The PE parsers of user/record/uprobes/ (winenames.c, unixnames.c) on
 * files whose sections overlap (crafted_pe_util.h): the names they give,
 * and their work counted (positions and bytes looked at), never timed: each
 * file position is looked at once however many sections map it, and an rva
 * lookup is a binary search, not a walk of every section. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe/pesyms.h"
#include "record/uprobes/winenames.h"
#include "crafted_pe_util.h"

#define LEN (1u << 20)
#define NSTUBS 8
#define STUB_RVA 0x2000u   /* .text: rva = file offset */
#define SLOT_RVA 0x3000u   /* the dispatcher's pointer the stubs call through */
#define NAMES_OFF 0x4000u  /* the "vk..." strings */
#define PAIRS_OFF 0x8000u  /* the dispatch table: (name, function) pairs */

/* .text (section 0) and 95 data sections over the whole file; NSTUBS stubs
 * `mov $k,%edx; call *SLOT(%rip)` and a table of ("vkCrafted<k>", stub k) */
static uint8_t *winevulkan_dll(void)
{
	uint8_t *f = crafted_pe(LEN, KATRA_PE_SECTIONS_MAX);

	cr_assert_not_null(f);
	crafted_section(f, 0, STUB_RVA, 0x1000, STUB_RVA, SCN_CODE);
	crafted_overlapping(f, LEN, 1, KATRA_PE_SECTIONS_MAX);
	for (uint32_t k = 0; k < NSTUBS; k++) {
		uint32_t at = STUB_RVA + 0x10 * k;
		f[at] = 0xba;
		crafted_put32(f, at + 1, k);
		f[at + 5] = 0xff;
		f[at + 6] = 0x15;
		crafted_put32(f, at + 7, SLOT_RVA - (at + 11));
		snprintf((char *)f + NAMES_OFF + 0x20 * k, 0x20, "vkCrafted%u", k);
		crafted_put64(f, PAIRS_OFF + 16 * k, CRAFTED_DATA_RVA + NAMES_OFF + 0x20 * k);
		crafted_put64(f, PAIRS_OFF + 16 * k + 8, at);
	}
	return f;
}

/* The old walk looked at every position once per section holding it (95
 * here) and walked all 96 sections per pointer: 95 * LEN / 8 positions a
 * pass.  Now a pass is LEN / 8 positions and the strings' bytes. */
Test(pe_linear, overlapping_sections_give_the_same_names_in_one_walk)
{
	struct katra_blob b = { winevulkan_dll(), LEN };
	char *names[16] = { 0 };
	uint32_t added;
	uint64_t work;

	cr_assert_eq(katra_pe_unix_call_names_counted(&b, names, 16, &added, &work), 0);
	cr_expect_eq(added, NSTUBS);
	for (uint32_t k = 0; k < NSTUBS; k++) {
		char want[32];
		snprintf(want, sizeof(want), "vkCrafted%u", k);
		cr_expect(names[k] && !strcmp(names[k], want), "entry %u: %s", k,
			  names[k] ? names[k] : "(none)");
	}
	cr_expect_null(names[NSTUBS]);
	/* two passes of LEN / 8 positions, and the names' bytes */
	cr_expect_leq(work, 2 * (LEN / 8) + 2 * NSTUBS * 32, "work %llu",
		      (unsigned long long)work);
	for (uint32_t k = 0; k < 16; k++)
		free(names[k]);
	free(b.p);
}

/* Every word a pointer into "vkvkvk...": a name of letters that does not
 * end within 256 bytes, looked at whole from each word: a pass
 * stops at its budget (passed by one string at most), linear in the
 * file's size, and adds nothing. */
Test(pe_linear, strings_looked_at_are_bounded_by_the_file_size)
{
	struct katra_blob b = { winevulkan_dll(), LEN };
	char *names[16] = { 0 };
	uint32_t added;
	uint64_t work;

	for (uint32_t o = 0xc000; o < 0xc400; o += 2)
		memcpy(b.p + o, "vk", 2);
	for (uint32_t o = 0x10000; o < LEN; o += 8)
		crafted_put64(b.p, o, CRAFTED_DATA_RVA + 0xc000 + (o & 0xff));
	cr_assert_eq(katra_pe_unix_call_names_counted(&b, names, 16, &added, &work), -E2BIG);
	cr_expect_eq(added, 0);
	cr_expect_leq(work, KATRA_PE_PAIRS_WORK(LEN) + 256, "work %llu", (unsigned long long)work);
	for (uint32_t k = 0; k < 16; k++)
		cr_expect_null(names[k]);
	free(b.p);
}

/* katra_pe_offset and katra_pe_exec through the map agree with a walk of
 * the section table in header order (the first section whose file bytes
 * hold the rva), for overlapping sections and every boundary. */
static uint64_t walk_offset(const uint8_t *f, unsigned nsec, uint32_t rva, bool *exec)
{
	for (unsigned i = 0; i < nsec; i++) {
		const uint8_t *s = f + CRAFTED_SEC + 40ull * i;
		uint32_t va = katra_rd32(s + 12), rsize = katra_rd32(s + 16);
		if (rva >= va && rva - va < rsize) {
			*exec = katra_rd32(s + 36) & 0x20000000u;
			return (uint64_t)katra_rd32(s + 20) + (rva - va);
		}
	}
	*exec = false;
	return UINT64_MAX;
}

Test(pe_linear, rva_map_matches_the_section_walk)
{
	const size_t len = 0x10000;
	uint8_t *f = crafted_pe(len, KATRA_PE_SECTIONS_MAX);
	struct katra_blob b = { f, len };
	struct katra_pe pe;

	srand(28);
	for (unsigned round = 0; round < 20; round++) {
		unsigned nsec = 1 + (unsigned)rand() % KATRA_PE_SECTIONS_MAX;
		uint16_t n16 = (uint16_t)nsec;
		memcpy(f + CRAFTED_LFANEW + 6, &n16, 2);
		for (unsigned i = 0; i < nsec; i++) {
			uint32_t va = 0x1000u * (uint32_t)(rand() % 32) + (uint32_t)(rand() % 3);
			uint32_t size = round == 0 && i == 0 ? 0xfffff000u : 0x800u * (uint32_t)(rand() % 16);
			crafted_section(f, i, va, size, 0x200u * (uint32_t)(rand() % 64),
					rand() % 2 ? SCN_CODE : SCN_DATA);
		}
		cr_assert_eq(katra_pe_open(&b, &pe), 0);
		for (uint32_t rva = 0; rva < 0x30000; rva++) {
			bool exec;
			uint64_t want = walk_offset(f, nsec, rva, &exec);
			cr_assert_eq(katra_pe_offset(&pe, rva), want, "round %u rva 0x%x", round, rva);
			cr_assert_eq(katra_pe_exec(&pe, rva), exec, "round %u rva 0x%x", round, rva);
		}
		bool exec;
		cr_assert_eq(katra_pe_offset(&pe, UINT32_MAX), walk_offset(f, nsec, UINT32_MAX, &exec));
	}
	free(f);
}

/* ntdll.dll's Nt* stubs found through 95 overlapping sections; an export
 * table of more names than KATRA_PE_EXPORTS_MAX is refused (its work would
 * grow with the file, up to 64 M names at the 256 MiB cap). */
Test(pe_linear, nt_names_through_overlapping_sections_and_the_export_cap)
{
	uint8_t *f = crafted_pe(LEN, KATRA_PE_SECTIONS_MAX);
	struct katra_blob b = { f, LEN };
	const uint32_t exp = 0x5000, rva = CRAFTED_DATA_RVA;
	char **names;
	uint32_t count;

	cr_assert_not_null(f);
	crafted_section(f, 0, STUB_RVA, 0x1000, STUB_RVA, SCN_CODE);
	crafted_overlapping(f, LEN, 1, KATRA_PE_SECTIONS_MAX);
	crafted_put32(f, CRAFTED_OPT + 112, rva + exp);
	crafted_put32(f, exp + 20, 2);                /* functions */
	crafted_put32(f, exp + 24, 2);                /* names */
	crafted_put32(f, exp + 28, rva + exp + 0x100);
	crafted_put32(f, exp + 32, rva + exp + 0x200);
	crafted_put32(f, exp + 36, rva + exp + 0x300);
	for (uint32_t k = 0; k < 2; k++) {
		crafted_put32(f, exp + 0x100 + 4 * k, STUB_RVA + 0x100 + 0x10 * k);
		crafted_put32(f, exp + 0x200 + 4 * k, rva + exp + 0x400 + 0x20 * k);
		f[exp + 0x300 + 2 * k] = (uint8_t)k;
		strcpy((char *)f + exp + 0x400 + 0x20 * k, k ? "NtSecond" : "NtFirst");
		memcpy(f + STUB_RVA + 0x100 + 0x10 * k, "\x4c\x8b\xd1\xb8", 4);
		crafted_put32(f, STUB_RVA + 0x104 + 0x10 * k, k);
	}
	cr_assert_eq(katra_pe_nt_names(&b, 0, &names, &count), 0);
	cr_assert_eq(count, 2);
	cr_expect_str_eq(names[0], "NtFirst");
	cr_expect_str_eq(names[1], "NtSecond");
	katra_names_free(names, count);
	crafted_put32(f, exp + 24, KATRA_PE_EXPORTS_MAX + 1);
	cr_expect_eq(katra_pe_nt_names(&b, 0, &names, &count), -E2BIG);
	cr_expect_null(names);
	free(f);
}

/* A COFF symbol table of 4096 function records whose names all point into
 * a 1 MiB string table with no NUL before its end, then one record named
 * "d3d12_x": found, each record's name looked at only as far as the
 * longest name looked for (it was scanned to the table's end, 4096 times:
 * symbols times the table) */
Test(pe_linear, coff_names_are_looked_at_as_far_as_the_longest_wanted)
{
	const uint32_t nsyms = 4097, symoff = 0x2000, strsize = 1u << 20;
	const size_t len = symoff + 18ull * nsyms + strsize;
	const char *const want[] = { "d3d12_x" };
	uint8_t *f = crafted_pe(len, 1);
	struct katra_blob b = { f, len };
	uint64_t offs[1], work;

	cr_assert_not_null(f);
	crafted_section(f, 0, 0x1000, 0x1000, 0x1000, SCN_CODE);
	crafted_put32(f, CRAFTED_LFANEW + 4 + 8, symoff);  /* PointerToSymbolTable */
	crafted_put32(f, CRAFTED_LFANEW + 4 + 12, nsyms);  /* NumberOfSymbols */
	for (uint32_t i = 0; i < nsyms; i++) {
		uint8_t *s = f + symoff + 18ull * i;
		if (i + 1 < nsyms)
			crafted_put32(f, symoff + 18ull * i + 4, 4); /* a long name at offset 4 */
		else
			memcpy(s, "d3d12_x", 7);
		crafted_put32(f, symoff + 18ull * i + 8, 0x10); /* Value */
		s[12] = 1;                                      /* SectionNumber */
		s[14] = 0x20;                                   /* a function */
		s[16] = 2;                                      /* external */
	}
	uint64_t strs = symoff + 18ull * nsyms;
	crafted_put32(f, strs, strsize);
	memset(f + strs + 4, 'a', strsize - 5);
	cr_assert_eq(katra_pe_coff_functions_counted(&b, want, 1, offs, &work), 1);
	cr_expect_eq(offs[0], 0x1010);
	cr_expect_leq(work, nsyms * (2ull + strlen(want[0]) + 8), "work %llu",
		      (unsigned long long)work);
	free(f);
}
