// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rings.h"

/* the kernel's record header bits (uapi bpf.h) */
#define RING_BUSY_BIT    (1u << 31)
#define RING_DISCARD_BIT (1u << 30)
#define RING_HDR_BYTES   8u

int katra_rings_open(struct katra_rings *rs, const int *fds, unsigned n, size_t size)
{
	return katra_rings_open_mapped(rs, fds, NULL, n, size);
}

int katra_rings_open_mapped(struct katra_rings *rs, const int *fds, const void *const *maps,
			    unsigned n, size_t size)
{
	memset(rs, 0, sizeof(*rs));
	rs->borrowed = maps != NULL;
	rs->page = (size_t)sysconf(_SC_PAGESIZE);
	rs->size = size;
	if (!size || (size & (size - 1)))
		return -EINVAL;
	rs->v = calloc(n, sizeof(*rs->v));
	if (!rs->v)
		return -ENOMEM;
	rs->n = n;
	for (unsigned i = 0; i < n; i++) {
		struct katra_ring_view *v = &rs->v[i];
		void *m;

		v->fd = fds[i];
		v->mask = size - 1;
		m = mmap(NULL, rs->page, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
		if (m == MAP_FAILED)
			return -errno;
		v->consumer_pos = m;
		/* the producer page and the data; read-only to user space */
		m = maps ? (void *)maps[i]
			 : mmap(NULL, rs->page + size, PROT_READ, MAP_SHARED, v->fd, rs->page);
		if (m == MAP_FAILED || !m)
			return m ? -errno : -EINVAL;
		v->producer_pos = m;
		v->data = (const uint8_t *)m + rs->page;
		v->stop_pos = __atomic_load_n(v->consumer_pos, __ATOMIC_ACQUIRE);
	}
	return 0;
}

void katra_rings_close(struct katra_rings *rs)
{
	for (unsigned i = 0; rs->v && i < rs->n; i++) {
		if (rs->v[i].consumer_pos)
			munmap(rs->v[i].consumer_pos, rs->page);
		if (rs->v[i].producer_pos && !rs->borrowed)
			munmap((void *)rs->v[i].producer_pos, rs->page + rs->size);
		free(rs->v[i].bounce);
	}
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

void katra_rings_snapshot(struct katra_rings *rs, unsigned i)
{
	if (i < rs->n)
		rs->v[i].stop_pos = __atomic_load_n(rs->v[i].producer_pos, __ATOMIC_ACQUIRE);
}

/* The bytes of the record whose header is at cons: in place, or copied
 * whole when they wrap the data's end (NULL: no memory for the copy). */
static void *record_at(struct katra_ring_view *v, uint64_t cons, uint32_t len)
{
	uint64_t start = (cons + RING_HDR_BYTES) & v->mask, head = v->mask + 1 - start;

	if (len <= head)
		return (void *)(v->data + start);
	if (len > v->bounce_cap) {
		size_t cap = v->bounce_cap ? v->bounce_cap : 4096;
		uint8_t *b;

		while (cap < len)
			cap *= 2;
		b = realloc(v->bounce, cap);
		if (!b)
			return NULL;
		v->bounce = b;
		v->bounce_cap = cap;
	}
	memcpy(v->bounce, v->data + start, head);
	memcpy(v->bounce + head, v->data, len - head);
	return v->bounce;
}

/* Reads v up to stop, at most max records (*count gets them); true when it
 * got to stop or to a record still being written. */
static bool drain_one(struct katra_ring_view *v, katra_ring_fn fn, void *ctx, uint64_t stop,
		      uint64_t max, uint64_t *count)
{
	uint64_t cons = __atomic_load_n(v->consumer_pos, __ATOMIC_RELAXED), n = 0;
	bool done = true;

	while (cons < stop) {
		const uint32_t *hdr = (const uint32_t *)(v->data + (cons & v->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

		/* reserved, not yet committed: it and what follows wait */
		if (len & RING_BUSY_BIT)
			break;
		if (n == max) {
			done = false;
			break;
		}
		if (!(len & RING_DISCARD_BIT)) {
			void *rec = record_at(v, cons, len);

			if (!rec) { /* left in the ring for the next round */
				done = false;
				break;
			}
			fn(ctx, rec, len);
			n++;
		}
		cons += (RING_HDR_BYTES + (len & ~RING_DISCARD_BIT) + 7) & ~7ull;
		/* hand the space back as we go: the producers may be waiting
		 * for it (a full ring drops records) */
		if (!(n & 255))
			__atomic_store_n(v->consumer_pos, cons, __ATOMIC_RELEASE);
	}
	__atomic_store_n(v->consumer_pos, cons, __ATOMIC_RELEASE);
	*count = n;
	return done;
}

uint64_t katra_rings_drain(struct katra_rings *rs, katra_ring_fn fn, void *ctx, int to_end)
{
	uint64_t n = 0, got;

	for (unsigned i = 0; i < rs->n; i++) {
		struct katra_ring_view *v = &rs->v[i];
		uint64_t stop = to_end ? __atomic_load_n(v->producer_pos, __ATOMIC_ACQUIRE)
				       : v->stop_pos;
		drain_one(v, fn, ctx, stop, UINT64_MAX, &got);
		n += got;
	}
	return n;
}

uint64_t katra_rings_produced(const struct katra_rings *rs, unsigned i)
{
	return i < rs->n ? __atomic_load_n(rs->v[i].producer_pos, __ATOMIC_ACQUIRE) : 0;
}

bool katra_rings_read(struct katra_rings *rs, unsigned i, uint64_t stop, uint64_t max,
		      katra_ring_fn fn, void *ctx, uint64_t *count)
{
	*count = 0;
	return i >= rs->n || drain_one(&rs->v[i], fn, ctx, stop, max, count);
}

int katra_rings_epoll_add(const struct katra_rings *rs, int epfd, uint32_t events)
{
	for (unsigned i = 0; i < rs->n; i++) {
		struct epoll_event ev = { .events = events, .data.fd = rs->v[i].fd };

		if (epoll_ctl(epfd, EPOLL_CTL_ADD, rs->v[i].fd, &ev) < 0)
			return -errno;
	}
	return 0;
}

uint64_t katra_rings_max_fill(const struct katra_rings *rs)
{
	uint64_t most = 0;

	for (unsigned i = 0; i < rs->n; i++) {
		uint64_t fill = __atomic_load_n(rs->v[i].producer_pos, __ATOMIC_ACQUIRE) -
				__atomic_load_n(rs->v[i].consumer_pos, __ATOMIC_RELAXED);
		if (fill > most)
			most = fill;
	}
	return most;
}
