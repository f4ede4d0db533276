// SPDX-License-Identifier: GPL-2.0-only
/* A PE image as the unwinder reads it (peunwind.h): its headers, its bytes
 * by rva, the .pdata lookup, and the stack copy's reads.  Layout (PE/COFF
 * spec): data directory 3 (optional header +136) is the exception
 * directory, RUNTIME_FUNCTION {BeginAddress, EndAddress, UnwindData} (12
 * bytes, sorted by BeginAddress; UnwindData with bit 0 set is the rva of
 * another RUNTIME_FUNCTION). */
#include <errno.h>
#include <string.h>

#include "peunwind.h"

#define DIR_EXCEPTION_OFF 136
#define PDATA_MAX 4000000u

/* The headers both forms share (the file's first bytes are mapped as is):
 * SizeOfImage and the exception directory. */
static int image_headers(const struct katra_blob *b, struct katra_pe *pe,
			 struct katra_peu_image *img)
{
	const uint8_t *p = b->p;

	if (katra_pe_open(b, pe))
		return -ENOEXEC;
	if (katra_rd16(p + pe->opt - 20) != 0x8664) /* the file header's Machine */
		return -ENOEXEC;
	img->size = katra_rd32(p + pe->opt + 56);
	img->pdata_rva = 0;
	img->npdata = 0;
	/* NumberOfRvaAndSizes (+108) must reach directory 3 */
	if (pe->optsize >= DIR_EXCEPTION_OFF + 8 && katra_rd32(p + pe->opt + 108) > 3) {
		uint32_t rva = katra_rd32(p + pe->opt + DIR_EXCEPTION_OFF);
		uint32_t size = katra_rd32(p + pe->opt + DIR_EXCEPTION_OFF + 4);
		if (rva && size / 12 <= PDATA_MAX) {
			img->pdata_rva = rva;
			img->npdata = size / 12;
		}
	}
	return 0;
}

int katra_peu_image_file(const struct katra_blob *b, uint64_t base, struct katra_peu_image *img)
{
	memset(img, 0, sizeof(*img));
	img->file = b;
	img->base = base;
	int rc = image_headers(b, &img->pe, img);
	/* every entry readable, or none used */
	if (!rc && img->npdata && !katra_peu_bytes(img, img->pdata_rva, 12 * img->npdata))
		img->npdata = 0;
	return rc;
}

int katra_peu_image_mapped(const uint8_t *p, size_t len, uint64_t base,
			   struct katra_peu_image *img)
{
	struct katra_blob b = { (uint8_t *)p, len };

	memset(img, 0, sizeof(*img));
	img->mapped = p;
	img->mapped_len = len;
	img->base = base;
	int rc = image_headers(&b, &img->pe, img);
	memset(&img->pe, 0, sizeof(img->pe)); /* the file's section offsets: not used */
	if (!rc && img->npdata && !katra_peu_bytes(img, img->pdata_rva, 12 * img->npdata))
		img->npdata = 0;
	return rc;
}

const uint8_t *katra_peu_bytes(const struct katra_peu_image *img, uint32_t rva, uint32_t len)
{
	if (img->mapped)
		return (uint64_t)rva + len <= img->mapped_len ? img->mapped + rva : NULL;
	if (!img->file || !len || (uint64_t)rva + len - 1 > UINT32_MAX)
		return NULL;
	uint64_t off = katra_pe_offset(&img->pe, rva);
	/* one run of one section's file bytes: its last byte where the first's
	 * section puts it */
	if (off == UINT64_MAX || !katra_in_blob(img->file, off, len) ||
	    katra_pe_offset(&img->pe, rva + len - 1) != off + len - 1)
		return NULL;
	return img->file->p + off;
}

bool katra_peu_lookup(const struct katra_peu_image *img, uint32_t rva, uint32_t *begin,
		      uint32_t *end, uint32_t *info)
{
	uint32_t lo = 0, hi = img->npdata;
	const uint8_t *e;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		e = katra_peu_bytes(img, img->pdata_rva + 12 * mid, 12);
		if (!e)
			return false;
		if (katra_rd32(e) <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !(e = katra_peu_bytes(img, img->pdata_rva + 12 * (lo - 1), 12)))
		return false;
	*begin = katra_rd32(e);
	*end = katra_rd32(e + 4);
	*info = katra_rd32(e + 8);
	if (rva < *begin || rva >= *end)
		return false;
	if (*info & 1) { /* an indirect entry: the entry it names gives the info */
		const uint8_t *f = katra_peu_bytes(img, *info & ~1u, 12);
		if (!f)
			return false;
		*info = katra_rd32(f + 8);
		if (*info & 1)
			return false;
	}
	return true;
}

bool katra_peu_read8(const struct katra_peu_stack *st, uint64_t addr, uint64_t *v)
{
	if (addr < st->sp || st->len < 8 || addr - st->sp > st->len - 8)
		return false;
	*v = katra_rd64(st->bytes + (addr - st->sp));
	return true;
}
