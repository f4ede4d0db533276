// SPDX-License-Identifier: GPL-2.0-only
/* report --frames, the GPU side: a frame whose present waits in a fence
 * wait is GPU-bound exactly when the wait is longer than the critical
 * path's running, its GPU time is its fence's flight, and the GPU hop names
 * the fence and the ioctl that made it; a trace without GPU events says
 * the verdict is unknown. */
#include "replay_test_util.h"
#include "katra/report.h"
#include "replay/tables/tables.h"
#include "replay/export/export.h"

#define GAME 100
#define NR_IOCTL 16

/* build(): the game's fence #7 is a commit's out-fence whose flip comes
 * 0.25 ms after the present, an earlier commit's flip first */
static bool commit_flip;

static struct katra_event *gpu_ev(struct tb *t, uint64_t ts, uint64_t tid, uint32_t kind,
				  uint32_t phase, int64_t span, uint64_t seqno)
{
	struct katra_event *e = tb_ev(t, ts, GAME, tid, kind, phase, span);

	e->scope = KATRA_SCOPE_GPU;
	e->resource = (struct katra_resource){ KATRA_RES_GPU_TIMELINE, 12 };
	e->payload.type = KATRA_PAYLOAD_GPU_FENCE;
	e->payload.u.gpu_fence.context = 12;
	e->payload.u.gpu_fence.seqno = seqno;
	return e;
}

static void present(struct tb *t, uint64_t begin, uint64_t end, int64_t span, uint64_t n,
		    char *name)
{
	struct katra_event *e;

	snprintf(name, 64, "frame %llu (pid %d, swapchain 0xa)", (unsigned long long)n, GAME);
	e = tb_ev(t, begin, GAME, GAME, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PHASE_BEGIN, span);
	e->scope = KATRA_SCOPE_VULKAN;
	e = tb_ev(t, end, GAME, GAME, KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_PHASE_END, span);
	e->scope = KATRA_SCOPE_VULKAN;
	tb_epoch(t, end, KATRA_EPOCH_FRAME, name);
}

/* Frame 2 runs from 1000 to 2100 (1100 ns), makes fence 12 #7 in an ioctl
 * at 1200, blocks in a fence wait from 2100 for `wait` ns, woken from an
 * interrupt when the fence signals, then runs 100 ns to its present: the
 * path runs 1200 ns and waits `wait` ns for the GPU.  gpu: whether the
 * fence events are written at all. */
static void build(struct tb *t, uint64_t wait, bool gpu)
{
	static char names[2][64];
	static uint64_t init_causes[1], off_causes[2], flip_causes[1];
	static const char vgem[] = "vgem", tl[] = "ctx";
	uint64_t woke = 2100 + wait;
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_switch(t, 0, GAME, GAME, KATRA_PHASE_INSTANT, -1, 0);
	present(t, 900, 1000, 1, 1, names[0]);
	init_causes[0] = tb_syscall_begin(t, 1100, GAME, GAME, KATRA_KIND_SYSCALL, 2, NR_IOCTL)->seq;
	if (gpu) {
		e = gpu_ev(t, 1200, GAME, KATRA_KIND_GPU_TIMELINE, KATRA_PHASE_INSTANT, -1, 0);
		e->payload.type = KATRA_PAYLOAD_GPU_TIMELINE;
		e->payload.u.gpu_timeline.context = 12;
		e->payload.u.gpu_timeline.driver = (struct katra_str){ vgem, 4 };
		e->payload.u.gpu_timeline.timeline = (struct katra_str){ tl, 3 };
		e = gpu_ev(t, 1200, GAME, KATRA_KIND_GPU_FENCE_INIT, KATRA_PHASE_INSTANT, -1, 7);
		e->causes = (struct katra_u64_vec){ init_causes, 1 };
		flip_causes[0] = e->seq;
	}
	tb_syscall_end(t, 1300, GAME, GAME, KATRA_KIND_SYSCALL, 2, NR_IOCTL, 0);
	tb_syscall_begin(t, 2050, GAME, GAME, KATRA_KIND_SYSCALL, 3, NR_IOCTL);
	if (gpu)
		gpu_ev(t, 2060, GAME, KATRA_KIND_GPU_FENCE_WAIT, KATRA_PHASE_BEGIN, 4, 7);
	off_causes[0] = tb_switch(t, 2100, GAME, GAME, KATRA_PHASE_BEGIN, 5, 1)->seq;
	if (gpu)
		gpu_ev(t, woke, 0, KATRA_KIND_GPU_FENCE_SIGNALED, KATRA_PHASE_INSTANT, -1, 7);
	e = tb_ev(t, woke, GAME, 0, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	e->payload.type = KATRA_PAYLOAD_WAKEUP_OUTSIDE;
	e->payload.u.wakeup_outside.context = KATRA_WAKER_INTERRUPT;
	e->payload.u.wakeup_outside.target_tid = GAME;
	e->payload.u.wakeup_outside.target_pid = GAME;
	e->resource = (struct katra_resource){ KATRA_RES_THREAD, GAME };
	off_causes[1] = e->seq;
	e = tb_switch(t, woke, GAME, GAME, KATRA_PHASE_END, 5, 0);
	e->causes = (struct katra_u64_vec){ off_causes, 2 };
	if (gpu)
		gpu_ev(t, woke, GAME, KATRA_KIND_GPU_FENCE_WAIT, KATRA_PHASE_END, 4, 7);
	tb_syscall_end(t, woke, GAME, GAME, KATRA_KIND_SYSCALL, 3, NR_IOCTL, 0);
	present(t, woke + 50, woke + 100, 6, 2, names[1]);
	if (gpu) {
		/* another process's flip first (the game's own earlier commit's,
		 * with commit_flip); the game's 0.25 ms after its present */
		e = tb_ev(t, woke + 200, commit_flip ? GAME : GAME + 1, 0,
			  KATRA_KIND_GPU_VBLANK_DELIVERED, KATRA_PHASE_INSTANT, -1);
		e->scope = KATRA_SCOPE_GPU;
		e = tb_ev(t, woke + 250100, GAME, 0, KATRA_KIND_GPU_VBLANK_DELIVERED,
			  KATRA_PHASE_INSTANT, -1);
		e->scope = KATRA_SCOPE_GPU;
		if (commit_flip)
			e->causes = (struct katra_u64_vec){ flip_causes, 1 };
	}
	tb_epoch(t, woke + 300000, KATRA_EPOCH_CAPTURE_END, "capture end");
}

static char *frames(uint64_t wait, bool gpu, bool json)
{
	struct katra_report_opts o = { .frames = true, .json = json, .top = 1 };
	struct outcap out;
	struct tb t;

	tb_init(&t);
	build(&t, wait, gpu);
	tb_write(&t);
	oc_open(&out);
	cr_assert_eq(katra_report(t.path, &o, out.f, stderr), 0);
	oc_text(&out);
	tb_cleanup(&t);
	return out.buf;
}

Test(report_frames_gpu, a_wait_as_long_as_the_running_is_cpu_bound)
{
	char *out = frames(1200, true, true);

	cr_assert_not_null(strstr(out, ",\"cpu_ns\":1200,\"gpu_ns\":2100,\"gpu_fences\":1,"
				       "\"path_run_ns\":1200,\"path_gpu_wait_ns\":1200,"
				       "\"bound\":\"cpu\",\"present_to_flip_ns\":250000,\"gpu_hops\":[{\"tid\":100,\"from_ns\":2100,"
				       "\"to_ns\":3300,\"fence\":{\"driver\":\"vgem\",\"context\":12,"
				       "\"seqno\":7,\"made_by_tid\":100,\"made_in_call\":true}}],"
				       "\"gpu_rings\":[{\"ring\":\"vgem:ctx\",\"context\":12,"
				       "\"gpu_ns\":2100,\"jobs\":0,\"fences\":1}]"),
			   "%s", out);
	free(out);
}

/* The game's flip of an earlier commit comes 100 ns after the present;
 * the flip linked to the commit made in the frame (the out-fence's init)
 * 250000 ns after: that one is the frame's. */
Test(report_frames_gpu, present_to_flip_is_to_the_flip_of_the_frames_commit)
{
	commit_flip = true;
	char *out = frames(1200, true, true);
	commit_flip = false;

	cr_assert_not_null(strstr(out, "\"present_to_flip_ns\":250000,"), "%s", out);
	free(out);
}

Test(report_frames_gpu, one_nanosecond_more_of_fence_wait_is_gpu_bound)
{
	char *out = frames(1201, true, true);

	cr_assert_not_null(strstr(out, ",\"cpu_ns\":1200,\"gpu_ns\":2101,\"gpu_fences\":1,"
				       "\"path_run_ns\":1200,\"path_gpu_wait_ns\":1201,"
				       "\"bound\":\"gpu\","), "%s", out);
	free(out);
}

Test(report_frames_gpu, text_names_the_fence_and_the_ioctl_that_made_it)
{
	char *out = frames(3200000, true, false);

	cr_assert_not_null(strstr(out, "\nGPU side: CPU 0.001 ms, GPU 3.201 ms (1 fences), critical path: "
				       "0.001 ms running, 3.200 ms waiting for the GPU: GPU-bound\n"
				       "  present to flip: 0.250 ms\n"
				       "  GPU hop: 100 waited 3.200 ms for fence vgem:ctx 12 #7 "
				       "(made in ioctl by 100)\n"), "%s", out);
	free(out);
}

Test(report_frames_gpu, no_gpu_events_is_unknown)
{
	char *out = frames(1201, false, false);

	cr_assert_not_null(strstr(out, "critical path: 0.001 ms running, 0.000 ms waiting for the "
				       "GPU: unknown (no GPU events)\n"), "%s", out);
	cr_assert_null(strstr(out, "present to flip"), "%s", out);
	free(out);
}

static char *frames_html(uint64_t wait, bool gpu)
{
	struct katra_report_opts o = { .frames = true, .top = 1 };
	char html[300];
	struct tb t;

	tb_init(&t);
	build(&t, wait, gpu);
	tb_write(&t);
	snprintf(html, sizeof(html), "%s.html", t.path);
	o.html_path = html;
	cr_assert_eq(katra_report(t.path, &o, stdout, stderr), 0);
	FILE *f = fopen(html, "r");
	cr_assert_not_null(f);
	char *page = calloc(1, 1 << 20);
	size_t n = fread(page, 1, (1 << 20) - 1, f);
	fclose(f);
	unlink(html);
	cr_assert_gt(n, 0);
	tb_cleanup(&t);
	return page;
}

/* The page: the GPU side under the frame's path, and the frame's GPU time
 * as a line over the frame-time bars (frame 2: 2400 ns long, 2100 ns of
 * GPU time: the line at 7/8 of the bar's height). */
Test(report_frames_gpu, html_has_the_gpu_side_and_the_gpu_time_line)
{
	char *page = frames_html(1200, true);

	cr_assert_not_null(strstr(page, "<pre class=\"gpu\">GPU side: CPU 0.001 ms, GPU 0.002 ms "
					"(1 fences), critical path: 0.001 ms running, 0.001 ms "
					"waiting for the GPU: CPU-bound\n"), "%s", page);
	cr_assert_not_null(strstr(page, "  GPU hop: 100 waited 0.001 ms for fence vgem:ctx 12 #7 "
					"(made in ioctl by 100)\n</pre>"), "%s", page);
	cr_assert_not_null(strstr(page, "<polyline class=\"series\" fill=\"none\" stroke=\"#2a9d2a\" "
					"stroke-width=\"1.5\" points=\"564.00,36.50\"/>"), "%s", page);
	cr_assert_not_null(strstr(page, "line: GPU time (its fences&#39; flights)</text>"), "%s",
			   page);
	free(page);
	page = frames_html(1200, false);
	cr_assert_null(strstr(page, "<polyline"), "no GPU events, no line: %s", page);
	free(page);
}

static char *per_frame(uint64_t wait)
{
	struct katra_stats_opts o = { .per_frame = true, .json = true };
	struct outcap out;
	struct tb t;

	tb_init(&t);
	build(&t, wait, true);
	tb_write(&t);
	oc_open(&out);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, stderr), 0);
	oc_text(&out);
	tb_cleanup(&t);
	return out.buf;
}

/* stats --per-frame gives every frame the verdict report --frames gives
 * its slowest: the same computation, flipping at the same nanosecond. */
Test(report_frames_gpu, stats_per_frame_flips_the_verdict_at_the_same_nanosecond)
{
	char *out = per_frame(1200);

	cr_assert_not_null(strstr(out, "{\"frame\":2,\"start_ns\":1000,\"end_ns\":3400,"
				       "\"cpu_ns\":1200,\"gpu_ns\":2100,\"gpu_rings\":[{\"ring\":"
				       "\"vgem:ctx\",\"context\":12,\"gpu_ns\":2100,\"jobs\":0,"
				       "\"fences\":1}],\"present_to_flip_ns\":250000,"
				       "\"bound\":\"cpu\"}"), "%s", out);
	free(out);
	out = per_frame(1201);
	cr_assert_not_null(strstr(out, "\"gpu_ns\":2101,\"gpu_rings\":[{\"ring\":\"vgem:ctx\","
				       "\"context\":12,\"gpu_ns\":2101,\"jobs\":0,\"fences\":1}],"
				       "\"present_to_flip_ns\":250000,\"bound\":\"gpu\"}"), "%s", out);
	free(out);
}

/* One run of build(): its own start time (its own run id) and label
 * scene=NAME, with the scheduler recorded (cpu_ns known). */
static void write_run(const char *path, uint64_t wait, bool gpu, const char *scene, unsigned k)
{
	static char label[3][32];
	struct katra_str notes[3] = { { label[k], 0 }, { "events: all", 11 },
				      { "layer gpu: dma_fence", 20 } };
	struct katra_header h = *katra_sample_header();
	struct katra_writer *w;
	struct tb t;

	notes[0].len = (uint64_t)snprintf(label[k], sizeof(label[k]), "label scene=%s", scene);
	h.notes = (struct katra_str_vec){ notes, 3 };
	h.start_wall_ns += k;
	tb_init(&t);
	build(&t, wait, gpu);
	cr_assert_eq(katra_writer_open(&w, path, &h, KATRA_WRITER_OVERWRITE), 0);
	for (size_t i = 0; i < t.n; i++)
		cr_assert_eq(katra_writer_append(w, &t.r[i]), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	tb_cleanup(&t);
}

/* Three runs for export --parquet, read by DuckDB in
 * tests/integration/t_parquet_gpu.sh: scene=cpu (1200 ns of fence wait:
 * CPU-bound), scene=gpu (1201: GPU-bound), both flipped 250 us after the
 * present; scene=none (no GPU events: bound unknown, no flip).  Into
 * $KT_GPU_FRAMES_DIR when set, else a temporary directory; here: each
 * exports. */
Test(report_frames_gpu, three_runs_for_parquet)
{
	static const struct { const char *scene; uint64_t wait; bool gpu; } runs[3] = {
		{ "cpu", 1200, true }, { "gpu", 1201, true }, { "none", 1200, false },
	};
	char tmp[] = "/tmp/katra-fgpu-XXXXXX", path[512], pq[512];
	const char *dir = getenv("KT_GPU_FRAMES_DIR");
	struct kq_opts o = { .compress = true };

	if (!dir) {
		cr_assert_not_null(mkdtemp(tmp));
		dir = tmp;
	}
	snprintf(pq, sizeof(pq), "%s/pq", dir);
	o.dir = pq;
	for (unsigned k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "%s/%s.ktrc", dir, runs[k].scene);
		write_run(path, runs[k].wait, runs[k].gpu, runs[k].scene, k);
		if (dir == tmp)
			cr_assert_eq(kq_export_trace(path, &o, stderr), 0);
	}
	if (dir == tmp) {
		snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
		cr_assert_eq(system(path), 0);
	}
}

/* export: the frame slice's args carry its sides (from a first pass: the
 * fence signals after the frame's present), the verdict flipping at the
 * same nanosecond; a frame without a flip says null. */
static char *exported(uint64_t wait, bool gpu)
{
	char tmp[] = "/tmp/katra-fgpu-XXXXXX", path[512];
	struct kx_options o = { 0 };
	struct outcap out;

	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/t.ktrc", tmp);
	write_run(path, wait, gpu, "x", 0);
	oc_open(&out);
	cr_assert_eq(katra_export_chrome(path, &o, out.f, stderr), 0);
	oc_text(&out);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	cr_assert_eq(system(path), 0);
	return out.buf;
}

Test(report_frames_gpu, export_frame_slice_args_carry_its_sides)
{
	char *out = exported(1200, true);

	cr_assert_not_null(strstr(out, "\"name\":\"frame 2\",\"cat\":\"frame\",\"args\":{"), "%s", out);
	cr_assert_not_null(strstr(out, ",\"bound\":\"cpu\",\"present_to_flip_ns\":250000,"
				       "\"cpu_ns\":1200,\"gpu_ns\":2100}"), "%s", out);
	free(out);
	out = exported(1201, true);
	cr_assert_not_null(strstr(out, ",\"bound\":\"gpu\",\"present_to_flip_ns\":250000,"
				       "\"cpu_ns\":1200,\"gpu_ns\":2101}"), "%s", out);
	free(out);
	out = exported(1200, false);
	cr_assert_not_null(strstr(out, ",\"bound\":\"unknown\",\"present_to_flip_ns\":null,"
				       "\"cpu_ns\":1200,\"gpu_ns\":0}"), "%s", out);
	free(out);
}
