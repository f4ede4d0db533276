// SPDX-License-Identifier: GPL-2.0-only
/* Chrome trace-event JSON syntax (see chrome.h). */
#include "chrome.h"
#include "katra/replay.h"
#include "replay/util/out.h"

/* Times go out in units of 1/1024 us: binary fractions, which a viewer's
 * doubles add and subtract exactly, so a slice's ts + dur is its end bit for
 * bit and slices that end together end at the same time.  With decimal ns
 * fractions they could differ by a rounding, and speedscope then closed an
 * outer slice before the inner one that ends with it (and left it open). */
typedef unsigned __int128 q1024_t; /* 2^64 ns is past 2^64 such units */

static q1024_t q1024(uint64_t ns)
{
	return (q1024_t)(ns / 1000) * 1024 + (ns % 1000 * 1024 + 500) / 1000;
}

static void put_q1024(FILE *f, q1024_t q)
{
	/* k/1024 = k * 9765625 / 10^10: ten decimals at most, exact */
	uint64_t d = (uint64_t)(q % 1024) * 9765625ull;
	char buf[12];
	int n = 11;

	kr_u64(f, (uint64_t)(q / 1024));
	if (!d)
		return;
	buf[0] = '.';
	for (int i = 10; i >= 1; i--, d /= 10)
		buf[i] = (char)('0' + d % 10);
	while (buf[n - 1] == '0')
		n--;
	fwrite(buf, 1, (size_t)n, f);
}

void kr_chrome_us(FILE *f, uint64_t ns)
{
	put_q1024(f, q1024(ns));
}

void kr_chrome_begin(struct kr_chrome *w, FILE *f)
{
	w->f = f;
	w->events = 0;
	w->comma = false;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
}

void kr_chrome_other_data(struct kr_chrome *w)
{
	fputs(w->events ? "\n],\"otherData\":{" : "],\"otherData\":{", w->f);
	w->comma = false;
}

void kr_chrome_finish(struct kr_chrome *w)
{
	fputs("}}\n", w->f);
}

void kr_chrome_key(struct kr_chrome *w, const char *key)
{
	if (w->comma)
		putc(',', w->f);
	w->comma = true;
	putc('"', w->f);
	fputs(key, w->f); /* keys are our own literals: nothing to escape */
	fputs("\":", w->f);
}

void kr_chrome_open(struct kr_chrome *w, char ph, uint64_t pid, uint64_t tid, uint64_t ts_ns)
{
	if (w->events++)
		fputs(",\n", w->f);
	fputs("{\"ph\":\"", w->f);
	putc(ph, w->f);
	fputs("\",\"pid\":", w->f);
	kr_u64(w->f, pid);
	fputs(",\"tid\":", w->f);
	kr_u64(w->f, tid);
	if (ph != 'M') {
		fputs(",\"ts\":", w->f);
		kr_chrome_us(w->f, ts_ns);
	}
	w->comma = true;
}

void kr_chrome_close(struct kr_chrome *w)
{
	putc('}', w->f);
	w->comma = true;
}

void kr_chrome_dur(struct kr_chrome *w, uint64_t start_ns, uint64_t end_ns)
{
	kr_chrome_key(w, "dur");
	put_q1024(w->f, q1024(end_ns) - q1024(start_ns));
}

void kr_chrome_args_open(struct kr_chrome *w)
{
	kr_chrome_key(w, "args");
	putc('{', w->f);
	w->comma = false;
}

void kr_chrome_args_close(struct kr_chrome *w)
{
	putc('}', w->f);
	w->comma = true;
}

void kr_chrome_str(struct kr_chrome *w, const char *key, const char *s, uint64_t len)
{
	kr_chrome_key(w, key);
	katra_json_string(w->f, s, len);
}

void kr_chrome_cstr(struct kr_chrome *w, const char *key, const char *s)
{
	kr_chrome_str(w, key, s, katra_cstr(s).len);
}

void kr_chrome_u64(struct kr_chrome *w, const char *key, uint64_t v)
{
	kr_chrome_key(w, key);
	kr_u64(w->f, v);
}

void kr_chrome_i64(struct kr_chrome *w, const char *key, int64_t v)
{
	kr_chrome_key(w, key);
	kr_i64(w->f, v);
}

void kr_chrome_bool(struct kr_chrome *w, const char *key, bool v)
{
	kr_chrome_key(w, key);
	fputs(v ? "true" : "false", w->f);
}
