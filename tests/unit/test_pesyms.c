// SPDX-License-Identifier: GPL-2.0-only
/* The COFF symbol table of a PE32+ file (user/record/uprobes/pesyms.c), on
 * the installed wined3d.dll, where Wine's vkd3d lives: Debian 12's Wine 8 and
 * the Proton-class root's Wine 10 (each skipped when absent).  The offsets
 * are those of `x86_64-w64-mingw32-objdump -t` (the symbol's value in .text)
 * plus .text's file offset (0x1000, `objdump -h`), checked by hand against
 * `objdump -d` of each function's first instructions; their exits
 * (pexits.c) against `objdump -d` of the functions and of those they
 * tail-call. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pe/pesyms.h"
#include "record/uprobes/pexits.h"

#define WINE8_WINED3D "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/wined3d.dll"
#define WINE10_WINED3D "/var/cache/katra-proton/root" WINE8_WINED3D

static const char *const functions[] = {
	"d3d12_command_queue_ExecuteCommandLists", "d3d12_command_queue_Signal",
	"d3d12_command_queue_Wait", "d3d12_fence_SetEventOnCompletion", "d3d12_fence_Signal",
	"no_such_function", "d3d12_fence_decref", /* d3d12_fence_decref.part.0 only */
};
#define NFUNCS (sizeof(functions) / sizeof(functions[0]))

static void check(const char *path, const uint64_t want[5])
{
	struct katra_blob b;
	uint64_t offs[NFUNCS];

	if (access(path, R_OK))
		cr_skip_test("%s is not installed", path);
	cr_assert_eq(katra_blob_read(path, 256u << 20, &b), 0);
	cr_assert_eq(katra_pe_coff_functions(&b, functions, NFUNCS, offs), 5);
	for (unsigned i = 0; i < 5; i++)
		cr_expect_eq(offs[i], want[i], "%s: %s at 0x%llx, expected 0x%llx", path,
			     functions[i], (unsigned long long)offs[i],
			     (unsigned long long)want[i]);
	cr_expect_eq(offs[5], UINT64_MAX);
	cr_expect_eq(offs[6], UINT64_MAX);
	katra_blob_free(&b);
}

Test(pesyms, wine10_wined3d)
{
	static const uint64_t want[5] = { 0x30620, 0x31320, 0x31910, 0x3e1e0, 0x3e5a0 };

	check(WINE10_WINED3D, want);
}

Test(pesyms, wine8_wined3d)
{
	static const uint64_t want[5] = { 0x114930, 0x119c30, 0x1177b0, 0x10e1a0, 0x119a50 };

	check(WINE8_WINED3D, want);
}

/* A PE without a symbol table (ntdll.dll is stripped), and no PE at all. */
Test(pesyms, stripped_and_not_pe)
{
	const char *dll = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/ntdll.dll";
	uint8_t junk[256] = { 'M', 'Z' };
	struct katra_blob b = { junk, sizeof(junk) };
	uint64_t offs[NFUNCS];

	cr_assert_eq(katra_pe_coff_functions(&b, functions, NFUNCS, offs), -ENOEXEC);
	cr_assert_eq(offs[0], UINT64_MAX);
	if (access(dll, R_OK))
		cr_skip_test("%s is not installed", dll);
	cr_assert_eq(katra_blob_read(dll, 64u << 20, &b), 0);
	int rc = katra_pe_coff_functions(&b, functions, NFUNCS, offs);
	cr_assert(rc == -ENOENT || rc == 0, "ntdll.dll: %d", rc);
	katra_blob_free(&b);
}

/* Hand-made: a long name through the string table, a short one of exactly
 * 8 bytes (no NUL), an aux record skipped, a name past the string table. */
Test(pesyms, crafted)
{
	uint8_t f[0x3000] = { 0 };
	const uint32_t lfanew = 0x40, opt = lfanew + 24, sec = opt + 240, sym = 0x2000;
	const char *const want[] = { "a_long_function_name", "exactly8", "auxname", "bad" };
	uint64_t offs[4];

	f[0] = 'M'; f[1] = 'Z';
	memcpy(f + 0x3c, &lfanew, 4);
	memcpy(f + lfanew, "PE\0\0", 4);
	f[lfanew + 6] = 1;                         /* one section */
	memcpy(f + lfanew + 4 + 8, &sym, 4);       /* PointerToSymbolTable */
	f[lfanew + 4 + 12] = 5;                    /* NumberOfSymbols */
	f[lfanew + 20] = 240;                      /* SizeOfOptionalHeader */
	f[opt] = 0x0b; f[opt + 1] = 0x02;          /* PE32+ */
	uint32_t va = 0x1000, size = 0x1000, raw = 0x1000, flags = 0x60000020;
	memcpy(f + sec + 8, &size, 4);
	memcpy(f + sec + 12, &va, 4);
	memcpy(f + sec + 16, &size, 4);
	memcpy(f + sec + 20, &raw, 4);
	memcpy(f + sec + 36, &flags, 4);
	uint8_t *s = f + sym;
	/* 0: long name at string offset 4 */
	uint32_t stroff = 4, v = 0x10;
	memcpy(s + 4, &stroff, 4); memcpy(s + 8, &v, 4); s[12] = 1; s[14] = 0x20; s[16] = 2;
	s += 18;
	/* 1: "exactly8", static, with one aux record after it */
	memcpy(s, "exactly8", 8); v = 0x20; memcpy(s + 8, &v, 4); s[12] = 1; s[14] = 0x20;
	s[16] = 3; s[17] = 1;
	s += 18;
	/* 2: the aux record: looks like "auxname" but is none */
	memcpy(s, "auxname", 7); s[12] = 1; s[14] = 0x20; s[16] = 2;
	s += 18;
	/* 3: a name past the string table */
	stroff = 0x7fff; memcpy(s + 4, &stroff, 4); s[12] = 1; s[14] = 0x20; s[16] = 2;
	s += 18;
	/* 4: "bad" as data (type 0) */
	memcpy(s, "bad", 3); s[12] = 1; s[16] = 2;
	s += 18;
	uint32_t strsize = 4 + 21;
	memcpy(s, &strsize, 4);
	memcpy(s + 4, "a_long_function_name", 21);
	struct katra_blob b = { f, sizeof(f) };
	cr_assert_eq(katra_pe_coff_functions(&b, want, 4, offs), 2);
	cr_expect_eq(offs[0], 0x1010);
	cr_expect_eq(offs[1], 0x1020);
	cr_expect_eq(offs[2], UINT64_MAX);
	cr_expect_eq(offs[3], UINT64_MAX);
	/* the section not page-aligned in the file: the loader would copy it */
	raw = 0x1200;
	memcpy(f + sec + 20, &raw, 4);
	cr_assert_eq(katra_pe_coff_functions(&b, want, 4, offs), -ENOTSUP);
}

static void check_exits(const char *path, unsigned fn, const struct katra_pe_exit *want,
			uint32_t nwant)
{
	struct katra_blob b;
	uint64_t offs[NFUNCS];
	struct katra_pe_exit got[KATRA_PE_EXITS_MAX];
	uint32_t n;

	if (access(path, R_OK))
		cr_skip_test("%s is not installed", path);
	cr_assert_eq(katra_blob_read(path, 256u << 20, &b), 0);
	cr_assert_eq(katra_pe_coff_functions(&b, functions, NFUNCS, offs), 5);
	cr_assert_eq(katra_pe_exits(&b, offs[fn], got, &n), 0);
	cr_assert_eq(n, nwant, "%s: %u exits of %s", path, n, functions[fn]);
	for (uint32_t i = 0; i < n; i++)
		cr_expect(got[i].off == want[i].off && got[i].kind == want[i].kind,
			  "%s: exit %u at 0x%llx (%u), expected 0x%llx (%u)", functions[fn], i,
			  (unsigned long long)got[i].off, got[i].kind,
			  (unsigned long long)want[i].off, want[i].kind);
	katra_blob_free(&b);
}

/* Wine 10's ExecuteCommandLists: its ret, two tail jumps through imports
 * (jmp *__imp_LeaveCriticalSection, jmp *__imp_free), and the rets of
 * vkd3d_dbg_printf, which its trace path tail-calls */
Test(pesyms, wine10_exits_execute)
{
	static const struct katra_pe_exit want[] = {
		{ 0x30676, KATRA_PE_EXIT_RET }, { 0x30810, KATRA_PE_EXIT_JMP },
		{ 0x3084d, KATRA_PE_EXIT_JMP }, { 0x128bed, KATRA_PE_EXIT_RET },
		{ 0x128c3b, KATRA_PE_EXIT_RET },
	};

	check_exits(WINE10_WINED3D, 0, want, 5);
}

/* Wine 10's ID3D12Fence::Signal has no ret of its own: it tail-calls
 * d3d12_fence_signal (two rets) or d3d12_device_flush_blocked_queues (one) */
Test(pesyms, wine10_exits_fence_signal)
{
	static const struct katra_pe_exit want[] = {
		{ 0x3ed27, KATRA_PE_EXIT_RET }, { 0x3ed42, KATRA_PE_EXIT_RET },
		{ 0x3d0d5, KATRA_PE_EXIT_RET },
	};

	check_exits(WINE10_WINED3D, 4, want, 3);
}

Test(pesyms, wine8_exits_set_event)
{
	static const struct katra_pe_exit want[] = { { 0x10e2ce, KATRA_PE_EXIT_RET } };

	check_exits(WINE8_WINED3D, 3, want, 1);
}
