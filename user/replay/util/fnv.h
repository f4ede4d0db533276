/* SPDX-License-Identifier: GPL-2.0-only */
/* 64-bit FNV-1a (format/SPEC.md section 6), for the analysis hashes. */
#ifndef KATRA_REPLAY_FNV_H
#define KATRA_REPLAY_FNV_H

#include <stddef.h>
#include <stdint.h>

#define KR_FNV_INIT 0xcbf29ce484222325ull

static inline uint64_t kr_fnv_byte(uint64_t h, uint8_t b)
{
	return (h ^ b) * 0x100000001b3ull;
}

/* v as `bytes` little-endian bytes (so the hash is the same on any host). */
static inline uint64_t kr_fnv_le(uint64_t h, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		h = kr_fnv_byte(h, (uint8_t)(v >> (8 * i)));
	return h;
}

#endif
