// SPDX-License-Identifier: GPL-2.0-only
/* export --parquet's files (user/replay/tables/): a run's labels become its
 * Hive path (sorted by KEY, %XX-escaped, label_KEY for a KEY that is a
 * column name), every table is written and renamed into place, none left
 * under a temporary name; a trace without its SessionSummary exports and
 * says so; a corrupt one is refused with one line and leaves no file.
 * DuckDB reads the files in tests/integration/t_parquet*.sh. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay_test_util.h"
#include "replay/tables/tables.h"

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
