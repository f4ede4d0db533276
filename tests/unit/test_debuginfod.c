// SPDX-License-Identifier: GPL-2.0-only
/* Which modules katra-replay asks debuginfod servers for: an ELF build id
 * (lower-case hex, whole bytes) while DEBUGINFOD_URLS names a server; never
 * a PE identity, never with the variable unset or blank, never after
 * --no-debuginfod; nothing is fetched then (the client is not even asked). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "symbols/debuginfod.h"

#define ELF_ID "93ac61ec5a8eb1396f9fbd350e3169a558528a40"

Test(debuginfod, only_elf_build_ids_while_a_server_is_named)
{
	char *path = (char *)"x";

	unsetenv("DEBUGINFOD_URLS");
	cr_expect(!kr_debuginfod_wanted(ELF_ID));
	cr_expect_eq(kr_debuginfod_fetch(ELF_ID, KR_DEBUGINFOD_DEBUGINFO, &path), -ENOSYS);
	cr_expect_null(path);
	setenv("DEBUGINFOD_URLS", " \t", 1);
	cr_expect(!kr_debuginfod_wanted(ELF_ID), "a blank DEBUGINFOD_URLS names no server");
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	cr_expect(kr_debuginfod_wanted(ELF_ID));
	/* PE identities: CodeView GUID + age, TimeDateStamp + SizeOfImage */
	cr_expect(!kr_debuginfod_wanted("3C1D2E4F5A6B7C8D9E0F1A2B3C4D5E6F1"));
	cr_expect(!kr_debuginfod_wanted("5F3A1B2C1d000"));
	/* ... of whole bytes' length too: upper-case hex is no ELF build id */
	cr_expect(!kr_debuginfod_wanted("3C1D2E4F5A6B7C8D9E0F1A2B3C4D5E6F10"));
	cr_expect(!kr_debuginfod_wanted("5F3A1B2C1d0000"));
	cr_expect(!kr_debuginfod_wanted("93ac6"), "half a byte");
	cr_expect(!kr_debuginfod_wanted(""));
	kr_debuginfod_disable();
	cr_expect(!kr_debuginfod_wanted(ELF_ID), "--no-debuginfod");
	cr_expect_eq(kr_debuginfod_fetch(ELF_ID, KR_DEBUGINFOD_EXECUTABLE, &path), -ENOSYS);
	unsetenv("DEBUGINFOD_URLS");
}
