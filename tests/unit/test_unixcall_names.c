// SPDX-License-Identifier: GPL-2.0-only
/* A unix library's call names (WineUnixCallNames, EventKind 47) name the
 * WinToUnix calls of their (process, handle) in dump (text and --jsonl),
 * stats --calls, export and the paths of report --frames, calls written
 * before the table included (it follows a library's first calls: the
 * readers look ahead); another handle's calls, and indices the table does
 * not name, stay numbers. */
#include "replay_test_util.h"
#include "katra/report.h"
#include "replay/export/export.h"

#define MS 1000000ull
#define VK 0x7f00000cf900ull  /* winevulkan.so's table in process 300 */
#define OTHER 0x7f0000009000ull

static void unix_call(struct tb *t, uint64_t ts, uint64_t handle, uint32_t index, int64_t span)
{
	for (int end = 0; end < 2; end++) {
		struct katra_event *e = tb_ev(t, ts + (uint64_t)end * MS / 2, 300, 301,
					      KATRA_KIND_WIN_TO_UNIX,
					      end ? KATRA_PHASE_END : KATRA_PHASE_BEGIN, span);
		e->scope = KATRA_SCOPE_WINE_PROTON;
		e->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, handle };
		e->payload.type = KATRA_PAYLOAD_WINE_SERVER_CALL;
		e->payload.u.wine_server_call.request = index;
		if (end)
			e->payload.u.wine_server_call.status = (struct katra_opt_u32){ true, 0 };
	}
}

/* Calls of index 1 before and after the table, index 2 (unnamed: ""),
 * index 1 of another library, index 0 of both (unnamed), and the table
 * (after the first call). */
static void build(struct tb *t)
{
	static const struct katra_str names[3] = { { "", 0 }, { "vkQueueSubmit", 13 },
						   { "", 0 } };
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, MS / 10, 300, "wine64", "game.exe");
	unix_call(t, 1 * MS, VK, 1, 1);
	e = tb_ev(t, 2 * MS, 300, 300, KATRA_KIND_WINE_UNIX_CALL_NAMES, KATRA_PHASE_INSTANT, -1);
	e->scope = KATRA_SCOPE_WINE_PROTON;
	e->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, VK };
	e->payload.type = KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
	e->payload.u.wine_server_requests.names = (struct katra_str_vec){ names, 3 };
	unix_call(t, 3 * MS, VK, 1, 2);
	unix_call(t, 4 * MS, VK, 2, 3);
	unix_call(t, 5 * MS, OTHER, 1, 4);
	unix_call(t, 6 * MS, VK, 0, 5);
	unix_call(t, 7 * MS, OTHER, 0, 6);
	tb_epoch(t, 8 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

Test(unixcall_names, dump_names_every_call_of_the_table_even_before_it)
{
	struct tb t;
	struct outcap out, err;

	tb_init(&t);
	build(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_dump(t.path, out.f, false, err.f), 0, "%s", oc_text(&err));
	const char *s = oc_body(&out, false);
	/* two calls of index 1 of VK, a Begin and an End each */
	cr_assert_eq(count(s, "request=1(vkQueueSubmit)"), 4, "%s", s);
	cr_assert_eq(count(s, "{request=2"), 2, "%s", s);
	cr_assert_eq(count(s, "{request=1}") + count(s, "{request=1 status"), 2,
		     "the other library's: %s", s);
	cr_assert_eq(count(s, "WineUnixCallNames"), 1, "%s", s);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

Test(unixcall_names, stats_calls_names_the_rows_by_library)
{
	struct tb t;
	struct outcap out, err;
	struct katra_stats_opts o = { .views = KATRA_STATS_CALLS };

	tb_init(&t);
	build(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	const char *s = oc_text(&out);
	cr_assert(strstr(s, "wine           2 "), "%s", s);
	cr_assert_eq(count(s, "WinToUnix vkQueueSubmit\n"), 1, "%s", s);
	/* an unnamed call by its library (its handle) and index: two libraries'
	 * index 0 are two rows, told apart */
	cr_assert_eq(count(s, "WinToUnix 2 (lib 0x7f00000cf900)\n"), 1, "%s", s);
	cr_assert_eq(count(s, "WinToUnix 1 (lib 0x7f0000009000)\n"), 1, "the other library's row: %s",
		     s);
	cr_assert_eq(count(s, "WinToUnix 0 (lib 0x7f00000cf900)\n"), 1, "%s", s);
	cr_assert_eq(count(s, "WinToUnix 0 (lib 0x7f0000009000)\n"), 1, "%s", s);
	cr_assert_eq(count(s, "WinToUnix "), 5, "%s", s);
	oc_free(&out);
	oc_free(&err);
	o.json = true;
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	s = oc_text(&out);
	/* the library's handle beside its index: two libraries share index 1 */
	cr_assert(strstr(s, "\"kind\":\"WinToUnix\",\"number\":1,\"name\":\"WinToUnix vkQueueSubmit\","
			    "\"handle\":139637977577728,\"calls\":2,"), "%s", s);
	cr_assert(strstr(s, "\"number\":1,\"name\":\"WinToUnix 1 (lib 0x7f0000009000)\","
			    "\"handle\":139637976764416,\"calls\":1,"), "%s", s);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

Test(unixcall_names, export_names_the_slices)
{
	struct tb t;
	struct outcap out, err;
	struct kx_options opt = { 0 };

	tb_init(&t);
	build(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_export_chrome(t.path, &opt, out.f, err.f), 0, "%s", oc_text(&err));
	const char *s = oc_text(&out);
	cr_assert_eq(count(s, "\"name\":\"WinToUnix vkQueueSubmit\""), 2, "%s", s);
	cr_assert_eq(count(s, "\"name\":\"WinToUnix 2 (lib 0x7f00000cf900)\""), 1, "%s", s);
	cr_assert_eq(count(s, "\"name\":\"WinToUnix 1 (lib 0x7f0000009000)\""), 1, "%s", s);
	cr_assert_eq(count(s, "\"name\":\"WinToUnix 0 (lib 0x7f0000009000)\""), 1, "%s", s);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

Test(unixcall_names, dump_jsonl_names_every_call_of_the_table_even_before_it)
{
	struct tb t;
	struct outcap out, err;

	tb_init(&t);
	build(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_dump(t.path, out.f, true, err.f), 0, "%s", oc_text(&err));
	const char *s = oc_text(&out);
	/* two calls of index 1 of VK, a Begin and an End each; not index 2 (no
	 * name) nor the other library's index 1 */
	cr_assert_eq(count(s, ",\"unix_call\":\"vkQueueSubmit\","), 4, "%s", s);
	cr_assert_eq(count(s, "\"unix_call\""), 4, "%s", s);
	cr_assert(strstr(s, "\"payload\":{\"type\":\"WineServerCall\",\"request\":1,\"status\":null},"
			    "\"unix_call\":\"vkQueueSubmit\",\"cost_estimate_ns\""), "%s", s);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* Frames of process 300 end at 1000 and 4000 ns.  In frame 2 its thread 300
 * blocks at 2000 until thread 301, inside a vkQueueSubmit unix call since
 * 1500 (its table comes later), wakes it at 3000. */
static void build_frame(struct tb *t)
{
	static const struct katra_str names[2] = { { "", 0 }, { "vkQueueSubmit", 13 } };
	static uint64_t off_causes[2];
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_switch(t, 0, 300, 300, KATRA_PHASE_INSTANT, -1, 0);
	tb_switch(t, 0, 300, 301, KATRA_PHASE_INSTANT, -1, 0);
	for (int i = 0; i < 2; i++) {
		uint64_t ts = i ? 3900 : 900;
		e = tb_ev(t, ts, 300, 300, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PHASE_BEGIN, 1 + i);
		e->scope = KATRA_SCOPE_VULKAN;
		e = tb_ev(t, ts + 100, 300, 300, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PHASE_END,
			  1 + i);
		e->scope = KATRA_SCOPE_VULKAN;
		tb_epoch(t, ts + 100, KATRA_EPOCH_FRAME,
			 i ? "frame 2 (pid 300, swapchain 0xa)" : "frame 1 (pid 300, swapchain 0xa)");
		if (i)
			break;
		e = tb_ev(t, 1500, 300, 301, KATRA_KIND_WIN_TO_UNIX, KATRA_PHASE_BEGIN, 10);
		e->scope = KATRA_SCOPE_WINE_PROTON;
		e->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, VK };
		e->payload.type = KATRA_PAYLOAD_WINE_SERVER_CALL;
		e->payload.u.wine_server_call.request = 1;
		off_causes[0] = tb_switch(t, 2000, 300, 300, KATRA_PHASE_BEGIN, 4, 1)->seq;
		e = tb_ev(t, 3000, 300, 301, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
		e->payload.type = KATRA_PAYLOAD_WAKEUP;
		e->payload.u.wakeup.target_tid = 300;
		e->payload.u.wakeup.target_pid = 300;
		e->resource = (struct katra_resource){ KATRA_RES_THREAD, 300 };
		off_causes[1] = e->seq;
		e = tb_switch(t, 3500, 300, 300, KATRA_PHASE_END, 4, 0);
		e->causes = (struct katra_u64_vec){ off_causes, 2 };
	}
	e = tb_ev(t, 4500, 300, 301, KATRA_KIND_WIN_TO_UNIX, KATRA_PHASE_END, 10);
	e->scope = KATRA_SCOPE_WINE_PROTON;
	e->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, VK };
	e->payload.type = KATRA_PAYLOAD_WINE_SERVER_CALL;
	e->payload.u.wine_server_call.request = 1;
	e = tb_ev(t, 4600, 300, 300, KATRA_KIND_WINE_UNIX_CALL_NAMES, KATRA_PHASE_INSTANT, -1);
	e->scope = KATRA_SCOPE_WINE_PROTON;
	e->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, VK };
	e->payload.type = KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
	e->payload.u.wine_server_requests.names = (struct katra_str_vec){ names, 2 };
	tb_epoch(t, 5000, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

Test(unixcall_names, report_frames_paths_name_the_call_a_thread_was_in)
{
	struct tb t;
	struct outcap out;

	tb_init(&t);
	build_frame(&t);
	for (int json = 0; json < 2; json++) {
		struct katra_report_opts o = { .frames = true, .json = json, .top = 1 };

		oc_open(&out);
		cr_assert_eq(katra_report(t.path, &o, out.f, stderr), 0);
		const char *s = oc_text(&out);
		if (!json) {
			/* the waker ran inside the call; the woken thread was in none */
			cr_assert(strstr(s, "301                           running, in WinToUnix "
					    "vkQueueSubmit\n"), "%s", s);
			cr_assert(strstr(s, "300                           woken by 301, waiting "
					    "for a CPU\n"), "%s", s);
			cr_assert_eq(count(s, ", in WinToUnix"), 1, "%s", s);
		} else {
			cr_assert(strstr(s, "{\"type\":\"running\",\"tid\":301,\"pid\":300,\"from_ns\":1000,"
					    "\"to_ns\":3000,\"ns\":2000,\"in\":\"WinToUnix vkQueueSubmit\","
					    "\"text\":\"running, in WinToUnix vkQueueSubmit\"}"), "%s", s);
			cr_assert_eq(count(s, "\"in\":"), 1, "%s", s);
		}
		oc_free(&out);
	}
	tb_cleanup(&t);
}
