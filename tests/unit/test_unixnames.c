// SPDX-License-Identifier: GPL-2.0-only
/* The names of winevulkan.so's Win->Unix calls (user/record/uprobes/
 * unixnames.c), on the installed files: Debian 12's Wine 8 and the Proton-
 * class root's Wine 10 (each skipped when absent).  The pairs were checked by
 * hand against objdump -d of the same files (the thunk's lea of its
 * "thunk64_" string) and against winevulkan.dll, whose stub for each
 * function loads the same index into edx before calling
 * __wine_unix_call_dispatcher. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "record/uprobes/winenames.h"

#define WINE8_VK "/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/winevulkan.so"
#define WINE10_VK "/var/cache/katra-proton/root" WINE8_VK

struct pair {
	uint32_t index;
	const char *name; /* NULL: no name (a thunk without a TRACE) */
};

static void check_file(const char *path, uint32_t count, uint32_t named, uint64_t table_off,
		       const struct pair *pairs, size_t npairs)
{
	struct katra_blob b;
	char **names;
	uint32_t c, n;
	uint64_t off;

	if (access(path, R_OK))
		cr_skip_test("%s is not installed", path);
	cr_assert_eq(katra_blob_read(path, 64u << 20, &b), 0);
	cr_assert_eq(katra_unix_call_names(&b, &names, &c, &n, &off), 0);
	cr_assert_eq(c, count, "%s: %u entries", path, c);
	cr_assert_eq(n, named, "%s: %u named", path, n);
	cr_assert_eq(off, table_off);
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

/* Wine 10.0 (Debian 13): 638 entries, 370 named (every "thunk64_" string of
 * the file); the rest are vkCmd* thunks, which trace nothing, and the
 * library's own calls (0: init, 1, 2). */
Test(unixnames, winevulkan_of_wine_10_names_its_thunks)
{
	static const struct pair pairs[] = {
		{ 0, NULL }, { 3, "vkAcquireNextImage2KHR" }, { 4, "vkAcquireNextImageKHR" },
		{ 100, NULL }, /* vkCmdDraw: no TRACE */
		{ 319, "vkCreateDevice" }, { 329, "vkCreateInstance" },
		{ 589, "vkQueuePresentKHR" }, { 591, "vkQueueSubmit" }, { 592, "vkQueueSubmit2" },
		{ 632, "vkWaitForFences" },
	};
	check_file(WINE10_VK, 638, 370, 0xce900, pairs, sizeof(pairs) / sizeof(pairs[0]));
}

/* Wine 8.0 (Debian 12): 545 entries, 312 named. */
Test(unixnames, winevulkan_of_wine_8_names_its_thunks)
{
	static const struct pair pairs[] = {
		{ 0, NULL }, { 4, "vkAcquireNextImageKHR" }, { 274, "vkCreateDevice" },
		{ 282, "vkCreateInstance" }, { 506, "vkQueuePresentKHR" },
		{ 508, "vkQueueSubmit" }, { 539, "vkWaitForFences" },
	};
	check_file(WINE8_VK, 545, 312, 0x9c480, pairs, sizeof(pairs) / sizeof(pairs[0]));
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
		katra_blob_free(&so);
	}
}
