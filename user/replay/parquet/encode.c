// SPDX-License-Identifier: GPL-2.0-only
/* The Parquet writer's encodings (parquet.h): definition levels and
 * dictionary indices as RLE runs, booleans bit-packed, INT64
 * DELTA_BINARY_PACKED. */
#include <endian.h>
#include <string.h>

#include "parquet.h"

/* The 4-byte length before RLE runs that start at at. */
static void put_run_length(struct kbuf *out, size_t at)
{
	if (!out->oom) {
		uint32_t len = (uint32_t)(out->len - at - 4);

		for (int k = 0; k < 4; k++)
			out->p[at + k] = (uint8_t)(len >> (8 * k));
	}
}

void kp_rle_levels(struct kbuf *out, const uint8_t *levels, size_t n)
{
	size_t at = out->len, i = 0;

	kbuf_u32le(out, 0);
	while (i < n) {
		size_t j = i + 1;

		while (j < n && levels[j] == levels[i])
			j++;
		kt_varint(out, (uint64_t)(j - i) << 1); /* an RLE run: count << 1 | 0 */
		kbuf_u8(out, levels[i]);
		i = j;
	}
	put_run_length(out, at);
}

/* kp_rle_levels of column col's levels, read from the rows' masks. */
void kp_mask_levels(struct kbuf *out, const uint64_t *m, size_t n, unsigned col)
{
	size_t at = out->len, i = 0;

	kbuf_u32le(out, 0);
	while (i < n) {
		uint64_t v = (m[i] >> col) & 1;
		size_t j = i + 1;

		while (j < n && ((m[j] >> col) & 1) == v)
			j++;
		kt_varint(out, (uint64_t)(j - i) << 1);
		kbuf_u8(out, (uint8_t)v);
		i = j;
	}
	put_run_length(out, at);
}

/* Booleans PLAIN: bit-packed, least significant bit first. */
void kp_pack_bools(struct kbuf *out, const struct kbuf *v)
{
	for (size_t i = 0; i < v->len; i += 8) {
		uint8_t byte = 0;

		for (size_t k = 0; k < 8 && i + k < v->len; k++)
			byte |= (uint8_t)((v->p[i + k] & 1) << k);
		kbuf_u8(out, byte);
	}
}

/* DELTA_BINARY_PACKED (Encodings.md): blocks of 128 values in 4 miniblocks
 * of 32; each block's deltas less their least, bit-packed at each
 * miniblock's width.  INT64 columns: times, sequence numbers and ids grow
 * by small steps, so 64-bit values become a few bits before compression. */
#define DBP_BLOCK 128
#define DBP_MINI 32

static void pack_mini(struct kbuf *out, const uint64_t *v, unsigned bw)
{
	unsigned __int128 acc = 0;
	unsigned have = 0;

	if (!bw || kbuf_reserve(out, 4 * (size_t)bw))
		return;
	for (unsigned i = 0; i < DBP_MINI; i++) {
		acc |= (unsigned __int128)v[i] << have;
		for (have += bw; have >= 8; have -= 8) {
			out->p[out->len++] = (uint8_t)acc;
			acc >>= 8;
		}
	}
}

void kp_delta(struct kbuf *out, const uint8_t *p, size_t n)
{
	uint64_t prev, d[DBP_BLOCK];

	kt_varint(out, DBP_BLOCK);
	kt_varint(out, DBP_BLOCK / DBP_MINI);
	kt_varint(out, n);
	prev = 0;
	if (n)
		memcpy(&prev, p, 8);
	kt_varint(out, kt_zigzag((int64_t)le64toh(prev)));
	for (size_t i = 1; i < n;) {
		size_t k = n - i < DBP_BLOCK ? n - i : DBP_BLOCK, used;
		int64_t min = INT64_MAX;
		uint8_t bw[DBP_BLOCK / DBP_MINI] = { 0 };

		for (size_t j = 0; j < k; j++) {
			uint64_t v;

			memcpy(&v, p + 8 * (i + j), 8);
			v = le64toh(v);
			d[j] = v - le64toh(prev); /* wraps, as the encoding's deltas do */
			prev = htole64(v);
			if ((int64_t)d[j] < min)
				min = (int64_t)d[j];
		}
		for (size_t j = k; j < DBP_BLOCK; j++)
			d[j] = (uint64_t)min; /* padding: 0 after the subtraction */
		used = (k + DBP_MINI - 1) / DBP_MINI;
		for (size_t m = 0; m < used; m++) {
			uint64_t all = 0;

			for (size_t j = m * DBP_MINI; j < (m + 1) * DBP_MINI; j++) {
				d[j] -= (uint64_t)min;
				all |= d[j];
			}
			bw[m] = (uint8_t)(all ? 64 - __builtin_clzll(all) : 0);
		}
		kt_varint(out, kt_zigzag(min));
		kbuf_put(out, bw, sizeof(bw));
		for (size_t m = 0; m < used; m++)
			pack_mini(out, d + m * DBP_MINI, bw[m]);
		i += k;
	}
}

/* Dictionary indices: their bit width (a byte), then RLE runs. */
void kp_dict_indices(struct kbuf *out, const struct kbuf *idx, uint32_t ndict)
{
	const uint8_t *p = idx->p;
	size_t n = idx->len / 4;
	unsigned bw = 1;

	while (bw < 32 && (1ull << bw) < ndict)
		bw++;
	kbuf_u8(out, (uint8_t)bw);
	for (size_t i = 0; i < n;) {
		uint32_t v, w;
		size_t j = i + 1;

		memcpy(&v, p + 4 * i, 4);
		while (j < n && (memcpy(&w, p + 4 * j, 4), w == v))
			j++;
		kt_varint(out, (uint64_t)(j - i) << 1);
		for (unsigned b = 0; b < (bw + 7) / 8; b++)
			kbuf_u8(out, (uint8_t)(v >> (8 * b)));
		i = j;
	}
}
