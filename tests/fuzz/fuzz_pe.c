// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is a Windows-side ntdll.dll (PE32+) as the
 * recorder finds it beside a mapped ntdll.so (winenames.h).  The NT names
 * of its stubs are read; each is read whole and freed (LeakSanitizer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/uprobes/winenames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct katra_blob b = { malloc(size ? size : 1), size };
	char **names;
	uint32_t count;
	size_t total = 0;

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	if (!katra_pe_nt_names(&b, (uint32_t)size & 1, &names, &count)) {
		if (!count || count > KATRA_NT_MAX)
			abort();
		for (uint32_t i = 0; i < count; i++)
			total += names[i] ? strlen(names[i]) : 0;
		katra_names_free(names, count);
	}
	free(b.p);
	(void)total;
	return 0;
}
