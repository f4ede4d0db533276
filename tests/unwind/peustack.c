// SPDX-License-Identifier: GPL-2.0-only
/* peustack [--mapped] EXE DUMP [DLLDIR]: unwinds the dump chains.exe wrote (its
 * registers and stack copy, chains.c says the layout) through EXE read as
 * a file (its sections mapped at the dump's module base) and, with DLLDIR,
 * the other modules the dump lists that DLLDIR holds (by their lower-case
 * names), and prints one line per frame, innermost first: "NAME how"
 * (NAME: func+0xoff from the module's COFF symbols and exports, "dll!"
 * before it in another module than EXE, a caller's at its return address
 * - 1; how:
 * unwound, epilog or leaf; "? unknown" for a pc in no module), then
 * "stop: REASON" and "identity: KEY".  --mapped: each file first laid out
 * as the loader maps it, the unwinder reading that copy by rva (the same
 * frames must come out).  Exit 0 when it could read both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/peunwind/peunwind.h"

static const char *const hows[] = { "unwound", "epilog", "leaf" };
static const char *const stops[] = { "end", "no-module", "out-of-stack", "bad-info",
				     "no-progress", "too-deep" };

#define MODS_MAX 16

/* The image f as the loader maps it (headers, then each section's file
 * bytes at its rva, the rest zero): calloc'ed, SizeOfImage bytes, or NULL */
static uint8_t *map_image(const struct katra_blob *f, size_t *len)
{
	struct katra_pe pe;

	if (katra_pe_open(f, &pe))
		return NULL;
	uint32_t size = katra_rd32(f->p + pe.opt + 56), hdrs = katra_rd32(f->p + pe.opt + 60);
	uint8_t *m = size <= (256u << 20) ? calloc(1, size ? size : 1) : NULL;
	if (!m)
		return NULL;
	memcpy(m, f->p, hdrs < size && hdrs < f->len ? hdrs : (size < f->len ? size : f->len));
	for (uint32_t i = 0; i < pe.nsec; i++) {
		const uint8_t *h = f->p + pe.sec + 40ull * i;
		uint32_t vsize = katra_rd32(h + 8), va = katra_rd32(h + 12);
		uint32_t rsize = katra_rd32(h + 16), raw = katra_rd32(h + 20);
		uint64_t n = rsize < vsize || !vsize ? rsize : vsize;
		if (va < size && n <= size - va && katra_in_blob(f, raw, n))
			memcpy(m + va, f->p + raw, n);
	}
	*len = size;
	return m;
}

int main(int argc, char **argv)
{
	struct katra_blob exe = { 0 }, dump = { 0 }, files[MODS_MAX] = { { 0 } };
	struct katra_peu_image img[MODS_MAX];
	struct katra_pe_symtab syms[MODS_MAX] = { { 0 } };
	char names[MODS_MAX][65] = { "" };
	struct katra_peu_regs regs = { .known = 0xffff };
	struct katra_peu_stack st;
	struct katra_peu_frame fr[KATRA_PEU_MAX_FRAMES];
	struct katra_peu_identity id;
	enum katra_peu_stop stop;
	char name[300], key[64];
	uint8_t *mapped[MODS_MAX] = { NULL };
	uint32_t nimg = 1;
	int rc = 1;
	bool as_mapped = argc > 1 && !strcmp(argv[1], "--mapped");

	argv += as_mapped;
	argc -= as_mapped;
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: peustack [--mapped] EXE DUMP [DLLDIR]\n");
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
	if (katra_peu_image_file(&exe, base, &img[0]) || katra_pe_symtab(&exe, &syms[0]) ||
	    katra_pe_identity(&exe, &id)) {
		fprintf(stderr, "peustack: '%s' is no PE32+ x64 file\n", argv[1]);
		goto out;
	}
	/* the other modules the dump lists, found by name in DLLDIR */
	size_t at = 164 + st.len;
	uint32_t nmods = at + 4 <= dump.len ? katra_rd32(d + at) : 0;
	for (uint32_t i = 0; argc == 4 && i < nmods && nimg < MODS_MAX; i++) {
		size_t m = at + 4 + 72ull * i;
		char path[4096];
		if (m + 72 > dump.len)
			break;
		uint64_t mbase = katra_rd64(d + m);
		memcpy(names[nimg], d + m + 8, 64);
		names[nimg][64] = 0;
		for (char *c = names[nimg]; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		if (mbase == base || !names[nimg][0] || strchr(names[nimg], '/'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[3], names[nimg]);
		if (katra_blob_read(path, 256u << 20, &files[nimg]))
			continue; /* not at hand: its frames stay unknown */
		if (katra_peu_image_file(&files[nimg], mbase, &img[nimg]) ||
		    katra_pe_symtab(&files[nimg], &syms[nimg])) {
			katra_blob_free(&files[nimg]);
			continue;
		}
		nimg++;
	}
	/* --mapped: the images as the loader maps them, read by rva */
	for (uint32_t i = 0; as_mapped && i < nimg; i++) {
		size_t len;
		mapped[i] = map_image(i ? &files[i] : &exe, &len);
		if (!mapped[i] || katra_peu_image_mapped(mapped[i], len, img[i].base, &img[i])) {
			fprintf(stderr, "peustack: cannot map module %u\n", i);
			goto out;
		}
	}
	uint32_t n = katra_peu_walk(img, nimg, &st, &regs, fr, KATRA_PEU_MAX_FRAMES, &stop);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = fr[i].module;
		if (m == UINT32_MAX) {
			printf("? unknown\n");
			continue;
		}
		katra_pe_symbolize(&syms[m], (uint32_t)(fr[i].pc - img[m].base) - (i > 0), name,
				   sizeof(name));
		printf("%s%s%s %s\n", names[m], m ? "!" : "", name, hows[fr[i].how]);
	}
	katra_pe_identity_key(&id, key, sizeof(key));
	printf("stop: %s\nidentity: %s\n", stops[stop], key);
	rc = 0;
out:
	for (uint32_t i = 0; i < MODS_MAX; i++) {
		free(mapped[i]);
		katra_pe_symtab_free(&syms[i]);
		katra_blob_free(&files[i]);
	}
	katra_blob_free(&exe);
	katra_blob_free(&dump);
	return rc;
}
