/* SPDX-License-Identifier: GPL-2.0-only */
/* A PE32+ file's bytes and headers, read bounded (the file is a traced
 * program's, or one at hand): shared by the recorder (uprobes/, the
 * stacks' PE unwinder) and katra-replay (PE symbols).  No libbpf, no libelf.
 * Functions return 0 or -errno. */
#ifndef KATRA_PE_PE_H
#define KATRA_PE_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A file read whole (ELF or PE). */
struct katra_blob {
	uint8_t *p;
	size_t len;
};
/* A regular file of at most max bytes (else -EFBIG): by its name (opened
 * never blocking), or from an fd already opened (katra_proc_open), read
 * from its start. */
int katra_blob_read(const char *path, size_t max, struct katra_blob *b);
int katra_blob_read_fd(int fd, size_t max, struct katra_blob *b);
void katra_blob_free(struct katra_blob *b);

/* len bytes at off are inside the file; little-endian reads, unaligned */
static inline bool katra_in_blob(const struct katra_blob *b, uint64_t off, uint64_t len)
{
	return off <= b->len && len <= b->len - off;
}

static inline uint16_t katra_rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t katra_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t katra_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A PE32+ file's headers (checked by katra_pe_open: 0 or -ENOEXEC), its
 * sections' file offsets (UINT64_MAX: rva in no section's file bytes),
 * executable sections, and NUL-terminated strings (at most 256 bytes).
 * An rva is looked up in a map katra_pe_open builds once: the address
 * space cut at every section's start and end, each piece given the first
 * section (in header order) whose file bytes hold it; a binary search of
 * at most 2 * KATRA_PE_SECTIONS_MAX pieces, whatever the sections'
 * overlaps (a walk of every section per lookup made a parser that looks
 * up each word of the file cost sections * words). */
#define KATRA_PE_SECTIONS_MAX 96 /* the Windows loader's own limit */
struct katra_pe_piece {
	uint64_t start;  /* rva where it starts; it ends where the next starts */
	uint32_t sec;    /* section index, or UINT32_MAX: no section's file bytes */
};
struct katra_pe {
	const struct katra_blob *b;
	uint32_t nsec;
	uint16_t optsize;
	uint64_t sec;        /* offset of the section table */
	uint64_t opt;        /* offset of the optional header */
	uint64_t image_base;
	uint32_t npieces;
	struct katra_pe_piece piece[2 * KATRA_PE_SECTIONS_MAX + 1];
};
/* Exports looked at, at most (Wine's ntdll.dll: about 2500) */
#define KATRA_PE_EXPORTS_MAX 65536
int katra_pe_open(const struct katra_blob *b, struct katra_pe *pe);
uint64_t katra_pe_offset(const struct katra_pe *pe, uint32_t rva);
bool katra_pe_exec(const struct katra_pe *pe, uint32_t rva);
const char *katra_pe_string(const struct katra_pe *pe, uint32_t rva);

#endif
