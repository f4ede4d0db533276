// SPDX-License-Identifier: GPL-2.0-only
/* The Windows x64 half of a Wine thread's stack: a process's PE images
 * (Wine maps a PE's headers from its file at the image's base: a mapping
 * at file offset 0 of a file that starts with "MZ"; the code may be in
 * anonymous memory, so the file is read through its section table, never
 * the process's memory) and the .pdata walk (peunwind/) over them.  A
 * frame's address is ImageBase + rva: the file's own address space, as an
 * ELF frame's is its vaddr. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/peunwind/peunwind.h"
#include "stacks_int.h"

#define PE_FILE_MAX (512u << 20)
#define PE_MAX_IMAGES 512

/* x86_64 struct pt_regs words (wire.h: KATRA_STACK_REGS) */
enum { PT_RIP = 16, PT_RSP = 19 };

const struct katra_blob *stk_pe_blob(struct stk_file *f)
{
	if (!f->pe || f->fd < 0)
		return NULL;
	if (!f->pe_read) {
		f->pe_read = true;
		if (katra_blob_read_fd(f->fd, PE_FILE_MAX, &f->blob))
			memset(&f->blob, 0, sizeof(f->blob));
	}
	return f->blob.p ? &f->blob : NULL;
}

/* Each PE file of p at its mapping of offset 0 (a file mapped at two bases
 * is two images) */
static void pe_images(struct stk_proc *p, struct stk_file *files)
{
	uint32_t cap = 0;

	p->pe_done = true;
	for (uint32_t i = 0; i < p->nmaps; i++)
		cap += p->maps[i].pgoff == 0 && files[p->maps[i].file].pe;
	if (cap > PE_MAX_IMAGES)
		cap = PE_MAX_IMAGES;
	if (!cap)
		return;
	p->pe_imgs = calloc(cap, sizeof(*p->pe_imgs));
	p->pe_files = calloc(cap, sizeof(*p->pe_files));
	if (!p->pe_imgs || !p->pe_files) {
		stk_pe_release(p);
		return;
	}
	for (uint32_t i = 0; i < p->nmaps && p->npe < cap; i++) {
		const struct stk_map *m = &p->maps[i];
		if (m->pgoff || !files[m->file].pe)
			continue;
		const struct katra_blob *b = stk_pe_blob(&files[m->file]);
		if (!b || katra_peu_image_file(b, m->start, &p->pe_imgs[p->npe]))
			continue;
		p->pe_files[p->npe++] = m->file;
	}
}

static bool in_image(const struct katra_peu_image *img, uint64_t pc)
{
	return pc >= img->base && pc - img->base < img->size;
}

bool stk_pe_unwind(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
		   struct stk_frame *out, uint32_t *n, bool *truncated)
{
	static struct katra_peu_frame fr[KATRA_PEU_MAX_FRAMES];
	struct katra_peu_regs regs;
	enum katra_peu_stop stop;
	bool hit = false;

	if (!p->pe_done)
		pe_images(p, files);
	for (uint32_t i = 0; i < p->npe && !hit; i++)
		hit = in_image(&p->pe_imgs[i], rec->regs[PT_RIP]);
	if (!hit)
		return false;
	katra_peu_regs_from_pt((const uint64_t *)rec->regs, &regs);
	struct katra_peu_stack st = { rec->stack_base, rec->data, rec->stack_len };
	uint32_t max = STK_MAX_FRAMES < KATRA_PEU_MAX_FRAMES ? STK_MAX_FRAMES : KATRA_PEU_MAX_FRAMES;
	uint32_t k = katra_peu_walk(p->pe_imgs, p->npe, &st, &regs, fr, max, &stop);

	*n = 0;
	for (uint32_t i = 0; i < k; i++) {
		/* a caller's pc is its return address: the call is the byte before */
		uint64_t pc = i ? fr[i].pc - 1 : fr[i].pc;
		struct stk_frame *f = &out[(*n)++];
		if (fr[i].module >= p->npe) {
			*f = (struct stk_frame){ UINT32_MAX, pc };
			continue;
		}
		const struct katra_peu_image *img = &p->pe_imgs[fr[i].module];
		*f = (struct stk_frame){ p->pe_files[fr[i].module],
					 img->pe.image_base + (pc - img->base) };
	}
	*truncated = stop != KATRA_PEU_END;
	return true;
}

void stk_pe_release(struct stk_proc *p)
{
	free(p->pe_imgs);
	free(p->pe_files);
	p->pe_imgs = NULL;
	p->pe_files = NULL;
	p->npe = 0;
}
