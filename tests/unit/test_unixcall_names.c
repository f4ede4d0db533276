// SPDX-License-Identifier: GPL-2.0-only
/* A unix library's call names (WineUnixCallNames, EventKind 47) name the
 * WinToUnix calls of their (process, handle) in dump, stats --calls and
 * export, calls written before the table included (it follows a library's
 * first calls: the readers look ahead); another handle's calls, and indices
 * the table does not name, stay numbers. */
#include "replay_test_util.h"
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
 * index 1 of another library, and the table (after the first call). */
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
	tb_epoch(t, 6 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
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
	cr_assert_eq(count(s, "WinToUnix 2\n"), 1, "%s", s);
	cr_assert_eq(count(s, "WinToUnix 1\n"), 1, "the other library's row: %s", s);
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
	cr_assert(strstr(s, "\"number\":1,\"name\":\"WinToUnix 1\",\"handle\":139637976764416,"
			    "\"calls\":1,"), "%s", s);
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
	cr_assert_eq(count(s, "\"name\":\"WinToUnix 2\""), 1, "%s", s);
	cr_assert_eq(count(s, "\"name\":\"WinToUnix 1\""), 1, "%s", s);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}
