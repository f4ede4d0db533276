// SPDX-License-Identifier: GPL-2.0-only
/* The Parquet writer (parquet.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "parquet.h"

/* parquet.thrift's enum values */
enum { PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };
enum { CT_UTF8 = 0, CT_UINT_64 = 14 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_DELTA_BINARY_PACKED = 5, ENC_RLE_DICTIONARY = 8 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };
enum { CODEC_UNCOMPRESSED = 0, CODEC_ZSTD = 6 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

static const int phys[] = {
	[KP_I64] = PT_INT64, [KP_U64] = PT_INT64, [KP_I32] = PT_INT32,
	[KP_BOOL] = PT_BOOLEAN, [KP_DOUBLE] = PT_DOUBLE, [KP_STRING] = PT_BYTE_ARRAY,
};

static int write_all(struct kp_file *f, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n && !f->werr) {
		ssize_t w = write(f->fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			f->werr = -errno;
		else if (w == 0)
			f->werr = -EIO;
		else {
			b += w;
			n -= (size_t)w;
			f->offset += (uint64_t)w;
		}
	}
	return f->werr;
}

int kp_open(struct kp_file *f, const char *path, const struct kp_col *cols, unsigned ncols,
	    unsigned group_rows, bool compress)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (ncols > KP_MAX_COLS)
		return -E2BIG;
	f->cols = cols;
	f->ncols = ncols;
	f->c = f->sets[0];
	f->fc = f->sets[1];
	f->m = &f->masks[0];
	f->fm = &f->masks[1];
	for (unsigned i = 0; i < ncols; i++) {
		if (cols[i].nullable)
			f->any_nullable = true;
		else
			f->required |= 1ull << i;
	}
	f->group_rows = group_rows ? group_rows : KP_GROUP_ROWS;
	f->compress = compress;
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0)
		return -errno;
	if (write_all(f, "PAR1", 4)) {
		close(f->fd);
		f->fd = -1;
		return f->werr;
	}
	return 0;
}

void kp_meta(struct kp_file *f, const char *key, const char *value)
{
	f->kv_key = key;
	f->kv_value = value;
}

static struct kp_column *value_slot(struct kp_file *f, unsigned col)
{
	struct kp_column *c;

	if (col >= f->ncols) {
		f->err = f->err ? f->err : -EINVAL;
		return NULL;
	}
	c = &f->c[col];
	if (f->row_set & (1ull << col)) { /* given twice in one row */
		f->err = f->err ? f->err : -EINVAL;
		return NULL;
	}
	f->row_set |= 1ull << col;
	return c;
}

/* a signed column's statistics (INT64 and INT32 alike) */
static inline void stat_signed(struct kp_column *c, int64_t v)
{
	if (!c->any) {
		c->any = true;
		c->min = c->max = v;
	} else if (v < c->min) {
		c->min = v;
	} else if (v > c->max) {
		c->max = v;
	}
}

void kp_i64(struct kp_file *f, unsigned col, int64_t v)
{
	struct kp_column *c = value_slot(f, col);

	if (!c)
		return;
	kbuf_u64le(&c->values, (uint64_t)v);
	stat_signed(c, v);
}

void kp_u64(struct kp_file *f, unsigned col, uint64_t v)
{
	struct kp_column *c = value_slot(f, col);

	if (!c)
		return;
	kbuf_u64le(&c->values, v);
	if (!c->any) {
		c->any = true;
		c->min = c->max = (int64_t)v;
	} else if (v < (uint64_t)c->min) {
		c->min = (int64_t)v;
	} else if (v > (uint64_t)c->max) {
		c->max = (int64_t)v;
	}
}

void kp_i32(struct kp_file *f, unsigned col, int32_t v)
{
	struct kp_column *c = value_slot(f, col);

	if (!c)
		return;
	kbuf_u32le(&c->values, (uint32_t)v);
	stat_signed(c, v);
}

void kp_bool(struct kp_file *f, unsigned col, bool v)
{
	struct kp_column *c = value_slot(f, col);

	if (c)
		kbuf_u8(&c->values, v);
}

void kp_double(struct kp_file *f, unsigned col, double v)
{
	struct kp_column *c = value_slot(f, col);
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	if (c)
		kbuf_u64le(&c->values, u);
}

/* A string's hash: 8 bytes at a time (names and labels are short). */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	return h ^ (h >> 29);
}

/* Entry e's bytes equal s. */
static bool dict_eq(const struct kp_column *c, uint32_t e, const char *s, size_t n)
{
	uint32_t len;

	memcpy(&len, c->dict.p + c->offs[e], 4);
	return len == n && !memcmp(c->dict.p + c->offs[e] + 4, s, n);
}

/* The dictionary is full: the chunk becomes PLAIN, its values so far
 * written out of the dictionary and their indices. */
static void dict_to_plain(struct kp_column *c)
{
	const uint32_t *idx = (const uint32_t *)(const void *)c->idx.p;

	c->dict_full = true;
	for (size_t i = 0; i < c->idx.len / 4; i++) {
		uint32_t len;

		memcpy(&len, c->dict.p + c->offs[idx[i]], 4);
		kbuf_put(&c->values, c->dict.p + c->offs[idx[i]], 4 + (size_t)len);
	}
}

/* Appends s's dictionary index (adding it); false when the dictionary is
 * full (the chunk became PLAIN).  The last value is tried first: a column
 * often repeats its previous row's string. */
static bool dict_add(struct kp_file *f, struct kp_column *c, const char *s, size_t n)
{
	uint32_t i, e;

	if (c->idx.len && dict_eq(c, c->last, s, n)) {
		kbuf_put(&c->idx, &c->last, 4);
		return true;
	}
	if (!c->slots) {
		c->slots = calloc(KP_DICT_SLOTS, sizeof(*c->slots));
		c->offs = calloc(KP_DICT_MAX, sizeof(*c->offs));
		if (!c->slots || !c->offs) {
			f->err = f->err ? f->err : -ENOMEM;
			return true;
		}
	}
	for (i = (uint32_t)str_hash(s, n) & (KP_DICT_SLOTS - 1);; i = (i + 1) & (KP_DICT_SLOTS - 1)) {
		e = c->slots[i];
		if (!e)
			break;
		if (dict_eq(c, e - 1, s, n)) {
			c->last = e - 1;
			kbuf_put(&c->idx, &c->last, 4);
			return true;
		}
	}
	if (c->ndict == KP_DICT_MAX) {
		dict_to_plain(c);
		return false;
	}
	c->offs[c->ndict] = (uint32_t)c->dict.len;
	kbuf_u32le(&c->dict, (uint32_t)n);
	kbuf_put(&c->dict, s, n);
	c->slots[i] = ++c->ndict;
	c->last = c->ndict - 1;
	kbuf_put(&c->idx, &c->last, 4);
	return true;
}

void kp_str(struct kp_file *f, unsigned col, const char *s, size_t n)
{
	struct kp_column *c = value_slot(f, col);

	if (!c)
		return;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	if (!c->dict_full && dict_add(f, c, s, n))
		return;
	kbuf_u32le(&c->values, (uint32_t)n);
	kbuf_put(&c->values, s, n);
}

void kp_cstr(struct kp_file *f, unsigned col, const char *s)
{
	if (s)
		kp_str(f, col, s, strlen(s));
}

void kp_cstr_static(struct kp_file *f, unsigned col, const char *s)
{
	unsigned h = (unsigned)((uintptr_t)s >> 3) & 7;
	struct kp_column *c;
	size_t n;

	if (!s || col >= f->ncols || f->c[col].dict_full) {
		kp_cstr(f, col, s);
		return;
	}
	c = &f->c[col];

	if (c->pc[h].p == s) {
		if (value_slot(f, col)) {
			c->last = c->pc[h].idx;
			kbuf_put(&c->idx, &c->last, 4);
		}
		return;
	}
	n = strlen(s);
	kp_str(f, col, s, n);
	if (!c->dict_full && c->idx.len) {
		c->pc[h].p = s;
		c->pc[h].idx = c->last;
	}
}

/* A page ZSTD-compressed (one zstd frame, level 1: on a 74 MB sys trace
 * a third of zlib level 1's instructions for 31% fewer bytes; level -1
 * took as many instructions for 6% more bytes). */
static int compress_zstd(struct kp_file *f, const uint8_t *in, size_t n)
{
	struct kbuf *out = &f->zpage;
	size_t z;

	if (!f->zctx && !(f->zctx = ZSTD_createCCtx()))
		return -ENOMEM;
	out->len = 0;
	kbuf_put(out, NULL, ZSTD_compressBound(n));
	if (out->oom)
		return -ENOMEM;
	z = ZSTD_compressCCtx(f->zctx, out->p, out->len, in, n, 1);
	if (ZSTD_isError(z))
		return -EIO;
	out->len = z;
	return 0;
}

/* Writes one page: its header and body (compressed when asked); raw is
 * the uncompressed body.  Adds its sizes to ch. */
static int write_page(struct kp_file *f, struct kp_chunk *ch, const struct kbuf *raw,
		      int type, int32_t nvalues, int encoding)
{
	const struct kbuf *body = raw;
	struct kbuf hdr = { 0 };
	struct kthrift t;
	int rc;

	if (raw->oom)
		return -ENOMEM;
	if (f->compress) {
		rc = compress_zstd(f, raw->p, raw->len);
		if (rc)
			return rc;
		body = &f->zpage;
	}
	/* PageHeader { type, uncompressed_page_size, compressed_page_size,
	 * data_page_header (5): DataPageHeader { num_values, encoding,
	 * definition_level_encoding, repetition_level_encoding } or
	 * dictionary_page_header (7): DictionaryPageHeader { num_values,
	 * encoding } } */
	kt_init(&t, &hdr);
	kt_begin(&t, 0);
	kt_i32(&t, 1, type);
	kt_i32(&t, 2, (int32_t)raw->len);
	kt_i32(&t, 3, (int32_t)body->len);
	if (type == PAGE_DATA) {
		kt_begin(&t, 5);
		kt_i32(&t, 1, nvalues);
		kt_i32(&t, 2, encoding);
		kt_i32(&t, 3, ENC_RLE);
		kt_i32(&t, 4, ENC_RLE);
	} else {
		kt_begin(&t, 7);
		kt_i32(&t, 1, nvalues);
		kt_i32(&t, 2, ENC_PLAIN);
	}
	kt_end(&t);
	kt_end(&t);
	if (hdr.oom) {
		kbuf_free(&hdr);
		return -ENOMEM;
	}
	ch->raw += hdr.len + raw->len;
	ch->comp += hdr.len + body->len;
	write_all(f, hdr.p, hdr.len);
	kbuf_free(&hdr);
	return write_all(f, body->p, body->len);
}

/* UINT_64 too: the same 64-bit wrapping deltas */
static bool is_delta(enum kp_type t)
{
	return t == KP_I64 || t == KP_U64;
}

static int write_chunk(struct kp_file *f, unsigned col, struct kp_chunk *ch)
{
	struct kp_column *c = &f->fc[col];
	bool dict = f->cols[col].type == KP_STRING && !c->dict_full && c->ndict;
	int rc;

	memset(ch, 0, sizeof(*ch));
	if (f->cols[col].type == KP_I64 || f->cols[col].type == KP_U64 ||
	    f->cols[col].type == KP_I32) {
		size_t w = f->cols[col].type == KP_I32 ? 4 : 8;

		ch->stats = true;
		ch->any = c->any;
		ch->min = c->min;
		ch->max = c->max;
		ch->nulls = f->flush_rows - c->values.len / w;
	}
	if (dict) {
		ch->dict_offset = f->offset;
		rc = write_page(f, ch, &c->dict, PAGE_DICTIONARY, (int32_t)c->ndict, ENC_PLAIN);
		if (rc)
			return rc;
	}
	f->page.len = 0;
	if (f->cols[col].nullable)
		kp_mask_levels(&f->page, (const uint64_t *)(const void *)f->fm->p, f->flush_rows,
			    col);
	if (dict)
		kp_dict_indices(&f->page, &c->idx, c->ndict);
	else if (f->cols[col].type == KP_BOOL)
		kp_pack_bools(&f->page, &c->values);
	else if (is_delta(f->cols[col].type))
		kp_delta(&f->page, c->values.p, c->values.len / 8);
	else if (f->cols[col].nullable)
		kbuf_put(&f->page, c->values.p, c->values.len);
	ch->offset = f->offset;
	/* a REQUIRED PLAIN column's page is its values as they are: no copy */
	return write_page(f, ch,
			  !dict && !f->cols[col].nullable && f->cols[col].type != KP_BOOL &&
					  !is_delta(f->cols[col].type) ?
				  &c->values : &f->page,
			  PAGE_DATA, (int32_t)f->flush_rows,
			  dict ? ENC_RLE_DICTIONARY :
			  is_delta(f->cols[col].type) ? ENC_DELTA_BINARY_PACKED : ENC_PLAIN);
}

/* The writer: encodes, compresses and writes the row group in fc. */
static int write_group(struct kp_file *f)
{
	struct kp_chunk *chunks;

	if (f->ngroups == f->groups_cap) {
		size_t cap = f->groups_cap ? f->groups_cap * 2 : 8;
		uint64_t *nr = realloc(f->group_nrows, cap * sizeof(*nr));

		if (nr)
			f->group_nrows = nr;
		chunks = realloc(f->chunks, cap * f->ncols * sizeof(*chunks));
		if (chunks)
			f->chunks = chunks;
		if (!nr || !chunks)
			return f->werr = -ENOMEM;
		f->groups_cap = cap;
	}
	chunks = f->chunks + f->ngroups * f->ncols;
	for (unsigned i = 0; i < f->ncols; i++) {
		struct kp_column *c = &f->fc[i];
		int rc = f->werr ? 0 : write_chunk(f, i, &chunks[i]);

		if (rc && !f->werr)
			f->werr = rc;
		c->values.len = c->dict.len = c->idx.len = 0;
		c->ndict = 0;
		c->dict_full = false;
		c->any = false;
		memset(c->pc, 0, sizeof(c->pc));
		if (c->slots)
			memset(c->slots, 0, KP_DICT_SLOTS * sizeof(*c->slots));
	}
	f->fm->len = 0;
	f->group_nrows[f->ngroups++] = f->flush_rows;
	return f->werr;
}

static void *writer_main(void *arg)
{
	write_group(arg);
	return NULL;
}

/* Waits for the writer; its error becomes the file's. */
static int writer_wait(struct kp_file *f)
{
	if (f->writing)
		pthread_join(f->writer, NULL);
	f->writing = false;
	if (f->werr && !f->err)
		f->err = f->werr;
	return f->err;
}

/* Hands the full row group to the writer (one group written at a time, in
 * order) and gives the caller the other set of buffers. */
static int flush_group(struct kp_file *f)
{
	struct kp_column *t;
	struct kbuf *tm;

	for (unsigned i = 0; i < f->ncols; i++) { /* a buffer that could not grow */
		const struct kp_column *c = &f->c[i];

		if ((c->values.oom || c->dict.oom || c->idx.oom) && !f->err)
			f->err = -ENOMEM;
	}
	if (f->m->oom && !f->err)
		f->err = -ENOMEM;
	if (writer_wait(f) || !f->rows_in_group)
		return f->err;
	t = f->fc;
	f->fc = f->c;
	f->c = t;
	tm = f->fm;
	f->fm = f->m;
	f->m = tm;
	f->flush_rows = f->rows_in_group;
	f->rows_in_group = 0;
	if (pthread_create(&f->writer, NULL, writer_main, f))
		write_group(f); /* no thread: write it here */
	else
		f->writing = true;
	return f->err;
}

int kp_row(struct kp_file *f)
{
	if ((f->row_set & f->required) != f->required && !f->err)
		f->err = -EINVAL; /* a REQUIRED column without a value */
	if (f->any_nullable)
		kbuf_u64le(f->m, f->row_set);
	f->row_set = 0;
	if (f->err)
		return f->err;
	f->rows++;
	if (++f->rows_in_group >= f->group_rows)
		return flush_group(f);
	return 0;
}

static void statistics(struct kthrift *t, const struct kp_chunk *ch, enum kp_type type)
{
	size_t w = type == KP_I32 ? 4 : 8;
	uint64_t max = htole64((uint64_t)ch->max), min = htole64((uint64_t)ch->min);
	uint32_t max32 = htole32((uint32_t)ch->max), min32 = htole32((uint32_t)ch->min);

	kt_begin(t, 12);
	kt_i64(t, 3, (int64_t)ch->nulls);
	if (ch->any) {
		kt_binary(t, 5, w == 4 ? (const void *)&max32 : (const void *)&max, w);
		kt_binary(t, 6, w == 4 ? (const void *)&min32 : (const void *)&min, w);
	}
	kt_end(t);
}

static void footer(struct kp_file *f, struct kthrift *t)
{
	/* FileMetaData { version, schema, num_rows, row_groups,
	 * key_value_metadata, created_by } */
	kt_begin(t, 0);
	kt_i32(t, 1, 1);
	kt_list(t, 2, KT_STRUCT, f->ncols + 1);
	kt_begin(t, 0); /* the root: SchemaElement { name, num_children } */
	kt_string(t, 4, "schema");
	kt_i32(t, 5, (int32_t)f->ncols);
	kt_end(t);
	for (unsigned i = 0; i < f->ncols; i++) {
		const struct kp_col *c = &f->cols[i];

		/* SchemaElement { type, repetition_type, name, converted_type } */
		kt_begin(t, 0);
		kt_i32(t, 1, phys[c->type]);
		kt_i32(t, 3, c->nullable ? REP_OPTIONAL : REP_REQUIRED);
		kt_string(t, 4, c->name);
		if (c->type == KP_STRING)
			kt_i32(t, 6, CT_UTF8);
		else if (c->type == KP_U64)
			kt_i32(t, 6, CT_UINT_64);
		kt_end(t);
	}
	kt_i64(t, 3, (int64_t)f->rows);
	kt_list(t, 4, KT_STRUCT, (uint32_t)f->ngroups);
	for (size_t g = 0; g < f->ngroups; g++) {
		uint64_t total = 0;

		/* RowGroup { columns, total_byte_size, num_rows } */
		kt_begin(t, 0);
		kt_list(t, 1, KT_STRUCT, f->ncols);
		for (unsigned i = 0; i < f->ncols; i++) {
			const struct kp_chunk *ch = &f->chunks[g * f->ncols + i];

			total += ch->raw;
			/* ColumnChunk { file_offset, meta_data: ColumnMetaData {
			 * type, encodings, path_in_schema, codec, num_values,
			 * total_uncompressed_size, total_compressed_size,
			 * data_page_offset } } */
			kt_begin(t, 0);
			kt_i64(t, 2, (int64_t)(ch->dict_offset ? ch->dict_offset : ch->offset));
			kt_begin(t, 3);
			kt_i32(t, 1, phys[f->cols[i].type]);
			kt_list(t, 2, KT_I32, ch->dict_offset ? 3 : 2);
			kt_varint(t->b, kt_zigzag(is_delta(f->cols[i].type) ? ENC_DELTA_BINARY_PACKED
									   : ENC_PLAIN));
			kt_varint(t->b, kt_zigzag(ENC_RLE));
			if (ch->dict_offset)
				kt_varint(t->b, kt_zigzag(ENC_RLE_DICTIONARY));
			kt_list(t, 3, KT_BINARY, 1);
			kt_binary(t, 0, f->cols[i].name, strlen(f->cols[i].name));
			kt_i32(t, 4, f->compress ? CODEC_ZSTD : CODEC_UNCOMPRESSED);
			kt_i64(t, 5, (int64_t)f->group_nrows[g]);
			kt_i64(t, 6, (int64_t)ch->raw);
			kt_i64(t, 7, (int64_t)ch->comp);
			kt_i64(t, 9, (int64_t)ch->offset);
			if (ch->dict_offset)
				kt_i64(t, 11, (int64_t)ch->dict_offset);
			if (ch->stats)
				statistics(t, ch, f->cols[i].type);
			kt_end(t);
			kt_end(t);
		}
		kt_i64(t, 2, (int64_t)total);
		kt_i64(t, 3, (int64_t)f->group_nrows[g]);
		kt_end(t);
	}
	if (f->kv_key) {
		kt_list(t, 5, KT_STRUCT, 1);
		kt_begin(t, 0); /* KeyValue { key, value } */
		kt_string(t, 1, f->kv_key);
		kt_string(t, 2, f->kv_value);
		kt_end(t);
	}
	kt_string(t, 6, "katra-replay export --parquet");
	kt_end(t);
}

static void release(struct kp_file *f)
{
	writer_wait(f);
	for (unsigned k = 0; k < 2; k++)
		for (unsigned i = 0; i < KP_MAX_COLS; i++) {
			struct kp_column *c = &f->sets[k][i];

			kbuf_free(&c->values);
			kbuf_free(&c->dict);
			kbuf_free(&c->idx);
			free(c->slots);
			free(c->offs);
			c->slots = c->offs = NULL;
		}
	kbuf_free(&f->masks[0]);
	kbuf_free(&f->masks[1]);
	kbuf_free(&f->page);
	kbuf_free(&f->zpage);
	ZSTD_freeCCtx(f->zctx);
	f->zctx = NULL;
	kbuf_free(&f->out);
	free(f->chunks);
	free(f->group_nrows);
	f->chunks = NULL;
	f->group_nrows = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int kp_finish(struct kp_file *f)
{
	struct kthrift t;
	uint64_t start;
	int rc;

	flush_group(f);
	writer_wait(f);
	if (!f->err) {
		kt_init(&t, &f->out);
		footer(f, &t);
		if (f->out.oom)
			f->err = -ENOMEM;
		start = f->offset;
		write_all(f, f->out.p, f->out.len);
		f->out.len = 0;
		kbuf_u32le(&f->out, (uint32_t)(f->offset - start));
		kbuf_put(&f->out, "PAR1", 4);
		write_all(f, f->out.p, f->out.len);
		if (f->werr && !f->err)
			f->err = f->werr;
	}
	if (f->fd >= 0 && close(f->fd) && !f->err)
		f->err = -errno;
	f->fd = -1;
	rc = f->err;
	release(f);
	return rc;
}

void kp_discard(struct kp_file *f, const char *path)
{
	release(f);
	unlink(path);
}
