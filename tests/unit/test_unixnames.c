// SPDX-License-Identifier: GPL-2.0-only
/* The names of winevulkan.so's Win->Unix calls (user/record/uprobes/
 * unixnames.c), on the installed files: Debian 12's Wine 8 and the Proton-
 * class root's Wine 10 (each skipped when absent): the thunks' own names
 * (winevulkan.so), then the Windows side's stubs (winevulkan.dll).  The
 * pairs were checked by hand against objdump -d of the same files (the
 * thunk's lea of its "thunk64_" string; the stub, named by the DLL's debug
 * information, that loads the index into edx before calling
 * __wine_unix_call_dispatcher): every name both parsers give agrees with
 * those stubs (Wine 10: 635 of 635, Wine 8: 534 of 534). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "record/uprobes/winenames.h"

#define WINE8_VK "/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/winevulkan.so"
#define WINE10_VK "/var/cache/katra-proton/root" WINE8_VK
#define WINE8_DLL "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/winevulkan.dll"
#define WINE10_DLL "/var/cache/katra-proton/root" WINE8_DLL

struct pair {
	uint32_t index;
	const char *name; /* NULL: no name (a thunk without a TRACE) */
};

/* named: by the .so; added: then by the .dll */
static void check_file(const char *path, const char *dll, uint32_t count, uint32_t named,
		       uint32_t added, uint64_t table_off, const struct pair *pairs, size_t npairs)
{
	struct katra_blob b, d;
	char **names;
	uint32_t c, n, a;
	uint64_t off;

	if (access(path, R_OK) || access(dll, R_OK))
		cr_skip_test("%s or %s is not installed", path, dll);
	cr_assert_eq(katra_blob_read(path, 64u << 20, &b), 0);
	cr_assert_eq(katra_blob_read(dll, 64u << 20, &d), 0);
	cr_assert_eq(katra_unix_call_names(&b, &names, &c, &n, &off), 0);
	cr_assert_eq(c, count, "%s: %u entries", path, c);
	cr_assert_eq(n, named, "%s: %u named", path, n);
	cr_assert_eq(off, table_off);
	cr_assert_eq(katra_pe_unix_call_names(&d, names, c, &a), 0);
	cr_assert_eq(a, added, "%s: %u more named", dll, a);
	katra_blob_free(&d);
	for (size_t i = 0; i < npairs; i++) {
		const char *got = names[pairs[i].index];
		if (pairs[i].name)
			cr_assert(got && !strcmp(got, pairs[i].name), "%s: entry %u is %s, not %s",
				  path, pairs[i].index, got ? got : "unnamed", pairs[i].name);
		else
			cr_assert_null(got, "%s: entry %u is %s", path, pairs[i].index, got);
	}
	/* no name twice: each thunk's string is its own */
	for (uint32_t i = 0; i < c; i++)
		for (uint32_t k = i + 1; names[i] && k < c; k++)
			cr_assert(!names[k] || strcmp(names[i], names[k]), "%s twice", names[i]);
	katra_names_free(names, c);
	/* the same file cut short inside the table: no name, no read past it */
	b.len = off + 16;
	cr_assert_eq(katra_unix_call_names(&b, &names, &c, &n, &off), -ENOENT);
	cr_assert_null(names);
	katra_blob_free(&b);
}

/* Wine 10.0 (Debian 13): 638 entries; 370 named by the .so (every
 * "thunk64_" string of the file), 265 more by the .dll (the vkCmd* thunks,
 * which trace nothing); 3 stay numbers (0: the library's init; 274 and 277,
 * whose stubs no dispatch table points to). */
Test(unixnames, winevulkan_of_wine_10_names_its_calls)
{
	static const struct pair pairs[] = {
		{ 0, NULL }, { 3, "vkAcquireNextImage2KHR" }, { 4, "vkAcquireNextImageKHR" },
		{ 100, "vkCmdDraw" }, /* by the .dll: the thunk has no TRACE */
		{ 319, "vkCreateDevice" }, { 329, "vkCreateInstance" },
		{ 589, "vkQueuePresentKHR" }, { 591, "vkQueueSubmit" }, { 592, "vkQueueSubmit2" },
		{ 632, "vkWaitForFences" },
	};
	check_file(WINE10_VK, WINE10_DLL, 638, 370, 265, 0xce900, pairs,
		   sizeof(pairs) / sizeof(pairs[0]));
}

/* Wine 8.0 (Debian 12): 545 entries; 312 named by the .so, 222 more by the
 * .dll (its stubs call through a .refptr to the dispatcher). */
Test(unixnames, winevulkan_of_wine_8_names_its_calls)
{
	static const struct pair pairs[] = {
		{ 0, NULL }, { 4, "vkAcquireNextImageKHR" }, { 89, "vkCmdDraw" },
		{ 274, "vkCreateDevice" }, { 282, "vkCreateInstance" },
		{ 506, "vkQueuePresentKHR" }, { 508, "vkQueueSubmit" }, { 539, "vkWaitForFences" },
	};
	check_file(WINE8_VK, WINE8_DLL, 545, 312, 222, 0x9c480, pairs,
		   sizeof(pairs) / sizeof(pairs[0]));
}

/* Not an ELF file, an ELF without the table: nothing, no crash. */
Test(unixnames, files_without_the_table_give_nothing)
{
	uint8_t junk[4096] = { 0x7f, 'E', 'L', 'F' };
	struct katra_blob b = { junk, sizeof(junk) };
	char **names = (char **)1;
	uint32_t c = 1, n = 1;
	uint64_t off = 1;

	cr_assert_eq(katra_unix_call_names(&b, &names, &c, &n, &off), -ENOENT);
	cr_assert_null(names);
	cr_assert_eq(c, 0);
	cr_assert_eq(n, 0);
	if (!access("/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so", R_OK)) {
		struct katra_blob so;
		cr_assert_eq(katra_blob_read("/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so",
					     64u << 20, &so), 0);
		cr_assert_eq(katra_unix_call_names(&so, &names, &c, &n, &off), -ENOENT);
		cr_assert_eq(katra_pe_unix_call_names(&so, names, 0, &n), -ENOEXEC);
		katra_blob_free(&so);
	}
	/* a PE without such stubs (ntdll.dll): nothing */
	if (!access("/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/ntdll.dll", R_OK)) {
		struct katra_blob dll;
		char *none[8] = { 0 };
		cr_assert_eq(katra_blob_read("/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/ntdll.dll",
					     64u << 20, &dll), 0);
		int rc = katra_pe_unix_call_names(&dll, none, 8, &n);
		cr_assert(rc == -ENOENT || (rc == 0 && n == 0), "rc %d, %u names", rc, n);
		katra_blob_free(&dll);
	}
}
