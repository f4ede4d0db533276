// SPDX-License-Identifier: GPL-2.0-only
/* The bincode 1.x rules, one test each, checked on exact bytes; plus
 * round trips of every sample record and decoding of corrupt input. */
#include "format_test_util.h"

static size_t enc(const struct katra_record *r, uint8_t *out, size_t cap)
{
	long n = katra_encode_record(r, out, cap);

	cr_assert_gt(n, 0, "encode failed: %ld", n);
	cr_assert_eq((size_t)n, katra_encoded_record_size(r));
	return (size_t)n;
}

static void assert_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "%s: byte %zu is %02x, expected %02x", what, i,
			     got[i], want[i]);
}

static uint8_t hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Parses hex, ignoring spaces; returns the byte count. */
static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == ' ')
			continue;
		out[n++] = (uint8_t)(hexval(s[0]) << 4 | hexval(s[1]));
		s++;
	}
	return n;
}

static int dec(const uint8_t *in, size_t len, struct katra_record *r, struct katra_arena *a,
	       struct katra_decode_error *e)
{
	memset(e, 0, sizeof(*e));
	return katra_decode_record(in, len, r, a, e);
}

/* Counter is all fixed-width: tag, seq, ts_mono, ts_wall, kind, instance, value. */
static struct katra_record counter_rec(void)
{
	struct katra_record r = mk_counter(0x0102030405060708ull, 0x1112131415161718ull);

	r.u.counter.ts_wall_ns = 0x2122232425262728ull;
	r.u.counter.kind = KATRA_COUNTER_BYTES_WRITTEN;
	r.u.counter.instance = 0xa1a2a3a4;
	r.u.counter.value = 0xfffffffffffffffeull;
	return r;
}

Test(bincode, u64_little_endian)
{
	struct katra_record r = counter_rec();
	uint8_t b[64];
	static const uint8_t want[8] = { 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };

	cr_assert_eq(enc(&r, b, sizeof(b)), 44);
	assert_bytes(b + 4, want, 8, "seq");
}

Test(bincode, u32_little_endian)
{
	struct katra_record r = counter_rec();
	uint8_t b[64];
	static const uint8_t want[4] = { 0xa4, 0xa3, 0xa2, 0xa1 };

	enc(&r, b, sizeof(b));
	assert_bytes(b + 32, want, 4, "instance");
}

Test(bincode, i32_twos_complement_le)
{
	struct katra_record r = mk_event(1, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t b[128];
	size_t n;
	static const uint8_t want[8] = { 0x05, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff };

	r.u.event.payload.type = KATRA_PAYLOAD_FILE_CLOSE;
	r.u.event.payload.u.file_close.fd = -2;
	n = enc(&r, b, sizeof(b));
	/* payload sits before cost_estimate_ns (1 byte None) and confidence (4) */
	assert_bytes(b + n - 5 - 8, want, 8, "FileClose payload");
}

Test(bincode, i64_twos_complement_le)
{
	struct katra_record r = mk_event(1, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t b[128];
	size_t n;
	static const uint8_t want[16] = { 0x02, 0, 0, 0, 0x3c, 0, 0, 0,
					  0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	r.u.event.payload.type = KATRA_PAYLOAD_SYSCALL_RETURN;
	r.u.event.payload.u.syscall_return.nr = 60;
	r.u.event.payload.u.syscall_return.ret = -2;
	n = enc(&r, b, sizeof(b));
	assert_bytes(b + n - 5 - 16, want, 16, "SyscallReturn payload");
}

/* TaskExit { exit_code: i32, group_dead: bool } ends the payload: the bool
 * is the byte just before cost_estimate_ns + confidence. */
static size_t task_exit(bool dead, uint8_t *b, size_t cap)
{
	struct katra_record r = mk_event(1, 1, 1, KATRA_PHASE_INSTANT, -1);

	r.u.event.payload.type = KATRA_PAYLOAD_TASK_EXIT;
	r.u.event.payload.u.task_exit.exit_code = 3;
	r.u.event.payload.u.task_exit.group_dead = dead;
	return enc(&r, b, cap);
}

Test(bincode, bool_is_one_byte_0_or_1)
{
	uint8_t t[128], f[128];
	size_t nt = task_exit(true, t, sizeof(t)), nf = task_exit(false, f, sizeof(f));

	cr_assert_eq(nt, nf);
	cr_assert_eq(t[nt - 6], 1);
	cr_assert_eq(f[nf - 6], 0);
	cr_assert_eq(memcmp(t, f, nt - 6), 0);
}

Test(bincode, bool_decode_rejects_2)
{
	uint8_t b[128];
	size_t n = task_exit(true, b, sizeof(b));
	struct katra_arena a = { 0 };
	struct katra_decode_error e;
	struct katra_record r;

	cr_assert_eq(dec(b, n, &r, &a, &e), 0);
	cr_assert_eq(r.u.event.payload.u.task_exit.group_dead, true);
	b[n - 6] = 2;
	cr_assert_eq(dec(b, n, &r, &a, &e), -EINVAL);
	cr_assert_eq(e.offset, n - 6, "error offset %zu, expected %zu", e.offset, n - 6);
	cr_assert_not_null(strstr(e.message, "bool"), "message: %s", e.message);
	katra_arena_free(&a);
}

Test(bincode, option_none_is_tag_0_some_is_tag_1_then_value)
{
	struct katra_record r = mk_event(1, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t none[128], some[128];
	size_t nn, ns;
	static const uint8_t want[9] = { 1, 0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0 };

	nn = enc(&r, none, sizeof(none));
	r.u.event.span_id = (struct katra_opt_u64){ true, 0xdeadbeef };
	ns = enc(&r, some, sizeof(some));
	/* span_id follows tag 4 + 5 u64 + 3 u32 = 56 bytes */
	cr_assert_eq(ns, nn + 8);
	cr_assert_eq(none[56], 0);
	assert_bytes(some + 56, want, 9, "Some(span_id)");
	cr_assert_eq(memcmp(none + 57, some + 65, nn - 57), 0);
}

Test(bincode, option_decode_rejects_tag_2)
{
	struct katra_record r = mk_event(1, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t b[128];
	size_t n = enc(&r, b, sizeof(b));
	struct katra_arena a = { 0 };
	struct katra_decode_error e;

	b[56] = 2;
	cr_assert_eq(dec(b, n, &r, &a, &e), -EINVAL);
	cr_assert_eq(e.offset, 56);
	katra_arena_free(&a);
}

Test(bincode, string_is_u64_length_then_bytes)
{
	struct katra_record r = mk_epoch(1, 2, "h\xc3\xa9llo");
	uint8_t b[128];
	size_t n = enc(&r, b, sizeof(b));
	static const uint8_t want[14] = { 6, 0, 0, 0, 0, 0, 0, 0, 'h', 0xc3, 0xa9, 'l', 'l', 'o' };

	/* tag 4 + seq, ts_mono, ts_wall, epoch 4*8 + kind 4 = 40 */
	cr_assert_eq(n, 40 + 14);
	assert_bytes(b + 40, want, 14, "name");

	r = mk_epoch(1, 2, "");
	cr_assert_eq(enc(&r, b, sizeof(b)), 48);
	for (int i = 40; i < 48; i++)
		cr_assert_eq(b[i], 0);
}

Test(bincode, string_decode_rejects_invalid_utf8)
{
	struct katra_record r = mk_epoch(1, 2, "abcd");
	uint8_t b[128];
	size_t n = enc(&r, b, sizeof(b));
	struct katra_arena a = { 0 };
	struct katra_decode_error e;

	b[49] = 0xff;
	cr_assert_eq(dec(b, n, &r, &a, &e), -EINVAL);
	cr_assert_not_null(strstr(e.message, "UTF-8"), "message: %s", e.message);
	katra_arena_free(&a);
}

Test(bincode, vec_is_u64_length_then_elements)
{
	static const uint64_t causes[] = { 3, 0x100 };
	struct katra_record r = mk_event(9, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t b[128];
	static const uint8_t want[24] = { 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
					  0, 1, 0, 0, 0, 0, 0, 0 };

	r.u.event.causes = (struct katra_u64_vec){ causes, 2 };
	enc(&r, b, sizeof(b));
	/* causes follow span_id (None, 1) and request_id (None, 1) at 56 */
	assert_bytes(b + 58, want, 24, "causes");
}

Test(bincode, enum_is_u32_variant_index)
{
	struct katra_record r = counter_rec();
	uint8_t b[64];
	static const uint8_t tag[4] = { 2, 0, 0, 0 };  /* TraceRecord::Counter */
	static const uint8_t kind[4] = { 5, 0, 0, 0 }; /* CounterKind::BytesWritten */

	enc(&r, b, sizeof(b));
	assert_bytes(b, tag, 4, "TraceRecord tag");
	assert_bytes(b + 28, kind, 4, "Counter.kind");
}

Test(bincode, enum_decode_rejects_unknown_variant)
{
	struct katra_record r = counter_rec();
	uint8_t b[64];
	size_t n = enc(&r, b, sizeof(b));
	struct katra_arena a = { 0 };
	struct katra_decode_error e;

	b[28] = KATRA_COUNTER_KIND_COUNT;
	cr_assert_eq(dec(b, n, &r, &a, &e), -EINVAL);
	cr_assert_eq(e.offset, 28);
	b[28] = 5;
	b[0] = KATRA_RECORD_COUNT;
	cr_assert_eq(dec(b, n, &r, &a, &e), -EINVAL);
	cr_assert_eq(e.offset, 0);
	katra_arena_free(&a);
}

Test(bincode, unit_variant_is_exactly_4_bytes)
{
	struct katra_record r = mk_event(1, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t b[128];
	size_t n;

	r.u.event.payload.type = KATRA_PAYLOAD_NONE;
	n = enc(&r, b, sizeof(b));
	/* tag 4, 5 u64, scope/kind/phase 12, 2 None 2, causes 8, resource 12,
	 * Payload::None 4, cost None 1, confidence 4 */
	cr_assert_eq(n, 4 + 40 + 12 + 2 + 8 + 12 + 4 + 1 + 4);
	cr_assert_eq(b[n - 9], 0);
	cr_assert_eq(b[n - 8], 0);
	cr_assert_eq(b[n - 7], 0);
	cr_assert_eq(b[n - 6], 0);
}

Test(bincode, struct_fields_in_declaration_order)
{
	struct katra_record r = counter_rec();
	uint8_t b[64];
	uint8_t want[44];
	size_t n = unhex("02000000 0807060504030201 1817161514131211 2827262524232221"
			 " 05000000 a4a3a2a1 feffffffffffffff", want);

	cr_assert_eq(n, 44);
	cr_assert_eq(enc(&r, b, sizeof(b)), 44);
	assert_bytes(b, want, 44, "Counter");
}

/* A small Event, byte for byte (cross-checked by hand against the schema). */
Test(bincode, exact_hex_vector_small_event)
{
	static const uint64_t causes[] = { 7 };
	struct katra_record r;
	uint8_t b[256], want[256];
	size_t wn, n;

	memset(&r, 0, sizeof(r));
	r.type = KATRA_RECORD_EVENT;
	r.u.event = (struct katra_event){
		.seq = 1, .ts_mono_ns = 2, .ts_wall_ns = 3, .thread_id = 4, .process_id = 5,
		.scope = KATRA_SCOPE_LINUX, .kind = KATRA_KIND_FILE_READ,
		.phase = KATRA_PHASE_BEGIN, .span_id = { true, 9 }, .request_id = { false, 0 },
		.causes = { causes, 1 },
		.resource = { KATRA_RES_FILE, 3 },
		.payload = { .type = KATRA_PAYLOAD_FILE_CLOSE, .u.file_close.fd = -1 },
		.cost_estimate_ns = { false, 0 },
		.confidence = KATRA_CONFIDENCE_INFERRED,
	};
	wn = unhex("00000000"                  /* TraceRecord::Event */
		   "0100000000000000"          /* seq */
		   "0200000000000000"          /* ts_mono_ns */
		   "0300000000000000"          /* ts_wall_ns */
		   "0400000000000000"          /* thread_id */
		   "0500000000000000"          /* process_id */
		   "02000000"                  /* Scope::Linux */
		   "01000000"                  /* EventKind::FileRead */
		   "01000000"                  /* Phase::Begin */
		   "01 0900000000000000"       /* span_id Some(9) */
		   "00"                        /* request_id None */
		   "0100000000000000 0700000000000000" /* causes [7] */
		   "01000000 0300000000000000" /* Resource { File, 3 } */
		   "05000000 ffffffff"         /* Payload::FileClose { fd: -1 } */
		   "00"                        /* cost_estimate_ns None */
		   "01000000",                 /* Confidence::Inferred */
		   want);
	n = enc(&r, b, sizeof(b));
	cr_assert_eq(n, wn, "encoded %zu bytes, expected %zu", n, wn);
	assert_bytes(b, want, n, "Event");
}

Test(bincode, header_field_order_prefix)
{
	const struct katra_header *h = katra_sample_header();
	uint8_t b[4096];
	long n = katra_encode_header(h, b, sizeof(b));
	uint64_t hash, len;

	cr_assert_gt(n, 0);
	cr_assert_eq(b[0], 1);
	cr_assert_eq(b[1] | b[2] | b[3], 0);
	memcpy(&hash, b + 4, 8);
	cr_assert_eq(hash, katra_schema_hash);
	memcpy(&len, b + 12, 8);
	cr_assert_eq(len, h->tool_version.len);
	cr_assert_eq(memcmp(b + 20, h->tool_version.ptr, len), 0);
	cr_assert_eq(katra_encode_header(h, b, (size_t)n - 1), -ENOSPC);
}

Test(bincode, header_roundtrip)
{
	const struct katra_header *h = katra_sample_header();
	uint8_t b[4096], b2[4096];
	long n = katra_encode_header(h, b, sizeof(b));
	struct katra_arena a = { 0 };
	struct katra_decode_error e = { 0 };
	struct katra_header d;

	cr_assert_gt(n, 0);
	cr_assert_eq(katra_decode_header(b, (size_t)n, &d, &a, &e), 0, "%s", e.message);
	cr_assert_eq(katra_encode_header(&d, b2, sizeof(b2)), n);
	cr_assert_eq(memcmp(b, b2, (size_t)n), 0);
	cr_assert_eq(d.notes.len, 2);
	cr_assert_eq(d.notes.items[1].len, 0);
	katra_arena_free(&a);
}

Test(bincode, every_sample_record_roundtrips_identically)
{
	struct katra_arena a = { 0 };

	for (size_t i = 0; i < katra_sample_count(); i++) {
		const struct katra_record *r = katra_sample_record(i);
		size_t n = katra_encoded_record_size(r);
		uint8_t *b = malloc(n), *b2 = malloc(n);
		struct katra_decode_error e = { 0 };
		struct katra_record d;

		cr_assert_eq(katra_encode_record(r, b, n), (long)n, "record %zu", i);
		cr_assert_eq(katra_decode_record(b, n, &d, &a, &e), 0, "record %zu: %s", i,
			     e.message);
		cr_assert_eq(d.type, r->type);
		cr_assert_eq(katra_encoded_record_size(&d), n, "record %zu", i);
		cr_assert_eq(katra_encode_record(&d, b2, n), (long)n, "record %zu", i);
		cr_assert_eq(memcmp(b, b2, n), 0, "record %zu re-encodes differently", i);
		free(b);
		free(b2);
	}
	katra_arena_free(&a);
}

Test(bincode, short_buffer_is_enospc)
{
	for (size_t i = 0; i < katra_sample_count(); i++) {
		const struct katra_record *r = katra_sample_record(i);
		size_t n = katra_encoded_record_size(r);
		uint8_t *b = malloc(n);

		cr_assert_eq(katra_encode_record(r, b, n - 1), -ENOSPC, "record %zu", i);
		cr_assert_eq(katra_encode_record(r, NULL, 0), -ENOSPC, "record %zu", i);
		free(b);
	}
}

Test(bincode, every_strict_prefix_fails_cleanly)
{
	struct katra_arena a = { 0 };

	for (size_t i = 0; i < katra_sample_count(); i++) {
		const struct katra_record *r = katra_sample_record(i);
		size_t n = katra_encoded_record_size(r);
		uint8_t *b = malloc(n);

		enc(r, b, n);
		for (size_t len = 0; len < n; len++) {
			/* an exact-size copy so ASan sees any read past the end */
			uint8_t *p = malloc(len ? len : 1);
			struct katra_decode_error e;
			struct katra_record d;

			memcpy(p, b, len);
			cr_assert_eq(dec(p, len, &d, &a, &e), -EINVAL, "record %zu prefix %zu",
				     i, len);
			cr_assert_leq(e.offset, len);
			cr_assert_neq(e.message[0], '\0');
			free(p);
		}
		free(b);
	}
	katra_arena_free(&a);
}

/* A length beyond the remaining bytes is an error before any reservation:
 * the arena stays within the documented bound of the input size. */
static void assert_huge_len_rejected(uint8_t *b, size_t n, size_t len_at)
{
	static const uint64_t lens[] = { 0xffffffffffffffffull, 0x7fffffffffffffffull,
					 1ull << 40, 0 };
	struct katra_arena a = { 0 };

	for (int i = 0; lens[i]; i++) {
		struct katra_decode_error e;
		struct katra_record d;

		memcpy(b + len_at, &lens[i], 8);
		cr_assert_eq(dec(b, n, &d, &a, &e), -EINVAL);
		cr_assert_eq(e.offset, len_at, "offset %zu, expected %zu", e.offset, len_at);
		cr_assert_not_null(strstr(e.message, "length"), "message: %s", e.message);
		cr_assert_leq(a.cap, 3 * n + 64);
	}
	/* one more than the bytes that remain is also too long */
	uint64_t over = n - (len_at + 8) + 1;
	struct katra_decode_error e;
	struct katra_record d;

	memcpy(b + len_at, &over, 8);
	cr_assert_eq(dec(b, n, &d, &a, &e), -EINVAL);
	katra_arena_free(&a);
}

Test(bincode, string_length_beyond_input_is_error)
{
	struct katra_record r = mk_epoch(1, 2, "abc");
	uint8_t b[64];

	assert_huge_len_rejected(b, enc(&r, b, sizeof(b)), 40);
}

Test(bincode, vec_length_beyond_input_is_error)
{
	static const uint64_t causes[] = { 1, 2, 3 };
	struct katra_record r = mk_event(9, 1, 1, KATRA_PHASE_INSTANT, -1);
	uint8_t b[256];

	r.u.event.causes = (struct katra_u64_vec){ causes, 3 };
	assert_huge_len_rejected(b, enc(&r, b, sizeof(b)), 58);
}

Test(bincode, summary_vec_lengths_beyond_input_are_errors)
{
	const struct katra_record *r = katra_sample_record(katra_sample_count() - 1);
	size_t n = katra_encoded_record_size(r);
	uint8_t *b = malloc(n);

	cr_assert_eq(r->type, KATRA_RECORD_SESSION_SUMMARY);
	enc(r, b, n);
	/* events_by_kind length follows tag + 4 u64 */
	assert_huge_len_rejected(b, n, 36);
	free(b);
}

Test(bincode, trailing_bytes_are_allowed)
{
	struct katra_record r = counter_rec(), d;
	uint8_t b[64];
	size_t n = enc(&r, b, sizeof(b));
	struct katra_arena a = { 0 };
	struct katra_decode_error e;

	memset(b + n, 0xee, sizeof(b) - n);
	cr_assert_eq(dec(b, sizeof(b), &d, &a, &e), 0);
	cr_assert_eq(d.u.counter.value, r.u.counter.value);
	katra_arena_free(&a);
}

/* The sample must cover every variant: the compatibility tests rely on it. */
Test(bincode, sample_covers_every_variant)
{
	bool scope[KATRA_SCOPE_COUNT] = { 0 }, phase[KATRA_PHASE_COUNT] = { 0 };
	bool conf[KATRA_CONFIDENCE_COUNT] = { 0 }, kind[KATRA_KIND_COUNT] = { 0 };
	bool dom[KATRA_RES_COUNT] = { 0 }, pay[KATRA_PAYLOAD_COUNT] = { 0 };
	bool drop[KATRA_DROP_SOURCE_COUNT] = { 0 }, ep[KATRA_EPOCH_KIND_COUNT] = { 0 };
	bool ctr[KATRA_COUNTER_KIND_COUNT] = { 0 }, rec[KATRA_RECORD_COUNT] = { 0 };
	bool span_none = false, span_some = false, causes_empty = false, causes_some = false;
	size_t i;

	for (i = 0; i < katra_sample_count(); i++) {
		const struct katra_record *r = katra_sample_record(i);
		const struct katra_event *e = &r->u.event;

		rec[r->type] = true;
		if (r->type == KATRA_RECORD_EPOCH_MARKER)
			ep[r->u.epoch.kind] = true;
		if (r->type == KATRA_RECORD_COUNTER)
			ctr[r->u.counter.kind] = true;
		if (r->type != KATRA_RECORD_EVENT)
			continue;
		scope[e->scope] = phase[e->phase] = conf[e->confidence] = true;
		kind[e->kind] = dom[e->resource.domain] = pay[e->payload.type] = true;
		if (e->payload.type == KATRA_PAYLOAD_DROP)
			drop[e->payload.u.drop.source] = true;
		span_none |= !e->span_id.present;
		span_some |= e->span_id.present;
		causes_empty |= e->causes.len == 0;
		causes_some |= e->causes.len > 0;
	}
#define ALL(arr)                                                                 \
	for (i = 0; i < sizeof(arr) / sizeof(arr[0]); i++)                       \
		cr_assert(arr[i], #arr " variant %zu missing from the sample", i)
	ALL(scope);
	ALL(phase);
	ALL(conf);
	ALL(kind);
	ALL(dom);
	ALL(pay);
	ALL(drop);
	ALL(ep);
	ALL(ctr);
	ALL(rec);
#undef ALL
	cr_assert(span_none && span_some && causes_empty && causes_some);
	cr_assert_eq(katra_sample_record(katra_sample_count() - 1)->type,
		     KATRA_RECORD_SESSION_SUMMARY);
}

/* Same process, same bytes: the sample is deterministic. */
Test(bincode, sample_is_deterministic)
{
	struct tbuf a = { 0 }, b = { 0 };

	tbuf_sample_trace(&a, NULL);
	tbuf_sample_trace(&b, NULL);
	cr_assert_eq(a.len, b.len);
	cr_assert_eq(memcmp(a.p, b.p, a.len), 0);
	tbuf_free(&a);
	tbuf_free(&b);
}

/* Symbols: tag 7, module u32, then Vec<SymbolName> (len u64, each address
 * u64, name String, offset u64), and back */
Test(bincode, symbols_record_bytes_and_round_trip)
{
	static const struct katra_symbol_name names[] = {
		{ 0x1404, { "main", 4 }, 0x24 },
		{ 0x2000, { "f", 1 }, 0 },
	};
	struct katra_record r = { .type = KATRA_RECORD_SYMBOLS }, back;
	struct katra_decode_error e;
	struct katra_arena a = { 0 };
	uint8_t got[128], want[128];

	r.u.symbols = (struct katra_symbols){ 3, names, 2 };
	size_t n = enc(&r, got, sizeof(got));
	size_t wn = unhex("07000000 03000000 0200000000000000"
			  " 0414000000000000 0400000000000000 6d61696e 2400000000000000"
			  " 0020000000000000 0100000000000000 66 0000000000000000", want);
	cr_assert_eq(n, wn);
	assert_bytes(got, want, n, "Symbols");
	cr_assert_eq(dec(got, n, &back, &a, &e), 0);
	cr_assert_eq(back.type, KATRA_RECORD_SYMBOLS);
	cr_assert_eq(back.u.symbols.module, 3);
	cr_assert_eq(back.u.symbols.names_len, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct katra_symbol_name *s = &back.u.symbols.names[i];
		cr_assert_eq(s->address, names[i].address);
		cr_assert_eq(s->offset, names[i].offset);
		cr_assert_eq(s->name.len, names[i].name.len);
		cr_assert(!memcmp(s->name.ptr, names[i].name.ptr, s->name.len));
	}
	/* a names length past the input is an error, not an allocation */
	got[8] = 0xff;
	cr_assert_neq(dec(got, n, &back, &a, &e), 0);
	katra_arena_free(&a);
}
