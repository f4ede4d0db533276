// SPDX-License-Identifier: GPL-2.0-only
/* Names read from Wine's binaries (user/record/winenames.c), on Debian's
 * Wine 8 files when they are installed (skipped otherwise), and refusals of
 * files that are not what they should be. */
#include <criterion/criterion.h>
#include <errno.h>
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
	cr_assert_eq(katra_pe_nt_names(&dll, &names, &count), 0);
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
	katra_names_free(names, count);
	/* the ELF file is no PE, the PE no ELF */
	cr_assert_eq(katra_pe_nt_names(&so, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_elf_find_table(&dll, 1, 2, &table, &tc), -ENOENT);
	katra_blob_free(&dll);
	katra_blob_free(&so);
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

	cr_assert_eq(katra_pe_nt_names(&b, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_wineserver_requests(&b, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_elf_find_table(&b, 1, 2, &t, &count), -ENOENT);
	cr_assert_eq(katra_elf_dynsym(&b, "x"), 0);
	b.len = 3;
	cr_assert_eq(katra_pe_nt_names(&b, &names, &count), -ENOEXEC);
	cr_assert_eq(katra_blob_read("/nonexistent/x", 1024, &b), -ENOENT);
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
