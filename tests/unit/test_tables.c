// SPDX-License-Identifier: GPL-2.0-only
/* export --parquet's files (user/replay/tables/): a run's labels become its
 * Hive path (sorted by KEY, %XX-escaped, label_KEY for a KEY that is a
 * column name), every table is written and renamed into place, none left
 * under a temporary name; a trace without its SessionSummary exports and
 * says so; a corrupt one is refused with one line and leaves no file.
 * A frame's gpu_ns is the run-to-done time of the GPU jobs submitted in it,
 * from stats --per-frame's GPU rows.
 * DuckDB reads the files in tests/integration/t_parquet*.sh. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay_test_util.h"
#include "replay/stats/perframe.h"
#include "replay/tables/tables_int.h"

static void labelled_trace(struct tb *t, bool corrupt)
{
	static const struct katra_str notes[] = {
		{ "label scene=a b/c", 17 }, { "events: all", 11 }, { "label name=x", 12 },
		{ "label build=812", 15 },
	};
	struct katra_header h = *katra_sample_header();
	struct katra_writer *w;

	h.notes = (struct katra_str_vec){ notes, 4 };
	tb_syscall_begin(t, 100, 7, 7, KATRA_KIND_SYSCALL, 1, 39);
	tb_syscall_end(t, 250, 7, 7, KATRA_KIND_SYSCALL, 1, 39, 7);
	cr_assert_eq(katra_writer_open(&w, t->path, &h, KATRA_WRITER_OVERWRITE), 0);
	for (size_t i = 0; i < t->n; i++)
		cr_assert_eq(katra_writer_append(w, &t->r[i]), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	if (corrupt) {
		/* the second record's TraceRecord variant: out of range */
		FILE *f = fopen(t->path, "r+b");
		uint8_t b[8];
		uint32_t hlen, rlen;

		cr_assert_not_null(f);
		cr_assert_eq(fseek(f, 12, SEEK_SET), 0);
		cr_assert_eq(fread(b, 1, 4, f), 4);
		memcpy(&hlen, b, 4);
		cr_assert_eq(fseek(f, 16 + hlen, SEEK_SET), 0);
		cr_assert_eq(fread(b, 1, 4, f), 4);
		memcpy(&rlen, b, 4);
		cr_assert_eq(fseek(f, 16 + hlen + 4 + rlen + 4, SEEK_SET), 0);
		cr_assert_eq(fwrite("\xff\xff\xff\xff", 1, 4, f), 4);
		cr_assert_eq(fclose(f), 0);
	}
}

static int files_under(const char *dir, const char *pattern)
{
	char cmd[512];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "find '%s' -type f -name '%s' 2>/dev/null | wc -l", dir, pattern);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

Test(tables, labels_make_the_hive_path_of_every_table)
{
	struct tb t;
	struct kq_opts o = { .compress = true };
	char dir[160], glob[400], errbuf[512] = "";
	FILE *err = fmemopen(errbuf, sizeof(errbuf) - 1, "w");

	tb_init(&t);
	labelled_trace(&t, false);
	snprintf(dir, sizeof(dir), "%s/pq", t.dir);
	o.dir = dir;
	cr_assert_eq(kq_export_trace(t.path, &o, err), 0);
	fclose(err);
	cr_assert(strstr(errbuf, "no SessionSummary: the capture was cut short: exported what it "
			 "holds (runs.complete = false)"), "%s", errbuf);
	for (unsigned k = 0; k < KQ_NTABLES; k++) {
		FILE *p;
		char line[400];
		size_t n;

		snprintf(glob, sizeof(glob), "ls -d %s/%s/build=812/label_name=x/scene=a%%20b%%2Fc/"
			 "run=*/part.parquet", dir, kq_table_names[k]);
		p = popen(glob, "r");
		cr_assert_not_null(p);
		cr_assert_not_null(fgets(line, sizeof(line), p), "%s: no part.parquet", kq_table_names[k]);
		pclose(p);
		n = strlen(line);
		/* run=ID: 16 hex digits, the first a letter */
		cr_assert_gt(n, 30);
		const char *id = strstr(line, "/run=") + 5;
		cr_assert_eq(strspn(id, "0123456789abcdef"), 16, "%s", line);
		cr_assert(id[0] >= 'a' && id[0] <= 'f', "%s", line);
	}
	cr_assert_eq(files_under(dir, "*.parquet"), KQ_NTABLES);
	cr_assert_eq(files_under(dir, "*.tmp"), 0);
	tb_cleanup(&t);
}

Test(tables, a_corrupt_trace_is_refused_in_one_line_and_leaves_nothing)
{
	struct tb t;
	struct kq_opts o = { .compress = true };
	char dir[160], errbuf[512] = "";
	FILE *err = fmemopen(errbuf, sizeof(errbuf) - 1, "w");

	tb_init(&t);
	labelled_trace(&t, true);
	snprintf(dir, sizeof(dir), "%s/pq", t.dir);
	o.dir = dir;
	cr_assert_eq(kq_export_trace(t.path, &o, err), 1);
	fclose(err);
	cr_assert(strstr(errbuf, "not exported: ") && strstr(errbuf, "(nothing written)\n"), "%s",
		  errbuf);
	cr_assert_eq(strchr(errbuf, '\n'), errbuf + strlen(errbuf) - 1, "one line: %s", errbuf);
	cr_assert_eq(files_under(dir, "*"), 0);
	cr_assert_neq(access(dir, F_OK), 0, "%s: made by the export, left behind", dir);
	tb_cleanup(&t);
}

Test(tables, a_label_key_that_is_a_column_name_is_reserved)
{
	cr_assert(kq_reserved_key("run"));
	cr_assert(kq_reserved_key("name"));
	cr_assert(kq_reserved_key("pid"));
	cr_assert(kq_reserved_key("hostname"));
	cr_assert_not(kq_reserved_key("build"));
	cr_assert_not(kq_reserved_key("machine"));
	cr_assert_not(kq_reserved_key("scene"));
	cr_assert_not(kq_reserved_key("driver"));
}

static void present(struct tb *t, uint64_t ts, uint64_t n)
{
	static char names[8][64];
	char *name = names[n % 8];

	snprintf(name, 64, "frame %llu (pid 100, swapchain 0xa)", (unsigned long long)n);
	tb_epoch(t, ts, KATRA_EPOCH_FRAME, name);
}

static void job(struct tb *t, uint64_t ts, uint32_t kind, uint64_t seqno)
{
	struct katra_event *e = tb_ev(t, ts, 100, 101, kind, KATRA_PHASE_INSTANT, -1);

	e->scope = KATRA_SCOPE_GPU;
	e->payload.type = KATRA_PAYLOAD_GPU_FENCE;
	e->payload.u.gpu_fence.context = 3;
	e->payload.u.gpu_fence.seqno = seqno;
}

/* Process 100 presents on swapchain 0xa at 0, 100, 200 and 300 us: frames
 * 1, 2, 3 (indexes 0, 1, 2).  Jobs 1 (made 10, run 20..50 us) and 2 (made
 * 30, run 60..70 us) are frame 1's: 40 us; frame 2 submits none; job 3
 * (made 210, run 220..245 us) is frame 3's: 25 us; job 4 made in frame 3 never runs. */
Test(tables, a_frames_gpu_ns_is_its_jobs_run_to_done)
{
	struct kr_stats s;
	struct kr_views v;
	struct tb t;
	uint64_t ns = 0;

	tb_init(&t);
	present(&t, 0, 0);
	job(&t, 10000, KATRA_KIND_GPU_FENCE_INIT, 1);
	job(&t, 20000, KATRA_KIND_GPU_JOB_RUN, 1);
	job(&t, 30000, KATRA_KIND_GPU_FENCE_INIT, 2);
	job(&t, 50000, KATRA_KIND_GPU_JOB_DONE, 1);
	job(&t, 60000, KATRA_KIND_GPU_JOB_RUN, 2);
	job(&t, 70000, KATRA_KIND_GPU_JOB_DONE, 2);
	present(&t, 100000, 1);
	present(&t, 200000, 2);
	job(&t, 210000, KATRA_KIND_GPU_FENCE_INIT, 3);
	job(&t, 220000, KATRA_KIND_GPU_JOB_RUN, 3);
	job(&t, 230000, KATRA_KIND_GPU_FENCE_INIT, 4);
	job(&t, 245000, KATRA_KIND_GPU_JOB_DONE, 3);
	present(&t, 300000, 3);
	kr_stats_init(&s, katra_sample_header());
	kr_views_init(&v, &s.names, 0);
	kr_views_per_frame(&v, false, false);
	for (size_t i = 0; i < t.n; i++) {
		kr_stats_add(&s, &t.r[i]);
		kr_views_add(&v, &t.r[i]);
	}
	kr_views_finish(&v);
	cr_assert(kq_frame_gpu_ns(v.pf, 100, 0xa, 0, &ns));
	cr_assert_eq(ns, 40000);
	cr_assert_not(kq_frame_gpu_ns(v.pf, 100, 0xa, 1, &ns));
	cr_assert(kq_frame_gpu_ns(v.pf, 100, 0xa, 2, &ns));
	cr_assert_eq(ns, 25000);
	cr_assert_not(kq_frame_gpu_ns(v.pf, 100, 0xb, 0, &ns));
	cr_assert_not(kq_frame_gpu_ns(v.pf, 200, 0xa, 0, &ns));
	kr_views_free(&v);
	kr_stats_free(&s);
	tb_cleanup(&t);
}
