// SPDX-License-Identifier: GPL-2.0-only
/* The names of a Wine unix library's calls (winenames.h:
 * katra_unix_call_names, katra_pe_unix_call_names), read from the files a
 * traced process maps: every read is bounded by the file (winenames.c's ELF
 * and PE readers), the work by the table's size times KATRA_UNIX_SCAN, and
 * by the PE file's size times a constant. */
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
	rc = 0;
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

/* ---- the PE side: the stubs of winevulkan.dll ---- */

#define STUB_SCAN 160            /* bytes of a stub looked at for its mov */
#define CALL_WITHIN 48           /* the call at most this far after it */
#define INDIRECT_MAX 8           /* `call *(%rax)` looked at per stub */
#define STUBS_MAX (4 * KATRA_UNIX_FUNCS_MAX) /* pairs looked at */
#define SLOTS_MAX 64             /* call slots told apart */

/* The slot (rva) code[0..j) loads rax from, through a pointer: `mov
 * ref(%rip),%rax` (48 8b 05 disp32), ref holding the slot's address (Wine
 * 8's .refptr); the last such mov; 0 when none. */
static uint32_t loaded_slot(const struct katra_pe *pe, const uint8_t *code, uint32_t rva,
			    uint64_t j)
{
	for (uint64_t m = j >= 7 ? j - 7 : 0; m + 7 <= j; m--) {
		if (code[m] == 0x48 && code[m + 1] == 0x8b && code[m + 2] == 0x05) {
			uint64_t ro = katra_pe_offset(pe, rva + (uint32_t)m + 7 + katra_rd32(code + m + 3));
			uint64_t v = ro != UINT64_MAX && katra_in_blob(pe->b, ro, 8) ?
					     katra_rd64(pe->b->p + ro) - pe->image_base : 0;
			return v <= UINT32_MAX ? (uint32_t)v : 0;
		}
		if (!m)
			break;
	}
	return 0;
}

/* The call a stub at rva makes with an index in edx: `mov $index,%edx`
 * (ba imm32), then within CALL_WITHIN bytes a call through a pointer slot:
 * `call *slot(%rip)` (ff 15 disp32: Wine 10) or `call *(%rax)` (ff 10)
 * after rax was loaded from a pointer to the slot (Wine 8).  The first such
 * call whose slot is want (0: any); *index and its slot, or false. */
static bool stub_call(const struct katra_pe *pe, uint32_t rva, uint32_t want, uint32_t *index,
		      uint32_t *slot)
{
	uint64_t off = katra_pe_offset(pe, rva), n;
	unsigned indirect = 0;

	if (off == UINT64_MAX || off >= pe->b->len || !katra_pe_exec(pe, rva))
		return false;
	n = pe->b->len - off < STUB_SCAN + CALL_WITHIN ? pe->b->len - off : STUB_SCAN + CALL_WITHIN;
	const uint8_t *code = pe->b->p + off;
	for (uint64_t k = 0; k < STUB_SCAN && k + 5 <= n; k++) {
		if (code[k] != 0xba)
			continue;
		for (uint64_t j = k + 5; j < k + 5 + CALL_WITHIN && j + 6 <= n; j++) {
			uint32_t s = 0;
			if (code[j] != 0xff)
				continue;
			if (code[j + 1] == 0x15)
				s = rva + (uint32_t)j + 6 + katra_rd32(code + j + 2);
			else if (code[j + 1] == 0x10 && indirect++ < INDIRECT_MAX)
				s = loaded_slot(pe, code, rva, j);
			if (s && (!want || s == want)) {
				*index = katra_rd32(code + k + 1);
				*slot = s;
				return true;
			}
		}
	}
	return false;
}

/* The length of a "vk..." name (letters, digits, '_', NUL-terminated within
 * PE_NAME_LOOK bytes) at rva, else 0; *looked += the bytes looked at. */
#define PE_NAME_LOOK 256
static size_t vk_name_at(const struct katra_pe *pe, uint32_t rva, uint64_t *looked)
{
	uint64_t off = katra_pe_offset(pe, rva), left;

	if (off >= pe->b->len)
		return 0;
	const char *s = (const char *)pe->b->p + off;
	left = pe->b->len - off < PE_NAME_LOOK ? pe->b->len - off : PE_NAME_LOOK;
	for (size_t i = 0; i < left; i++) {
		char c = s[i];
		++*looked;
		if (!c)
			return i > 2 ? i : 0;
		if (i < 2 ? c != "vk"[i] :
		    !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return 0;
}

/* A non-executable section's file bytes, and the residue mod 8 of the
 * file offsets whose rva is 8-aligned in it. */
struct span {
	uint64_t start, end;
	uint32_t residue;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->residue != y->residue)
		return x->residue < y->residue ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The dispatch tables' (name, function) pairs: two pointers at an 8-byte
 * aligned rva of a section that is not executable, to a "vk..." string and
 * to code; fn(arg) on each (at most STUBS_MAX).  Each file position is
 * looked at once however the sections overlap: their file ranges are sorted
 * and merged (per alignment: a position is aligned when its rva is) and
 * walked in order.  *work counts the positions and the string bytes looked
 * at; past KATRA_PE_PAIRS_WORK(file size) the walk stops: -E2BIG. */
static int each_pair(const struct katra_pe *pe,
		     void (*fn)(const struct katra_pe *pe, const char *name, uint32_t fn_rva,
				void *arg), void *arg, uint64_t *work)
{
	const struct katra_blob *b = pe->b;
	struct span sp[KATRA_PE_SECTIONS_MAX];
	uint64_t budget = *work + KATRA_PE_PAIRS_WORK(b->len);
	uint32_t pairs = 0, n = 0;

	for (uint32_t i = 0; i < pe->nsec; i++) {
		const uint8_t *s = b->p + pe->sec + 40ull * i;
		uint32_t va = katra_rd32(s + 12), size = katra_rd32(s + 16);
		uint64_t raw = katra_rd32(s + 20);
		if ((katra_rd32(s + 36) & 0x20000000u) || !katra_in_blob(b, raw, size) || size < 16)
			continue;
		sp[n++] = (struct span){ raw, raw + size, (uint32_t)((raw - va) & 7) };
	}
	qsort(sp, n, sizeof(*sp), cmp_span);
	for (uint32_t i = 0; i < n && pairs < STUBS_MAX; i++) {
		uint64_t start = sp[i].start, end = sp[i].end;
		/* the ranges of the same alignment that overlap this one */
		while (i + 1 < n && sp[i + 1].residue == sp[i].residue && sp[i + 1].start < end) {
			i++;
			if (sp[i].end > end)
				end = sp[i].end;
		}
		uint64_t o = start + ((sp[i].residue - start) & 7);
		for (; o + 16 <= end && pairs < STUBS_MAX; o += 8) {
			uint64_t name_va = katra_rd64(b->p + o), fn_va = katra_rd64(b->p + o + 8);
			if (++*work > budget)
				return -E2BIG;
			if (name_va - pe->image_base > UINT32_MAX || fn_va - pe->image_base > UINT32_MAX)
				continue;
			uint32_t name_rva = (uint32_t)(name_va - pe->image_base);
			if (!vk_name_at(pe, name_rva, work))
				continue;
			pairs++;
			fn(pe, katra_pe_string(pe, name_rva), (uint32_t)(fn_va - pe->image_base), arg);
		}
	}
	return 0;
}

/* The slots the stubs call through, counted: the dispatcher's is the one
 * most of them use (a variable winecrt0 sets, no import to find it by). */
struct slot_votes {
	uint32_t slot[SLOTS_MAX], votes[SLOTS_MAX];
	unsigned n;
};

static void vote(const struct katra_pe *pe, const char *name, uint32_t fn, void *arg)
{
	struct slot_votes *v = arg;
	uint32_t index, slot;
	unsigned i;

	(void)name;
	if (!stub_call(pe, fn, 0, &index, &slot))
		return;
	for (i = 0; i < v->n && v->slot[i] != slot; i++)
		;
	if (i == v->n && v->n < SLOTS_MAX)
		v->slot[v->n++] = slot;
	if (i < v->n)
		v->votes[i]++;
}

struct pe_found {
	uint32_t dispatcher, count;
	char **names;
	uint8_t *clash;
	int rc;
};

static void take(const struct katra_pe *pe, const char *name, uint32_t fn, void *arg)
{
	struct pe_found *f = arg;
	uint32_t idx, slot;

	if (f->rc || !stub_call(pe, fn, f->dispatcher, &idx, &slot) || idx >= f->count ||
	    f->clash[idx] || (f->names[idx] && !strcmp(f->names[idx], name)))
		return;
	if (f->names[idx]) { /* two names for one index: neither */
		f->clash[idx] = 1;
		free(f->names[idx]);
		f->names[idx] = NULL;
	} else if (!(f->names[idx] = strdup(name))) {
		f->rc = -ENOMEM;
	}
}

int katra_pe_unix_call_names(const struct katra_blob *dll, char **names, uint32_t count,
			     uint32_t *added)
{
	uint64_t work;

	return katra_pe_unix_call_names_counted(dll, names, count, added, &work);
}

int katra_pe_unix_call_names_counted(const struct katra_blob *dll, char **names, uint32_t count,
				     uint32_t *added, uint64_t *work)
{
	struct katra_pe pe;
	struct slot_votes v = { .n = 0 };
	struct pe_found f = { .count = count };
	uint32_t best = 0;

	*added = 0;
	*work = 0;
	if (katra_pe_open(dll, &pe))
		return -ENOEXEC;
	if (each_pair(&pe, vote, &v, work))
		return -E2BIG;
	for (unsigned i = 0; i < v.n; i++)
		if (v.votes[i] > best) {
			best = v.votes[i];
			f.dispatcher = v.slot[i];
		}
	if (!f.dispatcher)
		return -ENOENT;
	f.names = calloc(count ? count : 1, sizeof(*f.names));
	f.clash = calloc(count ? count : 1, 1);
	if (f.names && f.clash) {
		if (each_pair(&pe, take, &f, work))
			f.rc = -E2BIG;
	} else
		f.rc = -ENOMEM;
	for (uint32_t i = 0; !f.rc && i < count; i++)
		if (f.names[i] && !names[i]) {
			names[i] = f.names[i];
			f.names[i] = NULL;
			++*added;
		}
	if (f.names)
		katra_names_free(f.names, count);
	free(f.clash);
	return f.rc;
}
