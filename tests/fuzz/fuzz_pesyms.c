// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is a PE32+ DLL with a COFF symbol table as a
 * traced process may map it (wined3d.dll, where Wine's vkd3d lives:
 * pesyms.h).  The D3D12 functions' file offsets are looked up, and each
 * one's exits (pexits.h); each found must be inside the file and the count
 * must match, else this aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/uprobes/pexits.h"
#include "pe/pesyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"d3d12_command_queue_ExecuteCommandLists", "d3d12_command_queue_Signal",
		"d3d12_x", "data",
	};
	struct katra_blob b = { malloc(size ? size : 1), size };
	uint64_t offs[4];
	int found, seen = 0;

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	found = katra_pe_coff_functions(&b, names, 4, offs);
	for (unsigned i = 0; i < 4; i++) {
		if (offs[i] == UINT64_MAX)
			continue;
		if (offs[i] >= size || found < 0)
			abort();
		seen++;
		/* and its exits: each inside the file */
		struct katra_pe_exit exits[KATRA_PE_EXITS_MAX];
		uint32_t nexits = 0;
		if (!katra_pe_exits(&b, offs[i], exits, &nexits))
			for (uint32_t k = 0; k < nexits; k++)
				if (!nexits || nexits > KATRA_PE_EXITS_MAX || exits[k].off >= size)
					abort();
	}
	if (found >= 0 && seen != found)
		abort();
	free(b.p);
	return 0;
}
