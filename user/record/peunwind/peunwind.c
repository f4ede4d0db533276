// SPDX-License-Identifier: GPL-2.0-only
/* Windows x64 unwinding (peunwind.h): one step and the walk.  Layout
 * (PE/COFF spec, "x64 exception handling"): UNWIND_INFO: Version:3
 * Flags:5, SizeOfProlog, CountOfCodes, FrameRegister:4 FrameOffset:4
 * (scaled by 16), then CountOfCodes 2-byte slots {CodeOffset, UnwindOp:4
 * OpInfo:4} in reverse prolog order, padded to an even count, then (flag
 * UNW_FLAG_CHAININFO) the RUNTIME_FUNCTION whose codes continue this one's. */
#include <errno.h>
#include <string.h>

#include "peunwind.h"

#define UNW_FLAG_CHAININFO 4u

enum {
	UWOP_PUSH_NONVOL = 0,
	UWOP_ALLOC_LARGE = 1,
	UWOP_ALLOC_SMALL = 2,
	UWOP_SET_FPREG = 3,
	UWOP_SAVE_NONVOL = 4,
	UWOP_SAVE_NONVOL_FAR = 5,
	UWOP_EPILOG = 6, /* version 2; version 1: an obsolete SAVE_XMM (2 slots) */
	UWOP_SPARE_CODE = 7, /* version 1: an obsolete SAVE_XMM_FAR (3 slots) */
	UWOP_SAVE_XMM128 = 8,
	UWOP_SAVE_XMM128_FAR = 9,
	UWOP_PUSH_MACHFRAME = 10,
};

/* Slots a code takes (itself and its operands) */
static uint32_t code_slots(uint32_t op, uint32_t opinfo, uint32_t version)
{
	switch (op) {
	case UWOP_ALLOC_LARGE:
		return opinfo ? 3 : 2;
	case UWOP_SAVE_NONVOL:
	case UWOP_SAVE_XMM128:
		return 2;
	case UWOP_EPILOG:
		return version == 2 ? 1 : 2;
	case UWOP_SAVE_NONVOL_FAR:
	case UWOP_SAVE_XMM128_FAR:
	case UWOP_SPARE_CODE:
		return 3;
	default:
		return 1;
	}
}

struct uinfo {
	uint32_t version, flags, prolog, count, freg, foff;
	const uint8_t *codes; /* count slots */
};

static int read_info(const struct katra_peu_image *img, uint32_t rva, struct uinfo *u)
{
	const uint8_t *h = katra_peu_bytes(img, rva, 4);

	if (!h)
		return -EINVAL;
	u->version = h[0] & 7;
	u->flags = h[0] >> 3;
	u->prolog = h[1];
	u->count = h[2];
	u->freg = h[3] & 15;
	u->foff = h[3] >> 4;
	if (u->version != 1 && u->version != 2)
		return -EINVAL;
	u->codes = u->count ? katra_peu_bytes(img, rva + 4, 2 * u->count) : h + 4;
	return u->codes ? 0 : -EINVAL;
}

/* Version 2: whether rva is inside one of the epilogues the
 * UWOP_EPILOG codes list (they come first): the first gives their size
 * (CodeOffset) and, OpInfo bit 0, one at the function's very end; each
 * other one's start, counted back from the end (CodeOffset | OpInfo << 8;
 * 0 pads). */
static bool v2_in_epilog(const struct uinfo *u, uint32_t rva, uint32_t end)
{
	uint32_t size = 0;
	bool first = true;

	for (uint32_t i = 0; i < u->count; i++) {
		const uint8_t *c = u->codes + 2 * i;
		if ((c[1] & 15) != UWOP_EPILOG)
			break;
		if (first) {
			size = c[0];
			first = false;
			if ((c[1] >> 4) & 1 && rva < end && end - rva <= size)
				return true;
			continue;
		}
		uint32_t back = c[0] | (uint32_t)(c[1] >> 4) << 8;
		if (back && back <= end && rva >= end - back && rva - (end - back) < size)
			return true;
	}
	return false;
}

/* Undoes one UNWIND_INFO's codes that have run: those whose CodeOffset is
 * at most at (UINT32_MAX: all of them).  *mach: a machine frame popped. */
static int undo_codes(const struct uinfo *u, const struct katra_peu_stack *st, uint32_t at,
		      struct katra_peu_regs *r, bool *mach)
{
	uint64_t frame = r->r[KATRA_PEU_RSP], v;

	/* the frame register's base, once set: the saves are relative to it */
	for (uint32_t i = 0; i < u->count;) {
		const uint8_t *c = u->codes + 2 * i;
		uint32_t op = c[1] & 15;
		if (op == UWOP_SET_FPREG && c[0] <= at) {
			if (!u->freg || !(r->known & (1u << u->freg)))
				return -EINVAL;
			frame = r->r[u->freg] - 16ull * u->foff;
		}
		i += code_slots(op, c[1] >> 4, u->version);
	}
	for (uint32_t i = 0; i < u->count;) {
		const uint8_t *c = u->codes + 2 * i;
		uint32_t op = c[1] & 15, info = c[1] >> 4, n = code_slots(op, info, u->version);
		uint64_t *sp = &r->r[KATRA_PEU_RSP];
		if (i + n > u->count)
			return -EINVAL;
		uint32_t a16 = n >= 2 ? katra_rd16(c + 2) : 0, a32 = n == 3 ? katra_rd32(c + 2) : 0;
		i += n;
		if ((op == UWOP_EPILOG && u->version == 2) || c[0] > at)
			continue;
		switch (op) {
		case UWOP_PUSH_NONVOL:
			if (!katra_peu_read8(st, *sp, &v))
				return -ENOENT;
			r->r[info] = v;
			r->known |= 1u << info;
			*sp += 8;
			break;
		case UWOP_ALLOC_LARGE:
			if (info > 1)
				return -EINVAL;
			*sp += info ? a32 : 8ull * a16;
			break;
		case UWOP_ALLOC_SMALL:
			*sp += 8ull * info + 8;
			break;
		case UWOP_SET_FPREG:
			*sp = frame;
			break;
		case UWOP_SAVE_NONVOL:
		case UWOP_SAVE_NONVOL_FAR:
			if (!katra_peu_read8(st, frame + (n == 3 ? a32 : 8ull * a16), &v))
				return -ENOENT;
			r->r[info] = v;
			r->known |= 1u << info;
			break;
		case UWOP_EPILOG: /* version 1: obsolete saves of xmm registers */
		case UWOP_SPARE_CODE:
		case UWOP_SAVE_XMM128:
		case UWOP_SAVE_XMM128_FAR:
			break; /* xmm registers: no part of the walk */
		case UWOP_PUSH_MACHFRAME: {
			/* rip, cs, eflags, rsp, ss (an error code first, OpInfo 1) */
			uint64_t at_rip = *sp + (info ? 8 : 0), rip, rsp;
			if (info > 1)
				return -EINVAL;
			if (!katra_peu_read8(st, at_rip, &rip) || !katra_peu_read8(st, at_rip + 24, &rsp))
				return -ENOENT;
			r->rip = rip;
			*sp = rsp;
			*mach = true;
			break;
		}
		default:
			return -EINVAL;
		}
	}
	return 0;
}

void katra_peu_regs_from_pt(const uint64_t pt[21], struct katra_peu_regs *r)
{
	/* pt_regs' word of each register in UWOP order (rax rcx rdx rbx rsp
	 * rbp rsi rdi r8..r15) */
	static const uint8_t at[16] = { 10, 11, 12, 5, 19, 4, 13, 14, 9, 8, 7, 6, 3, 2, 1, 0 };

	for (int i = 0; i < 16; i++)
		r->r[i] = pt[at[i]];
	r->rip = pt[16];
	r->known = 0xffff;
}

int katra_peu_step(const struct katra_peu_image *img, const struct katra_peu_stack *st,
		   bool caller, struct katra_peu_regs *r, enum katra_peu_how *how)
{
	uint64_t v;
	uint32_t rva = (uint32_t)(r->rip - img->base), begin, end, info;
	bool mach = false;
	struct uinfo u;

	if (!katra_peu_lookup(img, caller && rva ? rva - 1 : rva, &begin, &end, &info)) {
		*how = KATRA_PEU_LEAF;
		if (!katra_peu_read8(st, r->r[KATRA_PEU_RSP], &v))
			return -ENOENT;
		r->rip = v;
		r->r[KATRA_PEU_RSP] += 8;
		return 0;
	}
	int rc = read_info(img, info, &u);
	if (rc)
		return rc;
	uint32_t at = UINT32_MAX;
	if (rva - begin < u.prolog) {
		at = rva - begin;
	} else if (rva < end && (u.version == 2 ? v2_in_epilog(&u, rva, end)
					       : katra_peu_in_epilog(img, rva, begin, end, u.freg))) {
		*how = KATRA_PEU_EPILOG;
		return katra_peu_run_epilog(img, st, rva, begin, end, r);
	}
	*how = KATRA_PEU_UNWOUND;
	for (uint32_t k = 0;; k++) {
		rc = undo_codes(&u, st, at, r, &mach);
		if (rc)
			return rc;
		if (!(u.flags & UNW_FLAG_CHAININFO))
			break;
		if (k + 1 >= KATRA_PEU_CHAIN_MAX)
			return -EINVAL;
		/* the chained entry after the codes (an even count); its own
		 * prolog has run: every code applies */
		const uint8_t *f = katra_peu_bytes(img, info + 4 + 2 * ((u.count + 1) & ~1u), 12);
		if (!f)
			return -EINVAL;
		info = katra_rd32(f + 8);
		if (info & 1) {
			const uint8_t *g = katra_peu_bytes(img, info & ~1u, 12);
			if (!g || (katra_rd32(g + 8) & 1))
				return -EINVAL;
			info = katra_rd32(g + 8);
		}
		if ((rc = read_info(img, info, &u)))
			return rc;
		at = UINT32_MAX;
	}
	if (mach)
		return 0;
	if (!katra_peu_read8(st, r->r[KATRA_PEU_RSP], &v))
		return -ENOENT;
	r->rip = v;
	r->r[KATRA_PEU_RSP] += 8;
	return 0;
}

uint32_t katra_peu_walk(const struct katra_peu_image *images, uint32_t nimg,
			const struct katra_peu_stack *st, const struct katra_peu_regs *start,
			struct katra_peu_frame *out, uint32_t max, enum katra_peu_stop *stop)
{
	struct katra_peu_regs r = *start;
	uint32_t n = 0;

	r.known |= 1u << KATRA_PEU_RSP;
	if (max > KATRA_PEU_MAX_FRAMES)
		max = KATRA_PEU_MAX_FRAMES;
	*stop = KATRA_PEU_TOO_DEEP;
	while (n < max) {
		const struct katra_peu_image *img = NULL;
		uint32_t m = UINT32_MAX;
		for (uint32_t i = 0; i < nimg; i++)
			if (r.rip >= images[i].base && r.rip - images[i].base < images[i].size) {
				img = &images[i];
				m = i;
				break;
			}
		out[n] = (struct katra_peu_frame){ r.rip, m, KATRA_PEU_UNWOUND };
		if (!img) {
			n++;
			*stop = KATRA_PEU_NO_MODULE;
			break;
		}
		uint64_t sp = r.r[KATRA_PEU_RSP];
		enum katra_peu_how how;
		int rc = katra_peu_step(img, st, n > 0, &r, &how);
		out[n++].how = how;
		if (rc) {
			*stop = rc == -ENOENT ? KATRA_PEU_OUT_OF_STACK : KATRA_PEU_BAD_INFO;
			break;
		}
		if (!r.rip) {
			*stop = KATRA_PEU_END;
			break;
		}
		/* each caller's frame above its callee's: no walk repeats itself */
		if (r.r[KATRA_PEU_RSP] <= sp) {
			*stop = KATRA_PEU_NO_PROGRESS;
			break;
		}
	}
	return n;
}
