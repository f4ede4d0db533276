// SPDX-License-Identifier: GPL-2.0-only
/* JSON string literals from arbitrary bytes.  Trace strings are Linux byte
 * strings (paths, hostnames), not guaranteed UTF-8, yet every JSON line must
 * parse: valid UTF-8 passes through, '"' and '\\' are escaped, control
 * characters and DEL become \u00XX, and each byte that does not start a
 * valid UTF-8 sequence becomes \u00XX (its Latin-1 code point). */
#include <stdint.h>
#include <stdio.h>

#include "katra/replay.h"

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when invalid
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* the second byte carries the overlong / surrogate / range limits */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void put_u00(FILE *out, uint8_t c)
{
	static const char hex[] = "0123456789abcdef";
	char buf[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

	fwrite(buf, 1, sizeof(buf), out);
}

void katra_json_string(FILE *out, const char *str, uint64_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t run = 0; /* start of the pending run of bytes that need no escape */
	size_t i = 0;

	putc('"', out);
	if (!len) {
		putc('"', out);
		return;
	}
	while (i < len) {
		uint8_t c = s[i];
		size_t n = 1;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_seq_len(s + i, (size_t)(len - i));
			if (n) {
				i += n;
				continue;
			}
		}
		fwrite(s + run, 1, i - run, out);
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
		} else {
			put_u00(out, c);
		}
		i++;
		run = i;
	}
	fwrite(s + run, 1, i - run, out);
	putc('"', out);
}
