// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is at once a PE image (as a file, and as
 * mapped: the same bytes) and, its last quarter (4 KiB at most), a thread's
 * stack copy whose first words give the registers (rip inside the image).
 * The walk must end within its bounds, whatever the bytes
 * (user/record/peunwind/): no read outside either, no loop (run.sh's
 * -timeout); the frames' names and the identity are read too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/peunwind/peunwind.h"

#define BASE 0x140000000ull

static void walk(const struct katra_peu_image *img, const struct katra_blob *b,
		 const struct katra_peu_stack *st)
{
	struct katra_peu_regs regs = { .known = 0xffff };
	struct katra_peu_frame fr[KATRA_PEU_MAX_FRAMES];
	enum katra_peu_stop stop;

	for (int i = 0; i < 16 && 8 * (i + 2) <= (int)st->len; i++)
		regs.r[i] = katra_rd64(st->bytes + 8 * (i + 1));
	regs.r[KATRA_PEU_RSP] = st->sp;
	uint32_t off = st->len >= 4 ? katra_rd32(st->bytes) : 0;
	regs.rip = BASE + (img->size ? off % img->size : off);
	uint32_t n = katra_peu_walk(img, 1, st, &regs, fr, KATRA_PEU_MAX_FRAMES, &stop);
	if (n > KATRA_PEU_MAX_FRAMES || stop > KATRA_PEU_TOO_DEEP)
		abort();
	for (uint32_t i = 1; i < n; i++)
		if (fr[i].module == 0 && fr[i].pc - BASE >= img->size)
			abort(); /* a frame named in a module that does not hold it */
	(void)b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct katra_blob b = { malloc(size ? size : 1), size };
	struct katra_peu_image img;
	struct katra_pe_symtab syms;
	struct katra_pe_identity id;
	char name[300];

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	size_t slen = size / 4 < 4096 ? size / 4 : 4096;
	struct katra_peu_stack st = { 0x7ff000000000ull, b.p + size - slen, slen };
	if (!katra_peu_image_file(&b, BASE, &img))
		walk(&img, &b, &st);
	if (!katra_peu_image_mapped(b.p, b.len, BASE, &img))
		walk(&img, &b, &st);
	if (!katra_pe_symtab(&b, &syms)) {
		for (uint32_t i = 0; i < 64; i++)
			katra_pe_symbolize(&syms, i * 0x101u, name, sizeof(name));
		katra_pe_symtab_free(&syms);
	}
	if (!katra_pe_identity(&b, &id)) {
		katra_pe_identity_key(&id, name, sizeof(name));
		if (strlen(name) >= sizeof(name) || (id.has_codeview && strnlen(id.pdb, 256) > 255))
			abort();
	}
	free(b.p);
	return 0;
}
