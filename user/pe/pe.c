// SPDX-License-Identifier: GPL-2.0-only
/* A file held in memory (read from an fd opened inside its process's root:
 * procfs/procpath.h, or by name) and a PE32+ file's headers (pe.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pe.h"

#define PE_NAME_MAX 256

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int katra_blob_read_fd(int fd, size_t max, struct katra_blob *b)
{
	struct stat st;
	size_t got = 0;

	b->p = NULL;
	b->len = 0;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max)
		return -EFBIG;
	b->p = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b->p)
		return -ENOMEM;
	/* from offset 0 whatever the fd's position (it may be shared) */
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, b->p + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	b->len = got;
	return 0;
}

int katra_blob_read(const char *path, size_t max, struct katra_blob *b)
{
	int fd, rc;

	b->p = NULL;
	b->len = 0;
	/* never blocks (a FIFO), never a controlling terminal */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = katra_blob_read_fd(fd, max, b);
	close(fd);
	return rc;
}

void katra_blob_free(struct katra_blob *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

/* The rva of section i's file bytes: [*va, *end). */
static void pe_sec_span(const struct katra_pe *pe, uint32_t i, uint64_t *va, uint64_t *end)
{
	const uint8_t *s = pe->b->p + pe->sec + 40ull * i;

	*va = katra_rd32(s + 12);
	*end = *va + katra_rd32(s + 16);
}

/* The map of rvas to sections (struct katra_pe): sections * pieces steps,
 * once per file. */
static void pe_map(struct katra_pe *pe)
{
	uint64_t cut[2 * KATRA_PE_SECTIONS_MAX], va, end;
	uint32_t n = 0, k = 0;

	for (uint32_t i = 0; i < pe->nsec; i++) {
		pe_sec_span(pe, i, &va, &end);
		if (end > va) {
			cut[n++] = va;
			cut[n++] = end;
		}
	}
	qsort(cut, n, sizeof(*cut), cmp_u64);
	for (uint32_t c = 0; c < n; c++) {
		if (c && cut[c] == cut[c - 1])
			continue;
		uint32_t sec = UINT32_MAX;
		for (uint32_t i = 0; i < pe->nsec && sec == UINT32_MAX; i++) {
			pe_sec_span(pe, i, &va, &end);
			if (cut[c] >= va && cut[c] < end)
				sec = i;
		}
		pe->piece[k++] = (struct katra_pe_piece){ cut[c], sec };
	}
	pe->npieces = k;
}

int katra_pe_open(const struct katra_blob *b, struct katra_pe *pe)
{
	const uint8_t *p = b->p;
	uint32_t lfanew;

	memset(pe, 0, sizeof(*pe));
	pe->b = b;
	if (!katra_in_blob(b, 0, 64) || p[0] != 'M' || p[1] != 'Z')
		return -ENOEXEC;
	lfanew = katra_rd32(p + 0x3c);
	if (!katra_in_blob(b, lfanew, 24) || memcmp(p + lfanew, "PE\0\0", 4))
		return -ENOEXEC;
	pe->nsec = katra_rd16(p + lfanew + 6);
	if (pe->nsec > KATRA_PE_SECTIONS_MAX)
		return -ENOEXEC;
	pe->optsize = katra_rd16(p + lfanew + 20);
	pe->opt = lfanew + 24ull;
	/* PE32+ (0x20b), up to the export directory (data directory 0, at 112) */
	if (!katra_in_blob(b, pe->opt, pe->optsize) || pe->optsize < 120 || katra_rd16(p + pe->opt) != 0x20b)
		return -ENOEXEC;
	memcpy(&pe->image_base, p + pe->opt + 24, 8);
	pe->sec = pe->opt + pe->optsize;
	if (!katra_in_blob(b, pe->sec, 40ull * pe->nsec))
		return -ENOEXEC;
	pe_map(pe);
	return 0;
}

/* The section holding rva in its file bytes, or NULL: the first in header
 * order (pe_map). */
static const uint8_t *pe_section(const struct katra_pe *pe, uint32_t rva)
{
	uint32_t lo = 0, hi = pe->npieces;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pe->piece[mid].start <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pe->piece[lo - 1].sec == UINT32_MAX)
		return NULL;
	return pe->b->p + pe->sec + 40ull * pe->piece[lo - 1].sec;
}

uint64_t katra_pe_offset(const struct katra_pe *pe, uint32_t rva)
{
	const uint8_t *s = pe_section(pe, rva);

	return s ? (uint64_t)katra_rd32(s + 20) + (rva - katra_rd32(s + 12)) : UINT64_MAX;
}

bool katra_pe_exec(const struct katra_pe *pe, uint32_t rva)
{
	const uint8_t *s = pe_section(pe, rva);

	return s && (katra_rd32(s + 36) & 0x20000000u); /* IMAGE_SCN_MEM_EXECUTE */
}

const char *katra_pe_string(const struct katra_pe *pe, uint32_t rva)
{
	uint64_t off = katra_pe_offset(pe, rva), left;

	if (off >= pe->b->len)
		return NULL;
	left = pe->b->len - off;
	if (!memchr(pe->b->p + off, 0, left < PE_NAME_MAX ? left : PE_NAME_MAX))
		return NULL;
	return (const char *)pe->b->p + off;
}
