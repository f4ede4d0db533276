/* SPDX-License-Identifier: GPL-2.0-only */
/* The Thrift compact protocol, write side, as far as Parquet's page headers
 * and footer need it: varints, zigzag integers, field headers by delta,
 * binaries, lists, nested structs.  Writes into a growing byte buffer. */
#ifndef KATRA_REPLAY_THRIFT_H
#define KATRA_REPLAY_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>

/* compact protocol type codes */
enum {
	KT_TRUE = 1, KT_FALSE = 2, KT_BYTE = 3, KT_I16 = 4, KT_I32 = 5, KT_I64 = 6,
	KT_DOUBLE = 7, KT_BINARY = 8, KT_LIST = 9, KT_SET = 10, KT_MAP = 11, KT_STRUCT = 12,
};

#define KT_DEPTH 8

struct kbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom; /* a write did not fit: the buffer's bytes are incomplete */
};

int kbuf_reserve_slow(struct kbuf *b, size_t n);

/* Room for n more bytes (inline: every value of every row comes here).
 * 0, or -1 with oom set (then nothing is written). */
static inline int kbuf_reserve(struct kbuf *b, size_t n)
{
	if (__builtin_expect(b->len + n <= b->cap && !b->oom, 1))
		return 0;
	return kbuf_reserve_slow(b, n);
}

/* Appends n bytes of src (src NULL: n bytes left as they are). */
static inline void kbuf_put(struct kbuf *b, const void *src, size_t n)
{
	if (kbuf_reserve(b, n))
		return;
	if (n && src)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static inline void kbuf_u8(struct kbuf *b, uint8_t v)
{
	if (!kbuf_reserve(b, 1))
		b->p[b->len++] = v;
}

/* Little-endian stores (x86-64 and arm64 are little-endian: a memcpy). */
static inline void kbuf_u32le(struct kbuf *b, uint32_t v)
{
	if (kbuf_reserve(b, 4))
		return;
	v = htole32(v);
	memcpy(b->p + b->len, &v, 4);
	b->len += 4;
}

static inline void kbuf_u64le(struct kbuf *b, uint64_t v)
{
	if (kbuf_reserve(b, 8))
		return;
	v = htole64(v);
	memcpy(b->p + b->len, &v, 8);
	b->len += 8;
}

void kbuf_free(struct kbuf *b);

struct kthrift {
	struct kbuf *b;
	int16_t last[KT_DEPTH]; /* the last field id of each open struct */
	unsigned depth;
};

void kt_init(struct kthrift *t, struct kbuf *b);
void kt_varint(struct kbuf *b, uint64_t v);
uint64_t kt_zigzag(int64_t v);
/* A field's header: (id - last) << 4 | type when 1..15 apart, else the type
 * byte and the id as a zigzag varint. */
void kt_field(struct kthrift *t, int16_t id, uint8_t type);
void kt_i32(struct kthrift *t, int16_t id, int32_t v);
void kt_i64(struct kthrift *t, int16_t id, int64_t v);
void kt_bool(struct kthrift *t, int16_t id, bool v);
void kt_binary(struct kthrift *t, int16_t id, const void *p, size_t n);
void kt_string(struct kthrift *t, int16_t id, const char *s);
/* A list field's header: size << 4 | element type below 15, else 0xf0 |
 * type and the size as a varint. */
void kt_list(struct kthrift *t, int16_t id, uint8_t elem, uint32_t n);
/* A struct as a field (id >= 1), or as a list element (id 0); its fields
 * count from 0 again; kt_end writes the stop byte. */
void kt_begin(struct kthrift *t, int16_t id);
void kt_end(struct kthrift *t);

#endif
