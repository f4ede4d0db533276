/* SPDX-License-Identifier: GPL-2.0-only */
/* A Parquet file writer for flat tables (no nesting): each column REQUIRED
 * or OPTIONAL, PLAIN-encoded (INT64: DELTA_BINARY_PACKED), one data page
 * (v1) per column chunk, definition levels RLE, pages ZSTD-compressed
 * (level 1) or not.  A
 * string column chunk with at most KP_DICT_MAX distinct values is written
 * as a dictionary page and RLE_DICTIONARY indices instead (RLE runs).  Rows
 * are buffered for one row group at a time (group_rows rows, then the group
 * is written), so memory is bounded by group_rows, never by the file.  The
 * footer (Thrift compact FileMetaData) is written by kp_finish, with each
 * integer column chunk's statistics (min, max, null count).
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

#define KP_MAX_COLS 48 /* at most 64: a row's columns are a bit mask */
#define KP_GROUP_ROWS 65536 /* the default rows per row group */
#define KP_DICT_MAX 4096     /* distinct strings a dictionary holds */
#define KP_DICT_SLOTS (2 * KP_DICT_MAX)

struct kp_column {
	struct kbuf values; /* PLAIN bytes (booleans: one byte each until written) */
	/* integer columns: the chunk's least and greatest value (KP_U64
	 * compared unsigned), once any is set */
	bool any;
	int64_t min, max;
	/* strings: the row group's dictionary (PLAIN entries in dict, their
	 * offsets, a hash table of index + 1) and each value's index */
	struct kbuf dict, idx;
	uint32_t *slots, *offs;
	uint32_t ndict, last; /* entries; the last value's index */
	/* kp_cstr_static's strings by address -> this chunk's dictionary
	 * index (direct-mapped, 8 entries) */
	struct { const char *p; uint32_t idx; } pc[8];
	bool dict_full;     /* more than KP_DICT_MAX: this chunk is PLAIN, in
			     * values (while a dictionary, values stays empty) */
};

struct kp_chunk {
	uint64_t offset, comp, raw; /* where its data page starts; sizes with the
				     * headers (and the dictionary page) */
	uint64_t dict_offset;       /* its dictionary page, or 0 */
	uint64_t nulls;             /* rows without a value */
	int64_t min, max;           /* integer columns, when any is set */
	bool stats, any;            /* integer column: statistics written */
};

struct kp_file {
	int fd;
	const struct kp_col *cols;
	unsigned ncols, group_rows;
	bool compress;        /* pages ZSTD-compressed */
	void *zctx;           /* the writer's ZSTD_CCtx */
	struct kp_column sets[2][KP_MAX_COLS];
	struct kp_column *c;  /* the row group being filled (the caller's) */
	struct kp_column *fc; /* the row group being written (the writer's) */
	/* each row's given columns (bit i: column i), one uint64_t per row of
	 * the group (OPTIONAL columns' definition levels); sets' and fc's */
	struct kbuf masks[2], *m, *fm;
	uint64_t row_set;     /* the columns given in the current row */
	uint64_t required;    /* the REQUIRED columns' bits */
	bool any_nullable;
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
	    unsigned group_rows, bool compress);
/* The footer's key_value_metadata: one pair (strings must outlive f). */
void kp_meta(struct kp_file *f, const char *key, const char *value);
void kp_i64(struct kp_file *f, unsigned col, int64_t v);
void kp_u64(struct kp_file *f, unsigned col, uint64_t v);
void kp_i32(struct kp_file *f, unsigned col, int32_t v);
void kp_bool(struct kp_file *f, unsigned col, bool v);
void kp_double(struct kp_file *f, unsigned col, double v);
void kp_str(struct kp_file *f, unsigned col, const char *s, size_t n);
void kp_cstr(struct kp_file *f, unsigned col, const char *s); /* NULL: null */
/* kp_cstr of a string whose address always holds the same bytes while f is
 * open (a name in a static table): found by its address, not its bytes. */
void kp_cstr_static(struct kp_file *f, unsigned col, const char *s);
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
/* n INT64 values (8 bytes little-endian each at p) as DELTA_BINARY_PACKED. */
void kp_delta(struct kbuf *out, const uint8_t *p, size_t n);

/* The writer's other encodings (encode.c): column col's definition levels
 * (kp_rle_levels) from the rows' masks; booleans (one byte each in v)
 * PLAIN, bit-packed; dictionary indices (uint32_t each in idx): their bit
 * width for ndict entries, then RLE runs. */
void kp_mask_levels(struct kbuf *out, const uint64_t *m, size_t n, unsigned col);
void kp_pack_bools(struct kbuf *out, const struct kbuf *v);
void kp_dict_indices(struct kbuf *out, const struct kbuf *idx, uint32_t ndict);

#endif
