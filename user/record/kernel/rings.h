/* SPDX-License-Identifier: GPL-2.0-only */
/* The consumer side of the per-CPU BPF rings (BPF_MAP_TYPE_RINGBUF), read
 * straight from their mappings instead of through libbpf's ring_buffer, for
 * one reason: a drain must stop where the ring ended when the watermark was
 * taken.  libbpf's consumer keeps reading while producers keep writing, so a
 * busy CPU's ring is never done, and everything read past the watermark
 * waits in the reorder storage until its budget is spent (then items are
 * written early and their threads' older items dropped as late).  Left in
 * the ring, the same records cost nothing and wait for the next round.
 *
 * Layout (the kernel's, stable): page 0 is the consumer position (ours to
 * write), page 1 the producer position, then the data.  The kernel lets the
 * data be mapped twice in a row (a record that wraps is then contiguous);
 * it is mapped once here, as mapping fills a page-table entry per page at
 * start (~3.5 ms per 32 MiB ring here), and the rare record that wraps is
 * copied whole for its callback.  A record is an 8-byte header (u32 length
 * with BUSY and DISCARD bits, u32 page offset; never split, the data's size
 * being a power of two) and its bytes, rounded up to 8. */
#ifndef KATRA_RECORD_RINGS_H
#define KATRA_RECORD_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct katra_ring_view {
	unsigned long *consumer_pos; /* rw page */
	const unsigned long *producer_pos;
	const uint8_t *data;         /* size bytes, read-only */
	uint8_t *bounce;             /* a record that wraps, copied whole */
	size_t bounce_cap;
	uint64_t mask;               /* size - 1 */
	uint64_t stop_pos;           /* a drain reads up to here (a snapshot) */
	int fd;
};

struct katra_rings {
	struct katra_ring_view *v;
	unsigned n;
	size_t page;
	size_t size; /* data bytes per ring (a power of two) */
	bool borrowed; /* the producer pages and data are the caller's mappings */
};

/* fn(ctx, data, size) per record; its return value is ignored. */
typedef int (*katra_ring_fn)(void *ctx, void *data, size_t size);

/* Maps n rings of `size` data bytes each (the ring map fds stay the
 * caller's).  0 or -errno; katra_rings_close() in either case. */
int katra_rings_open(struct katra_rings *rs, const int *fds, unsigned n, size_t size);
/* The same with ring i's producer page and data (page + size, mapped
 * read-only from the fd's offset page) already mapped by the caller at
 * maps[i], and left to it (mapping 32 MiB fills ~8 k page-table entries:
 * done while the programs load, probes_rings.c). */
int katra_rings_open_mapped(struct katra_rings *rs, const int *fds, const void *const *maps,
			    unsigned n, size_t size);
void katra_rings_close(struct katra_rings *rs);
/* Takes ring i's producer position as where its next drain stops: call it
 * after reading CPU i's slot for the watermark (every record committed
 * before that read is below the position). */
void katra_rings_snapshot(struct katra_rings *rs, unsigned i);
/* Reads every ring up to its snapshot (or, with to_end, up to whatever is
 * committed now), stopping early at a record still being written.  Returns
 * the records read. */
uint64_t katra_rings_drain(struct katra_rings *rs, katra_ring_fn fn, void *ctx, int to_end);
/* Ring i's producer position now (what is committed or reserved). */
uint64_t katra_rings_produced(const struct katra_rings *rs, unsigned i);
/* Reads ring i up to `stop`, at most `max` records (*count: how many).
 * True when it got to `stop` or to a record still being written (which was
 * reserved after any CPU slot read before `stop` was taken: it and what
 * follows are younger than that watermark); false when `max` stopped it. */
bool katra_rings_read(struct katra_rings *rs, unsigned i, uint64_t stop, uint64_t max,
		      katra_ring_fn fn, void *ctx, uint64_t *count);
/* Adds every ring's fd to an epoll set with `events` (EPOLLIN: unread data
 * after a producer forced a wakeup; with EPOLLET: the wakeups alone), with
 * data.fd = the ring's fd. */
int katra_rings_epoll_add(const struct katra_rings *rs, int epfd, uint32_t events);
/* The fullest ring's unread bytes. */
uint64_t katra_rings_max_fill(const struct katra_rings *rs);

#endif
