// SPDX-License-Identifier: GPL-2.0-only
/* A PE function's exits (user/record/uprobes/pexits.c) over compiled code
 * of each shape: a conditional tail call, a switch through a jump table, a
 * tail call through a function pointer.  The bytes are the .text and
 * .rdata of a DLL linked from tiny functions (tests/unit/test_pexits.c's
 * comment below has the sources and commands), put at the same rvas in a
 * PE built here (raw = rva), with .pdata entries for each function. */
#include <criterion/criterion.h>
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "record/uprobes/pexits.h"
#include "crafted_pe_util.h"

/* cond.c, `clang --target=x86_64-w64-windows-gnu -Os -c` (clang 14):
 *     int ext_a(int);
 *     int cond_tail(int x, int y) { if (y == 0) return ext_a(x); return x * y + 7; }
 * switch.c, `x86_64-w64-mingw32-gcc -O2 -c` (gcc 12), and ext.c, ptr.c alike:
 *     int ext_b(int, int);
 *     int jump_table(int op, int v) { switch (op) { case 0: v += 3; break;
 *         case 1: v *= 5; break; case 2: v -= 11; break; case 3: v ^= 0x55; break;
 *         case 4: v <<= 2; break; case 5: v = -v; break; case 6: v |= 0x100; break;
 *         default: return ext_b(op, v); } return v; }
 *     int ext_a(int y) { return y + 1; }
 *     int ext_b(int op, int v) { return op - v; }
 *     int through_pointer(int (**vt)(int), int x) { return vt[3](x); }
 * linked: `x86_64-w64-mingw32-gcc -shared -nostdlib -s -Wl,-e,0
 * -Wl,--file-alignment=16 -Wl,--section-alignment=4096 -o fx.dll cond.o
 * switch.o ext.o ptr.o`; .text at rva 0x1000:
 *   0x1000 cond_tail:   test %edx,%edx; je ext_a (0x1080); imul; add; mov; ret (0x1010)
 *   0x1020 jump_table:  cmp $6,%ecx; ja 0x1078; lea 0xfd4(%rip),%r8 (0x2000);
 *                       mov %ecx,%ecx; movslq (%r8,%rcx,4),%rax; add %r8,%rax;
 *                       jmp *%rax (0x1035); seven cases ending in ret (0x1044,
 *                       0x104d, 0x1053, 0x105b, 0x1063, 0x106d, 0x1077);
 *                       0x1078: jmp ext_b (0x1090)
 *   0x1080 ext_a:       lea 1(%rcx),%eax; ret (0x1083)
 *   0x1090 ext_b:       mov; sub; ret (0x1094)
 *   0x10a0 through_pointer: mov %rcx,%rax; mov %edx,%ecx; jmp *0x18(%rax) (0x10a5)
 * .rdata at 0x2000: jump_table's 7 entries (target - 0x2000, int32). */
static const uint8_t text[] = {
	0x85, 0xd2, 0x0f, 0x84, 0x78, 0x00, 0x00, 0x00, 0x0f, 0xaf, 0xd1, 0x83, 0xc2, 0x07, 0x89,
	0xd0, 0xc3, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x1f, 0x44,
	0x00, 0x00, 0x83, 0xf9, 0x06, 0x77, 0x53, 0x4c, 0x8d, 0x05, 0xd4, 0x0f, 0x00, 0x00, 0x89,
	0xc9, 0x49, 0x63, 0x04, 0x88, 0x4c, 0x01, 0xc0, 0xff, 0xe0, 0x66, 0x0f, 0x1f, 0x84, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x89, 0xd0, 0xf7, 0xd8, 0xc3, 0x0f, 0x1f, 0x00, 0x89, 0xd0, 0x80,
	0xcc, 0x01, 0xc3, 0x66, 0x90, 0x8d, 0x42, 0x03, 0xc3, 0x0f, 0x1f, 0x40, 0x00, 0x8d, 0x04,
	0x92, 0xc3, 0x0f, 0x1f, 0x40, 0x00, 0x8d, 0x42, 0xf5, 0xc3, 0x0f, 0x1f, 0x40, 0x00, 0x89,
	0xd0, 0x83, 0xf0, 0x55, 0xc3, 0x66, 0x90, 0x8d, 0x04, 0x95, 0x00, 0x00, 0x00, 0x00, 0xc3,
	0xe9, 0x13, 0x00, 0x00, 0x00, 0x90, 0x90, 0x90, 0x8d, 0x41, 0x01, 0xc3, 0x66, 0x66, 0x2e,
	0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x89, 0xc8, 0x29, 0xd0, 0xc3, 0x90,
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x48, 0x89, 0xc8, 0x89, 0xd1,
	0x48, 0xff, 0x60, 0x18,
};
static const uint8_t rdata[] = {
	0x50, 0xf0, 0xff, 0xff, 0x58, 0xf0, 0xff, 0xff, 0x60, 0xf0, 0xff, 0xff, 0x68, 0xf0,
	0xff, 0xff, 0x70, 0xf0, 0xff, 0xff, 0x40, 0xf0, 0xff, 0xff, 0x48, 0xf0, 0xff, 0xff,
};
/* .pdata: [begin, end) of each function, as the linker wrote them (clang
 * gave the leaf cond_tail none: it gets one here, as gcc gives every
 * function) */
static const uint32_t pdata[][2] = {
	{ 0x1000, 0x1011 }, { 0x1020, 0x107d }, { 0x1080, 0x1084 }, { 0x1090, 0x1095 },
	{ 0x10a0, 0x10a9 },
};
#define NPDATA (sizeof(pdata) / sizeof(pdata[0]))
#define FX_LEN 0x4000

static uint8_t *fixture(void)
{
	uint8_t *f = crafted_pe(FX_LEN, 3);

	cr_assert_not_null(f);
	crafted_section(f, 0, 0x1000, 0x1000, 0x1000, SCN_CODE);
	crafted_section(f, 1, 0x2000, 0x1000, 0x2000, SCN_DATA);
	crafted_section(f, 2, 0x3000, 0x1000, 0x3000, SCN_DATA);
	memcpy(f + 0x1000, text, sizeof(text));
	memcpy(f + 0x2000, rdata, sizeof(rdata));
	crafted_put32(f, CRAFTED_OPT + 136, 0x3000); /* data directory 3: .pdata */
	crafted_put32(f, CRAFTED_OPT + 140, 12 * NPDATA);
	for (unsigned i = 0; i < NPDATA; i++) {
		crafted_put32(f, 0x3000 + 12 * i, pdata[i][0]);
		crafted_put32(f, 0x3000 + 12 * i + 4, pdata[i][1]);
	}
	return f;
}

static void expect_exits(const uint8_t *f, uint64_t fn, const struct katra_pe_exit *want,
			 uint32_t nwant)
{
	struct katra_blob b = { (uint8_t *)f, FX_LEN };
	struct katra_pe_exit got[KATRA_PE_EXITS_MAX];
	uint32_t n;

	cr_assert_eq(katra_pe_exits(&b, fn, got, &n), 0, "0x%llx", (unsigned long long)fn);
	cr_expect_eq(n, nwant, "0x%llx: %u exits, expected %u", (unsigned long long)fn, n, nwant);
	for (uint32_t i = 0; i < n && i < nwant; i++)
		cr_expect(got[i].off == want[i].off && got[i].kind == want[i].kind,
			  "0x%llx: exit %u at 0x%llx (%u), expected 0x%llx (%u)",
			  (unsigned long long)fn, i, (unsigned long long)got[i].off, got[i].kind,
			  (unsigned long long)want[i].off, want[i].kind);
}

/* `je ext_a`: the call ends in ext_a's ret when y is 0 */
Test(pexits, conditional_tail_call_is_followed)
{
	static const struct katra_pe_exit want[] = {
		{ 0x1010, KATRA_PE_EXIT_RET }, { 0x1083, KATRA_PE_EXIT_RET },
	};
	uint8_t *f = fixture();

	expect_exits(f, 0x1000, want, 2);
	free(f);
}

/* capstone is loaded by the first decode, not with the program: linked, its
 * relocations kept about 3 MiB of every capture resident */
Test(pexits, capstone_is_loaded_by_the_first_decode)
{
	static const struct katra_pe_exit want[] = {
		{ 0x1010, KATRA_PE_EXIT_RET }, { 0x1083, KATRA_PE_EXIT_RET },
	};
	char soname[32];
	uint8_t *f = fixture();

	snprintf(soname, sizeof(soname), "libcapstone.so.%d", CS_API_MAJOR);
	cr_assert_null(dlopen(soname, RTLD_NOW | RTLD_NOLOAD), "%s loaded at start", soname);
	expect_exits(f, 0x1000, want, 2);
	cr_assert_not_null(dlopen(soname, RTLD_NOW | RTLD_NOLOAD), "%s not loaded", soname);
	free(f);
}

/* `jmp *%rax` through the table at 0x2000 stays inside jump_table: no exit;
 * its cases' rets are, and the default's tail call into ext_b */
Test(pexits, jump_table_is_no_exit)
{
	static const struct katra_pe_exit want[] = {
		{ 0x1044, KATRA_PE_EXIT_RET }, { 0x104d, KATRA_PE_EXIT_RET },
		{ 0x1053, KATRA_PE_EXIT_RET }, { 0x105b, KATRA_PE_EXIT_RET },
		{ 0x1063, KATRA_PE_EXIT_RET }, { 0x106d, KATRA_PE_EXIT_RET },
		{ 0x1077, KATRA_PE_EXIT_RET }, { 0x1094, KATRA_PE_EXIT_RET },
	};
	uint8_t *f = fixture();

	expect_exits(f, 0x1020, want, 8);
	free(f);
}

/* The same jmp when the table's targets leave the function (entries moved
 * to ext_a): a tail jump, an exit of its own */
Test(pexits, jump_out_of_the_range_is_an_exit)
{
	static const struct katra_pe_exit want[] = {
		{ 0x1035, KATRA_PE_EXIT_JMP }, { 0x1044, KATRA_PE_EXIT_RET },
		{ 0x104d, KATRA_PE_EXIT_RET }, { 0x1053, KATRA_PE_EXIT_RET },
		{ 0x105b, KATRA_PE_EXIT_RET }, { 0x1063, KATRA_PE_EXIT_RET },
		{ 0x106d, KATRA_PE_EXIT_RET }, { 0x1077, KATRA_PE_EXIT_RET },
		{ 0x1094, KATRA_PE_EXIT_RET },
	};
	uint8_t *f = fixture();

	for (unsigned i = 0; i < 7; i++)
		crafted_put32(f, 0x2000 + 4 * i, 0x1080 - 0x2000);
	expect_exits(f, 0x1020, want, 9);
	free(f);
}

/* `jmp *0x18(%rax)`: a tail call through a function pointer, an exit */
Test(pexits, tail_call_through_a_pointer_is_an_exit)
{
	static const struct katra_pe_exit want[] = { { 0x10a5, KATRA_PE_EXIT_JMP } };
	uint8_t *f = fixture();

	expect_exits(f, 0x10a0, want, 1);
	free(f);
}

/* A function whose ranges, followed, are more bytes than
 * KATRA_PE_DECODE_MAX: refused (-E2BIG), the decode bounded */
Test(pexits, decoding_is_bounded)
{
	const size_t len = 0x100000;
	uint8_t *f = crafted_pe(len, 2);
	struct katra_blob b = { f, len };
	struct katra_pe_exit got[KATRA_PE_EXITS_MAX];
	uint32_t n;
	uint64_t work;

	cr_assert_not_null(f);
	crafted_section(f, 0, 0x1000, 0xf0000, 0x1000, SCN_CODE);
	crafted_section(f, 1, 0xf1000, 0x1000, 0xf1000, SCN_DATA);
	memset(f + 0x1000, 0x90, 0xf0000);              /* nops */
	crafted_put32(f, CRAFTED_OPT + 136, 0xf1000);
	crafted_put32(f, CRAFTED_OPT + 140, 12 * 16);
	/* 16 ranges of 0xf000 bytes, each ending in a jmp to the next */
	for (uint32_t i = 0; i < 16; i++) {
		uint32_t begin = 0x1000 + 0xf000 * i, end = begin + 0xf000;
		crafted_put32(f, 0xf1000 + 12 * i, begin);
		crafted_put32(f, 0xf1000 + 12 * i + 4, end);
		f[end - 5] = 0xe9;
		crafted_put32(f, end - 4, i < 15 ? 0 : (uint32_t)-5); /* the next range; the last: itself */
		if (i == 15)
			f[end - 6] = 0xc3;
	}
	cr_assert_eq(katra_pe_exits_counted(&b, 0x1000, got, &n, &work), -E2BIG);
	cr_expect_leq(work, KATRA_PE_DECODE_MAX, "work %llu", (unsigned long long)work);
	free(f);
}
