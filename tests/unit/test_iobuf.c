// SPDX-License-Identifier: GPL-2.0-only
/* The writer's buffers (user/format/iobuf.c): each is one 2 MiB region of its
 * own, 2 MiB aligned, that the kernel may back with a transparent huge page
 * (what halves the output thread's CPU per MiB of direct writes). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "katra/format.h"
#include "format/out_worker.h"

/* The smaps entry of the mapping that starts at p: its size in KiB and
 * whether the kernel would back it with huge pages (THPeligible). */
static void smaps_of(const void *p, long *size_kib, int *eligible)
{
	char line[256], want[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	bool in = false;

	*size_kib = -1;
	*eligible = -1;
	cr_assert(f);
	snprintf(want, sizeof(want), "%lx-", (unsigned long)(uintptr_t)p);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, ' ') && strchr(line, '-') < strchr(line, ' '))
			in = !strncmp(line, want, strlen(want));
		else if (in && !strncmp(line, "Size:", 5))
			sscanf(line + 5, "%ld", size_kib);
		else if (in && !strncmp(line, "THPeligible:", 12))
			sscanf(line + 12, "%d", eligible);
	}
	fclose(f);
}

/* THP off for the whole system ("never"): nothing to check there. */
static bool thp_never(void)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return true;
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = 0;
	fclose(f);
	return strstr(mode, "[never]") != NULL;
}

Test(iobuf, a_buffer_is_one_aligned_region_the_kernel_may_back_with_a_huge_page)
{
	uint8_t *a = katra_iobuf_alloc(), *b = katra_iobuf_alloc();
	long size_kib;
	int eligible;

	cr_assert(a && b);
	cr_assert_eq((uintptr_t)a % KATRA_IOBUF_REGION, 0);
	cr_assert_eq((uintptr_t)b % KATRA_IOBUF_REGION, 0);
	cr_assert_leq(KATRA_WRITER_BUFFER_BYTES + 4096u, KATRA_IOBUF_REGION);
	/* both usable to the last byte */
	memset(a, 0xa5, KATRA_IOBUF_REGION);
	memset(b, 0x5a, KATRA_IOBUF_REGION);
	cr_assert_eq(a[KATRA_IOBUF_REGION - 1], 0xa5);
	/* the mapping is the region (the unaligned ends were given back), and
	 * marked for huge pages */
	smaps_of(a, &size_kib, &eligible);
	cr_assert_eq(size_kib, (long)(KATRA_IOBUF_REGION / 1024), "mapping of %ld KiB", size_kib);
	if (!thp_never())
		cr_assert_eq(eligible, 1, "THPeligible %d: not marked MADV_HUGEPAGE", eligible);
	katra_iobuf_free(a);
	katra_iobuf_free(b);
}
