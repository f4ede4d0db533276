// SPDX-License-Identifier: GPL-2.0-only
/* Losses the recorder counts in the trace: program runs the kernel skipped
 * (DropSource::ProgramSkipped, instance = the probe's index in
 * probes_attached) as Drop events since the previous one, and their totals
 * in the summary's drops, which add up to dropped_events. */
#include "pipeline_test_util.h"

#define START 1000000000ull

Test(losses, skipped_program_runs_are_drop_events_and_summary_totals)
{
	struct katra_reader *r;
	struct katra_record rec;
	struct pl_trace t;
	uint64_t drop_count[2] = { 0 }, summary_count[2] = { 0 };
	size_t ndrop = 0;
	bool summary = false;
	char msg[256];

	pl_trace_open(&t, 1, START);
	pipeline_queue_skipped(&t.pl, START + 100, 3, 5);
	pipeline_queue_skipped(&t.pl, START + 200, 3, 2);
	pipeline_queue_skipped(&t.pl, START + 300, 0, 1);
	pipeline_queue_skipped(&t.pl, START + 300, PIPELINE_SKIPPED_MAX, 9); /* no such probe */
	pl_trace_finish(&t, START + 500);

	cr_assert_eq(katra_reader_open(&r, t.path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD) {
		if (rec.type == KATRA_RECORD_SESSION_SUMMARY) {
			const struct katra_summary *s = &rec.u.summary;
			summary = true;
			cr_assert_eq(s->dropped_events, 8);
			cr_assert_eq(s->drops_len, 2);
			for (size_t i = 0; i < s->drops_len; i++) {
				cr_assert_eq(s->drops[i].source, KATRA_DROP_PROGRAM_SKIPPED);
				cr_assert(s->drops[i].instance == 0 || s->drops[i].instance == 3);
				summary_count[s->drops[i].instance == 3] = s->drops[i].count;
			}
			continue;
		}
		if (rec.type != KATRA_RECORD_EVENT || rec.u.event.kind != KATRA_KIND_DROP)
			continue;
		const __typeof__(rec.u.event.payload.u.drop) *d = &rec.u.event.payload.u.drop;
		cr_assert_eq(d->source, KATRA_DROP_PROGRAM_SKIPPED);
		cr_assert(d->instance == 0 || d->instance == 3);
		drop_count[d->instance == 3] += d->count;
		ndrop++;
	}
	katra_reader_close(r);
	cr_assert(summary);
	cr_assert_eq(ndrop, 3, "one Drop per report");
	cr_assert_eq(drop_count[1], 7);
	cr_assert_eq(drop_count[0], 1);
	cr_assert_eq(summary_count[1], 7);
	cr_assert_eq(summary_count[0], 1);
	cr_assert_str_eq(katra_drop_source_name(KATRA_DROP_PROGRAM_SKIPPED), "ProgramSkipped");
	temp_dir_remove(t.dir);
}
