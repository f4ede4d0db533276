// SPDX-License-Identifier: GPL-2.0-only
/* One vocabulary (issue 18): the same file and the same thread are spelled
 * the same by dump, stats, report and export (names/resnames.h): a file
 * identity "File:<decimal>", a thread "Thread:<decimal tid>", a futex
 * "Futex:0x<hex>". */
#include "replay_test_util.h"
#include "katra/report.h"
#include "replay/export/export.h"
#include "replay/names/resnames.h"

#define FILE_ID 11436596390239650683ull

/* Thread 501 reads file FILE_ID, blocked 200..400 until thread 502 wakes
 * it at 300. */
static void build(struct tb *t)
{
	struct katra_event *e, *ob, *w;
	static uint64_t c[2];

	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, 10, 500, "wine64", "prog.exe");
	tb_switch(t, 50, 500, 502, KATRA_PHASE_INSTANT, -1, 0);
	e = tb_syscall_begin(t, 100, 500, 501, KATRA_KIND_FILE_READ, 1, 0);
	e->resource = (struct katra_resource){ KATRA_RES_FILE, FILE_ID };
	ob = tb_switch(t, 200, 500, 501, KATRA_PHASE_BEGIN, 2, 1);
	w = tb_ev(t, 300, 500, 502, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	w->payload.type = KATRA_PAYLOAD_WAKEUP;
	w->payload.u.wakeup.target_tid = 501;
	w->payload.u.wakeup.target_pid = 500;
	w->resource = (struct katra_resource){ KATRA_RES_THREAD, 501 };
	e = tb_switch(t, 400, 500, 501, KATRA_PHASE_END, 2, 0);
	c[0] = ob->seq;
	c[1] = w->seq;
	e->causes = (struct katra_u64_vec){ c, 2 };
	e = tb_syscall_end(t, 500, 500, 501, KATRA_KIND_FILE_READ, 1, 0, 10);
	e->resource = (struct katra_resource){ KATRA_RES_FILE, FILE_ID };
	tb_epoch(t, 600, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

Test(vocabulary, labels)
{
	char buf[64];

	cr_assert_str_eq(kr_res_label(KATRA_RES_FILE, FILE_ID, buf, sizeof(buf)),
			 "File:11436596390239650683");
	cr_assert_str_eq(kr_res_label(KATRA_RES_THREAD, 18547, buf, sizeof(buf)), "Thread:18547");
	cr_assert_str_eq(kr_res_label(KATRA_RES_FUTEX, 0x7f3a2c, buf, sizeof(buf)),
			 "Futex:0x7f3a2c");
	cr_assert_str_eq(kr_res_label(KATRA_RES_NONE, 0, buf, sizeof(buf)), "");
}

/* ... and a Wine process (comm wine64, image prog.exe) is prog.exe in all */
Test(vocabulary, dump_stats_report_export_spell_a_file_and_a_thread_alike)
{
	struct tb t;
	struct outcap c;

	build(&t);
	oc_open(&c);
	cr_assert_eq(katra_dump(t.path, c.f, false, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), " res=File:11436596390239650683 "), "%s", c.buf);
	cr_assert_not_null(strstr(c.buf, " res=Thread:501"), "%s", c.buf);
	cr_assert_not_null(strstr(c.buf, " pid=500(prog.exe) tid=501 "), "%s", c.buf);
	oc_free(&c);

	struct katra_stats_opts so = { .views = KATRA_STATS_FILES | KATRA_STATS_OFFCPU };
	oc_open(&c);
	cr_assert_eq(katra_stats_with(t.path, c.f, &so, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), "read on File:11436596390239650683"), "stats: %s",
			   c.buf);
	cr_assert_not_null(strstr(c.buf, "  500(prog.exe)  "), "stats: %s", c.buf);
	oc_free(&c);

	struct katra_report_opts ro = { 0 };
	oc_open(&c);
	cr_assert_eq(katra_report(t.path, &ro, c.f, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), "blocked in FileRead on File:11436596390239650683, "
					       "woken by 502(prog.exe)"), "report: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "\n  501(prog.exe) "), "report: %s", c.buf);
	oc_free(&c);

	ro.json = true;
	oc_open(&c);
	cr_assert_eq(katra_report(t.path, &ro, c.f, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), "\"resource\":{\"domain\":\"File\",\"id\":"
				  "\"11436596390239650683\",\"name\":\"File:11436596390239650683\"}"),
			   "report --json: %s", c.buf);
	oc_free(&c);

	so.json = true;
	oc_open(&c);
	cr_assert_eq(katra_stats_with(t.path, c.f, &so, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), "{\"domain\":\"File\",\"id\":"
				  "\"11436596390239650683\",\"name\":\"File:11436596390239650683\""),
			   "stats --json: %s", c.buf);
	oc_free(&c);

	struct kx_options xo = { 0 };
	oc_open(&c);
	cr_assert_eq(katra_export_chrome(t.path, &xo, c.f, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), "\"resource\":\"File:11436596390239650683\""),
			   "export: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "\"resource\":\"Thread:501\""), "export: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "\"name\":\"process_name\",\"args\":{\"name\":"
				  "\"prog.exe\"}"), "export: %s", c.buf);
	oc_free(&c);
	tb_cleanup(&t);
}
