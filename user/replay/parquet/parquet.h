/* SPDX-License-Identifier: GPL-2.0-only */
/* A Parquet file writer for flat tables (no nesting): each column REQUIRED
 * or OPTIONAL, PLAIN-encoded, one data page (v1) per column chunk,
 * definition levels RLE, pages gzip-compressed (codec GZIP) or not.  A
 * string column chunk with at most KP_DICT_MAX distinct values is written
 * as a dictionary page and RLE_DICTIONARY indices instead (RLE runs).  Rows
 * are buffered for one row group at a time (group_rows rows, then the group
 * is written), so memory is bounded by group_rows, never by the file.  The
 * footer (Thrift compact FileMetaData) is written by kp_finish.
 * References: apache/parquet-format's parquet.thrift and Encodings.md. */
#ifndef KATRA_REPLAY_PARQUET_H
#define KATRA_REPLAY_PARQUET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thrift.h"

enum kp_type {
	KP_I64,    /* INT64 */
	KP_U64,    /* INT64, converted type UINT_64 */
	KP_I32,    /* INT32 */
	KP_BOOL,   /* BOOLEAN */
	KP_DOUBLE, /* DOUBLE */
	KP_STRING, /* BYTE_ARRAY, converted type UTF8 */
};

struct kp_col {
	const char *name;
	enum kp_type type;
	bool nullable; /* OPTIONAL: a value not given in a row is null */
};

#define KP_MAX_COLS 48
#define KP_GROUP_ROWS 65536 /* the default rows per row group */
#define KP_DICT_MAX 4096     /* distinct strings a dictionary holds */
#define KP_DICT_SLOTS (2 * KP_DICT_MAX)

struct kp_column {
	struct kbuf values; /* PLAIN bytes (booleans: one byte each until written) */
	struct kbuf defs;   /* one byte per row: 1 value, 0 null (OPTIONAL only) */
	bool set;           /* given in the current row */
	/* strings: the row group's dictionary (PLAIN entries in dict, their
	 * offsets, a hash table of index + 1) and each value's index */
	struct kbuf dict, idx;
	uint32_t *slots, *offs;
	uint32_t ndict;
	bool dict_full;     /* more than KP_DICT_MAX: this chunk is PLAIN */
};

struct kp_chunk {
	uint64_t offset, comp, raw; /* where its data page starts; sizes with the
				     * headers (and the dictionary page) */
	uint64_t dict_offset;       /* its dictionary page, or 0 */
};

struct kp_file {
	int fd;
	const struct kp_col *cols;
	unsigned ncols, group_rows;
	bool gzip;
	struct kp_column sets[2][KP_MAX_COLS];
	struct kp_column *c;  /* the row group being filled (the caller's) */
	struct kp_column *fc; /* the row group being written (the writer's) */
	uint64_t rows_in_group, flush_rows, rows, offset;
	pthread_t writer;
	bool writing;         /* the writer thread runs: join before touching
			       * fc, offset, chunks, page, zpage */
	int werr;             /* the writer's first error (-errno) */
	struct kp_chunk *chunks; /* ncols per row group written */
	uint64_t *group_nrows;
	size_t ngroups, groups_cap;
	struct kbuf page, zpage, out;
	const char *kv_key, *kv_value; /* one key_value_metadata pair, or NULL */
	int err; /* the first error (-errno), the caller's side: later calls do
		  * nothing */
};

/* Opens path (created 0644, truncated) for a table of these columns (cols
 * must outlive the file); group_rows 0: KP_GROUP_ROWS.  0 or -errno. */
int kp_open(struct kp_file *f, const char *path, const struct kp_col *cols, unsigned ncols,
	    unsigned group_rows, bool gzip);
/* The footer's key_value_metadata: one pair (strings must outlive f). */
void kp_meta(struct kp_file *f, const char *key, const char *value);
void kp_i64(struct kp_file *f, unsigned col, int64_t v);
void kp_u64(struct kp_file *f, unsigned col, uint64_t v);
void kp_i32(struct kp_file *f, unsigned col, int32_t v);
void kp_bool(struct kp_file *f, unsigned col, bool v);
void kp_double(struct kp_file *f, unsigned col, double v);
void kp_str(struct kp_file *f, unsigned col, const char *s, size_t n);
void kp_cstr(struct kp_file *f, unsigned col, const char *s); /* NULL: null */
/* Ends the row (a column not given is null; a REQUIRED one not given is
 * an error); writes the row group when it is full.  0 or -errno. */
int kp_row(struct kp_file *f);
/* Writes the last row group and the footer and closes the file; 0 or
 * -errno (the file is closed either way). */
int kp_finish(struct kp_file *f);
/* Closes without a footer and removes path. */
void kp_discard(struct kp_file *f, const char *path);

/* The pieces, for tests: definition levels 0/1 as the RLE/bit-packed
 * hybrid (bit width 1, RLE runs), after their 4-byte length. */
void kp_rle_levels(struct kbuf *out, const uint8_t *levels, size_t n);

#endif
