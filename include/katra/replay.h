/* katra-replay's analysis library: verify, dump (text and JSON lines) and
 * stats over a Katra trace, all streaming through the format reader so that
 * memory does not grow with the file size.
 *
 * Return convention for the whole-file functions: 0 on success, 1 when the
 * trace is invalid, truncated or corrupt (the reason went to err), -errno
 * when the file cannot be opened or read (the reason went to err too).
 * Every message written to err is one line starting with "katra-replay: ". */
#ifndef KATRA_REPLAY_H
#define KATRA_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"

/* ---- verify ---- */

/* Runs katra_verify_path: one line per problem on out (at most max_problems
 * printed, 0 = all; every problem is counted), then one summary line:
 *   "PATH: valid (N records, M events)" or "PATH: invalid: K problems". */
int katra_replay_verify(const char *path, FILE *out, uint64_t max_problems, FILE *err);

/* ---- dump ---- */

/* Header first, then one line per record; jsonl selects JSON lines (the
 * exact shape is documented at the top of user/replay/jsonl.c). */
int katra_dump(const char *path, FILE *out, bool jsonl, FILE *err);

/* Single-item formatters, used by katra_dump and by tests.  Each writes
 * complete lines: one per record; the text header is a few lines starting
 * with '#', the JSON header one line. */
void katra_dump_header_text(FILE *out, const struct katra_header *h);
void katra_dump_record_text(FILE *out, const struct katra_record *rec);
void katra_jsonl_header(FILE *out, const struct katra_header *h);
void katra_jsonl_record(FILE *out, const struct katra_record *rec);

/* Writes s as a JSON string literal (with the quotes): control characters as
 * \u00XX, '"' and '\\' escaped, valid UTF-8 kept, and each byte that is not
 * part of valid UTF-8 as \u00XX (its Latin-1 code point) so every line is
 * valid JSON. */
void katra_json_string(FILE *out, const char *s, uint64_t len);

/* ---- stats ---- */

/* Capture duration, events by scope / kind / phase, per process and per
 * thread, span durations per kind (total, p50, p99), drops, epochs and
 * counters.  json selects one JSON object instead of aligned text. */
int katra_stats(const char *path, FILE *out, bool json, FILE *err);

#endif
