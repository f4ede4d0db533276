// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay stats --gpu on a trace with known fences (user/replay/stats/
 * stats_gpu.c): per timeline its names, fences made and signalled, busy
 * time (the union of the fences' flights), made-to-signalled p50/p99/max,
 * waits; per process its share of all fence time; text and JSON. */
#include "replay_test_util.h"

#define US 1000ull

static void timeline(struct tb *t, uint64_t ts, uint64_t ctx, const char *driver,
		     const char *name)
{
	struct katra_event *e = tb_ev(t, ts, 100, 101, KATRA_KIND_GPU_TIMELINE,
				      KATRA_PHASE_INSTANT, -1);

	e->scope = KATRA_SCOPE_GPU;
	e->payload.type = KATRA_PAYLOAD_GPU_TIMELINE;
	e->payload.u.gpu_timeline.context = ctx;
	e->payload.u.gpu_timeline.driver = katra_cstr(driver);
	e->payload.u.gpu_timeline.timeline = katra_cstr(name);
}

static struct katra_event *fence(struct tb *t, uint64_t ts, uint64_t pid, uint32_t kind,
				 uint32_t phase, int64_t span, uint64_t ctx, uint64_t seqno)
{
	struct katra_event *e = tb_ev(t, ts, pid, pid ? pid + 1 : 0, kind, phase, span);

	e->scope = KATRA_SCOPE_GPU;
	e->payload.type = KATRA_PAYLOAD_GPU_FENCE;
	e->payload.u.gpu_fence.context = ctx;
	e->payload.u.gpu_fence.seqno = seqno;
	return e;
}

/* Timeline 5 (amdgpu gfx): process 100's fences 1 (10..40 us) and 2 (20..60
 * us, overlapping: busy 10..60 = 50 us), then process 200's fence 3 (100..
 * 110 us); a wait of thread 101 on fence 2 from 30 to 60 us.  Timeline 9
 * (vgem): process 100's fence 1, 200..400 us, and fence 2 freed unsignalled. */
static void gpu_trace(struct tb *t)
{
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, 1 * US, 100, "game", NULL);
	tb_pinfo(t, 1 * US, 200, "tool", NULL);
	timeline(t, 5 * US, 5, "amdgpu", "gfx_0.0.0");
	fence(t, 10 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 5, 1);
	fence(t, 20 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 5, 2);
	fence(t, 30 * US, 100, KATRA_KIND_GPU_FENCE_WAIT, KATRA_PHASE_BEGIN, 1, 5, 2);
	fence(t, 40 * US, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 5, 1);
	fence(t, 60 * US, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 5, 2);
	fence(t, 60 * US, 100, KATRA_KIND_GPU_FENCE_WAIT, KATRA_PHASE_END, 1, 5, 2);
	fence(t, 100 * US, 200, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 5, 3);
	fence(t, 110 * US, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 5, 3);
	timeline(t, 150 * US, 9, "vgem", "unbound");
	fence(t, 200 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 9, 1);
	fence(t, 210 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 9, 2);
	fence(t, 220 * US, 100, KATRA_KIND_GPU_FENCE_DESTROY, KATRA_PHASE_INSTANT, -1, 9, 2);
	fence(t, 400 * US, 100, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 9, 1);
	tb_epoch(t, 500 * US, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

/* stats --gpu (--json) of the trace BUILD writes */
static char *run_on(void (*build)(struct tb *), bool json)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_GPU, .json = json };
	struct outcap out, err;
	struct tb t;
	char *text;

	tb_init(&t);
	build(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	cr_assert_str_eq(oc_text(&err), "");
	text = strdup(oc_text(&out));
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
	return text;
}

static char *run(bool json)
{
	return run_on(gpu_trace, json);
}

Test(stats_gpu, timelines_and_processes)
{
	char *text = run(false), *b = strstr(text, "\nGPU fence timelines");

	cr_assert_not_null(b, "%s", text);
	cr_assert_str_eq(b,
		"\nGPU fence timelines (dma_fence: made to signalled; p50/p99 within 1/32)\n"
		"   context driver       timeline          fences  signal  busy usecs  p50 usecs  p99 usecs  max usecs  waits wait usecs\n"
		"         9 vgem         unbound                2       1       200.0      200.0      200.0      200.0      0        0.0\n"
		"         5 amdgpu       gfx_0.0.0              3       3        60.0       30.0       40.0       40.0      1       30.0\n"
		"\nGPU fences per process (time in flight, share of all fence time)\n"
		"process                       fences  signal        usecs   share\n"
		"100(game)                          4       3        270.0   96.4%\n"
		"200(tool)                          1       1         10.0    3.6%\n");
	free(text);
}

Test(stats_gpu, json)
{
	/* p50: the middle of 30 us's bucket (within 1/32), as every view's */
	char *text = run(true), *b = strstr(text, ",\"gpu\":");


	cr_assert_not_null(b, "%s", text);
	cr_assert_str_eq(b,
		",\"gpu\":{\"timelines\":["
		"{\"context\":9,\"driver\":\"vgem\",\"timeline\":\"unbound\",\"fences\":2,"
		"\"signaled\":1,\"destroyed\":1,\"busy_ns\":200000,\"p50_ns\":200000,"
		"\"p99_ns\":200000,\"max_ns\":200000,\"waits\":0,\"wait_ns\":0,\"jobs\":0,"
		"\"ring_busy_ns\":0,\"ring_p50_ns\":0,\"ring_p99_ns\":0,\"ring_max_ns\":0,\"cmds\":0,"
		"\"cmd_responses\":0,\"cmd_p50_ns\":0,\"cmd_p99_ns\":0,\"cmd_max_ns\":0,"
		"\"other_fences\":0,\"other_fence_ns\":0,\"other_busy_ns\":0,\"other_jobs\":0,"
		"\"other_ring_busy_ns\":0,\"total_busy_ns\":200000,\"total_ring_busy_ns\":0},"
		"{\"context\":5,\"driver\":\"amdgpu\",\"timeline\":\"gfx_0.0.0\",\"fences\":3,"
		"\"signaled\":3,\"destroyed\":0,\"busy_ns\":60000,\"p50_ns\":29951,"
		"\"p99_ns\":40000,\"max_ns\":40000,\"waits\":1,\"wait_ns\":30000,\"jobs\":0,"
		"\"ring_busy_ns\":0,\"ring_p50_ns\":0,\"ring_p99_ns\":0,\"ring_max_ns\":0,\"cmds\":0,"
		"\"cmd_responses\":0,\"cmd_p50_ns\":0,\"cmd_p99_ns\":0,\"cmd_max_ns\":0,"
		"\"other_fences\":0,\"other_fence_ns\":0,\"other_busy_ns\":0,\"other_jobs\":0,"
		"\"other_ring_busy_ns\":0,\"total_busy_ns\":60000,\"total_ring_busy_ns\":0}],"
		"\"processes\":[{\"process_id\":100,\"process_name\":\"game\",\"fences\":4,"
		"\"signaled\":3,\"fence_ns\":270000},{\"process_id\":200,\"process_name\":\"tool\","
		"\"fences\":1,\"signaled\":1,\"fence_ns\":10000}],"
		"\"traced\":{\"fences\":5,\"signaled\":4,\"fence_ns\":280000,\"jobs\":0},"
		"\"others\":{\"timelines\":0,\"fences\":0,\"fence_ns\":0,\"busy_ns\":0,\"jobs\":0,"
		"\"ring_busy_ns\":0},\"unfenced_cmds\":0,\"overflow\":0}}\n");
	free(text);
}

/* A drm_sched ring (context 3): process 100's jobs 1 (made 10, run 20..50
 * us) and 2 (made 12, run 40..60 us: two on the ring at once, busy 20..60 =
 * 40 us), each signalling at its done. */
static void jobs_trace(struct tb *t)
{
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, 1 * US, 100, "game", NULL);
	timeline(t, 5 * US, 3, "drm_sched", "gfx_0.0.0");
	fence(t, 10 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 3, 1);
	fence(t, 12 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 3, 2);
	fence(t, 20 * US, 100, KATRA_KIND_GPU_JOB_RUN, KATRA_PHASE_INSTANT, -1, 3, 1);
	fence(t, 40 * US, 100, KATRA_KIND_GPU_JOB_RUN, KATRA_PHASE_INSTANT, -1, 3, 2);
	fence(t, 50 * US, 100, KATRA_KIND_GPU_JOB_DONE, KATRA_PHASE_INSTANT, -1, 3, 1);
	fence(t, 50 * US, 100, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 3, 1);
	fence(t, 60 * US, 100, KATRA_KIND_GPU_JOB_DONE, KATRA_PHASE_INSTANT, -1, 3, 2);
	fence(t, 60 * US, 100, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 3, 2);
	tb_epoch(t, 100 * US, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

Test(stats_gpu, a_rings_jobs_run_to_done)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_GPU };
	struct outcap out, err;
	struct tb t;

	tb_init(&t);
	jobs_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	const char *b = strstr(oc_text(&out), "\nGPU scheduler rings");
	cr_assert_not_null(b, "%s", oc_text(&out));
	cr_assert_str_eq(b,
		"\nGPU scheduler rings (jobs: run to done; p50/p99 within 1/32)\n"
		"   context driver       timeline            jobs  busy usecs  p50 usecs  p99 usecs  max usecs\n"
		"         3 drm_sched    gfx_0.0.0              2        40.0       20.0       30.0       30.0\n"
		"\nGPU fences per process (time in flight, share of all fence time)\n"
		"process                       fences  signal        usecs   share\n"
		"100(game)                          2       2         88.0  100.0%\n");
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* virtio_gpu's commands: process 100's fences 1 and 2 on timeline 7
 * (request_ids 7 << 32 | token), each with its fenced command queued at 10
 * and 20 us and answered at 30 and 60 us (20 and 40 us), and one command
 * without a fence. */
static struct katra_event *cmd(struct tb *t, uint64_t ts, uint32_t kind, uint32_t type,
			       uint64_t fence_id, uint64_t rid)
{
	struct katra_event *e = tb_ev(t, ts, 100, kind == KATRA_KIND_GPU_CMD_QUEUE ? 101 : 0, kind,
				      KATRA_PHASE_INSTANT, -1);

	e->scope = KATRA_SCOPE_GPU;
	e->payload.type = KATRA_PAYLOAD_GPU_CMD;
	e->payload.u.gpu_cmd.cmd_type = type;
	e->payload.u.gpu_cmd.flags = fence_id ? 1 : 0;
	e->payload.u.gpu_cmd.fence_id = fence_id;
	if (rid) {
		e->request_id = (struct katra_opt_u64){ true, rid };
		e->resource = (struct katra_resource){ KATRA_RES_GPU_TIMELINE, 7 };
	}
	return e;
}

Test(stats_gpu, a_drivers_fenced_commands_queued_to_response)
{
	const uint64_t r1 = 7ull << 32 | 0x80000001u, r2 = 7ull << 32 | 0x80000002u;
	struct katra_stats_opts o = { .views = KATRA_STATS_GPU };
	struct outcap out, err;
	struct tb t;

	tb_init(&t);
	tb_epoch(&t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(&t, 1 * US, 100, "game", NULL);
	timeline(&t, 5 * US, 7, "virtio_gpu", "controlq");
	cmd(&t, 10 * US, KATRA_KIND_GPU_CMD_QUEUE, 0x0105, 1, r1);
	cmd(&t, 15 * US, KATRA_KIND_GPU_CMD_QUEUE, 0x0300, 0, 0);
	cmd(&t, 20 * US, KATRA_KIND_GPU_CMD_QUEUE, 0x0105, 2, r2);
	cmd(&t, 30 * US, KATRA_KIND_GPU_CMD_RESPONSE, 0x1100, 1, r1);
	cmd(&t, 60 * US, KATRA_KIND_GPU_CMD_RESPONSE, 0x1100, 2, r2);
	tb_epoch(&t, 100 * US, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	const char *b = strstr(oc_text(&out), "\nGPU driver commands");
	cr_assert_not_null(b, "%s", oc_text(&out));
	cr_assert_str_eq(b,
		"\nGPU driver commands (fenced: queued to the device's response; p50/p99 within 1/32)\n"
		"   context driver       timeline            cmds responses  p50 usecs  p99 usecs  max usecs\n"
		"         7 virtio_gpu   controlq               2         2       20.0       40.0       40.0\n"
		"  1 command without a fence (their responses name no command)\n");
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

static void gpu_count(struct tb *t, uint64_t ts, uint32_t kind, uint32_t ctx, uint64_t value)
{
	struct katra_counter *c = tb_counter(t, ts, value);

	c->kind = kind;
	c->instance = ctx;
}

/* Timeline 5 (amdgpu gfx): process 100's fences 1 (10..40 us) and 2 (20..60
 * us: busy 50 us, 70 us in flight), and the kernel's counts of other
 * processes' work there: 3 fences (a first counter of 1 superseded), 30 us
 * in flight, busy 25 us, the timeline busy 70 us over all its work.
 * Timeline 11 (vgem), only others': 2 fences, 40 us in flight, busy 20 us.
 * Ring 3 (drm_sched), only others': 4 jobs, busy 35 us. */
static void others_trace(struct tb *t)
{
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, 1 * US, 100, "game", NULL);
	timeline(t, 5 * US, 5, "amdgpu", "gfx_0.0.0");
	fence(t, 10 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 5, 1);
	fence(t, 20 * US, 100, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 5, 2);
	fence(t, 40 * US, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 5, 1);
	fence(t, 60 * US, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 5, 2);
	timeline(t, 70 * US, 11, "vgem", "unbound");
	timeline(t, 80 * US, 3, "drm_sched", "comp_1.0.0");
	gpu_count(t, 300 * US, KATRA_COUNTER_GPU_OTHER_FENCES, 5, 1);
	tb_epoch(t, 500 * US, KATRA_EPOCH_CAPTURE_END, "capture end");
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_FENCES, 5, 3);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_FENCE_NS, 5, 30 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_BUSY_NS, 5, 25 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_TIMELINE_BUSY_NS, 5, 70 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_FENCES, 11, 2);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_FENCE_NS, 11, 40 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_BUSY_NS, 11, 20 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_TIMELINE_BUSY_NS, 11, 20 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_JOBS, 3, 4);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_OTHER_RING_BUSY_NS, 3, 35 * US);
	gpu_count(t, 500 * US, KATRA_COUNTER_GPU_RING_BUSY_NS, 3, 35 * US);
	tb_write(t);
}

static char *run_others(bool json)
{
	return run_on(others_trace, json);
}

Test(stats_gpu, other_processes_beside_the_traced)
{
	char *text = run_others(false), *b = strstr(text, "\nGPU fence timelines");

	cr_assert_not_null(b, "%s", text);
	cr_assert_str_eq(b,
		"\nGPU fence timelines (dma_fence: made to signalled; p50/p99 within 1/32)\n"
		"   context driver       timeline          fences  signal  busy usecs  p50 usecs  p99 usecs  max usecs  waits wait usecs\n"
		"         5 amdgpu       gfx_0.0.0              2       2        50.0       30.0       40.0       40.0      0        0.0\n"
		"\nGPU timelines: traced processes beside the others (others counted in the kernel, not recorded)\n"
		"   context driver       timeline          traced traced busy  others others busy  total busy\n"
		"                                          fences       usecs  fences       usecs       usecs\n"
		"         5 amdgpu       gfx_0.0.0              2        50.0       3        25.0        70.0\n"
		"        11 vgem         unbound                0         0.0       2        20.0        20.0\n"
		"\nGPU scheduler rings: traced processes beside the others (jobs: run to done)\n"
		"   context driver       timeline          traced traced busy  others others busy  total busy\n"
		"                                            jobs       usecs    jobs       usecs       usecs\n"
		"         3 drm_sched    comp_1.0.0             0         0.0       4        35.0        35.0\n"
		"\nGPU fences per process (time in flight, share of all fence time)\n"
		"process                       fences  signal        usecs   share\n"
		"100(game)                          2       2         70.0   50.0%\n"
		"other processes                    5       5         70.0   50.0%\n");
	free(text);
}

Test(stats_gpu, other_processes_in_json)
{
	char *text = run_others(true), *b = strstr(text, "],\"traced\":");

	cr_assert_not_null(b, "%s", text);
	cr_assert_str_eq(b,
		"],\"traced\":{\"fences\":2,\"signaled\":2,\"fence_ns\":70000,\"jobs\":0},"
		"\"others\":{\"timelines\":3,\"fences\":5,\"fence_ns\":70000,\"busy_ns\":45000,"
		"\"jobs\":4,\"ring_busy_ns\":35000},\"unfenced_cmds\":0,\"overflow\":0}}\n");
	cr_assert_not_null(strstr(text, "{\"context\":11,\"driver\":\"vgem\",\"timeline\":\"unbound\","
					"\"fences\":0,"), "%s", text);
	cr_assert_not_null(strstr(text, "\"other_fences\":3,\"other_fence_ns\":30000,"
					"\"other_busy_ns\":25000,\"other_jobs\":0,"
					"\"other_ring_busy_ns\":0,\"total_busy_ns\":70000,"
					"\"total_ring_busy_ns\":0}"), "%s", text);
	free(text);
}

Test(stats_gpu, a_window_counts_the_others_from_its_start)
{
	/* from 400 us: context 5's fences 3 less the 1 written before it */
	struct katra_stats_opts o = { .views = KATRA_STATS_GPU, .json = true };
	struct outcap out, err;
	struct tb t;

	o.from = (struct katra_dump_when){ .set = true, .ns = 400 * US };
	tb_init(&t);
	others_trace(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	const char *b = strstr(oc_text(&out), "],\"traced\":");
	cr_assert_not_null(b, "%s", oc_text(&out));
	cr_assert_str_eq(b,
		"],\"traced\":{\"fences\":0,\"signaled\":0,\"fence_ns\":0,\"jobs\":0},"
		"\"others\":{\"timelines\":3,\"fences\":4,\"fence_ns\":70000,\"busy_ns\":45000,"
		"\"jobs\":4,\"ring_busy_ns\":35000},\"unfenced_cmds\":0,\"overflow\":0}}\n");
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}
