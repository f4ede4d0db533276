// SPDX-License-Identifier: GPL-2.0-only
/* The Parquet writer's bytes (user/replay/parquet/): Thrift compact
 * varints, zigzag, field and list headers; definition levels as RLE runs;
 * a whole one-column file byte for byte (page header, values, footer,
 * footer length, magic), as parquet.thrift and the compact protocol spec
 * define them. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/parquet/parquet.h"
#include "replay/parquet/thrift.h"

static void assert_bytes(const struct kbuf *b, const uint8_t *want, size_t n, const char *what)
{
	cr_assert_eq(b->len, n, "%s: %zu bytes, want %zu", what, b->len, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(b->p[i], want[i], "%s: byte %zu is 0x%02x, want 0x%02x", what, i,
			     b->p[i], want[i]);
}

Test(parquet, thrift_varints_and_zigzag)
{
	struct kbuf b = { 0 };
	static const uint8_t want[] = { 0x00, 0x7f, 0x80, 0x01, 0xac, 0x02,
					0xff, 0xff, 0xff, 0xff, 0x0f };

	kt_varint(&b, 0);
	kt_varint(&b, 127);
	kt_varint(&b, 128);
	kt_varint(&b, 300);
	kt_varint(&b, 0xffffffffu);
	assert_bytes(&b, want, sizeof(want), "varints");
	cr_assert_eq(kt_zigzag(0), 0);
	cr_assert_eq(kt_zigzag(-1), 1);
	cr_assert_eq(kt_zigzag(1), 2);
	cr_assert_eq(kt_zigzag(-64), 127);
	cr_assert_eq(kt_zigzag(INT64_MIN), UINT64_MAX);
	kbuf_free(&b);
}

Test(parquet, thrift_field_headers_lists_and_structs)
{
	struct kbuf b = { 0 };
	struct kthrift t;
	static const uint8_t want[] = {
		0x15, 0x02,             /* field 1, i32, delta 1: 1 */
		0x45, 0x01,             /* field 5, delta 4: -1 */
		0xf5, 0x04,             /* field 20, delta 15: still short: 2 */
		0x05, 0x48, 0x06,       /* field 36, delta 16: type, zigzag id 36, 3 */
		0x19, 0x35,             /* field 37 (delta 1), list of 3 i32 */
		0x1c,                   /* field 38, struct */
		0x16, 0x80, 0x01,       /* its field 1, i64 64 */
		0x11,                   /* its field 2, bool true */
		0x00,                   /* its stop */
		0x19, 0xfc, 0x0f,       /* field 39, list of 15 structs: long form */
		0x18, 0x02, 'o', 'k',   /* field 40, binary "ok" */
	};

	kt_init(&t, &b);
	kt_i32(&t, 1, 1);
	kt_i32(&t, 5, -1);
	kt_i32(&t, 20, 2);
	kt_i32(&t, 36, 3);
	kt_list(&t, 37, KT_I32, 3);
	kt_begin(&t, 38);
	kt_i64(&t, 1, 64);
	kt_bool(&t, 2, true);
	kt_end(&t);
	kt_list(&t, 39, KT_STRUCT, 15);
	kt_string(&t, 40, "ok");
	assert_bytes(&b, want, sizeof(want), "fields");
	kbuf_free(&b);
}

Test(parquet, definition_levels_are_rle_runs_after_their_length)
{
	struct kbuf b = { 0 };
	static const uint8_t levels[] = { 1, 1, 1, 0, 0, 1 };
	static const uint8_t want[] = { 6, 0, 0, 0, 0x06, 1, 0x04, 0, 0x02, 1 };

	kp_rle_levels(&b, levels, sizeof(levels));
	assert_bytes(&b, want, sizeof(want), "levels");
	kbuf_free(&b);
}

Test(parquet, int64_as_delta_binary_packed_blocks_and_miniblocks)
{
	/* 130 values 0, 3, 6...: a header (blocks of 128, 4 miniblocks, 130
	 * values, first 0), a block of 128 deltas and one of 1, each with
	 * least delta 3 and widths 0 (no bytes) */
	static const uint8_t steps[] = {
		0x80, 0x01, 0x04, 0x82, 0x01, 0x00, 0x06, 0, 0, 0, 0, 0x06, 0, 0, 0, 0,
	};
	/* 0, 1, 3: deltas 1, 2 less 1: 0, 1 at width 1 in a 32-value
	 * miniblock (4 bytes) */
	static const uint8_t bits[] = {
		0x80, 0x01, 0x04, 0x03, 0x00, 0x02, 1, 0, 0, 0, 0x02, 0, 0, 0,
	};
	/* INT64_MAX then INT64_MIN: the delta wraps to 1 */
	static const uint8_t wrap[] = {
		0x80, 0x01, 0x04, 0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01, 0x02, 0, 0, 0, 0,
	};
	struct kbuf b = { 0 }, in = { 0 };

	for (uint64_t i = 0; i < 130; i++)
		kbuf_u64le(&in, 3 * i);
	kp_delta(&b, in.p, 130);
	assert_bytes(&b, steps, sizeof(steps), "0, 3, 6...");
	in.len = b.len = 0;
	kbuf_u64le(&in, 0);
	kbuf_u64le(&in, 1);
	kbuf_u64le(&in, 3);
	kp_delta(&b, in.p, 3);
	assert_bytes(&b, bits, sizeof(bits), "0, 1, 3");
	in.len = b.len = 0;
	kbuf_u64le(&in, (uint64_t)INT64_MAX);
	kbuf_u64le(&in, (uint64_t)INT64_MIN);
	kp_delta(&b, in.p, 2);
	assert_bytes(&b, wrap, sizeof(wrap), "INT64_MAX, INT64_MIN");
	kbuf_free(&b);
	kbuf_free(&in);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = malloc(1 << 20);

	cr_assert_not_null(f);
	*n = fread(p, 1, 1 << 20, f);
	fclose(f);
	return p;
}

Test(parquet, a_one_column_file_byte_for_byte)
{
	static const struct kp_col cols[] = { { "x", KP_I64, false } };
	char path[] = "/tmp/katra-test-parquet-XXXXXX";
	struct kp_file f;
	size_t n;
	int fd = mkstemp(path);
	static const uint8_t want[] = {
		'P', 'A', 'R', '1',
		/* PageHeader: DATA_PAGE, 10 bytes raw and stored, DataPageHeader {
		 * 2 values, DELTA_BINARY_PACKED, levels RLE, RLE } */
		0x15, 0x00, 0x15, 0x14, 0x15, 0x14, 0x2c,
		0x15, 0x04, 0x15, 0x0a, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00,
		/* the values, INT64 DELTA_BINARY_PACKED: blocks of 128 in 4
		 * miniblocks, 2 values, the first 5; a block: least delta -7,
		 * every miniblock 0 bits wide (so no bytes) */
		0x80, 0x01, 0x04, 0x02, 0x0a, 0x0d, 0, 0, 0, 0,
		/* FileMetaData: version 1; schema: 2 elements */
		0x15, 0x02, 0x19, 0x2c,
		/* the root: name "schema", num_children 1 */
		0x48, 6, 's', 'c', 'h', 'e', 'm', 'a', 0x15, 0x02, 0x00,
		/* x: INT64, REQUIRED, name "x" */
		0x15, 0x04, 0x25, 0x00, 0x18, 1, 'x', 0x00,
		/* num_rows 2; row_groups: 1 */
		0x16, 0x04, 0x19, 0x1c,
		/* RowGroup: columns: 1 ColumnChunk { file_offset 4, meta_data {
		 * INT64, [DELTA_BINARY_PACKED, RLE], ["x"], UNCOMPRESSED, 2 values,
		 * 27 bytes raw and stored, data_page_offset 4 } } */
		0x19, 0x1c, 0x26, 0x08, 0x1c, 0x15, 0x04, 0x19, 0x25, 0x0a, 0x06,
		0x19, 0x18, 1, 'x', 0x15, 0x00, 0x16, 0x04, 0x16, 0x36, 0x16, 0x36,
		0x26, 0x08,
		/* statistics (12): Statistics { null_count 0, max_value 5,
		 * min_value -2 (8 bytes little-endian each) } */
		0x3c, 0x36, 0x00, 0x28, 8, 5, 0, 0, 0, 0, 0, 0, 0,
		0x18, 8, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
		0x00, 0x00,
		/* total_byte_size 27, num_rows 2 */
		0x16, 0x36, 0x16, 0x04, 0x00,
		/* created_by (field 6, from 4: delta 2) */
		0x28, 29, 'k', 'a', 't', 'r', 'a', '-', 'r', 'e', 'p', 'l', 'a', 'y', ' ', 'e',
		'x', 'p', 'o', 'r', 't', ' ', '-', '-', 'p', 'a', 'r', 'q', 'u', 'e', 't',
		0x00,
	};
	uint8_t *got;
	uint32_t flen;

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(kp_open(&f, path, cols, 1, 0, false), 0);
	kp_i64(&f, 0, 5);
	cr_assert_eq(kp_row(&f), 0);
	kp_i64(&f, 0, -2);
	cr_assert_eq(kp_row(&f), 0);
	cr_assert_eq(kp_finish(&f), 0);
	got = slurp(path, &n);
	unlink(path);
	cr_assert_eq(n, sizeof(want) + 8, "file of %zu bytes, want %zu", n, sizeof(want) + 8);
	for (size_t i = 0; i < sizeof(want); i++)
		cr_assert_eq(got[i], want[i], "byte %zu is 0x%02x, want 0x%02x", i, got[i], want[i]);
	/* the footer's length, then the magic again */
	flen = (uint32_t)got[n - 8] | (uint32_t)got[n - 7] << 8 | (uint32_t)got[n - 6] << 16 |
	       (uint32_t)got[n - 5] << 24;
	cr_assert_eq(flen, sizeof(want) - 4 - 27);
	cr_assert(!memcmp(got + n - 4, "PAR1", 4));
	free(got);
}

Test(parquet, a_required_column_left_out_is_refused_and_nothing_stays)
{
	static const struct kp_col cols[] = { { "x", KP_I64, false }, { "s", KP_STRING, true } };
	char path[] = "/tmp/katra-test-parquet-XXXXXX";
	struct kp_file f;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(kp_open(&f, path, cols, 2, 0, true), 0);
	kp_cstr(&f, 1, "only s");
	cr_assert_eq(kp_row(&f), -EINVAL);
	kp_discard(&f, path);
	cr_assert_neq(access(path, F_OK), 0);
}

Test(parquet, a_string_column_as_a_dictionary_page_and_rle_indices)
{
	static const struct kp_col cols[] = { { "s", KP_STRING, false } };
	char path[] = "/tmp/katra-test-parquet-XXXXXX";
	struct kp_file f;
	size_t n;
	int fd = mkstemp(path);
	static const uint8_t want[] = {
		'P', 'A', 'R', '1',
		/* PageHeader: DICTIONARY_PAGE, 11 bytes, DictionaryPageHeader {
		 * 2 values, PLAIN } */
		0x15, 0x04, 0x15, 0x16, 0x15, 0x16, 0x4c, 0x15, 0x04, 0x15, 0x00, 0x00, 0x00,
		2, 0, 0, 0, 'a', 'b', 1, 0, 0, 0, 'c',
		/* PageHeader: DATA_PAGE, 5 bytes, { 3 values, RLE_DICTIONARY, RLE, RLE } */
		0x15, 0x00, 0x15, 0x0a, 0x15, 0x0a, 0x2c,
		0x15, 0x06, 0x15, 0x10, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00,
		/* bit width 1; a run of two 0s, a run of one 1 */
		0x01, 0x04, 0x00, 0x02, 0x01,
	};
	uint8_t *got;

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(kp_open(&f, path, cols, 1, 0, false), 0);
	kp_cstr(&f, 0, "ab");
	cr_assert_eq(kp_row(&f), 0);
	kp_cstr(&f, 0, "ab");
	cr_assert_eq(kp_row(&f), 0);
	kp_cstr(&f, 0, "c");
	cr_assert_eq(kp_row(&f), 0);
	cr_assert_eq(kp_finish(&f), 0);
	got = slurp(path, &n);
	unlink(path);
	cr_assert_gt(n, sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		cr_assert_eq(got[i], want[i], "byte %zu is 0x%02x, want 0x%02x", i, got[i], want[i]);
	free(got);
}

static size_t count_of(const uint8_t *p, size_t n, const char *s)
{
	size_t k = strlen(s), c = 0;

	for (size_t i = 0; i + k <= n; i++)
		c += !memcmp(p + i, s, k);
	return c;
}

Test(parquet, more_distinct_strings_than_a_dictionary_holds_are_plain)
{
	static const struct kp_col cols[] = { { "s", KP_STRING, false } };
	char path[] = "/tmp/katra-test-parquet-XXXXXX", v[16];
	struct kp_file f;
	size_t n;
	int fd = mkstemp(path);
	uint8_t *got;

	cr_assert_geq(fd, 0);
	close(fd);
	/* row group 1: KP_DICT_MAX + 1 distinct values, then the first again
	 * (PLAIN: written twice); row group 2: one value 3 times (a dictionary:
	 * written once) */
	cr_assert_eq(kp_open(&f, path, cols, 1, KP_DICT_MAX + 2, false), 0);
	for (unsigned i = 0; i <= KP_DICT_MAX; i++) {
		snprintf(v, sizeof(v), "v%05u", i);
		kp_cstr(&f, 0, v);
		cr_assert_eq(kp_row(&f), 0);
	}
	kp_cstr(&f, 0, "v00000");
	cr_assert_eq(kp_row(&f), 0);
	for (int i = 0; i < 3; i++) {
		kp_cstr(&f, 0, "again");
		cr_assert_eq(kp_row(&f), 0);
	}
	cr_assert_eq(kp_finish(&f), 0);
	got = slurp(path, &n);
	unlink(path);
	cr_assert_eq(count_of(got, n, "v00000"), 2);
	cr_assert_eq(count_of(got, n, "v04096"), 1);
	cr_assert_eq(count_of(got, n, "again"), 1);
	free(got);
}

static bool has_bytes(const uint8_t *p, size_t n, const uint8_t *want, size_t wn)
{
	for (size_t i = 0; i + wn <= n; i++)
		if (!memcmp(p + i, want, wn))
			return true;
	return false;
}

Test(parquet, integer_statistics_in_the_column_s_sort_order)
{
	static const struct kp_col cols[] = { { "u", KP_U64, false }, { "i", KP_I32, true } };
	char path[] = "/tmp/katra-test-parquet-XXXXXX";
	struct kp_file f;
	size_t n;
	int fd = mkstemp(path);
	/* u: 1 and 2^63 + 1 compared unsigned (signed order would swap them):
	 * Statistics { null_count 0, max_value 2^63 + 1, min_value 1 } */
	static const uint8_t want_u[] = {
		0x3c, 0x36, 0x00, 0x28, 8, 1, 0, 0, 0, 0, 0, 0, 0x80,
		0x18, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0x00,
	};
	/* i: -7, null, 3: { null_count 1, max_value 3, min_value -7 } (4 bytes) */
	static const uint8_t want_i[] = {
		0x3c, 0x36, 0x02, 0x28, 4, 3, 0, 0, 0, 0x18, 4, 0xf9, 0xff, 0xff, 0xff, 0x00,
	};
	uint8_t *got;

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(kp_open(&f, path, cols, 2, 0, true), 0);
	kp_u64(&f, 0, 1);
	kp_i32(&f, 1, -7);
	cr_assert_eq(kp_row(&f), 0);
	kp_u64(&f, 0, (1ull << 63) + 1);
	cr_assert_eq(kp_row(&f), 0);
	kp_u64(&f, 0, 1);
	kp_i32(&f, 1, 3);
	cr_assert_eq(kp_row(&f), 0);
	cr_assert_eq(kp_finish(&f), 0);
	got = slurp(path, &n);
	unlink(path);
	cr_assert(has_bytes(got, n, want_u, sizeof(want_u)), "u's statistics not found");
	cr_assert(has_bytes(got, n, want_i, sizeof(want_i)), "i's statistics not found");
	free(got);
}

/* kp_cstr_static over 3 row groups of 2 rows: the same bytes as kp_cstr
 * (the address cache is the chunk's: a later group's dictionary starts
 * again, so its indices are not the previous group's) */
Test(parquet, static_strings_by_address_give_the_same_bytes)
{
	static const struct kp_col cols[] = { { "s", KP_STRING, true } };
	static const char *const v[] = { "b", "a", "a", NULL, "c", "b" };
	uint8_t *got[2];
	size_t n[2];

	for (int k = 0; k < 2; k++) {
		char path[] = "/tmp/katra-test-parquet-XXXXXX";
		struct kp_file f;
		int fd = mkstemp(path);

		cr_assert_geq(fd, 0);
		close(fd);
		cr_assert_eq(kp_open(&f, path, cols, 1, 2, false), 0);
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			if (k)
				kp_cstr_static(&f, 0, v[i]);
			else
				kp_cstr(&f, 0, v[i]);
			cr_assert_eq(kp_row(&f), 0);
		}
		cr_assert_eq(kp_finish(&f), 0);
		got[k] = slurp(path, &n[k]);
		unlink(path);
	}
	cr_assert_eq(n[0], n[1]);
	cr_assert(!memcmp(got[0], got[1], n[0]), "kp_cstr_static wrote other bytes");
	free(got[0]);
	free(got[1]);
}
