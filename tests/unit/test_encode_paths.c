// SPDX-License-Identifier: GPL-2.0-only
/* The Event encoder's fast path (katra_encode_event_record: one capacity
 * check, causes stored one by one) writes the bytes of the general record
 * encoder, for every payload of the sample trace and any number of causes;
 * a buffer too small for its bound takes the checked path, with the same
 * bytes or -ENOSPC. */
#include "format_test_util.h"
#include "format/encode_int.h"

static void assert_event_bytes(const struct katra_event *ev, const char *what)
{
	struct katra_record r = { .type = KATRA_RECORD_EVENT };
	uint8_t want[4096], got[4096];
	long n, m;

	r.u.event = *ev;
	n = katra_encode_record(&r, want, sizeof(want));
	cr_assert_gt(n, 0, "%s", what);
	memset(got, 0xa5, sizeof(got));
	m = katra_encode_event_record(ev, got, sizeof(got));
	cr_assert_eq(m, n, "%s: %ld bytes, the general encoder %ld", what, m, n);
	cr_assert_arr_eq(got, want, (size_t)n, "%s: the bytes differ", what);
	/* exactly its size: below the fast path's bound, checked field by field */
	memset(got, 0xa5, sizeof(got));
	cr_assert_eq(katra_encode_event_record(ev, got, (size_t)n), n, "%s", what);
	cr_assert_arr_eq(got, want, (size_t)n, "%s: checked path", what);
	cr_assert_eq(katra_encode_event_record(ev, got, (size_t)n - 1), -ENOSPC, "%s", what);
}

Test(encode_paths, the_fast_path_writes_the_general_encoders_bytes)
{
	uint64_t causes[9] = { 7, 0x0102030405060708ull, 9, UINT64_MAX, 11, 12, 13, 14, 15 };
	size_t events = 0;
	char what[64];

	for (size_t i = 0; i < katra_sample_count(); i++) {
		const struct katra_record *r = katra_sample_record(i);
		if (r->type != KATRA_RECORD_EVENT)
			continue;
		events++;
		snprintf(what, sizeof(what), "sample %zu", i);
		assert_event_bytes(&r->u.event, what);
		struct katra_event ev = r->u.event;
		for (uint64_t nc = 0; nc <= 9; nc++) {
			ev.causes = (struct katra_u64_vec){ causes, nc };
			snprintf(what, sizeof(what), "sample %zu with %u causes", i, (unsigned)nc);
			assert_event_bytes(&ev, what);
		}
	}
	cr_assert_gt(events, 20, "the sample trace holds events of every payload");
}

/* The writer's per-event path (katra_writer_append_event) encodes an
 * event_plain() event with no check per field into the PLAIN_EVENT_BOUND
 * bytes it made sure of: every such payload of the sample trace, with every
 * Option set and 4 causes, the most it allows, stays within the bound (a
 * payload that grows past it must leave event_plain or raise the bound). */
Test(encode_paths, a_plain_event_fits_the_writers_per_event_bound)
{
	uint64_t causes[4] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	bool seen[KATRA_PAYLOAD_COUNT] = { false };
	size_t plain = 0;
	uint8_t out[4096];

	for (size_t i = 0; i < katra_sample_count(); i++) {
		const struct katra_record *r = katra_sample_record(i);
		struct katra_record big;
		long n;

		if (r->type != KATRA_RECORD_EVENT)
			continue;
		big = *r;
		big.u.event.causes = (struct katra_u64_vec){ causes, 4 };
		big.u.event.span_id = (struct katra_opt_u64){ true, UINT64_MAX };
		big.u.event.request_id = (struct katra_opt_u64){ true, UINT64_MAX };
		big.u.event.cost_estimate_ns = (struct katra_opt_u64){ true, UINT64_MAX };
		if (!event_plain(&big.u.event))
			continue;
		plain++;
		seen[big.u.event.payload.type] = true;
		n = katra_encode_record(&big, out, sizeof(out));
		cr_assert_gt(n, 0);
		cr_assert_leq((size_t)n, PLAIN_EVENT_BOUND, "sample %zu (payload %u): %ld bytes", i,
			      (unsigned)big.u.event.payload.type, n);
		cr_assert_eq(encode_event_plain(&big.u.event, out), (size_t)n, "sample %zu", i);
	}
	cr_assert_gt(plain, 20);
	/* the largest fixed-size payloads are among them */
	cr_assert(seen[KATRA_PAYLOAD_D3D12] && seen[KATRA_PAYLOAD_MEMORY_MAP] &&
		  seen[KATRA_PAYLOAD_TASK_FORK]);
}
