// SPDX-License-Identifier: GPL-2.0-only
/* The Event encoder's fast path (katra_encode_event_record: one capacity
 * check, causes stored one by one) writes the bytes of the general record
 * encoder, for every payload of the sample trace and any number of causes;
 * a buffer too small for its bound takes the checked path, with the same
 * bytes or -ENOSPC. */
#include "format_test_util.h"

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
