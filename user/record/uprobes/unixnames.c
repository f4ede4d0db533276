// SPDX-License-Identifier: GPL-2.0-only
/* The names of a Wine unix library's calls (winenames.h:
 * katra_unix_call_names), read from the file a traced process maps: every
 * read is bounded by the file (winenames.c's ELF readers), the work by the
 * table's size times KATRA_UNIX_SCAN. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "winenames.h"

#define THUNK_PREFIX "thunk64_"
#define THUNK_PREFIX_LEN 8
#define UNIX_NAME_MAX 128
#define LEAS_MAX 64 /* RIP-relative leas looked at per function */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first of v[n] (sorted) above x, else UINT64_MAX. */
static uint64_t next_above(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? v[lo] : UINT64_MAX;
}

/* "<name>" of a NUL-terminated "thunk64_<name>" at vaddr (name: letters,
 * digits, '_'), else NULL. */
static const char *thunk_name(const struct katra_blob *b, uint64_t vaddr)
{
	uint64_t off = katra_elf_offset(b, vaddr, THUNK_PREFIX_LEN + 1, false);

	if (off == UINT64_MAX || memcmp(b->p + off, THUNK_PREFIX, THUNK_PREFIX_LEN))
		return NULL;
	const char *s = (const char *)b->p + off + THUNK_PREFIX_LEN;
	uint64_t left = b->len - off - THUNK_PREFIX_LEN;
	for (uint64_t i = 0; i < left && i <= UNIX_NAME_MAX; i++) {
		char c = s[i];
		if (!c)
			return i ? s : NULL;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return NULL;
	}
	return NULL;
}

/* The name the function at fn gives itself: the first lea (REX.W 8d /r with
 * a RIP-relative operand: 48|4c 8d modrm(00 reg 101) disp32) of a thunk
 * name, in [fn, end) and at most KATRA_UNIX_SCAN bytes; else NULL. */
static const char *func_name(const struct katra_blob *b, uint64_t fn, uint64_t end)
{
	uint64_t off = katra_elf_offset(b, fn, 1, true), len;
	unsigned leas = 0;

	if (off == UINT64_MAX || end <= fn)
		return NULL;
	len = end - fn < KATRA_UNIX_SCAN ? end - fn : KATRA_UNIX_SCAN;
	if (len > b->len - off)
		len = b->len - off;
	const uint8_t *code = b->p + off;
	for (uint64_t k = 0; k + 7 <= len && leas < LEAS_MAX; k++) {
		int32_t disp;
		if ((code[k] & 0xfb) != 0x48 || code[k + 1] != 0x8d || (code[k + 2] & 0xc7) != 0x05)
			continue;
		leas++;
		memcpy(&disp, code + k + 3, 4);
		const char *name = thunk_name(b, fn + k + 7 + (uint64_t)(int64_t)disp);
		if (name)
			return name;
	}
	return NULL;
}

/* The table's entries (functions), count of them, read through its
 * relocations; 0 or -ENOENT. */
static int table_funcs(const struct katra_blob *b, const char *sym, uint64_t **fns,
		       uint32_t *count, uint64_t *table_off)
{
	uint64_t size, table = katra_elf_dynsym_sized(b, sym, &size);

	*fns = NULL;
	*count = 0;
	if (!table || size < 8)
		return -ENOENT;
	if (size / 8 < KATRA_UNIX_FUNCS_MAX)
		*count = (uint32_t)(size / 8);
	else
		*count = KATRA_UNIX_FUNCS_MAX;
	*table_off = katra_elf_offset(b, table, 8ull * *count, false);
	if (*table_off == UINT64_MAX)
		return -ENOENT;
	*fns = malloc(*count * sizeof(**fns));
	if (!*fns)
		return -ENOMEM;
	for (uint32_t i = 0; i < *count; i++)
		(*fns)[i] = katra_elf_pointer(b, table + 8ull * i);
	return 0;
}

int katra_unix_call_names(const struct katra_blob *elf, char ***out, uint32_t *count,
			  uint32_t *named, uint64_t *table_off)
{
	uint64_t *fns = NULL, *wow = NULL, *bounds = NULL, wow_off;
	uint32_t nwow = 0;
	char **names = NULL;
	int rc;

	*out = NULL;
	*count = *named = 0;
	*table_off = 0;
	rc = table_funcs(elf, "__wine_unix_call_funcs", &fns, count, table_off);
	if (rc)
		goto out;
	/* the wow64 table's functions end ours as well (its thunk32_ ones) */
	if (table_funcs(elf, "__wine_unix_call_wow64_funcs", &wow, &nwow, &wow_off))
		nwow = 0;
	bounds = malloc(((size_t)*count + nwow) * sizeof(*bounds));
	names = calloc(*count, sizeof(*names));
	if (!bounds || !names) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(bounds, fns, *count * sizeof(*bounds));
	if (nwow)
		memcpy(bounds + *count, wow, nwow * sizeof(*bounds));
	qsort(bounds, (size_t)*count + nwow, sizeof(*bounds), cmp_u64);
	for (uint32_t i = 0; i < *count; i++) {
		const char *nm = fns[i] ? func_name(elf, fns[i],
						    next_above(bounds, (size_t)*count + nwow, fns[i]))
					: NULL;
		if (!nm)
			continue;
		if (!(names[i] = strdup(nm))) {
			rc = -ENOMEM;
			goto out;
		}
		++*named;
	}
	rc = *named ? 0 : -ENOENT;
out:
	if (rc) {
		katra_names_free(names, *count);
		names = NULL;
		*count = *named = 0;
	}
	*out = names;
	free(fns);
	free(wow);
	free(bounds);
	return rc;
}
