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
#include "record/uprobes/wineframe.h"
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

/* The PE walk from regs over st: frames after out[*n]; every frame a
 * caller's when caller (its pc a return address) */
static void pe_walk(struct stk_proc *p, const struct katra_peu_stack *st,
		    const struct katra_peu_regs *regs, bool caller, struct stk_frame *out,
		    uint32_t *n, bool *truncated)
{
	static struct katra_peu_frame fr[KATRA_PEU_MAX_FRAMES];
	enum katra_peu_stop stop;
	uint32_t room = STK_MAX_FRAMES - *n;
	uint32_t max = room < KATRA_PEU_MAX_FRAMES ? room : KATRA_PEU_MAX_FRAMES;
	uint32_t k = katra_peu_walk(p->pe_imgs, p->npe, st, regs, fr, max, &stop);

	for (uint32_t i = 0; i < k; i++) {
		/* a caller's pc is its return address: the call is the byte before */
		uint64_t pc = i || caller ? fr[i].pc - 1 : fr[i].pc;
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
}

static bool is_ntdll_so(const struct stk_file *f)
{
	const char *slash = strrchr(f->path, '/');

	return !strcmp(slash ? slash + 1 : f->path, "ntdll.so");
}

/* ntdll.so's syscall dispatcher: the return address of its call of the NT
 * function (wineframe.h), read from the file at its first join; 0: none */
static uint64_t dispatcher_ret(struct stk_file *f)
{
	struct katra_blob b;
	struct katra_wine_frame w;
	const char *why;

	if (!f->wine_read && f->fd >= 0) {
		f->wine_read = true;
		if (!katra_blob_read_fd(f->fd, PE_FILE_MAX, &b)) {
			if (!katra_wine_frame_read(&b, &w, &why))
				f->wine_call_ret = w.call_ret;
			katra_blob_free(&b);
		}
	}
	return f->wine_call_ret;
}

/* Wine >= 7: the Unix half walked (out, *n frames) ends at ntdll.so's
 * dispatcher, or somewhere past it (its caller's stack is not in the
 * copy); the Windows half goes on from the syscall frame's registers
 * (those the dispatcher saved: rip its caller's return address, rsp above
 * it, the nonvolatile ones) over the Windows stack's copy.  The Unix frames
 * kept: up to the outermost ntdll.so frame of the first run of ELF frames,
 * then the dispatcher's own frame (its call's return) where the walk did
 * not reach it: the frame after is in no module (the NT functions'
 * uretprobes, --no-uprobes aside, put the kernel's trampoline in their
 * return address) or there is none; the join's checks say the thread is
 * inside an NT call the dispatcher made. */
void stk_pe_join(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
		 struct stk_frame *out, uint32_t *n, bool *truncated)
{
	const __u64 *w = rec->pe_frame;
	struct katra_peu_regs regs = { .known = 0 };
	uint32_t keep = 0;
	bool hit = false;

	if (!rec->pe_len)
		return;
	if (!p->pe_done)
		pe_images(p, files);
	for (uint32_t i = 0; i < p->npe && !hit; i++)
		hit = in_image(&p->pe_imgs[i], w[KATRA_WF_RIP]);
	/* the frame's rsp in the copy: a frame of this call, not a stale one */
	if (!hit || w[KATRA_WF_RSP] < rec->pe_base ||
	    w[KATRA_WF_RSP] >= rec->pe_base + rec->pe_len)
		return;
	for (uint32_t i = 0; i < *n && out[i].file != UINT32_MAX && !files[out[i].file].pe; i++)
		if (is_ntdll_so(&files[out[i].file]))
			keep = i + 1;
	if (!keep)
		return;
	uint32_t nt = out[keep - 1].file;
	uint64_t ret = dispatcher_ret(&files[nt]);
	if (ret && out[keep - 1].address != ret - 1 && (keep == *n || out[keep].file == UINT32_MAX) &&
	    keep < STK_MAX_FRAMES) {
		out[keep] = (struct stk_frame){ nt, ret - 1 };
		keep++;
	}
	*n = keep;
	regs.rip = w[KATRA_WF_RIP];
	regs.r[KATRA_PEU_RSP] = w[KATRA_WF_RSP];
	regs.r[3] = w[KATRA_WF_RBX];
	regs.r[KATRA_PEU_RBP] = w[KATRA_WF_RBP];
	regs.r[6] = w[KATRA_WF_RSI];
	regs.r[7] = w[KATRA_WF_RDI];
	for (int i = 0; i < 4; i++)
		regs.r[12 + i] = w[KATRA_WF_R12 + i];
	regs.known = 1u << 3 | 1u << KATRA_PEU_RSP | 1u << KATRA_PEU_RBP | 1u << 6 | 1u << 7 |
		     0xf000;
	struct katra_peu_stack st = { rec->pe_base, rec->data + rec->stack_len, rec->pe_len };
	pe_walk(p, &st, &regs, true, out, n, truncated);
}

bool stk_pe_unwind(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
		   struct stk_frame *out, uint32_t *n, bool *truncated)
{
	struct katra_peu_regs regs;
	bool hit = false;

	if (!p->pe_done)
		pe_images(p, files);
	for (uint32_t i = 0; i < p->npe && !hit; i++)
		hit = in_image(&p->pe_imgs[i], rec->regs[PT_RIP]);
	if (!hit)
		return false;
	katra_peu_regs_from_pt((const uint64_t *)rec->regs, &regs);
	struct katra_peu_stack st = { rec->stack_base, rec->data, rec->stack_len };
	*n = 0;
	pe_walk(p, &st, &regs, false, out, n, truncated);
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
