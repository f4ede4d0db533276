// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is a Wine unix library (winevulkan.so) as a
 * traced process may map it (root reads the file whose mapping holds a
 * Win->Unix call's handle, winenames.h), or its Windows side
 * (winevulkan.dll, read beside it).  Both parsers run on it: the ELF's call
 * names, then the PE's filling a table of KATRA_UNIX_FUNCS_MAX entries;
 * every name returned is read whole (ASan checks that it is a string of its
 * own) and the counts must keep their contract, else this aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/uprobes/winenames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a malloc'ed copy: aligned as katra_blob_read's */
	struct katra_blob b = { malloc(size ? size : 1), size };
	char **names;
	uint32_t count, named, seen = 0;
	uint64_t table_off;
	size_t total = 0;

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	if (!katra_unix_call_names(&b, &names, &count, &named, &table_off)) {
		if (!count || count > KATRA_UNIX_FUNCS_MAX || named > count ||
		    table_off + 8ull * count > size)
			abort();
		for (uint32_t i = 0; i < count; i++)
			if (names[i]) {
				total += strlen(names[i]);
				seen++;
			}
		if (seen != named)
			abort();
		katra_names_free(names, count);
	}
	names = calloc(KATRA_UNIX_FUNCS_MAX, sizeof(*names));
	if (names && !katra_pe_unix_call_names(&b, names, KATRA_UNIX_FUNCS_MAX, &named)) {
		seen = 0;
		for (uint32_t i = 0; i < KATRA_UNIX_FUNCS_MAX; i++)
			if (names[i]) {
				total += strlen(names[i]);
				seen++;
			}
		if (seen != named)
			abort();
	}
	katra_names_free(names, KATRA_UNIX_FUNCS_MAX);
	free(b.p);
	(void)total;
	return 0;
}
