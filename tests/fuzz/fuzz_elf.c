// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry: the input is a Unix-side ntdll.so as a traced process may
 * map it (root reads it, winenames.h).  Every ELF reader runs on it: the
 * dynamic symbols, the syscall table (from the functions of NT numbers 0
 * and 1, or from two addresses the input's last 16 bytes give), its
 * pointers and their names; every name returned is read whole (ASan checks
 * that it ends inside the file); the syscall frame's layout (wineframe.h),
 * whose offsets must be in range when read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/uprobes/wineframe.h"
#include "record/uprobes/winenames.h"

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void table(const struct katra_blob *b, uint64_t fn0, uint64_t fn1)
{
	uint64_t vaddr, *fns;
	const char **names;
	uint32_t count;
	size_t total = 0;

	if (katra_elf_find_table(b, fn0, fn1, &vaddr, &count))
		return;
	if (!count || count > KATRA_NT_MAX)
		abort(); /* the contract: 1 .. KATRA_NT_MAX entries */
	fns = malloc(count * sizeof(*fns));
	names = malloc(count * sizeof(*names));
	if (fns && names) {
		for (uint32_t k = 0; k < count; k++)
			fns[k] = katra_elf_pointer(b, vaddr + 8ull * k);
		if (!katra_elf_func_names(b, fns, count, names))
			for (uint32_t k = 0; k < count; k++)
				total += touch(names[k]);
		total += touch(katra_elf_dynsym_at(b, fns[0]));
	}
	free(fns);
	free(names);
	(void)total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a malloc'ed copy: aligned as katra_blob_read's */
	struct katra_blob b = { malloc(size ? size : 1), size };
	uint64_t fn[2];

	if (!b.p)
		return 0;
	memcpy(b.p, data, size);
	table(&b, katra_elf_dynsym(&b, "NtAcceptConnectPort"), katra_elf_dynsym(&b, "NtAccessCheck"));
	if (size >= sizeof(fn)) {
		memcpy(fn, data + size - sizeof(fn), sizeof(fn));
		table(&b, fn[0], fn[1]);
	}
	touch(katra_elf_dynsym_at(&b, katra_elf_dynsym(&b, "wine_server_call")));
	{
		struct katra_wine_frame w;
		const char *why;
		if (!katra_wine_frame_read(&b, &w, &why)) {
			if (!w.offs.teb_frame || w.offs.teb_frame >= 0x10000 ||
			    (w.call_ret && w.call_ret <= w.load_vaddr))
				abort();
			for (int i = 0; i < KATRA_WF_SLOTS; i++)
				if (w.offs.slot[i] >= KATRA_WF_SLOT_MAX || (w.offs.slot[i] & 7))
					abort();
		} else if (!why) {
			abort(); /* a refusal says why */
		}
	}
	free(b.p);
	return 0;
}
