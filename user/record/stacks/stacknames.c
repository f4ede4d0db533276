// SPDX-License-Identifier: GPL-2.0-only
/* The user frames named at the end of the capture (stacks_int.h): from the
 * very files the processes mapped, opened inside their roots when their
 * maps were read, by the naming the replay uses (ELF symbols, DWARF with
 * inlined functions, PE DWARF, COFF symbols and exports), so that a trace
 * read where the binaries are not still names its frames.  Function names
 * only: no path is written. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <katra/format.h>

#include "stacks_int.h"
#include "symbols/elfsyms.h"

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct addresses the stacks cite in file fi, sorted: *out (malloc'd) */
static int addresses(const struct stk_stack *stacks, size_t nstacks, uint32_t fi,
		     uint64_t **out, size_t *n)
{
	size_t cap = 0, k = 0;
	uint64_t *a = NULL;

	for (size_t i = 0; i < nstacks; i++)
		for (uint32_t j = 0; j < stacks[i].nframes; j++) {
			if (stacks[i].frames[j].file != fi)
				continue;
			if (k == cap) {
				size_t nc = cap ? cap * 2 : 64;
				uint64_t *na = realloc(a, nc * sizeof(*a));
				if (!na) {
					free(a);
					return -ENOMEM;
				}
				a = na;
				cap = nc;
			}
			a[k++] = stacks[i].frames[j].address;
		}
	if (k)
		qsort(a, k, sizeof(*a), by_u64);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || a[*n - 1] != a[i])
			a[(*n)++] = a[i];
	*out = a;
	return 0;
}

/* One module's Symbols record (none when its file names no frame) */
static int one_module(struct kr_elfsyms *sy, const struct stk_file *f, const uint64_t *addr,
		      size_t n, struct katra_writer *w, uint64_t *named, uint64_t *unnamed)
{
	struct katra_symbol_name *e = calloc(n, sizeof(*e));
	char **names = calloc(n, sizeof(*names));
	char buf[512];
	size_t k = 0;
	int rc = e && names ? kr_elfsyms_module_fd(sy, f->module_id, f->path, f->fd) : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		uint64_t off;
		if (kr_elfsyms_symbol(sy, f->module_id, addr[i], buf, sizeof(buf), &off)) {
			(*unnamed)++;
			continue;
		}
		names[k] = strdup(buf);
		if (!names[k]) {
			rc = -ENOMEM;
			break;
		}
		e[k] = (struct katra_symbol_name){ addr[i], katra_cstr(names[k]), off };
		k++;
	}
	*named += k;
	if (!rc && k) {
		struct katra_record r = { .type = KATRA_RECORD_SYMBOLS };
		r.u.symbols = (struct katra_symbols){ f->module_id, e, k };
		rc = katra_writer_append(w, &r);
	}
	for (size_t i = 0; names && i < k; i++)
		free(names[i]);
	free(names);
	free(e);
	return rc;
}

int stk_write_symbols(struct stk_file *files, uint32_t nfiles, const struct stk_stack *stacks,
		      size_t nstacks, struct katra_writer *w, uint64_t *named, uint64_t *unnamed)
{
	struct kr_elfsyms *sy = kr_elfsyms_new(NULL);
	int rc = sy ? 0 : -ENOMEM;

	*named = *unnamed = 0;
	/* in module id order: the Module records' */
	for (uint32_t id = 1; !rc; id++) {
		uint32_t fi = 0;
		while (fi < nfiles && files[fi].module_id != id)
			fi++;
		if (fi == nfiles)
			break;
		uint64_t *addr = NULL;
		size_t n = 0;
		rc = addresses(stacks, nstacks, fi, &addr, &n);
		if (!rc && n && files[fi].fd >= 0)
			rc = one_module(sy, &files[fi], addr, n, w, named, unnamed);
		free(addr);
	}
	kr_elfsyms_free(sy);
	return rc;
}
