// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay stats --calls (user/replay/stats/stats_calls.c): the Wine and
 * Vulkan layers' calls by name on a trace with known spans: NT calls by
 * kind, every other NT call by the name its Begin carried (or its number),
 * wineserver requests by the session's request names, Vulkan presents;
 * errors by NTSTATUS severity and VkResult sign; overall and per process,
 * text and JSON. */
#include "replay_test_util.h"
#include "replay/stats/views.h"

#define MS 1000000ull

#define call tb_layer_call

static void nt_call(struct tb *t, uint64_t ts, uint64_t dur, uint64_t pid, uint32_t kind,
		    int64_t span, uint32_t status)
{
	struct katra_event *e = call(t, ts, pid, pid, kind, KATRA_PHASE_BEGIN, span);

	e->payload.type = KATRA_PAYLOAD_NT_CALL;
	e = call(t, ts + dur, pid, pid, kind, KATRA_PHASE_END, span);
	e->payload.type = KATRA_PAYLOAD_NT_CALL;
	e->payload.u.nt_call.status = (struct katra_opt_u32){ true, status };
}

static void nt_syscall(struct tb *t, uint64_t ts, uint64_t dur, uint64_t pid, int64_t span,
		       uint32_t number, const char *name, uint32_t status)
{
	struct katra_event *e = call(t, ts, pid, pid, KATRA_KIND_NT_SYSCALL, KATRA_PHASE_BEGIN,
				     span);

	e->payload.type = KATRA_PAYLOAD_NT_SYSCALL;
	e->payload.u.nt_syscall.number = number;
	if (name)
		e->payload.u.nt_syscall.name = (struct katra_opt_str){ true, katra_cstr(name) };
	e = call(t, ts + dur, pid, pid, KATRA_KIND_NT_SYSCALL, KATRA_PHASE_END, span);
	e->payload.type = KATRA_PAYLOAD_NT_SYSCALL;
	e->payload.u.nt_syscall.number = number;
	e->payload.u.nt_syscall.status = (struct katra_opt_u32){ true, status };
}

/* Process 300 "game.exe": two NtReadFile (2 ms; 4 ms failing with
 * STATUS_END_OF_FILE), NtQueryInformationProcess twice (1 ms with its name
 * on the Begin, 3 ms without: named by the first), NT call 99 (no name,
 * 0.5 ms, STATUS_PENDING: no error), wineserver request 7 "get_handle_fd"
 * (0.25 ms), two presents (1 ms; 2 ms VK_ERROR_DEVICE_LOST).  Process 400
 * "helper.exe": one NtWriteFile (1 ms) and NT call 26
 * "NtQueryVirtualMemory" (2 ms).  Every row holds one or two calls, so its
 * p50 and p99 are exact (the first and last ranks). */
static void calls_trace(struct tb *t)
{
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, MS / 10, 300, "wine64", "game.exe");
	tb_pinfo(t, MS / 10, 400, "wine64", "helper.exe");
	tb_request_names(t, MS / 5, 500);
	nt_call(t, 1 * MS, 2 * MS, 300, KATRA_KIND_NT_READ_FILE, 1, 0);
	nt_call(t, 4 * MS, 4 * MS, 300, KATRA_KIND_NT_READ_FILE, 2, 0xC0000011u);
	nt_syscall(t, 9 * MS, 1 * MS, 300, 3, 25, "NtQueryInformationProcess", 0);
	nt_syscall(t, 11 * MS, 3 * MS, 300, 4, 25, NULL, 0);
	nt_syscall(t, 15 * MS, MS / 2, 300, 5, 99, NULL, 0x103);
	e = call(t, 16 * MS, 300, 300, KATRA_KIND_WINE_SERVER_CALL, KATRA_PHASE_BEGIN, 6);
	e->payload.type = KATRA_PAYLOAD_WINE_SERVER_CALL;
	e->payload.u.wine_server_call.request = 7;
	e = call(t, 16 * MS + MS / 4, 300, 300, KATRA_KIND_WINE_SERVER_CALL, KATRA_PHASE_END, 6);
	e->payload.type = KATRA_PAYLOAD_WINE_SERVER_CALL;
	e->payload.u.wine_server_call.request = 7;
	e->payload.u.wine_server_call.status = (struct katra_opt_u32){ true, 0 };
	for (int i = 0; i < 2; i++) {
		e = call(t, (17 + 3 * i) * MS, 300, 300, KATRA_KIND_VULKAN_QUEUE_PRESENT,
			 KATRA_PHASE_BEGIN, 7 + i);
		e->payload.type = KATRA_PAYLOAD_VULKAN;
		e = call(t, (18 + 4 * i) * MS, 300, 300, KATRA_KIND_VULKAN_QUEUE_PRESENT,
			 KATRA_PHASE_END, 7 + i);
		e->payload.type = KATRA_PAYLOAD_VULKAN;
		e->payload.u.vulkan.result = (struct katra_opt_i32){ true, i ? -4 : 0 };
	}
	nt_call(t, 2 * MS, 1 * MS, 400, KATRA_KIND_NT_WRITE_FILE, 1, 0);
	nt_syscall(t, 5 * MS, 2 * MS, 400, 2, 26, "NtQueryVirtualMemory", 0);
	tb_epoch(t, 24 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

static const char *run_stats(struct tb *t, struct outcap *out, const struct katra_stats_opts *o)
{
	struct outcap err;
	const char *b;

	tb_init(t);
	calls_trace(t);
	oc_open(out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t->path, out->f, o, err.f), 0, "%s", oc_text(&err));
	cr_assert_str_eq(oc_text(&err), "");
	oc_free(&err);
	b = oc_text(out);
	return b;
}

static const char head[] =
	"layer      calls    errors     seconds     p50 usecs   p99 usecs   max usecs name\n"
	"------ --------- --------- ----------- ----------- ----------- ----------- ----------------\n";

Test(stats_calls, by_name_overall_and_per_process)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_CALLS, .per_process = true };
	struct outcap out;
	struct tb t;
	char want[4096];
	const char *b = run_stats(&t, &out, &o);

	snprintf(want, sizeof(want),
		 "\ncalls of the Wine and Vulkan layers (wall time from entry to return; "
		 "p50/p99 within 1/32)\n%s"
		 "nt             2         1    0.006000    2000.000    4000.000    4000.000 NtReadFile\n"
		 "nt             2              0.004000    1000.000    3000.000    3000.000 NtQueryInformationProcess\n"
		 "vulkan         2         1    0.003000    1000.000    2000.000    2000.000 VulkanQueuePresent\n"
		 "nt             1              0.002000    2000.000    2000.000    2000.000 NtQueryVirtualMemory\n"
		 "nt             1              0.001000    1000.000    1000.000    1000.000 NtWriteFile\n"
		 "nt             1              0.000500     500.000     500.000     500.000 NtSyscall 99\n"
		 "wine           1              0.000250     250.000     250.000     250.000 WineServerCall get_handle_fd\n"
		 "\nprocess 300(game.exe)\n%s"
		 "nt             2         1    0.006000    2000.000    4000.000    4000.000 NtReadFile\n"
		 "nt             2              0.004000    1000.000    3000.000    3000.000 NtQueryInformationProcess\n"
		 "vulkan         2         1    0.003000    1000.000    2000.000    2000.000 VulkanQueuePresent\n"
		 "nt             1              0.000500     500.000     500.000     500.000 NtSyscall 99\n"
		 "wine           1              0.000250     250.000     250.000     250.000 WineServerCall get_handle_fd\n"
		 "\nprocess 400(helper.exe)\n%s"
		 "nt             1              0.002000    2000.000    2000.000    2000.000 NtQueryVirtualMemory\n"
		 "nt             1              0.001000    1000.000    1000.000    1000.000 NtWriteFile\n",
		 head, head, head);
	for (int i = 0; i < 4; i++)
		b = strchr(b, '\n') + 1;
	cr_assert_str_eq(b, want);
	oc_free(&out);
	tb_cleanup(&t);
}

Test(stats_calls, json)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_CALLS, .json = true };
	struct outcap out;
	struct tb t;
	const char *b = run_stats(&t, &out, &o);

	b = strstr(b, ",\"calls\":");
	cr_assert_not_null(b, "%s", oc_text(&out));
	static const char first[] =
		",\"calls\":{\"rows\":[{\"layer\":\"nt\",\"kind\":\"NtReadFile\",\"number\":0,"
		"\"name\":\"NtReadFile\",\"calls\":2,\"errors\":1,\"total_ns\":6000000,"
		"\"p50_ns\":2000000,\"p99_ns\":4000000,\"max_ns\":4000000},";
	cr_assert(!strncmp(b, first, strlen(first)), "%s", b);
	cr_assert_not_null(strstr(b, "{\"layer\":\"nt\",\"kind\":\"NtSyscall\",\"number\":25,"
				     "\"name\":\"NtQueryInformationProcess\",\"calls\":2,\"errors\":0,"
				     "\"total_ns\":4000000,\"p50_ns\":1000000,\"p99_ns\":3000000,"
				     "\"max_ns\":3000000}"), "%s", b);
	cr_assert_not_null(strstr(b, "\"name\":\"WineServerCall get_handle_fd\""), "%s", b);
	cr_assert_not_null(strstr(b, "],\"overflow\":0}"), "%s", b);
	oc_free(&out);
	tb_cleanup(&t);
}

/* A win32u call's End carries the function's return value (a BOOL, a
 * handle, a count), no NTSTATUS: never an error, whatever its bits; an
 * ntdll call's error-severity NTSTATUS is one. */
Test(stats_calls, win32u_returns_are_no_errors)
{
	struct katra_event e = { 0 };

	e.payload.type = KATRA_PAYLOAD_NT_SYSCALL;
	e.payload.u.nt_syscall.status = (struct katra_opt_u32){ true, 0xFFFFFFFFu };
	e.payload.u.nt_syscall.number = 0x10c6; /* NtUserPeekMessage (Wine 8) */
	cr_assert(!kr_call_failed(&e));
	e.payload.u.nt_syscall.number = 0x25;
	cr_assert(kr_call_failed(&e));
	e.payload.u.nt_syscall.status.value = 0x103;
	cr_assert(!kr_call_failed(&e));
}

/* The rows are capped (KR_MAX_CALL_ROWS, a histogram each): rows per process
 * are made only for --per-process, so that a session of many processes does
 * not crowd the overall rows out.  1100 distinct calls in each of two
 * processes: 1100 overall rows and no overflow; per process, 3300 rows
 * asked for, 2048 made, the calls past them counted. */
#include "replay/names/procnames.h"

static size_t rows_made(bool by_process, uint64_t *overflow)
{
	static struct kr_views v;
	struct kr_procnames names;
	size_t n;

	kr_procnames_init(&names);
	kr_views_init(&v, &names, 0);
	v.calls_by_process = by_process;
	for (uint32_t pid = 100; pid <= 101; pid++)
		for (uint32_t nr = 0; nr < 1100; nr++)
			kr_call_add(&v, pid, KATRA_KIND_NT_SYSCALL, nr, 1000 + nr, false);
	n = v.calls.len;
	*overflow = v.call_overflow;
	kr_views_free(&v);
	kr_procnames_free(&names);
	return n;
}

Test(stats_calls, overall_rows_are_not_crowded_out_by_processes)
{
	uint64_t overflow;

	cr_assert_eq(rows_made(false, &overflow), 1100);
	cr_assert_eq(overflow, 0);
	cr_assert_eq(rows_made(true, &overflow), KR_MAX_CALL_ROWS);
	cr_assert_gt(overflow, 0);
}
