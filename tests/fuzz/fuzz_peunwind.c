// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the PE unwinder (user/record/peunwind/) over an image
 * and a stack copy.  An input framed "KPEU", u32 N, then N bytes of PE,
 * then rip and rax..r15 (u64), then the stack copy (parser_seeds.py's
 * walk seed: a real walk through three frames to mutate) gives them
 * apart; any other input is at once the PE and, its last quarter (4 KiB at
 * most), a stack copy whose first words give the registers (rip inside
 * the image).  Each image is walked as a file and as mapped (the same
 * bytes): no read outside either, no loop (run.sh's -timeout), the walk
 * within its bounds; the frames' names and the identity are read too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/peunwind/peunwind.h"

#define BASE 0x140000000ull

static void walk(const struct katra_peu_image *img, const struct katra_peu_stack *st,
		 const struct katra_peu_regs *regs)
{
	struct katra_peu_frame fr[KATRA_PEU_MAX_FRAMES];
	enum katra_peu_stop stop;

	uint32_t n = katra_peu_walk(img, 1, st, regs, fr, KATRA_PEU_MAX_FRAMES, &stop);
	if (n > KATRA_PEU_MAX_FRAMES || stop > KATRA_PEU_TOO_DEEP)
		abort();
	for (uint32_t i = 1; i < n; i++)
		if (fr[i].module == 0 && fr[i].pc - BASE >= img->size)
			abort(); /* a frame named in a module that does not hold it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct katra_blob b = { malloc(size ? size : 1), size };
	struct katra_peu_image img;
	struct katra_peu_regs regs = { .known = 0xffff };
	struct katra_peu_stack st = { 0x7ff000000000ull, NULL, 0 };
	struct katra_pe_symtab syms;
	struct katra_peu_identity id;
	struct katra_blob pe;
	char name[300];

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	uint64_t n = size >= 8 ? katra_rd32(b.p + 4) : 0;
	if (size >= 8 && !memcmp(b.p, "KPEU", 4) && n + 8 + 136 <= size) {
		pe = (struct katra_blob){ b.p + 8, n };
		regs.rip = katra_rd64(b.p + 8 + n);
		for (int i = 0; i < 16; i++)
			regs.r[i] = katra_rd64(b.p + 8 + n + 8 + 8 * i);
		st.bytes = b.p + 8 + n + 136;
		st.len = size - (8 + n + 136);
	} else {
		pe = b;
		st.len = size / 4 < 4096 ? size / 4 : 4096;
		st.bytes = b.p + size - st.len;
		for (int i = 0; i < 16 && 8 * (i + 2) <= (int)st.len; i++)
			regs.r[i] = katra_rd64(st.bytes + 8 * (i + 1));
		uint32_t off = st.len >= 4 ? katra_rd32(st.bytes) : 0;
		regs.rip = BASE + off; /* inside the image, modulo its size below */
	}
	regs.r[KATRA_PEU_RSP] = st.sp;
	if (!katra_peu_image_file(&pe, BASE, &img)) {
		struct katra_peu_regs r = regs;
		if (pe.p == b.p && img.size)
			r.rip = BASE + (r.rip - BASE) % img.size;
		walk(&img, &st, &r);
	}
	if (!katra_peu_image_mapped(pe.p, pe.len, BASE, &img)) {
		struct katra_peu_regs r = regs;
		if (pe.p == b.p && img.size)
			r.rip = BASE + (r.rip - BASE) % img.size;
		walk(&img, &st, &r);
	}
	if (!katra_pe_symtab(&pe, &syms)) {
		for (uint32_t i = 0; i < 64; i++)
			katra_pe_symbolize(&syms, i * 0x101u, name, sizeof(name));
		katra_pe_symtab_free(&syms);
	}
	if (!katra_pe_identity(&pe, &id)) {
		katra_pe_identity_key(&id, name, sizeof(name));
		if (strlen(name) >= sizeof(name) || (id.has_codeview && strnlen(id.pdb, 256) > 255))
			abort();
	}
	free(b.p);
	return 0;
}
