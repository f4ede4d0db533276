// SPDX-License-Identifier: GPL-2.0-only
/* One vocabulary: the same file and the same thread are spelled
 * the same by dump, stats, report and export (names/resnames.h): a file
 * identity "File:<decimal>", a thread "Thread:<decimal tid>", a futex
 * "Futex:0x<hex>"; pipes, sockets and anon inodes as /proc/PID/fd names
 * them: "pipe:[INO]", "socket:[INO]", "anon_inode:[eventfd]". */
#include "replay_test_util.h"
#include "katra/report.h"
#include "replay/export/export.h"
#include "replay/names/resnames.h"

#define FILE_ID 11436596390239650683ull

/* Thread 501 reads `res`, blocked 200..400 until thread 502 wakes it at
 * 300. */
static void build(struct tb *t, struct katra_resource res)
{
	struct katra_event *e, *ob, *w;
	static uint64_t c[2];

	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, 10, 500, "wine64", "prog.exe");
	tb_switch(t, 50, 500, 502, KATRA_PHASE_INSTANT, -1, 0);
	e = tb_syscall_begin(t, 100, 500, 501, KATRA_KIND_FILE_READ, 1, 0);
	e->resource = res;
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
	e->resource = res;
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
	cr_assert_str_eq(kr_res_label(KATRA_RES_PIPE, 2349781, buf, sizeof(buf)), "pipe:[2349781]");
	cr_assert_str_eq(kr_res_label(KATRA_RES_SOCKET, 42, buf, sizeof(buf)), "socket:[42]");
	cr_assert_str_eq(kr_res_label(KATRA_RES_ANON_INODE, KATRA_ANON_EVENTFD, buf, sizeof(buf)),
			 "anon_inode:[eventfd]");
	cr_assert_str_eq(kr_res_label(KATRA_RES_ANON_INODE, KATRA_ANON_INOTIFY, buf, sizeof(buf)),
			 "anon_inode:inotify");
	cr_assert_str_eq(kr_res_label(KATRA_RES_ANON_INODE, KATRA_ANON_OTHER, buf, sizeof(buf)),
			 "anon_inode:?");
	cr_assert_str_eq(kr_res_label(KATRA_RES_ANON_INODE, 9999, buf, sizeof(buf)), "anon_inode:?");
	cr_assert_str_eq(kr_res_label(KATRA_RES_PIPE, 2349781, buf, 8), "pipe:[2");
}

/* dump's writer (no formatting pass) spells each as the label does */
Test(vocabulary, put_equals_label)
{
	static const struct katra_resource rs[] = {
		{ KATRA_RES_FILE, FILE_ID }, { KATRA_RES_PIPE, 7 }, { KATRA_RES_SOCKET, 8 },
		{ KATRA_RES_ANON_INODE, KATRA_ANON_EVENTPOLL }, { KATRA_RES_ANON_INODE, 0 },
		{ KATRA_RES_ANON_INODE, 1000 }, { KATRA_RES_FUTEX, 0x10 }, { KATRA_RES_RING, 2 },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(rs) / sizeof(*rs); i++) {
		struct outcap c;

		oc_open(&c);
		kr_res_put(c.f, rs[i].domain, rs[i].id);
		cr_assert_str_eq(oc_text(&c), kr_res_label(rs[i].domain, rs[i].id, buf, sizeof(buf)));
		oc_free(&c);
	}
}

/* The name of each AnonInode id, and the id of each name, agree */
Test(vocabulary, anon_inode_names)
{
	cr_assert_str_eq(katra_anon_inode_dname(KATRA_ANON_EVENTFD), "[eventfd]");
	cr_assert_str_eq(katra_anon_inode_dname(KATRA_ANON_BPF_LINK), "bpf_link");
	cr_assert_null(katra_anon_inode_dname(KATRA_ANON_OTHER));
	cr_assert_null(katra_anon_inode_dname(KATRA_ANON_COUNT));
	for (uint64_t i = 1; i < KATRA_ANON_COUNT; i++) {
		const char *n = katra_anon_inode_dname(i);
		char padded[16] = { 0 };

		memcpy(padded, n, strlen(n));
		cr_assert_eq(katra_anon_inode_of(padded, sizeof(padded)), i, "%s", n);
	}
	cr_assert_eq(katra_anon_inode_of("[eventfd]x", 9), KATRA_ANON_EVENTFD);
	cr_assert_eq(katra_anon_inode_of("[eventfd", 8), KATRA_ANON_OTHER);
	cr_assert_eq(katra_anon_inode_of("[kvm-vm]", 8), KATRA_ANON_OTHER);
}

static void check_commands(struct katra_resource res, const char *name)
{
	struct tb t;
	struct outcap c;
	char want[512];

	build(&t, res);
	oc_open(&c);
	cr_assert_eq(katra_dump(t.path, c.f, false, stderr), 0);
	snprintf(want, sizeof(want), " res=%s ", name);
	cr_assert_not_null(strstr(oc_text(&c), want), "dump: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, " res=Thread:501"), "%s", c.buf);
	cr_assert_not_null(strstr(c.buf, " pid=500(prog.exe) tid=501 "), "%s", c.buf);
	oc_free(&c);

	oc_open(&c);
	cr_assert_eq(katra_dump(t.path, c.f, true, stderr), 0);
	snprintf(want, sizeof(want), "\"resource_name\":\"%s\"", name);
	cr_assert_not_null(strstr(oc_text(&c), want), "dump --jsonl: %s", c.buf);
	oc_free(&c);

	struct katra_stats_opts so = { .views = KATRA_STATS_FILES | KATRA_STATS_OFFCPU };
	oc_open(&c);
	cr_assert_eq(katra_stats_with(t.path, c.f, &so, stderr), 0);
	snprintf(want, sizeof(want), "read on %s", name);
	cr_assert_not_null(strstr(oc_text(&c), want), "stats: %s", c.buf);
	snprintf(want, sizeof(want), "  %s\n", name); /* the files table's row */
	cr_assert_not_null(strstr(c.buf, want), "stats --files: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "  500(prog.exe)  "), "stats: %s", c.buf);
	oc_free(&c);

	struct katra_report_opts ro = { 0 };
	oc_open(&c);
	cr_assert_eq(katra_report(t.path, &ro, c.f, stderr), 0);
	snprintf(want, sizeof(want), "blocked in FileRead on %s, woken by 502(prog.exe)", name);
	cr_assert_not_null(strstr(oc_text(&c), want), "report: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "\n  501(prog.exe) "), "report: %s", c.buf);
	oc_free(&c);

	char json[256];
	snprintf(json, sizeof(json), "{\"domain\":\"%s\",\"id\":\"%llu\",\"name\":\"%s\"",
		 katra_resource_domain_name(res.domain), (unsigned long long)res.id, name);
	ro.json = true;
	oc_open(&c);
	cr_assert_eq(katra_report(t.path, &ro, c.f, stderr), 0);
	snprintf(want, sizeof(want), "\"resource\":%s}", json);
	cr_assert_not_null(strstr(oc_text(&c), want), "report --json: %s", c.buf);
	oc_free(&c);

	so.json = true;
	oc_open(&c);
	cr_assert_eq(katra_stats_with(t.path, c.f, &so, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&c), json), "stats --json: %s", c.buf);
	oc_free(&c);

	struct kx_options xo = { 0 };
	oc_open(&c);
	cr_assert_eq(katra_export_chrome(t.path, &xo, c.f, stderr), 0);
	snprintf(want, sizeof(want), "\"resource\":\"%s\"", name);
	cr_assert_not_null(strstr(oc_text(&c), want), "export: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "\"resource\":\"Thread:501\""), "export: %s", c.buf);
	cr_assert_not_null(strstr(c.buf, "\"name\":\"process_name\",\"args\":{\"name\":"
				  "\"prog.exe\"}"), "export: %s", c.buf);
	oc_free(&c);
	tb_cleanup(&t);
}

/* ... and a Wine process (comm wine64, image prog.exe) is prog.exe in all */
Test(vocabulary, dump_stats_report_export_spell_a_file_and_a_thread_alike)
{
	check_commands((struct katra_resource){ KATRA_RES_FILE, FILE_ID },
		       "File:11436596390239650683");
}

Test(vocabulary, a_pipe_a_socket_an_eventfd_as_proc_names_them)
{
	check_commands((struct katra_resource){ KATRA_RES_PIPE, 2349781 }, "pipe:[2349781]");
	check_commands((struct katra_resource){ KATRA_RES_SOCKET, 2349783 }, "socket:[2349783]");
	check_commands((struct katra_resource){ KATRA_RES_ANON_INODE, KATRA_ANON_EVENTFD },
		       "anon_inode:[eventfd]");
}
