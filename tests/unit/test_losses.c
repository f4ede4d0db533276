// SPDX-License-Identifier: GPL-2.0-only
/* Losses the recorder counts in the trace: program runs the kernel skipped
 * (DropSource::ProgramSkipped, instance = the probe's index in
 * probes_attached) as Drop events since the previous one, and their totals
 * in the summary's drops, which add up to dropped_events. */
#include "pipeline_test_util.h"
#include "record/recorder.h"

#define START 1000000000ull

/* What a trace says it lost: its Drop events and its summary's drops. */
struct drops_seen {
	bool summary;
	uint64_t dropped_events;
	struct katra_drop_count sum[8], ev[16];
	size_t nsum, nev;
};

static void read_drops(const char *path, struct drops_seen *d)
{
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];

	memset(d, 0, sizeof(*d));
	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD) {
		if (rec.type == KATRA_RECORD_SESSION_SUMMARY) {
			const struct katra_summary *s = &rec.u.summary;
			d->summary = true;
			d->dropped_events = s->dropped_events;
			for (size_t i = 0; i < s->drops_len && d->nsum < 8; i++)
				d->sum[d->nsum++] = s->drops[i];
		} else if (rec.type == KATRA_RECORD_EVENT && rec.u.event.kind == KATRA_KIND_DROP &&
			   d->nev < 16) {
			const __typeof__(rec.u.event.payload.u.drop) *p = &rec.u.event.payload.u.drop;
			d->ev[d->nev++] = (struct katra_drop_count){ p->source, p->instance, p->count };
		}
	}
	katra_reader_close(r);
	cr_assert(d->summary);
}

Test(losses, skipped_program_runs_are_drop_events_and_summary_totals)
{
	struct drops_seen d;
	struct pl_trace t;
	uint64_t drop_count[2] = { 0 }, summary_count[2] = { 0 };

	pl_trace_open(&t, 1, START);
	pipeline_queue_skipped(&t.pl, START + 100, 3, 5);
	pipeline_queue_skipped(&t.pl, START + 200, 3, 2);
	pipeline_queue_skipped(&t.pl, START + 300, 0, 1);
	pipeline_queue_skipped(&t.pl, START + 300, PIPELINE_SKIPPED_MAX, 9); /* no such probe */
	pl_trace_finish(&t, START + 500);

	read_drops(t.path, &d);
	cr_assert_eq(d.dropped_events, 8);
	cr_assert_eq(d.nsum, 2);
	for (size_t i = 0; i < d.nsum; i++) {
		cr_assert_eq(d.sum[i].source, KATRA_DROP_PROGRAM_SKIPPED);
		cr_assert(d.sum[i].instance == 0 || d.sum[i].instance == 3);
		summary_count[d.sum[i].instance == 3] = d.sum[i].count;
	}
	for (size_t i = 0; i < d.nev; i++) {
		cr_assert_eq(d.ev[i].source, KATRA_DROP_PROGRAM_SKIPPED);
		cr_assert(d.ev[i].instance == 0 || d.ev[i].instance == 3);
		drop_count[d.ev[i].instance == 3] += d.ev[i].count;
	}
	cr_assert_eq(d.nev, 3, "one Drop per report");
	cr_assert_eq(drop_count[1], 7);
	cr_assert_eq(drop_count[0], 1);
	cr_assert_eq(summary_count[1], 7);
	cr_assert_eq(summary_count[0], 1);
	cr_assert_str_eq(katra_drop_source_name(KATRA_DROP_PROGRAM_SKIPPED), "ProgramSkipped");
	temp_dir_remove(t.dir);
}

/* Call stacks the probe lost (DropSource::Stacks, instance 0 the slot table,
 * 1 the stack ring): Drop events since the previous report, totals in the
 * summary, in dropped_events; katra-record's --max-loss does not read them
 * (no event is missing). */
Test(losses, lost_stacks_are_drop_events_and_summary_totals)
{
	struct drops_seen d;
	struct pl_trace t;
	uint64_t ev[2] = { 0 }, sum[2] = { 0 };
	struct katra_record_result res = { 0 };

	pl_trace_open(&t, 1, START);
	pipeline_queue_stacks_lost(&t.pl, START + 100, 1, 40);
	pipeline_queue_stacks_lost(&t.pl, START + 200, 1, 2);
	pipeline_queue_stacks_lost(&t.pl, START + 200, 0, 3);
	pipeline_queue_stacks_lost(&t.pl, START + 300, 2, 9); /* no such instance */
	pl_trace_finish(&t, START + 500);

	read_drops(t.path, &d);
	cr_assert_eq(d.dropped_events, 45);
	cr_assert_eq(d.nev, 3, "one Drop per report");
	for (size_t i = 0; i < d.nev; i++) {
		cr_assert_eq(d.ev[i].source, KATRA_DROP_STACKS);
		cr_assert_lt(d.ev[i].instance, 2);
		ev[d.ev[i].instance] += d.ev[i].count;
	}
	cr_assert_eq(d.nsum, 2);
	for (size_t i = 0; i < d.nsum; i++) {
		cr_assert_eq(d.sum[i].source, KATRA_DROP_STACKS);
		cr_assert_lt(d.sum[i].instance, 2);
		sum[d.sum[i].instance] = d.sum[i].count;
	}
	cr_assert(ev[0] == 3 && ev[1] == 42 && sum[0] == 3 && sum[1] == 42);
	katra_record_split_losses(&res, d.sum, d.nsum);
	cr_assert_eq(res.stacks_lost, 45);
	cr_assert_eq(res.events_lost + res.links_lost + res.runs_skipped, 0);
	cr_assert_str_eq(katra_drop_source_name(KATRA_DROP_STACKS), "Stacks");
	temp_dir_remove(t.dir);
}

/* A record the recorder cannot decode is lost: counted as a RingReserve drop
 * of the ring it was read from, in a Drop event and in the summary's drops
 * (it went to stderr only). */
Test(losses, malformed_ring_records_are_ring_drops_of_their_ring)
{
	struct drops_seen d;
	struct pl_trace t;
	uint32_t junk[4] = { 99, 1, 0, 0 };          /* no such type */
	struct katra_wire_head short_sw = { KATRA_EV_SWITCH, 1, 7, 7, START + 50 };

	pl_trace_open(&t, 2, START);
	t.pl.reading_ring = 1;
	pipeline_on_record(&t.pl, junk, sizeof(junk));
	pipeline_on_record(&t.pl, &short_sw, sizeof(short_sw)); /* shorter than a switch */
	cr_assert_eq(t.pl.bad_records, 2);
	pipeline_queue_losses(&t.pl, START + 100);
	pl_trace_finish(&t, START + 500);

	read_drops(t.path, &d);
	cr_assert_eq(d.dropped_events, 2);
	cr_assert_eq(d.nsum, 1);
	cr_assert_eq(d.sum[0].source, KATRA_DROP_RING_RESERVE);
	cr_assert_eq(d.sum[0].instance, 1);
	cr_assert_eq(d.sum[0].count, 2);
	cr_assert_eq(d.nev, 1, "a Drop event counts them");
	cr_assert_eq(d.ev[0].source, KATRA_DROP_RING_RESERVE);
	cr_assert_eq(d.ev[0].instance, 1);
	cr_assert_eq(d.ev[0].count, 2);
	temp_dir_remove(t.dir);
}
