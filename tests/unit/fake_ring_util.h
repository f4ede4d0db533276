/* SPDX-License-Identifier: GPL-2.0-only */
/* A memfd laid out as the kernel lays out a BPF ring (consumer page,
 * producer page, the data), for the tests of the ring consumer
 * (test_rings.c) and the drain (test_drain.c).  The kernel lets the data be
 * mapped twice in a row; the file holds it once (and zeros after it), so a
 * consumer that read a wrapped record past the data's end would see zeros.
 * Header-only (static). */
#ifndef KATRA_FAKE_RING_UTIL_H
#define KATRA_FAKE_RING_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct fake_ring {
	int fd;
	size_t page, size;
	uint8_t *all; /* rw view of the whole file */
	uint64_t prod;
};

static inline void fake_ring_open(struct fake_ring *f, size_t size)
{
	f->page = (size_t)sysconf(_SC_PAGESIZE);
	f->size = size;
	f->fd = memfd_create("katra-ring", MFD_CLOEXEC);
	cr_assert_geq(f->fd, 0);
	cr_assert_eq(ftruncate(f->fd, (off_t)(2 * f->page + 2 * size)), 0);
	f->all = mmap(NULL, 2 * f->page + 2 * size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	cr_assert_neq(f->all, MAP_FAILED);
	f->prod = 0;
}

static inline void fake_ring_close(struct fake_ring *f)
{
	munmap(f->all, 2 * f->page + 2 * f->size);
	close(f->fd);
}

static inline void fake_ring_put_bytes(struct fake_ring *f, uint64_t pos, const void *src,
				       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t off = (pos + i) & (f->size - 1);
		uint8_t b = ((const uint8_t *)src)[i];
		f->all[2 * f->page + off] = b;
	}
}

/* Appends record body[0..len) with header flags (BUSY, DISCARD) and
 * publishes the producer position; returns the record's position. */
static inline uint64_t fake_ring_put(struct fake_ring *f, const void *body, uint32_t len,
				     uint32_t flags)
{
	uint64_t at = f->prod;
	uint32_t hdr[2] = { len | flags, 0 };

	fake_ring_put_bytes(f, at, hdr, sizeof(hdr));
	fake_ring_put_bytes(f, at + 8, body, len);
	f->prod += (8 + len + 7) & ~7u;
	memcpy(f->all + f->page, &f->prod, sizeof(f->prod));
	return at;
}

#endif
