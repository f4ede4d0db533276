/* SPDX-License-Identifier: GPL-2.0-only */
/* Small output helpers shared by the replay modules: fast integer printing
 * (dump prints millions of numbers) and enum names that never come back NULL. */
#ifndef KATRA_REPLAY_OUT_H
#define KATRA_REPLAY_OUT_H

#include <stdint.h>
#include <stdio.h>

#define KR_NAME_BUF 24

void kr_u64(FILE *f, uint64_t v);
void kr_i64(FILE *f, int64_t v);
/* 0x followed by 16 lowercase hex digits. */
void kr_hex64(FILE *f, uint64_t v);
/* 0x followed by the lowercase hex digits, no leading zeros ("0x0"). */
void kr_hex(FILE *f, uint64_t v);
/* Monotonic nanoseconds as seconds.nanoseconds ("12.000000345"). */
void kr_ts(FILE *f, uint64_t ns);
static inline void kr_s(FILE *f, const char *s)
{
	fputs(s, f);
}
static inline void kr_c(FILE *f, char c)
{
	putc(c, f);
}
/* name when non-NULL, else "Unknown(v)" formatted into buf. */
const char *kr_enum(const char *name, uint32_t v, char buf[KR_NAME_BUF]);

/* "812 ns", "1.250 us", "13.512 ms", "2.000 s" */
const char *kr_fmt_dur(char *buf, size_t cap, uint64_t ns);

#endif
