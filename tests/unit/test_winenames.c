// SPDX-License-Identifier: GPL-2.0-only
/* Names read from Wine's binaries (user/record/winenames.c), on Debian's
 * Wine 8 files when they are installed (skipped otherwise), and refusals of
 * files that are not what they should be. */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "katra/wire.h"
#include "record/uprobes/winenames.h"

#define WINE_DIR "/usr/lib/x86_64-linux-gnu/wine/"
#define NTDLL_DLL WINE_DIR "x86_64-windows/ntdll.dll"
#define NTDLL_SO WINE_DIR "x86_64-unix/ntdll.so"
#define WINESERVER "/usr/lib/wine/wineserver64"

static bool have(const char *path)
{
	return access(path, R_OK) == 0;
}

Test(winenames, nt_numbers_from_the_pe_stubs_match_ntdll_so_table)
{
	struct katra_blob dll, so;
	char **names;
	uint32_t count, tc, same = 0;
	uint64_t table;

	if (!have(NTDLL_DLL) || !have(NTDLL_SO))
		cr_skip_test("no Debian Wine 8 ntdll files");
	cr_assert_eq(katra_blob_read(NTDLL_DLL, 64u << 20, &dll), 0);
	cr_assert_eq(katra_blob_read(NTDLL_SO, 64u << 20, &so), 0);
	cr_assert_eq(katra_pe_nt_names(&dll, 0, &names, &count), 0);
	cr_assert_gt(count, 100);
	cr_assert_str_eq(names[0], "NtAcceptConnectPort");
	cr_assert_eq(katra_elf_find_table(&so, katra_elf_dynsym(&so, names[0]),
					  katra_elf_dynsym(&so, names[1]), &table, &tc), 0);
	cr_assert_geq(tc, count);
	/* every number the stubs name is the table's function of that name */
	for (uint32_t i = 0; i < count; i++) {
		const char *sym = katra_elf_dynsym_at(&so, katra_elf_pointer(&so, table + 8ull * i));
		if (!names[i])
			continue;
		cr_assert(sym && !strcmp(sym, names[i]), "number %u: %s in the PE, %s in the table",
			  i, names[i], sym ? sym : "-");
		same++;
	}
	cr_assert_gt(same, 100);
	/* the same names in one pass over the symbols */
	uint64_t *fns = calloc(tc, sizeof(*fns));
	const char **syms = calloc(tc, sizeof(*syms));
	cr_assert(fns && syms);
	for (uint32_t i = 0; i < tc; i++)
		fns[i] = katra_elf_pointer(&so, table + 8ull * i);
	cr_assert_eq(katra_elf_func_names(&so, fns, tc, syms), 0);
	for (uint32_t i = 0; i < tc; i++)
		cr_assert_eq(syms[i], katra_elf_dynsym_at(&so, fns[i]), "slot %u", i);
	free(fns);
	free(syms);
	katra_names_free(names, count);
	/* the ELF file is no PE, the PE no ELF */
	cr_assert_eq(katra_pe_nt_names(&so, 0, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_elf_find_table(&dll, 1, 2, &table, &tc), -ENOENT);
	katra_blob_free(&dll);
	katra_blob_free(&so);
}

/* win32u.dll's stubs name table 1 (0x1000 | n); the pairs as objdump shows
 * the stubs of Debian 12's Wine 8 and of the Proton-class root's Wine 10. */
static void check_win32u(const char *path, const char *const *pairs_name,
			 const uint32_t *pairs_nr, unsigned npairs, uint32_t min_named)
{
	struct katra_blob dll;
	char **names;
	uint32_t count, named = 0;

	cr_assert_eq(katra_blob_read(path, 64u << 20, &dll), 0);
	cr_assert_eq(katra_pe_nt_names(&dll, 1, &names, &count), 0);
	for (unsigned i = 0; i < npairs; i++) {
		uint32_t n = pairs_nr[i] & 0xfff;
		cr_assert_lt(n, count, "%s", pairs_name[i]);
		cr_assert(names[n] && !strcmp(names[n], pairs_name[i]), "0x%x: %s, not %s",
			  pairs_nr[i], names[n] ? names[n] : "-", pairs_name[i]);
	}
	for (uint32_t i = 0; i < count; i++)
		named += names[i] != NULL;
	cr_assert_geq(named, min_named);
	katra_names_free(names, count);
	/* ntdll's table is not there: win32u.dll has no table-0 stub */
	cr_assert_eq(katra_pe_nt_names(&dll, 0, &names, &count), -ENOEXEC);
	katra_blob_free(&dll);
}

Test(winenames, win32u_stubs_name_table_1_in_wine_8)
{
	static const char *const name[] = { "NtUserCreateWindowEx", "NtUserDispatchMessage",
					     "NtUserMessageCall" };
	static const uint32_t nr[] = { 0x105c, 0x1066, 0x10be };

	if (!have(WINE_DIR "x86_64-windows/win32u.dll"))
		cr_skip_test("no Debian Wine 8 win32u.dll");
	check_win32u(WINE_DIR "x86_64-windows/win32u.dll", name, nr, 3, 250);
}

Test(winenames, win32u_stubs_name_table_1_in_wine_10)
{
	static const char *const name[] = { "NtGdiAbortDoc", "NtUserCreateWindowEx",
					     "NtUserDispatchMessage", "NtUserMessageCall" };
	static const uint32_t nr[] = { 0x1000, 0x10e4, 0x10ee, 0x114e };
	const char *dll = "/var/cache/katra-proton/root" WINE_DIR "x86_64-windows/win32u.dll";

	if (!have(dll))
		cr_skip_test("no Proton-class root (tests/proton)");
	check_win32u(dll, name, nr, 4, 400);
}

Test(winenames, wineserver_request_names_in_protocol_order)
{
	struct katra_blob b;
	char **names;
	uint32_t count;

	if (!have(WINESERVER))
		cr_skip_test("no " WINESERVER);
	cr_assert_eq(katra_blob_read(WINESERVER, 64u << 20, &b), 0);
	cr_assert_eq(katra_wineserver_requests(&b, &names, &count), 0);
	cr_assert_geq(count, 200);
	cr_assert_str_eq(names[0], "new_process");
	cr_assert_str_eq(names[1], "get_new_process_info");
	bool create_event = false;
	for (uint32_t i = 0; i < count; i++)
		create_event |= !strcmp(names[i], "create_event");
	cr_assert(create_event);
	katra_names_free(names, count);
	katra_blob_free(&b);
	/* an ELF without the table */
	cr_assert_eq(katra_blob_read("/proc/self/exe", 64u << 20, &b), 0);
	cr_assert_eq(katra_wineserver_requests(&b, &names, &count), -ENOENT);
	katra_blob_free(&b);
}

Test(winenames, short_and_foreign_files_are_refused)
{
	uint8_t junk[64] = { 'M', 'Z' };
	struct katra_blob b = { junk, sizeof(junk) };
	char **names;
	uint32_t count;
	uint64_t t;

	cr_assert_eq(katra_pe_nt_names(&b, 0, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_wineserver_requests(&b, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_elf_find_table(&b, 1, 2, &t, &count), -ENOENT);
	cr_assert_eq(katra_elf_dynsym(&b, "x"), 0);
	b.len = 3;
	cr_assert_eq(katra_pe_nt_names(&b, 0, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_blob_read("/nonexistent/x", 1024, &b), -ENOENT);
}

/* ---- crafted files: what a traced process may map as .../wine/ntdll.so
 * or run as wineserver (root reads them) ---- */

/* An ELF64 x86_64 header at p: type, program and section header counts
 * (program headers at 64, section headers at shoff). */
static void elf_header(uint8_t *p, uint16_t type, uint16_t phnum, uint64_t shoff, uint16_t shnum)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)p;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = phnum ? 64 : 0;
	eh->e_phnum = phnum;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_shoff = shoff;
	eh->e_shnum = shnum;
	eh->e_shentsize = sizeof(Elf64_Shdr);
}

/* A .dynsym of one function (NtTest at 0x1000) at 512 whose string table
 * (section 2) is strtab: its type, offset and size. */
static void dynsym_file(uint8_t *p, uint32_t str_type, uint64_t str_off, uint64_t str_size)
{
	Elf64_Sym *sym = (Elf64_Sym *)(p + 512);
	Elf64_Shdr *sh = (Elf64_Shdr *)(p + 1024);

	memset(p, 0, 2048);
	elf_header(p, ET_DYN, 0, 1024, 3);
	sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			      .st_shndx = 1, .st_value = 0x1000 };
	memcpy(p + 768, "\0NtTest\0", 8);
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_DYNSYM, .sh_offset = 512, .sh_size = 2 * sizeof(*sym),
			      .sh_entsize = sizeof(*sym), .sh_link = 2 };
	sh[2] = (Elf64_Shdr){ .sh_type = str_type, .sh_offset = str_off, .sh_size = str_size };
}

Test(winenames, crafted_string_tables_are_bounded)
{
	static uint8_t f[2048] __attribute__((aligned(8)));
	struct katra_blob b = { f, sizeof(f) };
	uint64_t at[2] = { 0x1000, 0x2000 };
	const char *names[2];

	/* the real thing first: the same file, read right */
	dynsym_file(f, SHT_STRTAB, 768, 8);
	cr_assert_eq(katra_elf_dynsym(&b, "NtTest"), 0x1000);
	cr_assert_str_eq(katra_elf_dynsym_at(&b, 0x1000), "NtTest");
	cr_assert_eq(katra_elf_func_names(&b, at, 2, names), 0);
	cr_assert_str_eq(names[0], "NtTest");
	cr_assert_null(names[1]);
	/* a SHT_NOBITS string section far past the file's end: no bytes in
	 * the file (it crashed each_dynsym, reading at its offset) */
	dynsym_file(f, SHT_NOBITS, 1ull << 40, 1ull << 41);
	cr_assert_eq(katra_elf_dynsym(&b, "NtTest"), 0);
	cr_assert_null(katra_elf_dynsym_at(&b, 0x1000));
	cr_assert_eq(katra_elf_func_names(&b, at, 2, names), 0);
	cr_assert_null(names[0]);
	/* a string table that does not end in a NUL, one of the wrong type */
	dynsym_file(f, SHT_STRTAB, 768, 4);
	cr_assert_eq(katra_elf_dynsym(&b, "NtTest"), 0);
	dynsym_file(f, SHT_PROGBITS, 768, 8);
	cr_assert_eq(katra_elf_dynsym(&b, "NtTest"), 0);
}

Test(winenames, one_dynamic_symbol_table_is_read)
{
	static uint8_t f[2048] __attribute__((aligned(8)));
	struct katra_blob b = { f, sizeof(f) };
	Elf64_Shdr *sh = (Elf64_Shdr *)(f + 1024);

	/* the first .dynsym holds the null symbol only, a second one NtTest:
	 * the second is not read (each lookup reads one table, not e_shnum) */
	dynsym_file(f, SHT_STRTAB, 768, 8);
	sh[3] = sh[1];
	sh[1].sh_size = sizeof(Elf64_Sym);
	((Elf64_Ehdr *)f)->e_shnum = 4;
	cr_assert_eq(katra_elf_dynsym(&b, "NtTest"), 0);
	cr_assert_null(katra_elf_dynsym_at(&b, 0x1000));
}

/* A non-PIE wineserver of size bytes: one data segment over the whole file
 * at 0x400000 holding "new_process" and 99 other request names, the table
 * of pointers to them, and, after it, decoys: "new_process" strings and
 * pointers to them, each alone. */
#define WS_VADDR 0x400000ull
static uint8_t *crafted_wineserver(size_t size)
{
	uint8_t *p = calloc(1, size);
	Elf64_Phdr *ph = (Elf64_Phdr *)(p + 64);
	uint64_t strs = 4096, table = 8192, at = strs, ptr[100];
	size_t decoys = table + 8 * 128, o;

	cr_assert_not_null(p);
	elf_header(p, ET_EXEC, 2, 0, 0);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0,
			      .p_vaddr = WS_VADDR, .p_filesz = size, .p_memsz = size };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			      .p_vaddr = 0x10000000, .p_filesz = 64, .p_memsz = 64 };
	for (int i = 0; i < 100; i++) {
		char name[16];
		int n = i ? snprintf(name, sizeof(name), "request_%d", i)
			  : snprintf(name, sizeof(name), "new_process");
		memcpy(p + at, name, (size_t)n + 1);
		ptr[i] = WS_VADDR + at;
		at += (size_t)n + 1;
	}
	memcpy(p + table, ptr, sizeof(ptr));
	/* decoys: a string, then a pointer to it and a zero word */
	for (o = decoys; o + 32 <= size; o += 32) {
		uint64_t v = WS_VADDR + o + 8;
		memcpy(p + o + 8, "new_process", 12);
		if ((o / 32) % 2)
			memcpy(p + o, &v, 8);
	}
	return p;
}

Test(winenames, wineserver_table_parse_is_linear)
{
	const size_t size = 256u << 10;
	uint8_t *f = crafted_wineserver(size);
	struct katra_blob b = { f, size };
	char **names;
	uint32_t count;
	uint64_t positions;

	cr_assert_eq(katra_wineserver_requests_counted(&b, &names, &count, &positions), 0);
	cr_assert_eq(count, 100);
	cr_assert_str_eq(names[0], "new_process");
	cr_assert_str_eq(names[99], "request_99");
	katra_names_free(names, count);
	/* ~8,000 decoy strings, each with the 32,768 words of the segment
	 * behind it, were 268 M positions */
	cr_assert_leq(positions, KATRA_WS_WORK_MAX(size), "%llu positions looked at",
		      (unsigned long long)positions);
	free(f);
}

Test(winenames, segments_over_the_same_bytes_are_refused)
{
	const size_t size = 64u << 10;
	uint8_t *f = crafted_wineserver(size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Phdr *ph = (Elf64_Phdr *)(f + 64);
	struct katra_blob b = { f, size };
	char **names;
	uint32_t count;
	uint64_t positions;

	/* 64 data segments, all over the whole file */
	eh->e_phnum = 64;
	for (int i = 2; i < 64; i++)
		ph[i] = ph[0];
	cr_assert_eq(katra_wineserver_requests_counted(&b, &names, &count, &positions), -E2BIG);
	cr_assert_leq(positions, KATRA_WS_WORK_MAX(size));
	free(f);
}

/* The calling convention of a build's NT functions, from the bytes before its
 * syscall dispatcher's call: Debian 12's Wine 8 and Debian 13's Wine 10, as
 * their ntdll.so hold them. */
Test(winenames, nt_calling_convention_from_the_dispatcher_bytes)
{
	/* mov %r10,%rcx; sub $0x20,%rsp; mov (%rbx),%r10 */
	static const uint8_t wine8[] = { 0x4c, 0x89, 0xd1, 0x48, 0x83, 0xec, 0x20, 0x4c, 0x8b, 0x13 };
	/* mov %r10,%rdi; mov %r11,%rsi; mov %r8,%rdx; mov %r9,%rcx; mov %r12,%r8;
	 * mov %r13,%r9; mov (%rbx),%r10 */
	static const uint8_t wine10[] = { 0x4c, 0x89, 0xd7, 0x4c, 0x89, 0xde, 0x4c, 0x89, 0xc2,
					  0x4c, 0x89, 0xc9, 0x4d, 0x89, 0xe0, 0x4d, 0x89, 0xe9,
					  0x4c, 0x8b, 0x13 };
	/* the other encodings of the same moves: mov %r10 into rcx / rdi (8b /r) */
	static const uint8_t ms_8b[] = { 0x49, 0x8b, 0xca, 0x90 };
	static const uint8_t sysv_8b[] = { 0x49, 0x8b, 0xfa };
	/* both: the last move before the call decides */
	static const uint8_t both[] = { 0x4c, 0x89, 0xd7, 0x4c, 0x89, 0xd1 };
	static const uint8_t neither[] = { 0x4c, 0x89, 0xc9, 0x4c, 0x8b, 0x13, 0x90 };

	cr_assert_eq(katra_wine_nt_abi(wine8, sizeof(wine8)), 0);
	cr_assert_eq(katra_wine_nt_abi(wine10, sizeof(wine10)), KATRA_NT_ABI_SYSV);
	cr_assert_eq(katra_wine_nt_abi(ms_8b, sizeof(ms_8b)), 0);
	cr_assert_eq(katra_wine_nt_abi(sysv_8b, sizeof(sysv_8b)), KATRA_NT_ABI_SYSV);
	cr_assert_eq(katra_wine_nt_abi(both, sizeof(both)), 0);
	cr_assert_eq(katra_wine_nt_abi(neither, sizeof(neither)), -ENOENT);
	cr_assert_eq(katra_wine_nt_abi(wine10, 2), -ENOENT);
	cr_assert_eq(katra_wine_nt_abi(wine10, 0), -ENOENT);
}
