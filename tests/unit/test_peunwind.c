// SPDX-License-Identifier: GPL-2.0-only
/* The Windows x64 unwinder (user/record/peunwind/) over synthetic images:
 * a PE32+ with code at rva 0x1000 and .pdata/.xdata at 0x2000, each test's
 * functions and UNWIND_INFO written byte by byte, a stack copy of 64 words
 * at 0x10000, and the caller's registers after one step checked exactly:
 * each UWOP code, the prolog's partial undo, chained info, epilogues of
 * version 1 (by their code) and 2 (by their list), a leaf, and hostile
 * data (a chain that names itself, bad versions, reads past the copy). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "record/peunwind/peunwind.h"
#include "crafted_pe_util.h"

#define LEN 0x2400u
#define TEXT 0x1000u /* rva; file 0x400 */
#define DATA 0x2000u /* rva; file 0x1400: .pdata at DATA, UNWIND_INFO from DATA + 0x800 */
#define BASE 0x140000000ull
#define SP 0x10000ull
#define RET 0x7ff000001234ull /* a return address in no image */

static uint8_t *f;
static struct katra_blob blob;
static struct katra_peu_image img;
static uint32_t nfuncs, xcur;
static uint64_t stk[64];
static struct katra_peu_stack st;
static struct katra_peu_regs regs;

static void setup(void)
{
	f = crafted_pe(LEN, 2);
	cr_assert(f);
	crafted_section(f, 0, TEXT, 0x1000, 0x400, SCN_CODE);
	crafted_section(f, 1, DATA, 0x1000, 0x1400, SCN_DATA);
	crafted_put32(f, CRAFTED_OPT + 56, 0x3000); /* SizeOfImage */
	crafted_put32(f, CRAFTED_OPT + 108, 16);    /* NumberOfRvaAndSizes */
	blob = (struct katra_blob){ f, LEN };
	nfuncs = 0;
	xcur = DATA + 0x800;
	memset(stk, 0, sizeof(stk));
	st = (struct katra_peu_stack){ SP, (const uint8_t *)stk, sizeof(stk) };
	memset(&regs, 0, sizeof(regs));
	regs.known = 0xffff;
}

static void teardown(void)
{
	free(f);
}

TestSuite(peunwind, .init = setup, .fini = teardown);

static void code(uint32_t rva, const uint8_t *b, size_t n)
{
	memcpy(f + 0x400 + (rva - TEXT), b, n);
}

/* an UNWIND_INFO: version, flags, prolog, frame register and offset, codes
 * (2-byte slots), an optional chained entry; its rva */
static uint32_t info(unsigned ver, unsigned flags, unsigned prolog, unsigned freg, unsigned foff,
		     const uint8_t *codes, unsigned nslots, const uint32_t *chain)
{
	uint32_t rva = xcur;
	uint8_t *p = f + 0x1400 + (rva - DATA);

	p[0] = (uint8_t)(ver | flags << 3);
	p[1] = (uint8_t)prolog;
	p[2] = (uint8_t)nslots;
	p[3] = (uint8_t)(freg | foff << 4);
	if (nslots)
		memcpy(p + 4, codes, 2 * nslots);
	uint32_t end = 4 + 2 * ((nslots + 1) & ~1u);
	if (chain) {
		crafted_put32(f, 0x1400 + (rva - DATA) + end, chain[0]);
		crafted_put32(f, 0x1400 + (rva - DATA) + end + 4, chain[1]);
		crafted_put32(f, 0x1400 + (rva - DATA) + end + 8, chain[2]);
		end += 12;
	}
	xcur += (end + 3) & ~3u;
	return rva;
}

/* a RUNTIME_FUNCTION (in rising order), the directory updated */
static void func(uint32_t begin, uint32_t end, uint32_t unwind)
{
	uint64_t e = 0x1400 + 12ull * nfuncs++;

	crafted_put32(f, e, begin);
	crafted_put32(f, e + 4, end);
	crafted_put32(f, e + 8, unwind);
	crafted_put32(f, CRAFTED_OPT + 136, DATA);
	crafted_put32(f, CRAFTED_OPT + 140, 12 * nfuncs);
}

static void open_image(void)
{
	cr_assert_eq(katra_peu_image_file(&blob, BASE, &img), 0);
}

static void put(uint64_t addr, uint64_t v)
{
	stk[(addr - SP) / 8] = v;
}

/* one step from rva (the innermost frame); its return code */
static int step_at(uint32_t rva, enum katra_peu_how *how)
{
	regs.rip = BASE + rva;
	return katra_peu_step(&img, &st, false, &regs, how);
}

#define SLOT(off, op, inf) (uint8_t)(off), (uint8_t)((op) | (inf) << 4)
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

/* push rbx; sub rsp,0x20; body; add rsp,0x20; pop rbx; ret */
static const uint8_t f1[] = { 0x53, 0x48, 0x83, 0xec, 0x20, 0x90, 0x90, 0x48, 0x83, 0xc4, 0x20, 0x5b, 0xc3 };
static void f1_setup(void)
{
	const uint8_t c[] = { SLOT(5, 2, 3), SLOT(1, 0, RBX) }; /* ALLOC_SMALL 0x20; PUSH rbx */
	code(TEXT, f1, sizeof(f1));
	func(TEXT, TEXT + sizeof(f1), info(1, 0, 5, 0, 0, c, 2, NULL));
	open_image();
}

Test(peunwind, push_nonvol_and_alloc_small_in_the_body)
{
	enum katra_peu_how how;

	f1_setup();
	regs.r[RSP] = SP;
	put(SP + 0x20, 0xb0b);
	put(SP + 0x28, RET);
	cr_assert_eq(step_at(TEXT + 5, &how), 0);
	cr_assert_eq(how, KATRA_PEU_UNWOUND);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 0x30);
	cr_assert_eq(regs.r[RBX], 0xb0b);
}

Test(peunwind, inside_the_prolog_only_the_codes_that_ran)
{
	enum katra_peu_how how;

	f1_setup();
	/* after push rbx, before sub: the ALLOC_SMALL (CodeOffset 5) has not run */
	regs.r[RSP] = SP;
	put(SP, 0xb0b);
	put(SP + 8, RET);
	cr_assert_eq(step_at(TEXT + 1, &how), 0);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 16);
	cr_assert_eq(regs.r[RBX], 0xb0b);
	/* at the first byte: nothing ran */
	regs.r[RSP] = SP;
	regs.r[RBX] = 7;
	put(SP, RET);
	cr_assert_eq(step_at(TEXT, &how), 0);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 8);
	cr_assert_eq(regs.r[RBX], 7);
}

Test(peunwind, version1_epilogue_by_its_code)
{
	enum katra_peu_how how;

	f1_setup();
	/* at add rsp,0x20: the whole epilogue to run */
	regs.r[RSP] = SP;
	put(SP + 0x20, 0xb0b);
	put(SP + 0x28, RET);
	cr_assert_eq(step_at(TEXT + 7, &how), 0);
	cr_assert_eq(how, KATRA_PEU_EPILOG);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 0x30);
	cr_assert_eq(regs.r[RBX], 0xb0b);
	/* at pop rbx: the add has run (undoing the prolog would pop twice) */
	regs.r[RSP] = SP;
	put(SP, 0xc0c);
	put(SP + 8, RET);
	cr_assert_eq(step_at(TEXT + 11, &how), 0);
	cr_assert_eq(how, KATRA_PEU_EPILOG);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 16);
	cr_assert_eq(regs.r[RBX], 0xc0c);
}

Test(peunwind, alloc_large_both_forms)
{
	enum katra_peu_how how;
	const uint8_t c16[] = { SLOT(7, 1, 0), 0x30, 0x00 };        /* 0x30 * 8 = 0x180 */
	const uint8_t c32[] = { SLOT(7, 1, 1), 0x08, 0x01, 0x00, 0x00 }; /* 0x108 */
	const uint8_t body[] = { 0x48, 0x81, 0xec, 0, 0, 0, 0, 0x90, 0x90, 0xc3 };

	code(TEXT, body, sizeof(body));
	code(TEXT + 0x20, body, sizeof(body));
	func(TEXT, TEXT + 0x10, info(1, 0, 7, 0, 0, c16, 2, NULL));
	func(TEXT + 0x20, TEXT + 0x30, info(1, 0, 7, 0, 0, c32, 3, NULL));
	open_image();
	regs.r[RSP] = SP;
	put(SP + 0x180, RET);
	cr_assert_eq(step_at(TEXT + 7, &how), 0);
	cr_assert_eq(regs.r[RSP], SP + 0x188);
	cr_assert_eq(regs.rip, RET);
	regs.r[RSP] = SP;
	put(SP + 0x108, RET + 1);
	cr_assert_eq(step_at(TEXT + 0x27, &how), 0);
	cr_assert_eq(regs.r[RSP], SP + 0x110);
	cr_assert_eq(regs.rip, RET + 1);
}

Test(peunwind, set_fpreg_gives_rsp_back_after_an_alloca)
{
	enum katra_peu_how how;
	/* push rbp; sub rsp,0x40; lea rbp,[rsp+0x20]; (alloca: rsp -= 0x60) */
	const uint8_t body[] = { 0x55, 0x48, 0x83, 0xec, 0x40, 0x48, 0x8d, 0x6c, 0x24, 0x20,
				 0x90, 0x90, 0x48, 0x8d, 0x65, 0x20, 0x5d, 0xc3 };
	const uint8_t c[] = { SLOT(10, 3, 0), SLOT(5, 2, 7), SLOT(1, 0, RBP) };

	code(TEXT, body, sizeof(body));
	func(TEXT, TEXT + sizeof(body), info(1, 0, 10, RBP, 2, c, 3, NULL));
	open_image();
	uint64_t fixed = SP + 0x60; /* rsp after the prolog */
	regs.r[RSP] = SP;
	regs.r[RBP] = fixed + 0x20;
	put(fixed + 0x40, 0x5eed);
	put(fixed + 0x48, RET);
	cr_assert_eq(step_at(TEXT + 10, &how), 0);
	cr_assert_eq(how, KATRA_PEU_UNWOUND);
	cr_assert_eq(regs.r[RSP], fixed + 0x50);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RBP], 0x5eed);
	/* its epilogue, lea rsp,[rbp+0x20]; pop rbp; ret: by the frame register too */
	regs.r[RSP] = SP;
	regs.r[RBP] = fixed + 0x20;
	cr_assert_eq(step_at(TEXT + 12, &how), 0);
	cr_assert_eq(how, KATRA_PEU_EPILOG);
	cr_assert_eq(regs.r[RSP], fixed + 0x50);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RBP], 0x5eed);
}

Test(peunwind, save_nonvol_near_and_far_relative_to_the_frame)
{
	enum katra_peu_how how;
	/* sub rsp,0x48; mov [rsp+0x30],rsi; mov [rsp+0x38],rdi (far form) */
	const uint8_t c[] = { SLOT(14, 5, RDI), 0x38, 0, 0, 0, SLOT(9, 4, RSI), 0x06, 0,
			      SLOT(4, 2, 8) };
	const uint8_t body[] = { 0x48, 0x83, 0xec, 0x48, 0x48, 0x89, 0x74, 0x24, 0x30,
				 0x48, 0x89, 0x7c, 0x24, 0x38, 0x90, 0x90, 0xc3 };

	code(TEXT, body, sizeof(body));
	func(TEXT, TEXT + sizeof(body), info(1, 0, 14, 0, 0, c, 6, NULL));
	open_image();
	regs.r[RSP] = SP;
	put(SP + 0x30, 0x51);
	put(SP + 0x38, 0xd1);
	put(SP + 0x48, RET);
	cr_assert_eq(step_at(TEXT + 14, &how), 0);
	cr_assert_eq(regs.r[RSI], 0x51);
	cr_assert_eq(regs.r[RDI], 0xd1);
	cr_assert_eq(regs.r[RSP], SP + 0x50);
	cr_assert_eq(regs.rip, RET);
}

Test(peunwind, save_xmm128_near_and_far_take_their_slots)
{
	enum katra_peu_how how;
	/* push rbx; sub rsp,0x50; movaps [rsp+0x20],xmm6; movaps [rsp+0x30],xmm7 (far):
	 * 3 + 2 slots skipped, or the ALLOC and PUSH after them are misread */
	const uint8_t c[] = { SLOT(16, 9, 7), 0x30, 0, 0, 0, SLOT(11, 8, 6), 0x02, 0,
			      SLOT(6, 2, 9), SLOT(1, 0, RBX) };
	const uint8_t body[24] = { 0x53, [16] = 0x90, 0x90, 0xc3 };

	code(TEXT, body, sizeof(body));
	func(TEXT, TEXT + sizeof(body), info(1, 0, 16, 0, 0, c, 7, NULL));
	open_image();
	regs.r[RSP] = SP;
	put(SP + 0x50, 0xb0b);
	put(SP + 0x58, RET);
	cr_assert_eq(step_at(TEXT + 16, &how), 0);
	cr_assert_eq(regs.r[RBX], 0xb0b);
	cr_assert_eq(regs.r[RSP], SP + 0x60);
	cr_assert_eq(regs.rip, RET);
}

Test(peunwind, push_machframe_with_and_without_an_error_code)
{
	enum katra_peu_how how;
	const uint8_t c0[] = { SLOT(0, 10, 0) }, c1[] = { SLOT(0, 10, 1) };
	const uint8_t body[] = { 0x90, 0x90, 0xc3 };

	code(TEXT, body, sizeof(body));
	code(TEXT + 0x10, body, sizeof(body));
	func(TEXT, TEXT + 3, info(1, 0, 0, 0, 0, c0, 1, NULL));
	func(TEXT + 0x10, TEXT + 0x13, info(1, 0, 0, 0, 0, c1, 1, NULL));
	open_image();
	regs.r[RSP] = SP;
	put(SP, RET);
	put(SP + 24, SP + 0x100);
	cr_assert_eq(step_at(TEXT + 1, &how), 0);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 0x100);
	regs.r[RSP] = SP;
	put(SP + 8, RET + 2);
	put(SP + 32, SP + 0x180);
	cr_assert_eq(step_at(TEXT + 0x11, &how), 0);
	cr_assert_eq(regs.rip, RET + 2);
	cr_assert_eq(regs.r[RSP], SP + 0x180);
}

Test(peunwind, chained_info_continues_with_the_primary_s_codes)
{
	enum katra_peu_how how;
	/* primary 0x1000-0x1020: push rbx; push rsi; sub rsp,0x28.  A part of
	 * it at 0x1100-0x1120 (a cold part) that also pushed r12 */
	const uint8_t cp[] = { SLOT(6, 2, 4), SLOT(2, 0, RSI), SLOT(1, 0, RBX) };
	const uint8_t cc[] = { SLOT(2, 0, R12) };
	const uint8_t body[32] = { 0x53, 0x56, 0x48, 0x83, 0xec, 0x28, [30] = 0xc3 };
	const uint8_t cold[32] = { 0x41, 0x54, [31] = 0x90 };

	code(TEXT, body, sizeof(body));
	code(TEXT + 0x100, cold, sizeof(cold));
	uint32_t pi = info(1, 0, 6, 0, 0, cp, 3, NULL);
	uint32_t chain[3] = { TEXT, TEXT + 0x20, pi };
	func(TEXT, TEXT + 0x20, pi);
	func(TEXT + 0x100, TEXT + 0x120, info(1, 4, 2, 0, 0, cc, 1, chain));
	open_image();
	regs.r[RSP] = SP;
	put(SP, 0x12);         /* r12, the cold part's push */
	put(SP + 8 + 0x28, 0x51); /* rsi */
	put(SP + 8 + 0x30, 0xb0b); /* rbx */
	put(SP + 8 + 0x38, RET);
	cr_assert_eq(step_at(TEXT + 0x110, &how), 0);
	cr_assert_eq(regs.r[R12], 0x12);
	cr_assert_eq(regs.r[RSI], 0x51);
	cr_assert_eq(regs.r[RBX], 0xb0b);
	cr_assert_eq(regs.r[RSP], SP + 8 + 0x40);
	cr_assert_eq(regs.rip, RET);
}

Test(peunwind, an_indirect_entry_gives_the_entry_it_names)
{
	enum katra_peu_how how;
	uint32_t begin, end, unwind;
	const uint8_t c[] = { SLOT(4, 2, 3) }; /* sub rsp,0x20 */

	/* 0x1000-0x1010 has its info; 0x1010-0x1020's UnwindData (bit 0 set)
	 * is the rva of the first entry: the same info */
	uint32_t in = info(1, 0, 4, 0, 0, c, 1, NULL);
	func(TEXT, TEXT + 0x10, in);
	func(TEXT + 0x10, TEXT + 0x20, DATA | 1);
	open_image();
	cr_assert(katra_peu_lookup(&img, TEXT + 0x14, &begin, &end, &unwind));
	cr_assert_eq(begin, TEXT + 0x10);
	cr_assert_eq(end, TEXT + 0x20);
	cr_assert_eq(unwind, in);
	regs.r[RSP] = SP;
	put(SP + 0x20, RET);
	cr_assert_eq(step_at(TEXT + 0x18, &how), 0);
	cr_assert_eq(regs.r[RSP], SP + 0x28);
	cr_assert_eq(regs.rip, RET);
	/* one that names an indirect entry in turn: refused */
	crafted_put32(f, 0x1400 + 8, DATA + 12 + 1);
	cr_assert_not(katra_peu_lookup(&img, TEXT + 0x4, &begin, &end, &unwind));
	/* a pc between entries or past the last: none */
	cr_assert_not(katra_peu_lookup(&img, TEXT + 0x30, &begin, &end, &unwind));
	cr_assert_not(katra_peu_lookup(&img, TEXT - 1, &begin, &end, &unwind));
}

Test(peunwind, a_chain_that_names_itself_ends)
{
	enum katra_peu_how how;
	const uint8_t c[] = { SLOT(0, 2, 0) };
	uint32_t rva = xcur; /* the info about to be written chains to itself */
	uint32_t chain[3] = { TEXT, TEXT + 0x10, rva };

	cr_assert_eq(info(1, 4, 0, 0, 0, c, 1, chain), rva);
	func(TEXT, TEXT + 0x10, rva);
	open_image();
	regs.r[RSP] = SP;
	cr_assert_eq(step_at(TEXT + 4, &how), -EINVAL);
}

Test(peunwind, version2_epilogues_by_their_list)
{
	enum katra_peu_how how;
	/* push rbx; sub rsp,0x20; ...; two epilogues of 10 bytes: at 0x1010
	 * add rsp,0x20; pop rbx; ret (and padding), at the end (0x1016) add
	 * rsp,0x20; pop rbx; jmp 0x1200 (a tail call) */
	const uint8_t ep1[] = { 0x48, 0x83, 0xc4, 0x20, 0x5b, 0xc3, 0x90, 0x90, 0x90, 0x90 };
	const uint8_t ep2[] = { 0x48, 0x83, 0xc4, 0x20, 0x5b, 0xe9, 0xe0, 0x01, 0x00, 0x00 };
	const uint8_t pro[] = { 0x53, 0x48, 0x83, 0xec, 0x20 };
	/* EPILOG size 10, one at the end; EPILOG 0x10 back from the end; the prolog */
	const uint8_t c[] = { SLOT(10, 6, 1), SLOT(0x10, 6, 0), SLOT(5, 2, 3), SLOT(1, 0, RBX) };
	/* a second function with the one at its end only: an odd count of
	 * EPILOG slots before the prolog's */
	const uint8_t c2[] = { SLOT(6, 6, 1), SLOT(5, 2, 3), SLOT(1, 0, RBX) };

	code(TEXT, pro, sizeof(pro));
	code(TEXT + 0x10, ep1, sizeof(ep1));
	code(TEXT + 0x16, ep2, sizeof(ep2));
	code(TEXT + 0x40, pro, sizeof(pro));
	code(TEXT + 0x5a, ep1, 6);
	func(TEXT, TEXT + 0x20, info(2, 0, 5, 0, 0, c, 4, NULL));
	func(TEXT + 0x40, TEXT + 0x60, info(2, 0, 5, 0, 0, c2, 3, NULL));
	open_image();
	/* inside the middle one, at pop rbx */
	regs.r[RSP] = SP;
	put(SP, 0xb0b);
	put(SP + 8, RET);
	cr_assert_eq(step_at(TEXT + 0x14, &how), 0);
	cr_assert_eq(how, KATRA_PEU_EPILOG);
	cr_assert_eq(regs.r[RSP], SP + 16);
	cr_assert_eq(regs.rip, RET);
	/* inside the last one, at its jmp: the pops done (its code alone does
	 * not say so: version 1 would undo the prolog) */
	regs.r[RSP] = SP;
	put(SP, RET + 1);
	cr_assert_eq(step_at(TEXT + 0x1b, &how), 0);
	cr_assert_eq(how, KATRA_PEU_EPILOG);
	cr_assert_eq(regs.r[RSP], SP + 8);
	cr_assert_eq(regs.rip, RET + 1);
	/* in the bodies: the EPILOG codes are one slot each, then the prolog's */
	regs.r[RSP] = SP;
	put(SP + 0x20, 0xc0c);
	put(SP + 0x28, RET + 2);
	cr_assert_eq(step_at(TEXT + 8, &how), 0);
	cr_assert_eq(how, KATRA_PEU_UNWOUND);
	cr_assert_eq(regs.r[RBX], 0xc0c);
	cr_assert_eq(regs.r[RSP], SP + 0x30);
	cr_assert_eq(regs.rip, RET + 2);
	regs.r[RSP] = SP;
	cr_assert_eq(step_at(TEXT + 0x48, &how), 0);
	cr_assert_eq(how, KATRA_PEU_UNWOUND);
	cr_assert_eq(regs.r[RBX], 0xc0c);
	cr_assert_eq(regs.r[RSP], SP + 0x30);
	cr_assert_eq(regs.rip, RET + 2);
}

Test(peunwind, tail_calls_and_jumps_in_epilogues)
{
	const uint8_t c[] = { SLOT(5, 2, 3), SLOT(1, 0, RBX) };
	/* 0x1000: push rbx; sub rsp,0x20; jmp 0x1100 (a body jump out: no
	 * epilogue); 0x1010: add rsp,0x20; pop rbx; jmp 0x1200 (a tail call);
	 * 0x1018: jmp [rip+0] (an import's tail call) */
	const uint8_t body[] = { 0x53, 0x48, 0x83, 0xec, 0x20, 0xe9, 0xf6, 0x00, 0x00, 0x00 };
	const uint8_t ep[] = { 0x48, 0x83, 0xc4, 0x20, 0x5b, 0xe9, 0xe6, 0x01, 0x00, 0x00 };
	const uint8_t imp[] = { 0xff, 0x25, 0, 0, 0, 0 };

	code(TEXT, body, sizeof(body));
	code(TEXT + 0x10, ep, sizeof(ep));
	code(TEXT + 0x1a, imp, sizeof(imp));
	func(TEXT, TEXT + 0x20, info(1, 0, 5, 0, 0, c, 2, NULL));
	open_image();
	cr_assert_not(katra_peu_in_epilog(&img, TEXT + 5, TEXT, TEXT + 0x20, 0));
	cr_assert(katra_peu_in_epilog(&img, TEXT + 0x10, TEXT, TEXT + 0x20, 0));
	cr_assert(katra_peu_in_epilog(&img, TEXT + 0x14, TEXT, TEXT + 0x20, 0));
	cr_assert(katra_peu_in_epilog(&img, TEXT + 0x1a, TEXT, TEXT + 0x20, 0));
	/* the jmp alone, the epilogue's work done: only the indirect form says so */
	cr_assert_not(katra_peu_in_epilog(&img, TEXT + 0x15, TEXT, TEXT + 0x20, 0));
	/* a lea rsp through a register that is not the frame register */
	const uint8_t lea[] = { 0x48, 0x8d, 0x65, 0x20, 0xc3 };
	code(TEXT + 0x30, lea, sizeof(lea));
	cr_assert_not(katra_peu_in_epilog(&img, TEXT + 0x30, TEXT, TEXT + 0x40, 0));
	cr_assert(katra_peu_in_epilog(&img, TEXT + 0x30, TEXT, TEXT + 0x40, RBP));
}

Test(peunwind, a_function_without_pdata_is_a_leaf)
{
	enum katra_peu_how how;

	func(TEXT, TEXT + 0x10, info(1, 0, 0, 0, 0, NULL, 0, NULL));
	open_image();
	regs.r[RSP] = SP;
	put(SP, RET);
	cr_assert_eq(step_at(TEXT + 0x40, &how), 0);
	cr_assert_eq(how, KATRA_PEU_LEAF);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RSP], SP + 8);
}

Test(peunwind, a_caller_is_looked_up_at_its_return_address_minus_one)
{
	enum katra_peu_how how;
	const uint8_t c[] = { SLOT(4, 2, 3) }; /* sub rsp,0x20 */

	func(TEXT, TEXT + 0x10, info(1, 0, 4, 0, 0, c, 1, NULL));
	open_image();
	/* a call that ends the function: its return address is the end */
	regs.r[RSP] = SP;
	regs.rip = BASE + TEXT + 0x10;
	put(SP + 0x20, RET);
	cr_assert_eq(katra_peu_step(&img, &st, true, &regs, &how), 0);
	cr_assert_eq(how, KATRA_PEU_UNWOUND);
	cr_assert_eq(regs.r[RSP], SP + 0x28);
	cr_assert_eq(regs.rip, RET);
}

Test(peunwind, a_walk_through_two_functions_to_the_end)
{
	const uint8_t c[] = { SLOT(4, 2, 3) };  /* sub rsp,0x20 */
	const uint8_t c2[] = { SLOT(4, 2, 1) }; /* sub rsp,0x10 */
	struct katra_peu_frame fr[8];
	enum katra_peu_stop stop;

	func(TEXT, TEXT + 0x10, info(1, 0, 4, 0, 0, c, 1, NULL));
	func(TEXT + 0x10, TEXT + 0x20, info(1, 0, 4, 0, 0, c2, 1, NULL));
	open_image();
	regs.rip = BASE + TEXT + 8;
	regs.r[RSP] = SP;
	put(SP + 0x20, BASE + TEXT + 0x18); /* into the second */
	put(SP + 0x28 + 0x10, 0);          /* the outermost frame */
	uint32_t n = katra_peu_walk(&img, 1, &st, &regs, fr, 8, &stop);
	cr_assert_eq(n, 2);
	cr_assert_eq(stop, KATRA_PEU_END);
	cr_assert_eq(fr[0].pc, BASE + TEXT + 8);
	cr_assert_eq(fr[1].pc, BASE + TEXT + 0x18);
	cr_assert_eq(fr[1].module, 0);
	/* a return address into no image: the walk says so */
	put(SP + 0x28 + 0x10, RET);
	n = katra_peu_walk(&img, 1, &st, &regs, fr, 8, &stop);
	cr_assert_eq(n, 3);
	cr_assert_eq(stop, KATRA_PEU_NO_MODULE);
	cr_assert_eq(fr[2].module, UINT32_MAX);
	/* a copy that ends first: truncated */
	st.len = 0x28;
	n = katra_peu_walk(&img, 1, &st, &regs, fr, 8, &stop);
	cr_assert_eq(n, 2);
	cr_assert_eq(stop, KATRA_PEU_OUT_OF_STACK);
}

Test(peunwind, a_walk_that_would_go_down_the_stack_stops)
{
	const uint8_t c[] = { SLOT(0, 10, 0) }; /* a machine frame giving rsp back */
	struct katra_peu_frame fr[8];
	enum katra_peu_stop stop;

	func(TEXT, TEXT + 0x10, info(1, 0, 0, 0, 0, c, 1, NULL));
	open_image();
	regs.rip = BASE + TEXT + 4;
	regs.r[RSP] = SP + 0x40;
	put(SP + 0x40, BASE + TEXT + 4); /* itself, again and again */
	put(SP + 0x58, SP + 0x40);
	uint32_t n = katra_peu_walk(&img, 1, &st, &regs, fr, 8, &stop);
	cr_assert_eq(n, 1);
	cr_assert_eq(stop, KATRA_PEU_NO_PROGRESS);
}

Test(peunwind, bad_versions_and_codes_are_refused)
{
	enum katra_peu_how how;
	const uint8_t big[] = { SLOT(0, 1, 0) }; /* ALLOC_LARGE without its operand */
	const uint8_t bad[] = { SLOT(0, 11, 0) };

	func(TEXT, TEXT + 0x10, info(3, 0, 0, 0, 0, NULL, 0, NULL));
	func(TEXT + 0x10, TEXT + 0x20, info(1, 0, 0, 0, 0, big, 1, NULL));
	func(TEXT + 0x20, TEXT + 0x30, info(1, 0, 0, 0, 0, bad, 1, NULL));
	open_image();
	regs.r[RSP] = SP;
	cr_assert_eq(step_at(TEXT + 4, &how), -EINVAL);
	cr_assert_eq(step_at(TEXT + 0x14, &how), -EINVAL);
	cr_assert_eq(step_at(TEXT + 0x24, &how), -EINVAL);
}

Test(peunwind, an_image_as_mapped_reads_the_same)
{
	enum katra_peu_how how;
	static uint8_t mapped[0x3000];

	f1_setup();
	memcpy(mapped, f, 0x400);                     /* headers */
	memcpy(mapped + TEXT, f + 0x400, 0x1000);     /* .text */
	memcpy(mapped + DATA, f + 0x1400, 0x1000);    /* .pdata, .xdata */
	cr_assert_eq(katra_peu_image_mapped(mapped, sizeof(mapped), BASE, &img), 0);
	cr_assert_eq(img.npdata, 1);
	regs.r[RSP] = SP;
	put(SP + 0x20, 0xb0b);
	put(SP + 0x28, RET);
	cr_assert_eq(step_at(TEXT + 5, &how), 0);
	cr_assert_eq(regs.rip, RET);
	cr_assert_eq(regs.r[RBX], 0xb0b);
	/* cut short: the exception directory out of reach, every pc a leaf */
	cr_assert_eq(katra_peu_image_mapped(mapped, DATA, BASE, &img), 0);
	cr_assert_eq(img.npdata, 0);
}

Test(peunwind, symbols_and_identity)
{
	struct katra_pe_symtab t;
	struct katra_peu_identity id;
	char out[64];

	/* a COFF table at 0x1c00: "leaf" (short name) at .text+0x10, static;
	 * "chain_a_long_name" (string table) at .text+0x40, external */
	uint64_t sym = 0x1c00;
	crafted_put32(f, CRAFTED_LFANEW + 4 + 8, (uint32_t)sym);
	crafted_put32(f, CRAFTED_LFANEW + 4 + 12, 2);
	memcpy(f + sym, "leaf", 4);
	crafted_put32(f, sym + 8, 0x10);
	f[sym + 12] = 1;
	f[sym + 14] = 0x20;
	f[sym + 16] = 3;
	crafted_put32(f, sym + 18 + 4, 4);
	crafted_put32(f, sym + 18 + 8, 0x40);
	f[sym + 18 + 12] = 1;
	f[sym + 18 + 14] = 0x20;
	f[sym + 18 + 16] = 2;
	crafted_put32(f, sym + 36, 4 + 18);
	memcpy(f + sym + 40, "chain_a_long_name", 18);
	/* a debug directory at DATA + 0x400 naming an RSDS record at file 0x1a00 */
	crafted_put32(f, CRAFTED_OPT + 160, DATA + 0x400);
	crafted_put32(f, CRAFTED_OPT + 164, 28);
	crafted_put32(f, 0x1400 + 0x400 + 12, 2);
	crafted_put32(f, 0x1400 + 0x400 + 16, 24 + 8);
	crafted_put32(f, 0x1400 + 0x400 + 24, 0x1a00);
	memcpy(f + 0x1a00, "RSDS", 4);
	for (int i = 0; i < 16; i++)
		f[0x1a04 + i] = (uint8_t)(0x10 + i);
	crafted_put32(f, 0x1a14, 3);
	memcpy(f + 0x1a18, "a.pdb", 6);
	crafted_put32(f, CRAFTED_LFANEW + 8, 0x5f000000); /* TimeDateStamp */

	cr_assert_eq(katra_pe_symtab(&blob, &t), 0);
	cr_assert_eq(t.n, 2);
	cr_assert(katra_pe_symbolize(&t, TEXT + 0x10, out, sizeof(out)));
	cr_assert_str_eq(out, "leaf");
	cr_assert(katra_pe_symbolize(&t, TEXT + 0x15, out, sizeof(out)));
	cr_assert_str_eq(out, "leaf+0x5");
	cr_assert(katra_pe_symbolize(&t, TEXT + 0x44, out, sizeof(out)));
	cr_assert_str_eq(out, "chain_a_long_name+0x4");
	cr_assert_not(katra_pe_symbolize(&t, TEXT + 0x4, out, sizeof(out)));
	cr_assert_str_eq(out, "0x1004");
	katra_pe_symtab_free(&t);

	cr_assert_eq(katra_pe_identity(&blob, &id), 0);
	cr_assert(id.has_codeview);
	cr_assert_eq(id.age, 3);
	cr_assert_str_eq(id.pdb, "a.pdb");
	cr_assert_eq(id.timestamp, 0x5f000000);
	cr_assert_eq(id.image_size, 0x3000);
	katra_pe_identity_key(&id, out, sizeof(out));
	cr_assert_str_eq(out, "131211101514171618191A1B1C1D1E1F3");
	id.has_codeview = false;
	katra_pe_identity_key(&id, out, sizeof(out));
	cr_assert_str_eq(out, "5F0000003000");
}

Test(peunwind, registers_from_the_kernel_s_pt_regs)
{
	uint64_t pt[21];
	struct katra_peu_regs r;

	/* each word its own index + 100: r15 is word 0, ss word 20 */
	for (int i = 0; i < 21; i++)
		pt[i] = 100 + (uint64_t)i;
	katra_peu_regs_from_pt(pt, &r);
	cr_assert_eq(r.rip, 116);
	cr_assert_eq(r.r[RAX], 110);
	cr_assert_eq(r.r[RCX], 111);
	cr_assert_eq(r.r[RDX], 112);
	cr_assert_eq(r.r[RBX], 105);
	cr_assert_eq(r.r[RSP], 119);
	cr_assert_eq(r.r[RBP], 104);
	cr_assert_eq(r.r[RSI], 113);
	cr_assert_eq(r.r[RDI], 114);
	cr_assert_eq(r.r[R8], 109);
	cr_assert_eq(r.r[R9], 108);
	cr_assert_eq(r.r[R10], 107);
	cr_assert_eq(r.r[R11], 106);
	cr_assert_eq(r.r[R12], 103);
	cr_assert_eq(r.r[R13], 102);
	cr_assert_eq(r.r[R14], 101);
	cr_assert_eq(r.r[R15], 100);
	cr_assert_eq(r.known, 0xffff);
}
