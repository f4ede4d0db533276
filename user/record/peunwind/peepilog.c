// SPDX-License-Identifier: GPL-2.0-only
/* Version 1 epilogues, recognised by their code (peunwind.h).  The x64
 * convention allows only these forms, in this order: at most one `add
 * rsp, imm8/imm32` (48 83 c4 ib, 48 81 c4 id) or `lea rsp, [frame_reg +
 * disp8/disp32]` (REX.W 8d, ModRM reg = rsp, no SIB), then `pop r64` (58+r,
 * REX.B for r8-r15), then `ret` (c3, c2 iw, f3 c3) or a jmp: a direct one
 * inside the function is followed (a shared epilogue), one out of it is a
 * tail call once the epilogue has begun (a jump to a cold part of the body
 * looks the same before), an indirect one through memory (ff 25, an
 * import's tail call) always is.  A body instruction never matches: pc
 * inside a function's body never starts these forms before its ret. */
#include <errno.h>

#include "peunwind.h"

#define EPILOG_STEPS 64 /* instructions and jumps followed, at most */

/* The byte at rva, or -1 */
static int byte_at(const struct katra_peu_image *img, uint32_t rva)
{
	const uint8_t *p = katra_peu_bytes(img, rva, 1);

	return p ? *p : -1;
}

static bool s32_at(const struct katra_peu_image *img, uint32_t rva, int32_t *v)
{
	const uint8_t *p = katra_peu_bytes(img, rva, 4);

	if (!p)
		return false;
	*v = (int32_t)katra_rd32(p);
	return true;
}

/* What one walk of an epilogue does; regs NULL: only recognise it */
struct ep {
	const struct katra_peu_image *img;
	const struct katra_peu_stack *st;
	struct katra_peu_regs *r;
	uint32_t begin, end, freg;
};

static int do_ret(struct ep *e, uint32_t extra)
{
	uint64_t v;

	if (!e->r)
		return 0;
	if (!katra_peu_read8(e->st, e->r->r[KATRA_PEU_RSP], &v))
		return -ENOENT;
	e->r->rip = v;
	e->r->r[KATRA_PEU_RSP] += 8 + extra;
	return 0;
}

/* The add or lea that may begin it: its length (0: none), *delta or *base
 * and *disp for the walk; -1: not an epilogue */
static int first_insn(const struct ep *e, uint32_t pc, int64_t *delta, int *base, int64_t *disp)
{
	int rex = byte_at(e->img, pc), op = byte_at(e->img, pc + 1), modrm = byte_at(e->img, pc + 2);
	int32_t v32;

	*base = -1;
	*delta = 0;
	*disp = 0;
	if (rex < 0 || (rex & 0xf8) != 0x48 || op < 0 || modrm < 0)
		return 0;
	if ((op == 0x83 || op == 0x81) && rex == 0x48 && modrm == 0xc4) { /* add rsp, imm */
		if (op == 0x83) {
			int ib = byte_at(e->img, pc + 3);
			if (ib < 0)
				return -1;
			*delta = (int8_t)ib;
			return 4;
		}
		if (!s32_at(e->img, pc + 3, &v32))
			return -1;
		*delta = v32;
		return 7;
	}
	if (op != 0x8d)
		return 0;
	/* lea rsp, [reg + disp]: no REX.R/X, ModRM reg = 4 (rsp), no SIB */
	if ((rex & 0x06) || ((modrm >> 3) & 7) != 4 || (modrm & 7) == 4)
		return -1;
	*base = (modrm & 7) + (rex & 1) * 8;
	if (!e->freg || *base != (int)e->freg)
		return -1; /* only the frame register may give rsp back */
	if (modrm >> 6 == 1) {
		int ib = byte_at(e->img, pc + 3);
		if (ib < 0)
			return -1;
		*disp = (int8_t)ib;
		return 4;
	}
	if (modrm >> 6 == 2) {
		if (!s32_at(e->img, pc + 3, &v32))
			return -1;
		*disp = v32;
		return 7;
	}
	return -1;
}

/* Walks the epilogue at pc: 1 an epilogue (run on e->r when not NULL), 0
 * not one, or -errno from the walk */
static int walk(struct ep *e, uint32_t pc)
{
	int64_t delta, disp;
	int base, len = first_insn(e, pc, &delta, &base, &disp);
	bool begun = len > 0;
	uint64_t v;

	if (len < 0)
		return 0;
	if (len > 0 && e->r) {
		if (base >= 0) {
			if (!(e->r->known & (1u << base)))
				return -EINVAL;
			e->r->r[KATRA_PEU_RSP] = e->r->r[base] + (uint64_t)disp;
		} else {
			e->r->r[KATRA_PEU_RSP] += (uint64_t)delta;
		}
	}
	pc += (uint32_t)len;
	for (int k = 0; k < EPILOG_STEPS; k++) {
		int b = byte_at(e->img, pc), rex = 0, rc;
		if (b >= 0x40 && b <= 0x4f) {
			rex = b;
			b = byte_at(e->img, ++pc);
		}
		if (b < 0)
			return 0;
		if (b >= 0x58 && b <= 0x5f) { /* pop */
			if (rex & ~0x41)
				return 0; /* only REX.B (and none) is a plain pop */
			if (e->r) {
				unsigned reg = (unsigned)(b - 0x58) + (rex & 1) * 8;
				if (!katra_peu_read8(e->st, e->r->r[KATRA_PEU_RSP], &v))
					return -ENOENT;
				e->r->r[reg] = v;
				e->r->known |= 1u << reg;
				e->r->r[KATRA_PEU_RSP] += 8;
			}
			pc++;
			begun = true;
			continue;
		}
		if (rex && b != 0xff)
			return 0;
		switch (b) {
		case 0xc3:
			return (rc = do_ret(e, 0)) ? rc : 1;
		case 0xc2: {
			const uint8_t *p = katra_peu_bytes(e->img, pc + 1, 2);
			if (!p)
				return 0;
			return (rc = do_ret(e, katra_rd16(p))) ? rc : 1;
		}
		case 0xf3:
			if (byte_at(e->img, pc + 1) != 0xc3)
				return 0;
			return (rc = do_ret(e, 0)) ? rc : 1;
		case 0xe9:
		case 0xeb: {
			int32_t rel;
			uint32_t ilen = b == 0xe9 ? 5 : 2;
			if (b == 0xe9 ? !s32_at(e->img, pc + 1, &rel) : byte_at(e->img, pc + 1) < 0)
				return 0;
			if (b == 0xeb)
				rel = (int8_t)byte_at(e->img, pc + 1);
			uint32_t target = pc + ilen + (uint32_t)rel;
			if (target >= e->begin && target < e->end) {
				pc = target; /* a shared epilogue */
				continue;
			}
			/* run: the caller knows it is an epilogue (version 2's list
			 * names one whose pops are done) */
			if (!begun && !e->r)
				return 0;
			return (rc = do_ret(e, 0)) ? rc : 1; /* a tail call */
		}
		case 0xff: /* jmp [rip + disp32] */
			if (byte_at(e->img, pc + 1) != 0x25 || (rex & ~0x48))
				return 0;
			return (rc = do_ret(e, 0)) ? rc : 1;
		default:
			return 0;
		}
	}
	return 0;
}

bool katra_peu_in_epilog(const struct katra_peu_image *img, uint32_t rva, uint32_t begin,
			 uint32_t end, uint32_t frame_reg)
{
	struct ep e = { img, NULL, NULL, begin, end, frame_reg };

	return walk(&e, rva) == 1;
}

int katra_peu_run_epilog(const struct katra_peu_image *img, const struct katra_peu_stack *st,
			 uint32_t rva, uint32_t begin, uint32_t end, struct katra_peu_regs *regs)
{
	/* the frame register is whichever the lea names: allow any here (the
	 * caller decided it is an epilogue) */
	struct ep e = { img, st, regs, begin, end, 0 };
	int b = byte_at(img, rva), op = byte_at(img, rva + 1), modrm = byte_at(img, rva + 2);

	if (b >= 0 && (b & 0xf8) == 0x48 && op == 0x8d && modrm >= 0)
		e.freg = (uint32_t)((modrm & 7) + (b & 1) * 8);
	int rc = walk(&e, rva);
	return rc < 0 ? rc : rc == 1 ? 0 : -EINVAL;
}
