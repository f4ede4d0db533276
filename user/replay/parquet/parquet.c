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
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };
enum { CODEC_UNCOMPRESSED = 0, CODEC_GZIP = 2 };
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
	    unsigned group_rows, bool gzip)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (ncols > KP_MAX_COLS)
		return -E2BIG;
	f->cols = cols;
	f->ncols = ncols;
	f->c = f->sets[0];
	f->fc = f->sets[1];
	f->group_rows = group_rows ? group_rows : KP_GROUP_ROWS;
	f->gzip = gzip;
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

/* Looks s up in the chunk's dictionary (adding it) and appends its index. */
static void dict_add(struct kp_file *f, struct kp_column *c, const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i, len;

	if (!c->slots) {
		c->slots = calloc(KP_DICT_SLOTS, sizeof(*c->slots));
		c->offs = calloc(KP_DICT_MAX, sizeof(*c->offs));
		if (!c->slots || !c->offs) {
			f->err = f->err ? f->err : -ENOMEM;
			return;
		}
	}
	for (size_t k = 0; k < n; k++) {
		h ^= (uint8_t)s[k];
		h *= 0x100000001b3ull;
	}
	for (i = (uint32_t)h & (KP_DICT_SLOTS - 1);; i = (i + 1) & (KP_DICT_SLOTS - 1)) {
		uint32_t e = c->slots[i];

		if (!e)
			break;
		memcpy(&len, c->dict.p + c->offs[e - 1], 4);
		if (len == n && !memcmp(c->dict.p + c->offs[e - 1] + 4, s, n)) {
			kbuf_put(&c->idx, &(uint32_t){ e - 1 }, 4);
			return;
		}
	}
	if (c->ndict == KP_DICT_MAX) {
		c->dict_full = true;
		return;
	}
	c->offs[c->ndict] = (uint32_t)c->dict.len;
	kbuf_u32le(&c->dict, (uint32_t)n);
	kbuf_put(&c->dict, s, n);
	c->slots[i] = ++c->ndict;
	kbuf_put(&c->idx, &(uint32_t){ c->ndict - 1 }, 4);
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
	if (!c->dict_full)
		dict_add(f, c, s, n);
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
	if (f->gzip) {
		rc = deflate_gzip(&f->zpage, raw->p, raw->len);
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

/* Dictionary indices: their bit width (a byte), then RLE runs. */
static void put_indices(struct kbuf *out, const struct kbuf *idx, uint32_t ndict)
{
	const uint8_t *p = idx->p;
	size_t n = idx->len / 4;
	unsigned bw = 1;

	while (bw < 32 && (1ull << bw) < ndict)
		bw++;
	kbuf_u8(out, (uint8_t)bw);
	for (size_t i = 0; i < n;) {
		uint32_t v, w;
		size_t j = i + 1;

		memcpy(&v, p + 4 * i, 4);
		while (j < n && (memcpy(&w, p + 4 * j, 4), w == v))
			j++;
		kt_varint(out, (uint64_t)(j - i) << 1);
		for (unsigned b = 0; b < (bw + 7) / 8; b++)
			kbuf_u8(out, (uint8_t)(v >> (8 * b)));
		i = j;
	}
}

static int write_chunk(struct kp_file *f, unsigned col, struct kp_chunk *ch)
{
	struct kp_column *c = &f->fc[col];
	bool dict = f->cols[col].type == KP_STRING && !c->dict_full && c->ndict;
	int rc;

	memset(ch, 0, sizeof(*ch));
	if (dict) {
		ch->dict_offset = f->offset;
		rc = write_page(f, ch, &c->dict, PAGE_DICTIONARY, (int32_t)c->ndict, ENC_PLAIN);
		if (rc)
			return rc;
	}
	f->page.len = 0;
	if (f->cols[col].nullable)
		kp_rle_levels(&f->page, c->defs.p, c->defs.len);
	if (dict)
		put_indices(&f->page, &c->idx, c->ndict);
	else if (f->cols[col].type == KP_BOOL)
		pack_bools(&f->page, &c->values);
	else
		kbuf_put(&f->page, c->values.p, c->values.len);
	ch->offset = f->offset;
	return write_page(f, ch, &f->page, PAGE_DATA, (int32_t)f->flush_rows,
			  dict ? ENC_RLE_DICTIONARY : ENC_PLAIN);
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
		c->values.len = c->defs.len = c->dict.len = c->idx.len = 0;
		c->ndict = 0;
		c->dict_full = false;
		if (c->slots)
			memset(c->slots, 0, KP_DICT_SLOTS * sizeof(*c->slots));
	}
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

	if (writer_wait(f) || !f->rows_in_group)
		return f->err;
	t = f->fc;
	f->fc = f->c;
	f->c = t;
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
	for (unsigned i = 0; i < f->ncols; i++) {
		struct kp_column *c = &f->c[i];

		if (!c->set && f->cols[i].nullable)
			kbuf_u8(&c->defs, 0);
		else if (!c->set && !f->err)
			f->err = -EINVAL; /* a REQUIRED column without a value */
		c->set = false;
		if ((c->values.oom || c->defs.oom || c->dict.oom || c->idx.oom) && !f->err)
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
			kt_i64(t, 2, (int64_t)(ch->dict_offset ? ch->dict_offset : ch->offset));
			kt_begin(t, 3);
			kt_i32(t, 1, phys[f->cols[i].type]);
			kt_list(t, 2, KT_I32, ch->dict_offset ? 3 : 2);
			kt_varint(t->b, kt_zigzag(ENC_PLAIN));
			kt_varint(t->b, kt_zigzag(ENC_RLE));
			if (ch->dict_offset)
				kt_varint(t->b, kt_zigzag(ENC_RLE_DICTIONARY));
			kt_list(t, 3, KT_BINARY, 1);
			kt_binary(t, 0, f->cols[i].name, strlen(f->cols[i].name));
			kt_i32(t, 4, f->gzip ? CODEC_GZIP : CODEC_UNCOMPRESSED);
			kt_i64(t, 5, (int64_t)f->group_nrows[g]);
			kt_i64(t, 6, (int64_t)ch->raw);
			kt_i64(t, 7, (int64_t)ch->comp);
			kt_i64(t, 9, (int64_t)ch->offset);
			if (ch->dict_offset)
				kt_i64(t, 11, (int64_t)ch->dict_offset);
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
			kbuf_free(&c->defs);
			kbuf_free(&c->dict);
			kbuf_free(&c->idx);
			free(c->slots);
			free(c->offs);
			c->slots = c->offs = NULL;
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
