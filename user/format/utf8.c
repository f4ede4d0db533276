// SPDX-License-Identifier: GPL-2.0-only
/* Strict UTF-8 validation (no overlongs, no surrogates, <= U+10FFFF), the
 * same set of strings that Rust's str::from_utf8 accepts. */
#include <stdint.h>

#include "katra/utf8.h"

/* Length of the valid sequence at s[0..n), or 0 when it is invalid. */
static size_t seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0; /* > U+10FFFF */
		return 4;
	}
	return 0;
}

bool katra_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = seq_len(p + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

size_t katra_utf8_sanitize(const char *s, size_t n, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	if (!cap)
		return 0;
	while (i < n) {
		size_t k = seq_len(p + i, n - i);
		if (!k) {
			if (o + 1 >= cap)
				break;
			out[o++] = '?';
			i++;
			continue;
		}
		if (o + k >= cap)
			break;
		for (size_t j = 0; j < k; j++)
			out[o++] = (char)p[i + j];
		i += k;
	}
	out[o] = '\0';
	return o;
}
