// SPDX-License-Identifier: GPL-2.0-only
/* The verifier: a passing and a failing trace for each rule, asserting the
 * exact problem line (which names the seq and the byte offset). */
#include <inttypes.h>

#include "format_test_util.h"

#define MAX_LINES 16

struct lines {
	char l[MAX_LINES][512];
	size_t n;
	size_t calls;
};

static void collect(void *ctx, const char *line)
{
	struct lines *ls = ctx;

	ls->calls++;
	if (ls->n < MAX_LINES)
		snprintf(ls->l[ls->n++], sizeof(ls->l[0]), "%s", line);
}

/* Verifies recs framed after the sample header; offsets[i] = record i. */
static int verify_recs(const struct katra_record *recs, size_t n, size_t *offsets,
		       struct lines *ls, struct katra_verify_report *rep)
{
	struct tbuf b = { 0 };
	struct katra_reader *r;
	char msg[300];
	int rc;

	memset(ls, 0, sizeof(*ls));
	tbuf_trace(&b, recs, n, offsets);
	cr_assert_eq(katra_reader_open_mem(&r, b.p, b.len, msg, sizeof(msg)), 0, "%s", msg);
	rc = katra_verify_reader(r, collect, ls, 0, rep);
	katra_reader_close(r);
	tbuf_free(&b);
	return rc;
}

/* recs[0..n) plus a summary that matches them. */
static int verify_with_summary(struct katra_record *recs, size_t n, size_t *offsets,
			       struct lines *ls, struct katra_verify_report *rep)
{
	struct katra_kind_count kinds[KATRA_KIND_COUNT];

	recs[n] = mk_summary(recs, n, kinds);
	return verify_recs(recs, n + 1, offsets, ls, rep);
}

static void assert_valid(struct katra_record *recs, size_t n)
{
	struct lines ls;
	struct katra_verify_report rep;
	size_t offsets[32];
	int rc = verify_with_summary(recs, n, offsets, &ls, &rep);

	cr_assert_eq(rc, 0, "expected valid, first problem: %s", ls.n ? ls.l[0] : "(none)");
	cr_assert_eq(rep.problems, 0);
	cr_assert_eq(rep.records, n + 1);
	cr_assert(rep.has_summary);
	cr_assert_not(rep.truncated);
}

/* Exactly one problem, with exactly this line. */
static void assert_one_problem(struct katra_record *recs, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static size_t g_off[32]; /* offsets of the last verify_with_summary call */

static void assert_one_problem(struct katra_record *recs, size_t n, const char *fmt, ...)
{
	struct lines ls;
	struct katra_verify_report rep;
	char want[512];
	va_list ap;
	int rc = verify_with_summary(recs, n, g_off, &ls, &rep);

	(void)rc;
	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	cr_assert_eq(rc, 1);
	cr_assert_eq(rep.problems, 1, "%" PRIu64 " problems, first: %s", rep.problems,
		     ls.n ? ls.l[0] : "(none)");
	cr_assert_eq(ls.calls, 1);
	cr_assert_str_eq(ls.l[0], want);
}

/* Precomputes the offsets the trace will have (they depend only on sizes). */
static size_t off_of(struct katra_record *recs, size_t n, size_t i)
{
	struct lines ls;
	struct katra_verify_report rep;

	verify_with_summary(recs, n, g_off, &ls, &rep);
	return g_off[i];
}

#define EV(seq, ts, tid) mk_event(seq, ts, tid, KATRA_PHASE_INSTANT, -1)
#define BEGIN(seq, ts, tid, span) mk_event(seq, ts, tid, KATRA_PHASE_BEGIN, span)
#define END(seq, ts, tid, span) mk_event(seq, ts, tid, KATRA_PHASE_END, span)

/* ---- the sample and the header rules ---- */

Test(verify, sample_trace_is_valid)
{
	char dir[64], path[128];
	struct lines ls = { 0 };
	struct katra_verify_report rep;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/s.ktrc", dir);
	cr_assert_eq(katra_sample_write(path), 0);
	cr_assert_eq(katra_verify_path(path, collect, &ls, 0, &rep), 0, "first problem: %s",
		     ls.n ? ls.l[0] : "(none)");
	cr_assert_eq(rep.records, katra_sample_count());
	cr_assert_eq(rep.problems, 0);
	cr_assert(rep.has_summary);
	temp_dir_remove(dir);
}

static void verify_patched_file(size_t at, const void *bytes, size_t n, const char *want)
{
	char dir[64], path[128];
	struct tbuf b = { 0 };
	struct lines ls = { 0 };
	struct katra_verify_report rep;

	tbuf_sample_trace(&b, NULL);
	memcpy(b.p + at, bytes, n);
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/bad.ktrc", dir);
	write_file(path, b.p, b.len);
	cr_assert_eq(katra_verify_path(path, collect, &ls, 0, &rep), 1);
	cr_assert_eq(rep.problems, 1);
	cr_assert_eq(ls.calls, 1);
	cr_assert_str_eq(ls.l[0], want);
	temp_dir_remove(dir);
	tbuf_free(&b);
}

Test(verify, wrong_magic)
{
	verify_patched_file(0, "katratrc", 8, "not a Katra trace: wrong magic: expected "
			    "\"KATRATRC\" (4b41545241545243), found 6b61747261747263");
}

Test(verify, wrong_version)
{
	uint32_t v = 0;

	verify_patched_file(8, &v, 4, "unsupported format version: expected 1, found 0");
}

Test(verify, wrong_schema_hash)
{
	uint64_t h = katra_schema_hash ^ 1;
	char want[200];

	snprintf(want, sizeof(want), "schema hash mismatch: expected 0x%016" PRIx64
		 ", found 0x%016" PRIx64, katra_schema_hash, h);
	verify_patched_file(20, &h, 8, want);
}

Test(verify, unreadable_path_is_errno)
{
	struct katra_verify_report rep;

	cr_assert_eq(katra_verify_path("/nonexistent-katra/x.ktrc", NULL, NULL, 0, &rep),
		     -ENOENT);
}

/* ---- seq ---- */

Test(verify, seq_strictly_increasing_pass)
{
	struct katra_record r[8] = { EV(1, 10, 1), mk_counter(2, 11), mk_epoch(5, 12, "e"),
				     EV(100, 13, 1) };

	assert_valid(r, 4);
}

Test(verify, seq_going_back_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), EV(3, 11, 1), mk_counter(2, 12) };

	assert_one_problem(r, 3, "seq 2 at byte %zu: not greater than the previous seq 3 at "
			   "byte %zu", off_of(r, 3, 2), off_of(r, 3, 1));
}

Test(verify, duplicate_seq_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), mk_epoch(2, 11, "x"), EV(2, 12, 1) };

	assert_one_problem(r, 3, "seq 2 at byte %zu: duplicate seq", off_of(r, 3, 2));
}

Test(verify, duplicate_of_older_seq_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), EV(2, 11, 1), EV(3, 12, 1), EV(1, 13, 1) };

	assert_one_problem(r, 4, "seq 1 at byte %zu: duplicate seq", off_of(r, 4, 3));
}

/* ---- causes ---- */

Test(verify, causes_to_earlier_seqs_pass)
{
	static const uint64_t c[] = { 1, 4, 1 };
	struct katra_record r[8] = { EV(1, 10, 1), mk_counter(4, 11), EV(9, 12, 2) };

	r[2].u.event.causes = (struct katra_u64_vec){ c, 3 };
	assert_valid(r, 3);
}

Test(verify, cause_to_later_seq_fails)
{
	static const uint64_t c[] = { 7 };
	struct katra_record r[8] = { EV(1, 10, 1), EV(5, 11, 1), EV(7, 12, 1) };

	r[1].u.event.causes = (struct katra_u64_vec){ c, 1 };
	assert_one_problem(r, 3, "seq 5 at byte %zu: cause 7 is not an earlier seq",
			   off_of(r, 3, 1));
}

Test(verify, cause_to_itself_fails)
{
	static const uint64_t c[] = { 5 };
	struct katra_record r[8] = { EV(1, 10, 1), EV(5, 11, 1) };

	r[1].u.event.causes = (struct katra_u64_vec){ c, 1 };
	assert_one_problem(r, 2, "seq 5 at byte %zu: cause 5 is not an earlier seq",
			   off_of(r, 2, 1));
}

Test(verify, cause_to_missing_seq_fails)
{
	static const uint64_t c[] = { 1, 2 };
	struct katra_record r[8] = { EV(1, 10, 1), EV(3, 11, 1) };

	r[1].u.event.causes = (struct katra_u64_vec){ c, 2 };
	assert_one_problem(r, 2, "seq 3 at byte %zu: cause 2 refers to no record",
			   off_of(r, 2, 1));
}

/* ---- spans ---- */

Test(verify, balanced_spans_pass)
{
	/* same span id on two threads is two spans; a span id may be reused */
	struct katra_record r[8] = { BEGIN(1, 10, 1, 5), BEGIN(2, 10, 2, 5), END(3, 11, 2, 5),
				     END(4, 12, 1, 5), BEGIN(5, 13, 1, 5), END(6, 14, 1, 5) };

	assert_valid(r, 6);
}

Test(verify, end_without_begin_fails)
{
	struct katra_record r[8] = { BEGIN(1, 10, 1, 5), END(2, 11, 1, 5), END(3, 12, 2, 5) };

	assert_one_problem(r, 3, "seq 3 at byte %zu: End of span 5 on thread 2 without its "
			   "Begin", off_of(r, 3, 2));
}

Test(verify, begin_never_ended_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), BEGIN(2, 11, 1, 8), BEGIN(3, 12, 1, 9),
				     END(4, 13, 1, 9) };

	assert_one_problem(r, 4, "seq 2 at byte %zu: Begin of span 8 on thread 1 never ended",
			   off_of(r, 4, 1));
}

Test(verify, span_begun_twice_fails)
{
	struct katra_record r[8] = { BEGIN(1, 10, 1, 8), BEGIN(2, 11, 1, 8), END(3, 12, 1, 8) };

	assert_one_problem(r, 3, "seq 2 at byte %zu: span 8 on thread 1 begun twice (first "
			   "Begin seq 1 at byte %zu)", off_of(r, 3, 1), off_of(r, 3, 0));
}

Test(verify, begin_without_span_id_fails)
{
	struct katra_record r[8] = { BEGIN(1, 10, 1, -1) };

	assert_one_problem(r, 1, "seq 1 at byte %zu: Begin without a span_id", off_of(r, 1, 0));
}

/* ---- timestamps ---- */

Test(verify, timestamps_per_thread_pass)
{
	/* equal is fine; another thread may be earlier */
	struct katra_record r[8] = { EV(1, 100, 1), EV(2, 100, 1), EV(3, 50, 2), EV(4, 101, 1),
				     EV(5, 60, 2) };

	assert_valid(r, 5);
}

Test(verify, timestamp_going_back_within_thread_fails)
{
	struct katra_record r[8] = { EV(1, 100, 1), EV(2, 50, 2), EV(3, 99, 1) };

	assert_one_problem(r, 3, "seq 3 at byte %zu: ts_mono_ns 99 goes back in time on thread 1 "
			   "(previous 100 at byte %zu)", off_of(r, 3, 2), off_of(r, 3, 0));
}

/* ---- the SessionSummary ---- */

Test(verify, summary_not_last_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), EV(2, 11, 1) };
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct lines ls;
	struct katra_verify_report rep;
	size_t offs[8];
	char want[300];

	r[2] = r[1];
	r[1] = mk_summary(r, 1, kinds);
	cr_assert_eq(verify_recs(r, 3, offs, &ls, &rep), 1);
	cr_assert_eq(rep.problems, 1, "first: %s", ls.l[0]);
	snprintf(want, sizeof(want), "record 2 (seq 2) at byte %zu follows the SessionSummary at byte "
		 "%zu (it must be last)", offs[2], offs[1]);
	cr_assert_str_eq(ls.l[0], want);
}

Test(verify, missing_summary_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), EV(2, 11, 1) };
	struct lines ls;
	struct katra_verify_report rep;
	size_t offs[8];
	struct tbuf b = { 0 };
	char want[300];

	tbuf_trace(&b, r, 2, NULL);
	cr_assert_eq(verify_recs(r, 2, offs, &ls, &rep), 1);
	cr_assert_eq(rep.problems, 1);
	cr_assert_not(rep.has_summary);
	snprintf(want, sizeof(want), "no SessionSummary: the trace ends cleanly at byte %zu after "
		 "2 records but the capture did not finish", b.len);
	cr_assert_str_eq(ls.l[0], want);
	tbuf_free(&b);
}

/* Builds [events..., summary] and lets the caller spoil the summary. */
struct sum_case {
	struct katra_record r[8];
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_drop_count drops[2];
	size_t offs[8];
	struct lines ls;
	struct katra_verify_report rep;
};

static void sum_case_init(struct sum_case *c)
{
	memset(c, 0, sizeof(*c));
	c->r[0] = EV(1, 10, 1);
	c->r[1] = mk_epoch(2, 11, "e");
	c->r[2] = mk_counter(3, 12);
	c->r[3] = EV(4, 13, 1);
	c->r[3].u.event.kind = KATRA_KIND_DROP;
	c->r[4] = EV(5, 14, 1);
	c->r[5] = mk_summary(c->r, 5, c->kinds);
	c->drops[0] = (struct katra_drop_count){ KATRA_DROP_RING_RESERVE, 0, 5 };
	c->drops[1] = (struct katra_drop_count){ KATRA_DROP_REORDER, 1, 2 };
	c->r[5].u.summary.drops = c->drops;
	c->r[5].u.summary.drops_len = 2;
	c->r[5].u.summary.dropped_events = 7;
}

static void sum_case_run(struct sum_case *c, const char *what_fmt, uint64_t a, uint64_t b)
{
	char want[300], tail[200];

	cr_assert_eq(verify_recs(c->r, 6, c->offs, &c->ls, &c->rep), 1);
	cr_assert_eq(c->rep.problems, 1, "first: %s", c->ls.l[0]);
	snprintf(tail, sizeof(tail), what_fmt, a, b);
	snprintf(want, sizeof(want), "SessionSummary at byte %zu: %s", c->offs[5], tail);
	cr_assert_str_eq(c->ls.l[0], want);
}

Test(verify, summary_counts_match_pass)
{
	struct sum_case c;

	sum_case_init(&c);
	cr_assert_eq(verify_recs(c.r, 6, c.offs, &c.ls, &c.rep), 0, "first: %s", c.ls.l[0]);
	cr_assert_eq(c.rep.events, 3);
}

Test(verify, summary_event_count_mismatch)
{
	struct sum_case c;

	sum_case_init(&c);
	c.r[5].u.summary.event_count = 4;
	sum_case_run(&c, "event_count %" PRIu64 " but %" PRIu64 " events precede it", 4, 3);
}

Test(verify, summary_epoch_count_mismatch)
{
	struct sum_case c;

	sum_case_init(&c);
	c.r[5].u.summary.epoch_count = 0;
	sum_case_run(&c, "epoch_count %" PRIu64 " but %" PRIu64 " EpochMarkers precede it", 0, 1);
}

Test(verify, summary_counter_count_mismatch)
{
	struct sum_case c;

	sum_case_init(&c);
	c.r[5].u.summary.counter_count = 2;
	sum_case_run(&c, "counter_count %" PRIu64 " but %" PRIu64 " Counters precede it", 2, 1);
}

Test(verify, summary_events_by_kind_mismatch)
{
	struct sum_case c;

	sum_case_init(&c);
	/* kinds[0] is Syscall x2, kinds[1] Drop x1 */
	cr_assert_eq(c.kinds[1].kind, KATRA_KIND_DROP);
	c.kinds[1].count = 3;
	sum_case_run(&c, "events_by_kind says %" PRIu64 " Drop events but %" PRIu64
		     " precede it", 3, 1);
}

Test(verify, summary_events_by_kind_missing_kind)
{
	struct sum_case c;

	sum_case_init(&c);
	c.r[5].u.summary.events_by_kind_len = 1; /* drops the Drop entry */
	sum_case_run(&c, "events_by_kind says %" PRIu64 " Drop events but %" PRIu64
		     " precede it", 0, 1);
}

Test(verify, summary_dropped_events_mismatch)
{
	struct sum_case c;

	sum_case_init(&c);
	c.r[5].u.summary.dropped_events = 8;
	sum_case_run(&c, "dropped_events %" PRIu64 " but drops add up to %" PRIu64, 8, 7);
}

/* ---- damaged files ---- */

Test(verify, truncated_file_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), BEGIN(2, 11, 1, 3), EV(3, 12, 1) };
	struct tbuf b = { 0 };
	size_t offs[8];
	struct katra_reader *rd;
	struct lines ls = { 0 };
	struct katra_verify_report rep;
	char msg[300], want[300];

	tbuf_trace(&b, r, 3, offs);
	cr_assert_eq(katra_reader_open_mem(&rd, b.p, b.len - 1, msg, sizeof(msg)), 0);
	cr_assert_eq(katra_verify_reader(rd, collect, &ls, 0, &rep), 1);
	katra_reader_close(rd);
	/* the open span is not reported: the cut explains it */
	cr_assert_eq(rep.problems, 1, "first: %s", ls.l[0]);
	cr_assert(rep.truncated);
	cr_assert_eq(rep.records, 2);
	snprintf(want, sizeof(want), "ends mid-record at byte %zu after 2 complete records; "
		 "no SessionSummary", offs[2]);
	cr_assert_str_eq(ls.l[0], want);
	tbuf_free(&b);
}

Test(verify, corrupt_length_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), EV(2, 11, 1) };
	struct tbuf b = { 0 };
	size_t offs[8];
	struct katra_reader *rd;
	struct lines ls = { 0 };
	struct katra_verify_report rep;
	char msg[300], want[300];
	uint32_t bad = 0xffffffffu;

	tbuf_trace(&b, r, 2, offs);
	memcpy(b.p + offs[1], &bad, 4);
	cr_assert_eq(katra_reader_open_mem(&rd, b.p, b.len, msg, sizeof(msg)), 0);
	cr_assert_eq(katra_verify_reader(rd, collect, &ls, 0, &rep), 1);
	katra_reader_close(rd);
	cr_assert_eq(rep.problems, 1);
	cr_assert_not(rep.truncated);
	snprintf(want, sizeof(want), "corrupt record length 4294967295 at byte %zu after 1 "
		 "complete records (limit 16777216)", offs[1]);
	cr_assert_str_eq(ls.l[0], want);
	tbuf_free(&b);
}

/* max_problems caps the callbacks; every problem is still counted. */
Test(verify, max_problems_caps_callbacks)
{
	struct katra_record r[8] = { EV(5, 10, 1), EV(4, 11, 1), EV(3, 12, 1), EV(2, 13, 1),
				     EV(1, 14, 1) };
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct tbuf b = { 0 };
	struct katra_reader *rd;
	struct lines ls = { 0 };
	struct katra_verify_report rep;
	char msg[300];

	r[5] = mk_summary(r, 5, kinds);
	tbuf_trace(&b, r, 6, NULL);
	cr_assert_eq(katra_reader_open_mem(&rd, b.p, b.len, msg, sizeof(msg)), 0);
	cr_assert_eq(katra_verify_reader(rd, collect, &ls, 2, &rep), 1);
	katra_reader_close(rd);
	cr_assert_eq(rep.problems, 4);
	cr_assert_eq(ls.calls, 2);
	tbuf_free(&b);
}

/* ---- the SHOULD rules of section 7: said, not counted as problems ---- */

Test(verify, summary_ids_that_disagree_with_the_events_are_advisories)
{
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_record r[5] = { EV(1, 10, 7), EV(2, 20, 8), EV(3, 30, 0) };
	struct katra_verify_report rep;
	struct lines ls;
	size_t off[8];

	r[1].u.event.process_id = 200; /* a ProcessInfo-like event of another process */
	r[2].u.event.confidence = KATRA_CONFIDENCE_INFERRED;
	r[3] = mk_summary(r, 3, kinds);
	cr_assert_eq(r[3].u.summary.threads_seen, 2, "thread 0 is no thread");
	cr_assert_eq(verify_recs(r, 4, off, &ls, &rep), 0, "first: %s", ls.n ? ls.l[0] : "");
	cr_assert_eq(rep.advisories, 0, "first: %s", ls.n ? ls.l[0] : "");

	r[3].u.summary.processes_seen--; /* the count left out the named-only process */
	r[3].u.summary.inferred_events = 0;
	cr_assert_eq(verify_recs(r, 4, off, &ls, &rep), 0, "an advisory is not a problem");
	cr_assert_eq(rep.problems, 0);
	cr_assert_eq(rep.advisories, 2);
	cr_assert_eq(ls.n, 2);
	cr_assert(strstr(ls.l[0], "note: SessionSummary") && strstr(ls.l[0], "inferred_events 0 "
		  "but the events hold 1"), "%s", ls.l[0]);
	cr_assert(strstr(ls.l[1], "processes_seen"), "%s", ls.l[1]);
}

/* ---- call stacks (rule 8) ---- */

static const struct katra_stack_frame stk_frames[] = { { 1, 0x1404 }, { 0, 0x7ffd0000 } };

static struct katra_record mk_module(uint32_t id)
{
	struct katra_record r = { .type = KATRA_RECORD_MODULE };

	r.u.module = (struct katra_module){ .id = id, .name = katra_cstr("game"),
					    .build_id = katra_cstr("") };
	return r;
}

static struct katra_record mk_stack(uint64_t id)
{
	struct katra_record r = { .type = KATRA_RECORD_STACK };

	r.u.stack = (struct katra_stack){ id, stk_frames, 2, { NULL, 0 }, false };
	return r;
}

static struct katra_record mk_stack_of(uint64_t stack)
{
	struct katra_record r = { .type = KATRA_RECORD_STACK_OF };

	r.u.stack_of = (struct katra_stack_of){ stack, 1, 1, 10, 5, KATRA_SITE_OFF_CPU };
	return r;
}

Test(verify, stacks_after_what_they_name_pass)
{
	struct katra_record r[8] = { EV(1, 10, 1), mk_module(1), mk_stack(1), mk_stack_of(1),
				     mk_stack_of(1) };

	assert_valid(r, 5);
}

Test(verify, stack_naming_a_later_module_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), mk_stack(1), mk_module(1), mk_stack_of(1) };

	assert_one_problem(r, 4, "Stack 1 at byte %zu: frame 0 names Module 1, not an earlier "
			   "one", off_of(r, 4, 1));
}

Test(verify, stack_of_an_unknown_stack_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), mk_module(1), mk_stack(1), mk_stack_of(2) };

	assert_one_problem(r, 4, "StackOf at byte %zu: Stack 2 is not an earlier one",
			   off_of(r, 4, 3));
}

Test(verify, symbols_of_an_unknown_module_fails)
{
	static const struct katra_symbol_name nm[] = { { 0x10, { "f", 1 }, 0 } };
	struct katra_record r[8] = { EV(1, 10, 1), mk_module(1), { .type = KATRA_RECORD_SYMBOLS },
				     { .type = KATRA_RECORD_SYMBOLS } };

	r[2].u.symbols = (struct katra_symbols){ 1, nm, 1 };
	r[3].u.symbols = (struct katra_symbols){ 2, nm, 1 };
	assert_one_problem(r, 4, "Symbols at byte %zu: Module 2 is not an earlier one",
			   off_of(r, 4, 3));
}

Test(verify, duplicate_module_id_fails)
{
	struct katra_record r[8] = { EV(1, 10, 1), mk_module(1), mk_module(1) };

	assert_one_problem(r, 3, "Module 1 at byte %zu: duplicate id", off_of(r, 3, 2));
}
