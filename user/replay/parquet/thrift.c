// SPDX-License-Identifier: GPL-2.0-only
/* Thrift compact protocol, write side (thrift.h). */
#include <stdlib.h>
#include <string.h>

#include "thrift.h"

/* The slow path of kbuf_put and kbuf_grow: the buffer doubled until n
 * more bytes fit.  0, or -1 with oom set. */
int kbuf_reserve_slow(struct kbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->oom)
		return -1;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void kbuf_free(struct kbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void kt_init(struct kthrift *t, struct kbuf *b)
{
	memset(t, 0, sizeof(*t));
	t->b = b;
}

void kt_varint(struct kbuf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	while (v >= 0x80) {
		x[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	x[n++] = (uint8_t)v;
	kbuf_put(b, x, n);
}

uint64_t kt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void kt_field(struct kthrift *t, int16_t id, uint8_t type)
{
	int16_t *last = &t->last[t->depth];

	if (id > *last && id - *last <= 15) {
		kbuf_u8(t->b, (uint8_t)((id - *last) << 4 | type));
	} else {
		kbuf_u8(t->b, type);
		kt_varint(t->b, kt_zigzag(id));
	}
	*last = id;
}

void kt_i32(struct kthrift *t, int16_t id, int32_t v)
{
	kt_field(t, id, KT_I32);
	kt_varint(t->b, kt_zigzag(v));
}

void kt_i64(struct kthrift *t, int16_t id, int64_t v)
{
	kt_field(t, id, KT_I64);
	kt_varint(t->b, kt_zigzag(v));
}

void kt_bool(struct kthrift *t, int16_t id, bool v)
{
	kt_field(t, id, v ? KT_TRUE : KT_FALSE);
}

void kt_binary(struct kthrift *t, int16_t id, const void *p, size_t n)
{
	if (id)
		kt_field(t, id, KT_BINARY);
	kt_varint(t->b, n);
	kbuf_put(t->b, p, n);
}

void kt_string(struct kthrift *t, int16_t id, const char *s)
{
	kt_binary(t, id, s, strlen(s));
}

void kt_list(struct kthrift *t, int16_t id, uint8_t elem, uint32_t n)
{
	kt_field(t, id, KT_LIST);
	if (n < 15) {
		kbuf_u8(t->b, (uint8_t)(n << 4 | elem));
	} else {
		kbuf_u8(t->b, (uint8_t)(0xf0 | elem));
		kt_varint(t->b, n);
	}
}

void kt_begin(struct kthrift *t, int16_t id)
{
	if (id)
		kt_field(t, id, KT_STRUCT);
	if (t->depth + 1 < KT_DEPTH)
		t->depth++;
	else
		t->b->oom = true; /* deeper than any Parquet structure */
	t->last[t->depth] = 0;
}

void kt_end(struct kthrift *t)
{
	kbuf_u8(t->b, 0);
	if (t->depth)
		t->depth--;
}
