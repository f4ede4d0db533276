/* SPDX-License-Identifier: GPL-2.0-only */
/* A streaming writer of the Chrome trace-event JSON format (the "JSON Object
 * Format" that Perfetto UI, chrome://tracing and speedscope read):
 *
 *   {"displayTimeUnit":"ns","traceEvents":[
 *   {"ph":"X","pid":1,"tid":1,"ts":12.345,"dur":0.500,"name":"..","cat":"..","args":{..}},
 *   ...
 *   ],"otherData":{..}}
 *
 * One event per line.  Times are microseconds with three decimals (exact
 * nanoseconds).  The writer knows the syntax only: which events to write is
 * export.c's business.  An event is open .. fields .. close; args inside it
 * are args_open .. key/value calls .. args_close. */
#ifndef KATRA_REPLAY_CHROME_H
#define KATRA_REPLAY_CHROME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kr_chrome {
	FILE *f;
	uint64_t events;  /* events written */
	bool comma;       /* a value was written at the current level */
};

void kr_chrome_begin(struct kr_chrome *w, FILE *f);
/* Closes traceEvents and opens otherData: write its members with the
 * key/value calls, then kr_chrome_finish. */
void kr_chrome_other_data(struct kr_chrome *w);
void kr_chrome_finish(struct kr_chrome *w);

/* {"ph":"P","pid":pid,"tid":tid[,"ts":us] -- ts omitted for metadata ('M'). */
void kr_chrome_open(struct kr_chrome *w, char ph, uint64_t pid, uint64_t tid, uint64_t ts_ns);
void kr_chrome_close(struct kr_chrome *w);
/* "dur" of a slice from start_ns to end_ns: its end in the viewer's
 * arithmetic (ts + dur) is end_ns written as a ts is, bit for bit. */
void kr_chrome_dur(struct kr_chrome *w, uint64_t start_ns, uint64_t end_ns);
/* "args":{ ... } */
void kr_chrome_args_open(struct kr_chrome *w);
void kr_chrome_args_close(struct kr_chrome *w);

/* "key":value members (inside an event, its args or otherData). */
void kr_chrome_str(struct kr_chrome *w, const char *key, const char *s, uint64_t len);
void kr_chrome_cstr(struct kr_chrome *w, const char *key, const char *s);
void kr_chrome_u64(struct kr_chrome *w, const char *key, uint64_t v);
void kr_chrome_i64(struct kr_chrome *w, const char *key, int64_t v);
void kr_chrome_bool(struct kr_chrome *w, const char *key, bool v);
/* "key": then the caller writes one JSON value to w->f. */
void kr_chrome_key(struct kr_chrome *w, const char *key);

/* Nanoseconds as microseconds, the fraction rounded to the nearest 1/1024 us
 * (within 0.49 ns: round(us * 1000) is the ns again): 1234500 ->
 * "1234.5", 1234567 -> "1234.5673828125". */
void kr_chrome_us(FILE *f, uint64_t ns);

#endif
