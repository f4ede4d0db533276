/* SPDX-License-Identifier: GPL-2.0-only */
/* A fixed set of records that covers every record type, every variant of
 * every enum and every payload shape (with Options both absent and present).
 * Used by `katra-sample`, the unit tests, the Rust compatibility test and the
 * fuzz corpus.  Deterministic: the same bytes every run. */
#ifndef KATRA_SAMPLE_RECORDS_H
#define KATRA_SAMPLE_RECORDS_H

#include <stddef.h>
#include "katra/format.h"

/* A header with fixed times and host so the bytes are reproducible. */
const struct katra_header *katra_sample_header(void);
/* Records in a valid order: seq strictly increasing, spans balanced, causes
 * earlier, the SessionSummary last with counts matching what precedes it. */
size_t katra_sample_count(void);
const struct katra_record *katra_sample_record(size_t i);
/* Writes the whole sample trace to path (overwriting). 0 or -errno. */
int katra_sample_write(const char *path);

#endif
