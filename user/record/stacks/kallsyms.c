// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's text symbols, sorted by address (kallsyms.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct kallsyms {
	struct ksym *syms;
	size_t n;
	char *names; /* every name, NUL-separated */
};

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int kallsyms_load(const char *path, struct kallsyms **out)
{
	struct kallsyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, ncap = 0, nlen = 0;
	char line[512];
	FILE *f;

	*out = NULL;
	if (!k)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		int err = -errno;
		free(k);
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type, name[256];
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 || !addr ||
		    !strchr("tTwW", type))
			continue;
		size_t len = strlen(name) + 1;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			struct ksym *s = realloc(k->syms, cap * sizeof(*s));
			if (!s)
				break;
			k->syms = s;
		}
		if (nlen + len > ncap) {
			ncap = ncap ? ncap * 2 : 1 << 20;
			char *nn = realloc(k->names, ncap);
			if (!nn)
				break;
			k->names = nn;
		}
		memcpy(k->names + nlen, name, len);
		k->syms[k->n].addr = addr;
		k->syms[k->n++].name = (char *)(uintptr_t)nlen; /* an offset until the end */
		nlen += len;
	}
	fclose(f);
	for (size_t i = 0; i < k->n; i++)
		k->syms[i].name = k->names + (uintptr_t)k->syms[i].name;
	qsort(k->syms, k->n, sizeof(*k->syms), by_addr);
	*out = k;
	return 0;
}

void kallsyms_free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

void kallsyms_name(const struct kallsyms *k, uint64_t addr, char *buf, size_t cap)
{
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) { /* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		snprintf(buf, cap, "0x%" PRIx64, addr);
		return;
	}
	snprintf(buf, cap, "%s+0x%" PRIx64, k->syms[lo - 1].name, addr - k->syms[lo - 1].addr);
}
