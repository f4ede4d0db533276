// SPDX-License-Identifier: GPL-2.0-only
/* The Parquet writer (parquet.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "parquet.h"

/* parquet.thrift's enum values */
enum { PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };
enum { CT_UTF8 = 0, CT_UINT_64 = 14 };
enum { ENC_PLAIN = 0, ENC_RLE = 3 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };
enum { CODEC_UNCOMPRESSED = 0, CODEC_GZIP = 2 };
enum { PAGE_DATA = 0 };

static const int phys[] = {
	[KP_I64] = PT_INT64, [KP_U64] = PT_INT64, [KP_I32] = PT_INT32,
	[KP_BOOL] = PT_BOOLEAN, [KP_DOUBLE] = PT_DOUBLE, [KP_STRING] = PT_BYTE_ARRAY,
};

static int write_all(struct kp_file *f, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n && !f->err) {
		ssize_t w = write(f->fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			f->err = -errno;
		else if (w == 0)
			f->err = -EIO;
		else {
			b += w;
			n -= (size_t)w;
			f->offset += (uint64_t)w;
		}
	}
	return f->err;
}

int kp_open(struct kp_file *f, const char *path, const struct kp_col *cols, unsigned ncols,
	    unsigned group_rows, bool gzip)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (ncols > KP_MAX_COLS)
		return -E2BIG;
	f->cols = cols;
	f->ncols = ncols;
	f->group_rows = group_rows ? group_rows : KP_GROUP_ROWS;
	f->gzip = gzip;
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0)
		return -errno;
	return write_all(f, "PAR1", 4);
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
	if (c->set) { /* given twice in one row */
		f->err = f->err ? f->err : -EINVAL;
		return NULL;
	}
	c->set = true;
	if (f->cols[col].nullable)
		kbuf_u8(&c->defs, 1);
	return c;
}

void kp_i64(struct kp_file *f, unsigned col, int64_t v)
{
	struct kp_column *c = value_slot(f, col);

	if (c)
		kbuf_u64le(&c->values, (uint64_t)v);
}

void kp_u64(struct kp_file *f, unsigned col, uint64_t v)
{
	kp_i64(f, col, (int64_t)v);
}

void kp_i32(struct kp_file *f, unsigned col, int32_t v)
{
	struct kp_column *c = value_slot(f, col);

	if (c)
		kbuf_u32le(&c->values, (uint32_t)v);
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

void kp_str(struct kp_file *f, unsigned col, const char *s, size_t n)
{
	struct kp_column *c = value_slot(f, col);

	if (!c)
		return;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	kbuf_u32le(&c->values, (uint32_t)n);
	kbuf_put(&c->values, s, n);
}

void kp_cstr(struct kp_file *f, unsigned col, const char *s)
{
	if (s)
		kp_str(f, col, s, strlen(s));
}

void kp_rle_levels(struct kbuf *out, const uint8_t *levels, size_t n)
{
	size_t at = out->len, i = 0;

	kbuf_u32le(out, 0);
	while (i < n) {
		size_t j = i + 1;

		while (j < n && levels[j] == levels[i])
			j++;
		kt_varint(out, (uint64_t)(j - i) << 1); /* an RLE run: count << 1 | 0 */
		kbuf_u8(out, levels[i]);
		i = j;
	}
	if (!out->oom) {
		uint32_t len = (uint32_t)(out->len - at - 4);

		for (int k = 0; k < 4; k++)
			out->p[at + k] = (uint8_t)(len >> (8 * k));
	}
}

/* Booleans PLAIN: bit-packed, least significant bit first. */
static void pack_bools(struct kbuf *out, const struct kbuf *v)
{
	for (size_t i = 0; i < v->len; i += 8) {
		uint8_t byte = 0;

		for (size_t k = 0; k < 8 && i + k < v->len; k++)
			byte |= (uint8_t)((v->p[i + k] & 1) << k);
		kbuf_u8(out, byte);
	}
}

static int deflate_gzip(struct kbuf *out, const uint8_t *in, size_t n)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	out->len = 0;
	kbuf_put(out, NULL, deflateBound(&z, n));
	if (out->oom) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out->p;
	z.avail_out = (uInt)out->len;
	rc = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -EIO;
}

static int write_chunk(struct kp_file *f, unsigned col, struct kp_chunk *ch)
{
	struct kp_column *c = &f->c[col];
	const struct kbuf *body;
	struct kbuf hdr = { 0 };
	struct kthrift t;
	int rc;

	f->page.len = 0;
	if (f->cols[col].nullable)
		kp_rle_levels(&f->page, c->defs.p, c->defs.len);
	if (f->cols[col].type == KP_BOOL)
		pack_bools(&f->page, &c->values);
	else
		kbuf_put(&f->page, c->values.p, c->values.len);
	if (f->page.oom)
		return -ENOMEM;
	body = &f->page;
	if (f->gzip) {
		rc = deflate_gzip(&f->zpage, f->page.p, f->page.len);
		if (rc)
			return rc;
		body = &f->zpage;
	}
	/* PageHeader { type, uncompressed_page_size, compressed_page_size,
	 * data_page_header: DataPageHeader { num_values, encoding,
	 * definition_level_encoding, repetition_level_encoding } } */
	kt_init(&t, &hdr);
	kt_begin(&t, 0);
	kt_i32(&t, 1, PAGE_DATA);
	kt_i32(&t, 2, (int32_t)f->page.len);
	kt_i32(&t, 3, (int32_t)body->len);
	kt_begin(&t, 5);
	kt_i32(&t, 1, (int32_t)f->rows_in_group);
	kt_i32(&t, 2, ENC_PLAIN);
	kt_i32(&t, 3, ENC_RLE);
	kt_i32(&t, 4, ENC_RLE);
	kt_end(&t);
	kt_end(&t);
	if (hdr.oom) {
		kbuf_free(&hdr);
		return -ENOMEM;
	}
	ch->offset = f->offset;
	ch->raw = hdr.len + f->page.len;
	ch->comp = hdr.len + body->len;
	write_all(f, hdr.p, hdr.len);
	kbuf_free(&hdr);
	return write_all(f, body->p, body->len);
}

static int flush_group(struct kp_file *f)
{
	struct kp_chunk *chunks;

	if (f->err || !f->rows_in_group)
		return f->err;
	if (f->ngroups == f->groups_cap) {
		size_t cap = f->groups_cap ? f->groups_cap * 2 : 8;
		uint64_t *nr = realloc(f->group_nrows, cap * sizeof(*nr));

		if (nr)
			f->group_nrows = nr;
		chunks = realloc(f->chunks, cap * f->ncols * sizeof(*chunks));
		if (chunks)
			f->chunks = chunks;
		if (!nr || !chunks)
			return f->err = -ENOMEM;
		f->groups_cap = cap;
	}
	chunks = f->chunks + f->ngroups * f->ncols;
	for (unsigned i = 0; i < f->ncols && !f->err; i++) {
		int rc = write_chunk(f, i, &chunks[i]);

		if (rc && !f->err)
			f->err = rc;
		f->c[i].values.len = 0;
		f->c[i].defs.len = 0;
	}
	f->group_nrows[f->ngroups++] = f->rows_in_group;
	f->rows_in_group = 0;
	return f->err;
}

int kp_row(struct kp_file *f)
{
	for (unsigned i = 0; i < f->ncols; i++) {
		struct kp_column *c = &f->c[i];

		if (!c->set && f->cols[i].nullable)
			kbuf_u8(&c->defs, 0);
		else if (!c->set && !f->err)
			f->err = -EINVAL; /* a REQUIRED column without a value */
		c->set = false;
		if ((c->values.oom || c->defs.oom) && !f->err)
			f->err = -ENOMEM;
	}
	if (f->err)
		return f->err;
	f->rows++;
	if (++f->rows_in_group >= f->group_rows)
		return flush_group(f);
	return 0;
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
			kt_i64(t, 2, (int64_t)ch->offset);
			kt_begin(t, 3);
			kt_i32(t, 1, phys[f->cols[i].type]);
			kt_list(t, 2, KT_I32, 2);
			kt_varint(t->b, kt_zigzag(ENC_PLAIN));
			kt_varint(t->b, kt_zigzag(ENC_RLE));
			kt_list(t, 3, KT_BINARY, 1);
			kt_binary(t, 0, f->cols[i].name, strlen(f->cols[i].name));
			kt_i32(t, 4, f->gzip ? CODEC_GZIP : CODEC_UNCOMPRESSED);
			kt_i64(t, 5, (int64_t)f->group_nrows[g]);
			kt_i64(t, 6, (int64_t)ch->raw);
			kt_i64(t, 7, (int64_t)ch->comp);
			kt_i64(t, 9, (int64_t)ch->offset);
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
	for (unsigned i = 0; i < KP_MAX_COLS; i++) {
		kbuf_free(&f->c[i].values);
		kbuf_free(&f->c[i].defs);
	}
	kbuf_free(&f->page);
	kbuf_free(&f->zpage);
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
