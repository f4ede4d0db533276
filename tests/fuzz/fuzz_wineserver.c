// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is a wineserver binary (any process whose name
 * starts with "wineserver": root reads its /proc/PID/exe, winenames.h).  Its
 * request names are read; the parse must stay within its work bound
 * (KATRA_WS_WORK_MAX: linear in the file's size), else this aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/uprobes/winenames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct katra_blob b = { malloc(size ? size : 1), size };
	char **names;
	uint32_t count;
	uint64_t positions;
	size_t total = 0;

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	if (!katra_wineserver_requests_counted(&b, &names, &count, &positions)) {
		if (count < 64 || count > KATRA_NT_MAX)
			abort();
		for (uint32_t i = 0; i < count; i++)
			total += strlen(names[i]);
		katra_names_free(names, count);
	}
	if (positions > KATRA_WS_WORK_MAX(size))
		abort();
	free(b.p);
	(void)total;
	return 0;
}
