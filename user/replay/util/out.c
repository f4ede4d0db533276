// SPDX-License-Identifier: GPL-2.0-only
/* Output helpers: integer formatting without printf (dump is I/O bound on
 * millions of small numbers, and printf's format parsing dominates). */
#include <stdio.h>

#include "out.h"

void kr_u64(FILE *f, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void kr_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc('-', f);
		/* negate in unsigned arithmetic: INT64_MIN has no positive twin */
		kr_u64(f, (uint64_t)0 - (uint64_t)v);
		return;
	}
	kr_u64(f, (uint64_t)v);
}

void kr_hex64(FILE *f, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[18];

	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 17; i >= 2; i--) {
		buf[i] = digits[v & 0xf];
		v >>= 4;
	}
	fwrite(buf, 1, sizeof(buf), f);
}

void kr_hex(FILE *f, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[18];
	char *p = buf + sizeof(buf);

	do {
		*--p = digits[v & 0xf];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void kr_ts(FILE *f, uint64_t ns)
{
	uint64_t frac = ns % 1000000000u;
	char buf[10];

	kr_u64(f, ns / 1000000000u);
	buf[0] = '.';
	for (int i = 9; i >= 1; i--) {
		buf[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	fwrite(buf, 1, sizeof(buf), f);
}

const char *kr_enum(const char *name, uint32_t v, char buf[KR_NAME_BUF])
{
	if (name)
		return name;
	snprintf(buf, KR_NAME_BUF, "Unknown(%u)", v);
	return buf;
}

const char *kr_fmt_dur(char *buf, size_t cap, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, cap, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, cap, "%.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, cap, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, cap, "%.3f s", (double)ns / 1e9);
	return buf;
}
