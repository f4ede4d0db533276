// SPDX-License-Identifier: GPL-2.0-only
/* Chrome trace-event JSON syntax (see chrome.h). */
#include "chrome.h"
#include "katra/replay.h"
#include "replay/util/out.h"

void kr_chrome_us(FILE *f, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);
	char buf[4] = { '.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
			(char)('0' + frac % 10) };

	kr_u64(f, ns / 1000);
	fwrite(buf, 1, sizeof(buf), f);
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

void kr_chrome_dur(struct kr_chrome *w, uint64_t ns)
{
	kr_chrome_key(w, "dur");
	kr_chrome_us(w->f, ns);
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
