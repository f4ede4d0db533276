// SPDX-License-Identifier: GPL-2.0-only
/* peustack EXE DUMP: unwinds the dump chains.exe wrote (its registers and
 * stack copy, chains.c says the layout) through EXE read as a file (its
 * sections mapped at the dump's module base), and prints one line per
 * frame, innermost first: "NAME how" (NAME: func+0xoff from the EXE's
 * COFF symbols and exports, a caller's at its return address - 1; how:
 * unwound, epilog or leaf; "? unknown" for a pc in no module), then
 * "stop: REASON" and "identity: KEY".  Exit 0 when it could read both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/peunwind/peunwind.h"

static const char *const hows[] = { "unwound", "epilog", "leaf" };
static const char *const stops[] = { "end", "no-module", "out-of-stack", "bad-info",
				     "no-progress", "too-deep" };

int main(int argc, char **argv)
{
	struct katra_blob exe = { 0 }, dump = { 0 };
	struct katra_peu_image img;
	struct katra_peu_regs regs = { .known = 0xffff };
	struct katra_peu_stack st;
	struct katra_peu_frame fr[KATRA_PEU_MAX_FRAMES];
	struct katra_pe_symtab syms = { 0 };
	struct katra_pe_identity id;
	enum katra_peu_stop stop;
	char name[300], key[64];
	int rc = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: peustack EXE DUMP\n");
		return 2;
	}
	if (katra_blob_read(argv[1], 64u << 20, &exe) || katra_blob_read(argv[2], 1u << 20, &dump)) {
		fprintf(stderr, "peustack: cannot read '%s' or '%s'\n", argv[1], argv[2]);
		goto out;
	}
	const uint8_t *d = dump.p;
	if (dump.len < 8 + 8 + 8 + 128 + 8 + 4 || memcmp(d, "KPEU", 4) || katra_rd32(d + 4) != 1) {
		fprintf(stderr, "peustack: '%s' is no chains.exe dump\n", argv[2]);
		goto out;
	}
	uint64_t base = katra_rd64(d + 8);
	regs.rip = katra_rd64(d + 16);
	for (int i = 0; i < 16; i++)
		regs.r[i] = katra_rd64(d + 24 + 8 * i);
	st.sp = katra_rd64(d + 152);
	st.len = katra_rd32(d + 160);
	st.bytes = d + 164;
	if (st.len > dump.len - 164 || st.sp != regs.r[KATRA_PEU_RSP]) {
		fprintf(stderr, "peustack: '%s': a stack copy cut short\n", argv[2]);
		goto out;
	}
	if (katra_peu_image_file(&exe, base, &img) || katra_pe_symtab(&exe, &syms) ||
	    katra_pe_identity(&exe, &id)) {
		fprintf(stderr, "peustack: '%s' is no PE32+ x64 file\n", argv[1]);
		goto out;
	}
	uint32_t n = katra_peu_walk(&img, 1, &st, &regs, fr, KATRA_PEU_MAX_FRAMES, &stop);
	for (uint32_t i = 0; i < n; i++) {
		if (fr[i].module == UINT32_MAX) {
			printf("? unknown\n");
			continue;
		}
		katra_pe_symbolize(&syms, (uint32_t)(fr[i].pc - base) - (i > 0), name, sizeof(name));
		printf("%s %s\n", name, hows[fr[i].how]);
	}
	katra_pe_identity_key(&id, key, sizeof(key));
	printf("stop: %s\nidentity: %s\n", stops[stop], key);
	rc = 0;
out:
	katra_pe_symtab_free(&syms);
	katra_blob_free(&exe);
	katra_blob_free(&dump);
	return rc;
}
