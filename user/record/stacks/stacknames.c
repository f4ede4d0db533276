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

static int by_frame(const void *a, const void *b)
{
	const struct stk_frame *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* Every frame the stacks cite in a module, sorted by (file, address),
 * repeats dropped: *out (malloc'd), *n */
static int cited(const struct stk_file *files, const struct stk_stack *stacks, size_t nstacks,
		 struct stk_frame **out, size_t *n)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < nstacks; i++)
		total += stacks[i].nframes;
	struct stk_frame *a = malloc((total ? total : 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < nstacks; i++)
		for (uint32_t j = 0; j < stacks[i].nframes; j++) {
			const struct stk_frame *f = &stacks[i].frames[j];
			if (f->file != UINT32_MAX && files[f->file].module_id)
				a[k++] = *f;
		}
	if (k)
		qsort(a, k, sizeof(*a), by_frame);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || a[*n - 1].file != a[i].file || a[*n - 1].address != a[i].address)
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

int stk_write_symbols(struct stk_file *files, const struct stk_stack *stacks,
		      size_t nstacks, struct katra_writer *w, uint64_t *named, uint64_t *unnamed)
{
	struct kr_elfsyms *sy = kr_elfsyms_new(NULL);
	struct stk_frame *fr = NULL;
	uint64_t *addr = NULL;
	size_t n = 0;
	int rc = sy ? cited(files, stacks, nstacks, &fr, &n) : -ENOMEM;

	*named = *unnamed = 0;
	addr = rc ? NULL : malloc((n ? n : 1) * sizeof(*addr));
	if (!rc && !addr)
		rc = -ENOMEM;
	/* one record per file, in file order (a Module precedes each) */
	for (size_t i = 0; !rc && i < n;) {
		size_t k = 0;
		uint32_t fi = fr[i].file;
		while (i < n && fr[i].file == fi)
			addr[k++] = fr[i++].address;
		if (files[fi].fd >= 0)
			rc = one_module(sy, &files[fi], addr, k, w, named, unnamed);
	}
	free(addr);
	free(fr);
	kr_elfsyms_free(sy);
	return rc;
}
