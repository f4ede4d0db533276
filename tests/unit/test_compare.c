// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay compare: kind lists, the alignment (against a brute-force
 * LCS), renumbering and both hashes on hand-built traces, and the whole
 * comparison of two trace files (first divergence found by the second
 * pass, text and JSON reports). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_test_util.h"
#include "replay/compare/align.h"
#include "replay/compare/cmp_trace.h"
#include "replay/compare/compare.h"
#include "replay/util/kindset.h"

/* ---- kind lists ---- */

Test(compare_kindset, names_case_and_spaces)
{
	kr_kindset s;
	char bad[32];

	cr_assert_eq(kr_kindset_parse("OffCpu, wakeup ,PAGEFAULT", &s, bad, sizeof(bad)), 0);
	cr_assert_eq(s, kr_kindset_bit(KATRA_KIND_OFF_CPU) | kr_kindset_bit(KATRA_KIND_WAKEUP) |
				kr_kindset_bit(KATRA_KIND_PAGE_FAULT));
	cr_assert_eq(kr_kindset_parse("none", &s, bad, sizeof(bad)), 0);
	cr_assert_eq(s, 0);
	cr_assert_eq(kr_kindset_parse("", &s, bad, sizeof(bad)), 0);
	cr_assert_eq(s, 0);
	cr_assert_eq(kr_kindset_parse("ProcessInfo", &s, bad, sizeof(bad)), 0);
	cr_assert_eq(s, kr_kindset_bit(KATRA_KIND_PROCESS_INFO));
}

Test(compare_kindset, kinds_past_64_are_in_the_set)
{
	kr_kindset s;
	char bad[32];

	cr_assert_geq(KATRA_KIND_GPU_JOB_DONE, 64);
	cr_assert_eq(kr_kindset_parse("GpuJobDone,Wakeup", &s, bad, sizeof(bad)), 0);
	cr_assert(kr_kindset_has(s, KATRA_KIND_GPU_JOB_DONE));
	cr_assert(kr_kindset_has(s, KATRA_KIND_WAKEUP));
	/* not wrapped onto the kind 64 below it */
	cr_assert(!kr_kindset_has(s, KATRA_KIND_GPU_JOB_DONE - 64));
}

Test(compare_kindset, unknown_and_empty_items_are_refused)
{
	kr_kindset s = 7;
	char bad[32];

	cr_assert_eq(kr_kindset_parse("OffCpu,Bogus", &s, bad, sizeof(bad)), -EINVAL);
	cr_assert_str_eq(bad, "Bogus");
	cr_assert_eq(s, 7, "untouched on error");
	cr_assert_eq(kr_kindset_parse("OffCpu,,Wakeup", &s, bad, sizeof(bad)), -EINVAL);
	cr_assert_str_eq(bad, "");
	cr_assert_eq(kr_kindset_parse("OffCpu,", &s, bad, sizeof(bad)), -EINVAL);
}

Test(compare_kindset, format_in_kind_order)
{
	char buf[256];

	kr_kindset_format(KR_CMP_DEFAULT_IGNORE, ",", buf, sizeof(buf));
	cr_assert_str_eq(buf, "OffCpu,Wakeup,PageFault,Epoch,Counter,Drop,ProcessInfo");
	kr_kindset_format(0, ",", buf, sizeof(buf));
	cr_assert_str_eq(buf, "none");
}

/* ---- alignment ---- */

static uint64_t lcs_dp(const uint16_t *a, size_t n, const uint16_t *b, size_t m)
{
	uint64_t *row = calloc(m + 1, sizeof(*row)), *prev = calloc(m + 1, sizeof(*prev)), r;

	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++)
			row[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1
						      : (row[j - 1] > prev[j] ? row[j - 1] : prev[j]);
		memcpy(prev, row, (m + 1) * sizeof(*row));
	}
	r = prev[m];
	free(row);
	free(prev);
	return r;
}

static struct kr_align_result align(const char *a, const char *b)
{
	uint16_t x[64], y[64];
	size_t n = strlen(a), m = strlen(b);
	struct kr_align_result r;

	for (size_t i = 0; i < n; i++)
		x[i] = (uint16_t)a[i];
	for (size_t i = 0; i < m; i++)
		y[i] = (uint16_t)b[i];
	cr_assert_eq(kr_align(x, n, y, m, &kr_align_default_limits, &r), 0);
	return r;
}

Test(compare_align, small_known_cases)
{
	struct kr_align_result r;

	r = align("ABCABBA", "CBABAC"); /* Myers' own example: LCS 4, D 5 */
	cr_assert_eq(r.matched, 4);
	cr_assert_eq(r.prefix, 0);
	cr_assert(r.exact);
	r = align("abcdef", "abcdef");
	cr_assert_eq(r.matched, 6);
	cr_assert_eq(r.prefix, 6);
	r = align("abcdef", "abcXdef");
	cr_assert_eq(r.matched, 6);
	cr_assert_eq(r.prefix, 3);
	r = align("", "abc");
	cr_assert_eq(r.matched, 0);
	cr_assert_eq(r.prefix, 0);
	r = align("abc", "");
	cr_assert_eq(r.matched, 0);
	r = align("aaaa", "aa");
	cr_assert_eq(r.matched, 2);
	cr_assert_eq(r.prefix, 2);
	r = align("xyz", "abc");
	cr_assert_eq(r.matched, 0);
}

Test(compare_align, exact_mode_equals_brute_force_lcs)
{
	uint16_t a[80], b[80];

	srand(12345);
	for (int t = 0; t < 500; t++) {
		size_t n = (size_t)(rand() % 80), m = (size_t)(rand() % 80);
		unsigned alphabet = 1 + (unsigned)(rand() % 4);
		struct kr_align_result r;

		for (size_t i = 0; i < n; i++)
			a[i] = (uint16_t)(rand() % alphabet);
		for (size_t i = 0; i < m; i++)
			b[i] = (uint16_t)(rand() % alphabet);
		cr_assert_eq(kr_align(a, n, b, m, &kr_align_default_limits, &r), 0);
		cr_assert(r.exact);
		cr_assert_eq(r.matched, lcs_dp(a, n, b, m), "case %d: %llu", t,
			     (unsigned long long)r.matched);
	}
}

Test(compare_align, bounded_mode_is_a_lower_bound_and_says_so)
{
	static const struct kr_align_limits tight = { .max_d = 2, .budget = 0, .step_d = 2 };
	uint16_t a[200], b[200];

	srand(777);
	for (int t = 0; t < 200; t++) {
		size_t n = 50 + (size_t)(rand() % 150), m = 50 + (size_t)(rand() % 150);
		struct kr_align_result r;
		uint64_t best;

		for (size_t i = 0; i < n; i++)
			a[i] = (uint16_t)(rand() % 3);
		for (size_t i = 0; i < m; i++)
			b[i] = (uint16_t)(rand() % 3);
		best = lcs_dp(a, n, b, m);
		cr_assert_eq(kr_align(a, n, b, m, &tight, &r), 0);
		cr_assert_leq(r.matched, best);
		if (r.matched != best)
			cr_assert_not(r.exact);
	}
}

Test(compare_align, bounded_mode_on_an_edited_copy_stays_close)
{
	/* what compare meets: B is A with a few events added and removed */
	static const struct kr_align_limits bounded = { .max_d = 2, .budget = 0, .step_d = 8 };
	uint16_t a[300], b[600];

	srand(778);
	for (int t = 0; t < 200; t++) {
		struct kr_align_result r;
		size_t m = 0;
		uint64_t best;

		for (size_t i = 0; i < 300; i++)
			a[i] = (uint16_t)(rand() % 4);
		for (size_t i = 0; i < 300; i++) {
			int k = rand() % 20;

			if (k == 0)
				continue; /* removed */
			if (k == 1)
				b[m++] = (uint16_t)(rand() % 4); /* added */
			b[m++] = a[i];
		}
		best = lcs_dp(a, 300, b, m);
		cr_assert_eq(kr_align(a, 300, b, m, &bounded, &r), 0);
		cr_assert_leq(r.matched, best);
		cr_assert_geq(r.matched * 100, best * 98, "case %d: %llu of %llu", t,
			      (unsigned long long)r.matched, (unsigned long long)best);
	}
}

Test(compare_align, long_repetitive_sequences_with_one_insertion)
{
	size_t n = 200000;
	uint16_t *a = malloc(n * sizeof(*a)), *b = malloc((n + 2) * sizeof(*b));
	struct kr_align_result r;

	/* (Begin, End) pairs, as a syscall loop gives; B has one more pair at 150000 */
	for (size_t i = 0; i < n; i++)
		a[i] = (uint16_t)(i & 1);
	memcpy(b, a, 150000 * sizeof(*a));
	b[150000] = 7;
	b[150001] = 8;
	memcpy(b + 150002, a + 150000, (n - 150000) * sizeof(*a));
	cr_assert_eq(kr_align(a, n, b, n + 2, &kr_align_default_limits, &r), 0);
	cr_assert_eq(r.matched, n);
	cr_assert_eq(r.prefix, 150000);
	cr_assert(r.exact);
	free(a);
	free(b);
}

/* ---- renumbering and hashes ---- */

static struct katra_record evt(uint64_t seq, uint64_t pid, uint64_t tid, uint32_t kind,
			       uint32_t phase, int64_t span)
{
	struct katra_record r = mk_event(seq, seq * 100, tid, phase, span);

	r.u.event.process_id = pid;
	r.u.event.kind = kind;
	return r;
}

/* Two threads of one process doing a read each and a wakeup between them;
 * ids, seqs and times all shifted by `shift`; `extra` inserts a Futex span
 * on the second thread; `offcpu` an OffCpu span on the first. */
static void build(struct kr_cmp_trace *t, kr_kindset ignore, uint64_t shift, bool extra,
		  bool offcpu, uint64_t cause_shift)
{
	static uint64_t causes[8][1];
	struct katra_record r[16];
	size_t n = 0;
	uint64_t s = 10 + shift, p = 500 + shift, t1 = 501 + shift, t2 = 777 + shift;

	r[n++] = evt(s + 0, p, t1, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1);
	r[n++] = evt(s + 1, p, t2, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 2);
	r[n++] = evt(s + 2, p, t1, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 1);
	causes[0][0] = s + 0;
	r[n - 1].u.event.causes = (struct katra_u64_vec){ causes[0], 1 };
	if (offcpu) {
		r[n++] = evt(s + 3, p, t1, KATRA_KIND_OFF_CPU, KATRA_PHASE_BEGIN, 9);
		r[n++] = evt(s + 4, p, t1, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 9);
	}
	r[n++] = evt(s + 5, p, t2, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 2);
	causes[1][0] = s + 1 - cause_shift; /* its Begin, or (shifted) t1's Begin */
	r[n - 1].u.event.causes = (struct katra_u64_vec){ causes[1], 1 };
	if (extra) {
		r[n++] = evt(s + 6, p, t2, KATRA_KIND_FUTEX, KATRA_PHASE_BEGIN, 3);
		r[n++] = evt(s + 7, p, t2, KATRA_KIND_FUTEX, KATRA_PHASE_END, 3);
	}
	r[n++] = evt(s + 8, p, t2, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT, -1);
	kr_cmp_trace_init(t, ignore);
	for (size_t i = 0; i < n; i++)
		kr_cmp_trace_add(t, &r[i]);
	cr_assert_eq(kr_cmp_trace_finish(t), 0);
}

Test(compare_hash, ids_seqs_and_times_do_not_matter)
{
	struct kr_cmp_trace a, b;

	build(&a, KR_CMP_DEFAULT_IGNORE, 0, false, false, 0);
	build(&b, KR_CMP_DEFAULT_IGNORE, 1000, false, false, 0);
	cr_assert_eq(a.structural_hash, b.structural_hash);
	cr_assert_eq(a.causal_hash, b.causal_hash);
	cr_assert_eq(a.nthreads, 2);
	cr_assert_eq(a.nprocs, 1);
	cr_assert_eq(a.threads[0].thread_no, 0);
	cr_assert_eq(a.threads[1].thread_no, 1);
	cr_assert_eq(a.threads[0].len, 2);
	cr_assert_eq(a.threads[1].len, 3);
	cr_assert_eq(a.edges, 2);
	kr_cmp_trace_free(&a);
	kr_cmp_trace_free(&b);
}

Test(compare_hash, ignored_kinds_are_left_out_unless_asked)
{
	struct kr_cmp_trace a, b;

	build(&a, KR_CMP_DEFAULT_IGNORE, 0, false, false, 0);
	build(&b, KR_CMP_DEFAULT_IGNORE, 3, false, true, 0);
	cr_assert_eq(a.structural_hash, b.structural_hash, "OffCpu is ignored by default");
	cr_assert_eq(b.kinds[KATRA_KIND_OFF_CPU].count, 2, "but still counted per kind");
	kr_cmp_trace_free(&a);
	kr_cmp_trace_free(&b);
	build(&a, 0, 0, false, false, 0);
	build(&b, 0, 3, false, true, 0);
	cr_assert_neq(a.structural_hash, b.structural_hash, "--ignore none sees it");
	kr_cmp_trace_free(&a);
	kr_cmp_trace_free(&b);
}

Test(compare_hash, a_moved_cause_changes_only_the_causal_hash)
{
	struct kr_cmp_trace a, b;

	build(&a, KR_CMP_DEFAULT_IGNORE, 0, false, false, 0);
	build(&b, KR_CMP_DEFAULT_IGNORE, 0, false, false, 1);
	cr_assert_eq(a.structural_hash, b.structural_hash);
	cr_assert_neq(a.causal_hash, b.causal_hash);
	kr_cmp_trace_free(&a);
	kr_cmp_trace_free(&b);
}

Test(compare_hash, pairs_and_first_divergence_in_memory)
{
	struct kr_compare c;

	memset(&c, 0, sizeof(c));
	build(&c.a, KR_CMP_DEFAULT_IGNORE, 0, false, false, 0);
	build(&c.b, KR_CMP_DEFAULT_IGNORE, 40, true, false, 0);
	cr_assert_eq(kr_compare_pairs(&c), 0);
	cr_assert_not(c.equivalent);
	cr_assert_eq(c.npairs, 2);
	cr_assert_not(c.pairs[0].differs);
	cr_assert(c.pairs[1].differs);
	cr_assert_eq(c.pairs[1].prefix, 2, "after t2's read Begin and End");
	cr_assert_eq(c.pairs[1].matched, 3);
	cr_assert_eq(c.matched, 5);
	/* 2 * 5 / (5 + 7) */
	cr_assert_float_eq(kr_compare_equivalence(&c), 1000.0 / 12.0, 1e-9);
	kr_compare_free(&c);
}

/* A ProcessInfo naming pid (as the recorder writes it: Katra scope). */
static struct katra_event name_event(uint64_t pid, const char *comm)
{
	struct katra_record r = evt(1, pid, pid, KATRA_KIND_PROCESS_INFO, KATRA_PHASE_INSTANT, -1);

	r.u.event.scope = KATRA_SCOPE_KATRA;
	r.u.event.resource = (struct katra_resource){ KATRA_RES_PROCESS, pid };
	r.u.event.payload.type = KATRA_PAYLOAD_PROCESS_INFO;
	r.u.event.payload.u.process_info.comm = katra_cstr(comm);
	return r.u.event;
}

static char *report(struct kr_compare *c, bool json);

/* Threads are named as the trace names them (dump's names): the process's
 * name, the thread's own after a TaskRename; the renumbered id beside a name
 * two threads share, alone when there is no name. */
Test(compare_hash, threads_named_as_the_trace_names_them)
{
	struct kr_compare c;
	struct katra_event e;
	char buf[128], *text;

	memset(&c, 0, sizeof(c));
	build(&c.a, KR_CMP_DEFAULT_IGNORE, 0, false, false, 0);
	build(&c.b, KR_CMP_DEFAULT_IGNORE, 40, true, false, 0);
	cr_assert_eq(kr_compare_pairs(&c), 0);
	cr_assert_str_eq(kr_compare_pair_label(&c, &c.pairs[1], buf, sizeof(buf)), "p0/t1");
	e = name_event(500, "gzip");
	kr_procnames_see(&c.a.names, &e);
	cr_assert_str_eq(kr_compare_pair_label(&c, &c.pairs[1], buf, sizeof(buf)), "gzip p0/t1",
			 "both threads are gzip's");
	text = report(&c, false);
	cr_assert_not_null(strstr(text, "\n  gzip p0/t1                    3          5          3   75.00 %"), "%s", text);
	cr_assert_null(strstr(text, "\n  p0/t1"), "%s", text);
	free(text);
	text = report(&c, true);
	cr_assert_not_null(strstr(text, "{\"thread\":\"p0/t1\",\"name\":\"gzip\","), "%s", text);
	free(text);
	e.kind = KATRA_KIND_TASK_RENAME;
	e.resource = (struct katra_resource){ KATRA_RES_THREAD, 777 };
	e.payload.type = KATRA_PAYLOAD_TASK_RENAME;
	e.payload.u.task_rename.comm = katra_cstr("render");
	kr_procnames_see(&c.a.names, &e);
	cr_assert_str_eq(kr_compare_pair_label(&c, &c.pairs[1], buf, sizeof(buf)), "render");
	cr_assert_str_eq(kr_compare_pair_label(&c, &c.pairs[0], buf, sizeof(buf)), "gzip");
	kr_compare_free(&c);
}

/* ---- two files, both passes, reports ---- */

struct files {
	char dir[64], a[96], b[96];
};

static void write_trace(const char *path, const struct katra_record *recs, size_t n)
{
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_record all[32];
	struct tbuf buf = { 0 };

	memcpy(all, recs, n * sizeof(*recs));
	all[n] = mk_summary(recs, n, kinds);
	tbuf_trace(&buf, all, n + 1, NULL);
	write_file(path, buf.p, buf.len);
	tbuf_free(&buf);
}

/* A run of read spans on one thread; `extra_at` >= 0 adds one getppid-like
 * Syscall span after that many reads. */
static size_t loop_trace(struct katra_record *r, uint64_t tid, int extra_at)
{
	static uint64_t causes[2][16];
	uint64_t seq = 1;
	size_t n = 0;
	int side = extra_at >= 0;

	for (int i = 0; i < 6; i++) {
		uint32_t kind = KATRA_KIND_FILE_READ;

		if (i == extra_at) {
			r[n++] = evt(seq, tid, tid, KATRA_KIND_SYSCALL, KATRA_PHASE_BEGIN, 100);
			r[n - 1].u.event.payload.type = KATRA_PAYLOAD_SYSCALL;
			r[n - 1].u.event.payload.u.syscall.nr = 110;
			seq++;
			r[n++] = evt(seq++, tid, tid, KATRA_KIND_SYSCALL, KATRA_PHASE_END, 100);
		}
		r[n++] = evt(seq, tid, tid, kind, KATRA_PHASE_BEGIN, i);
		causes[side][i] = seq++;
		r[n++] = evt(seq++, tid, tid, kind, KATRA_PHASE_END, i);
		r[n - 1].u.event.causes = (struct katra_u64_vec){ &causes[side][i], 1 };
	}
	return n;
}

static void two_files(struct files *f, int extra_at)
{
	struct katra_record r[32];
	size_t n;

	snprintf(f->dir, sizeof(f->dir), "/tmp/katra-cmp-XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	snprintf(f->a, sizeof(f->a), "%s/a.ktrc", f->dir);
	snprintf(f->b, sizeof(f->b), "%s/b.ktrc", f->dir);
	n = loop_trace(r, 300, -1);
	write_trace(f->a, r, n);
	n = loop_trace(r, 900, extra_at);
	write_trace(f->b, r, n);
}

static char *report(struct kr_compare *c, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		kr_compare_print_json(f, c);
	else
		kr_compare_print_text(f, c);
	fclose(f);
	return buf;
}

Test(compare_files, equivalent_runs)
{
	struct files f;
	struct kr_compare c;
	char *text;

	two_files(&f, -1);
	cr_assert_eq(kr_compare_run(&c, f.a, f.b, KR_CMP_DEFAULT_IGNORE, stderr), 0);
	cr_assert(c.equivalent);
	cr_assert_float_eq(kr_compare_equivalence(&c), 100.0, 1e-9);
	text = report(&c, false);
	cr_assert_not_null(strstr(text, "result     equivalent\n"), "%s", text);
	cr_assert_not_null(strstr(text, "the one thread is the same on both sides"), "%s", text);
	free(text);
	kr_compare_free(&c);
	temp_dir_remove(f.dir);
}

Test(compare_files, one_extra_syscall_found_where_it_is)
{
	struct files f;
	struct kr_compare c;
	char *text;

	two_files(&f, 4);
	cr_assert_eq(kr_compare_run(&c, f.a, f.b, KR_CMP_DEFAULT_IGNORE, stderr), 0);
	cr_assert_not(c.equivalent);
	cr_assert_eq(c.npairs, 1);
	cr_assert_eq(c.pairs[0].prefix, 8, "after 4 reads");
	cr_assert_eq(c.pairs[0].matched, 12);
	/* the second pass named the events on each side */
	cr_assert(c.a.threads[0].at.present);
	cr_assert_eq(c.a.threads[0].at.seq, 9);
	cr_assert_eq(c.a.threads[0].at.kind, KATRA_KIND_FILE_READ);
	cr_assert(c.b.threads[0].at.present);
	cr_assert_eq(c.b.threads[0].at.seq, 9);
	cr_assert_eq(c.b.threads[0].at.kind, KATRA_KIND_SYSCALL);
	cr_assert_eq(c.b.threads[0].at.phase, KATRA_PHASE_BEGIN);
	cr_assert(c.b.threads[0].at.has_nr);
	cr_assert_eq(c.b.threads[0].at.nr, 110);
	text = report(&c, false);
	cr_assert_not_null(strstr(text, "      B: tid 900 seq 9 at 0.000000900 s  Linux Syscall Begin getppid (nr 110)\n"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "      A: tid 300 seq 9 at 0.000000900 s  Linux FileRead Begin\n"),
			   "%s", text);
	free(text);
	text = report(&c, true);
	cr_assert_not_null(strstr(text, "\"equivalent\":false"), "%s", text);
	cr_assert_not_null(strstr(text, "\"first_divergence\":{\"index\":8,\"a\":{\"seq\":9,"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "\"kind\":\"Syscall\",\"phase\":\"Begin\",\"nr\":110,\"syscall\":\"getppid\"}"),
			   "%s", text);
	free(text);
	kr_compare_free(&c);
	temp_dir_remove(f.dir);
}

/* A opens /data/level.pak (file 77) and reads it; B calls getppid between
 * the open and the read: the first divergence names the syscall on one side
 * and the file, with the path its open gave, on the other. */
static size_t open_read_trace(struct katra_record *r, uint64_t tid, bool extra)
{
	uint64_t seq = 1;
	size_t n = 0;

	r[n++] = evt(seq++, tid, tid, KATRA_KIND_FILE_OPEN, KATRA_PHASE_BEGIN, 1);
	r[n - 1].u.event.payload.type = KATRA_PAYLOAD_FILE_OPEN;
	r[n - 1].u.event.payload.u.file_open.path =
		(struct katra_opt_str){ true, katra_cstr("/data/level.pak") };
	r[n++] = evt(seq++, tid, tid, KATRA_KIND_FILE_OPEN, KATRA_PHASE_END, 1);
	r[n - 1].u.event.resource = (struct katra_resource){ KATRA_RES_FILE, 77 };
	if (extra) {
		r[n++] = evt(seq++, tid, tid, KATRA_KIND_SYSCALL, KATRA_PHASE_BEGIN, 2);
		r[n - 1].u.event.payload.type = KATRA_PAYLOAD_SYSCALL;
		r[n - 1].u.event.payload.u.syscall.nr = 110;
		r[n++] = evt(seq++, tid, tid, KATRA_KIND_SYSCALL, KATRA_PHASE_END, 2);
	}
	r[n++] = evt(seq++, tid, tid, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 3);
	r[n - 1].u.event.resource = (struct katra_resource){ KATRA_RES_FILE, 77 };
	r[n++] = evt(seq++, tid, tid, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 3);
	r[n - 1].u.event.resource = (struct katra_resource){ KATRA_RES_FILE, 77 };
	return n;
}

Test(compare_files, first_divergence_names_the_syscall_and_the_path)
{
	struct katra_record r[16];
	struct files f;
	struct kr_compare c;
	char *text;

	snprintf(f.dir, sizeof(f.dir), "/tmp/katra-cmp-XXXXXX");
	cr_assert_not_null(mkdtemp(f.dir));
	snprintf(f.a, sizeof(f.a), "%s/a.ktrc", f.dir);
	snprintf(f.b, sizeof(f.b), "%s/b.ktrc", f.dir);
	write_trace(f.a, r, open_read_trace(r, 300, false));
	write_trace(f.b, r, open_read_trace(r, 900, true));
	cr_assert_eq(kr_compare_run(&c, f.a, f.b, KR_CMP_DEFAULT_IGNORE, stderr), 0);
	text = report(&c, false);
	cr_assert_not_null(strstr(text, "      A: tid 300 seq 3 at 0.000000300 s  Linux FileRead "
				  "Begin File:77 \"/data/level.pak\"\n"), "%s", text);
	cr_assert_not_null(strstr(text, "      B: tid 900 seq 3 at 0.000000300 s  Linux Syscall "
				  "Begin getppid (nr 110)\n"), "%s", text);
	free(text);
	text = report(&c, true);
	cr_assert_not_null(strstr(text, "\"kind\":\"FileRead\",\"phase\":\"Begin\","
				  "\"resource\":\"File:77\",\"path\":\"/data/level.pak\"}"), "%s",
			   text);
	free(text);
	kr_compare_free(&c);
	temp_dir_remove(f.dir);
}

Test(compare_files, unreadable_trace_is_an_error)
{
	struct kr_compare c;
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	int ret = kr_compare_run(&c, "/nonexistent/a.ktrc", "/nonexistent/b.ktrc",
				 KR_CMP_DEFAULT_IGNORE, err);

	fclose(err);
	cr_assert_lt(ret, 0);
	cr_assert_str_eq(buf, "katra-replay: compare: cannot open trace file "
			      "'/nonexistent/a.ktrc': No such file or directory\n");
	free(buf);
	kr_compare_free(&c);
}

/* --ignore adds to the default list; "none" empties it */
Test(compare_kindset, ignore_option_adds_to_the_default_and_none_clears)
{
	kr_kindset s = KR_CMP_DEFAULT_IGNORE;
	char bad[32];

	cr_assert_eq(kr_compare_ignore_option(&s, "Futex,Sleep", bad, sizeof(bad)), 0);
	cr_assert_eq(s, KR_CMP_DEFAULT_IGNORE | kr_kindset_bit(KATRA_KIND_FUTEX) |
			kr_kindset_bit(KATRA_KIND_SLEEP));
	cr_assert_eq(kr_compare_ignore_option(&s, "none", bad, sizeof(bad)), 0);
	cr_assert_eq(s, 0);
	cr_assert_eq(kr_compare_ignore_option(&s, "Futex", bad, sizeof(bad)), 0);
	cr_assert_eq(s, kr_kindset_bit(KATRA_KIND_FUTEX));
	s = KR_CMP_DEFAULT_IGNORE;
	cr_assert_eq(kr_compare_ignore_option(&s, "Futex,Bogus", bad, sizeof(bad)), -EINVAL);
	cr_assert_str_eq(bad, "Bogus");
	cr_assert_eq(s, KR_CMP_DEFAULT_IGNORE, "a refused list changes nothing");
}
