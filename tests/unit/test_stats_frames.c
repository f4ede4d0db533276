// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay stats --per-frame (user/replay/stats/stats_frames*.c) on a
 * hand-built trace: frames are present-to-present windows per swapchain of a
 * process (Frame epochs, format/SPEC.md section 10); a call is in the frame
 * whose window holds its Begin, also when it ends frames later; the
 * distributions over frames count a frame without the call as 0; the
 * slowest frames list their calls by their excess over the call's median
 * frame; calls before the first present, after the last, and of processes
 * with no frames are counted apart; two swapchains of one process each
 * count the process's calls.  Every number below is worked out by hand. */
#include "replay_test_util.h"

#define MS 1000000ull
#define GAME 300
#define HELPER 400
#define OTHER 500

static struct katra_event *call(struct tb *t, uint64_t ts, uint64_t pid, uint64_t tid,
				uint32_t kind, uint32_t phase, int64_t span)
{
	struct katra_event *e = tb_layer_call(t, ts, pid, tid, kind, phase, span);

	e->payload.type = kind >= KATRA_KIND_VULKAN_QUEUE_SUBMIT ? KATRA_PAYLOAD_VULKAN :
			  kind == KATRA_KIND_WINE_SERVER_CALL ? KATRA_PAYLOAD_WINE_SERVER_CALL :
								 KATRA_PAYLOAD_NT_CALL;
	if (kind == KATRA_KIND_WINE_SERVER_CALL)
		e->payload.u.wine_server_call.request = 7;
	return e;
}

static void nt(struct tb *t, uint64_t ts, uint64_t dur, uint64_t pid, uint64_t tid,
	       uint32_t kind, int64_t span)
{
	call(t, ts, pid, tid, kind, KATRA_PHASE_BEGIN, span);
	call(t, ts + dur, pid, tid, kind, KATRA_PHASE_END, span);
}

static void frame_epoch(struct tb *t, uint64_t ts, uint64_t pid, uint64_t chain, uint64_t n)
{
	static char names[32][64];
	static unsigned next;
	char *name = names[next++ % 32];

	snprintf(name, 64, "frame %llu (pid %llu, swapchain 0x%llx)", (unsigned long long)n,
		 (unsigned long long)pid, (unsigned long long)chain);
	tb_epoch(t, ts, KATRA_EPOCH_FRAME, name);
}

/* A 0.5 ms vkQueuePresentKHR of the game ending at end, then its Frame epoch. */
static void present(struct tb *t, uint64_t end, int64_t span, uint64_t n)
{
	nt(t, end - MS / 2, MS / 2, GAME, GAME, KATRA_KIND_VULKAN_QUEUE_PRESENT, span);
	frame_epoch(t, end, GAME, 0xa, n);
}

/* The game (swapchain 0xa) presents at 10, 20, 35 and 45 ms: frames 2
 * (10 ms), 3 (15 ms), 4 (10 ms).  Its calls, in time order:
 *   2 ms    NtReadFile 1 ms               before the first present
 *   9.5 ms  present 1                     before the first present
 *   11 ms   NtReadFile 1 ms               frame 2
 *   12 ms   WineServerCall get_handle_fd 0.25 ms   frame 2
 *   18 ms   NtWait 4 ms on thread 301, ending in frame 3: frame 2
 *   19.5    present 2                     frame 2
 *   21 ms   NtWait 0.5 ms  frame 3 (ends before the one above)
 *   23 ms   NtReadFile 6 ms, with a read syscall 23.1 .. 28.9 ms in it: frame 3
 *   30 ms   NtReadFile 1 ms               frame 3
 *   34.5    present 3                     frame 3
 *   36 ms   NtReadFile 1 ms               frame 4
 *   44.5    present 4                     frame 4
 *   46 ms   NtReadFile 1 ms               after the last present
 * The helper (no frames): NtWriteFile at 12 ms.  The other process presents
 * on swapchain 0xc at 5 and 28 ms and on 0xd at 15 and 30 ms (epochs only);
 * its NtReadFile at 26 ms (1 ms) is in frame 2 of both. */
static void build(struct tb *t)
{
	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, MS / 10, GAME, "wine64", "game.exe");
	tb_pinfo(t, MS / 10, HELPER, "wine64", "helper.exe");
	tb_pinfo(t, MS / 10, OTHER, "wine64", "other.exe");
	tb_request_names(t, MS / 5, 600);
	nt(t, 2 * MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 1);
	frame_epoch(t, 5 * MS, OTHER, 0xc, 1);
	present(t, 10 * MS, 2, 1);
	nt(t, 11 * MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 3);
	nt(t, 12 * MS, MS / 4, GAME, GAME, KATRA_KIND_WINE_SERVER_CALL, 4);
	nt(t, 12 * MS, MS, HELPER, HELPER, KATRA_KIND_NT_WRITE_FILE, 1);
	frame_epoch(t, 15 * MS, OTHER, 0xd, 1);
	call(t, 18 * MS, GAME, 301, KATRA_KIND_NT_WAIT, KATRA_PHASE_BEGIN, 5);
	present(t, 20 * MS, 6, 2);
	nt(t, 21 * MS, MS / 2, GAME, GAME, KATRA_KIND_NT_WAIT, 7);
	call(t, 22 * MS, GAME, 301, KATRA_KIND_NT_WAIT, KATRA_PHASE_END, 5);
	call(t, 23 * MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, KATRA_PHASE_BEGIN, 8);
	tb_syscall_begin(t, 23 * MS + MS / 10, GAME, GAME, KATRA_KIND_FILE_READ, 9, 0);
	nt(t, 26 * MS, MS, OTHER, OTHER, KATRA_KIND_NT_READ_FILE, 1);
	frame_epoch(t, 28 * MS, OTHER, 0xc, 2);
	tb_syscall_end(t, 28 * MS + 9 * MS / 10, GAME, GAME, KATRA_KIND_FILE_READ, 9, 0, 4096);
	call(t, 29 * MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, KATRA_PHASE_END, 8);
	frame_epoch(t, 30 * MS, OTHER, 0xd, 2);
	nt(t, 30 * MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 10);
	present(t, 35 * MS, 11, 3);
	nt(t, 36 * MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 12);
	present(t, 45 * MS, 13, 4);
	nt(t, 46 * MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 14);
	tb_epoch(t, 50 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

static const char *run(struct tb *t, struct outcap *out, const struct katra_stats_opts *o)
{
	struct outcap err;

	oc_open(out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t->path, out->f, o, err.f), 0, "%s", oc_text(&err));
	cr_assert_str_eq(oc_text(&err), "");
	oc_free(&err);
	return oc_text(out);
}

static const char head[] =
	"       frames  calls per frame     usecs per frame\n"
	"layer    seen       p50     max         p50         p99         max name\n"
	"------ ------ --------- ------- ----------- ----------- ----------- ----------------\n";
static const char slow_head[] =
	"layer   calls  usecs in frame   p50 usecs name\n";

Test(stats_frames, calls_and_syscalls_per_frame_text)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_CALLS | KATRA_STATS_SYSCALLS,
				      .per_frame = true };
	struct outcap out;
	struct tb t;
	char want[8192];
	const char *b;

	build(&t);
	b = run(&t, &out, &o);
	b = strstr(b, "\ncalls per frame");
	cr_assert_not_null(b, "%s", oc_text(&out));
	snprintf(want, sizeof(want),
		 "\ncalls per frame (a frame: present to present on one swapchain; a call: in "
		 "the frame that holds its Begin,\non each swapchain of its process; times summed "
		 "over its threads; a frame without the call counts 0)\n"
		 "\nframes of process 300(game.exe), swapchain 0xa: 4 presents, 3 frames\n"
		 "frame time: p50 10.000 ms  p99 15.000 ms  max 15.000 ms\n"
		 "slowest: frame 3 15.000 ms, frame 2 10.000 ms, frame 4 10.000 ms\n"
		 "%s"
		 "nt          3         1       2    1000.000    7000.000    7000.000 NtReadFile\n"
		 "linux       1         0       1       0.000    5800.000    5800.000 read\n"
		 "nt          2         1       1     500.000    4000.000    4000.000 NtWait\n"
		 "vulkan      3         1       1     500.000     500.000     500.000 VulkanQueuePresent\n"
		 "wine        1         0       1       0.000     250.000     250.000 WineServerCall get_handle_fd\n"
		 "(calls in no frame: 2 before the first present, 1 after the last)\n"
		 "\nframe 3, 15.000 ms: its calls, most above their p50 frame first\n%s"
		 "nt          2        7000.000    1000.000 NtReadFile\n"
		 "linux       1        5800.000       0.000 read\n"
		 "nt          1         500.000     500.000 NtWait\n"
		 "vulkan      1         500.000     500.000 VulkanQueuePresent\n"
		 "\nframe 2, 10.000 ms: its calls, most above their p50 frame first\n%s"
		 "nt          1        4000.000     500.000 NtWait\n"
		 "wine        1         250.000       0.000 WineServerCall get_handle_fd\n"
		 "nt          1        1000.000    1000.000 NtReadFile\n"
		 "vulkan      1         500.000     500.000 VulkanQueuePresent\n"
		 "\nframe 4, 10.000 ms: its calls, most above their p50 frame first\n%s"
		 "nt          1        1000.000    1000.000 NtReadFile\n"
		 "vulkan      1         500.000     500.000 VulkanQueuePresent\n"
		 "\nframes of process 500(other.exe), swapchain 0xc: 2 presents, 1 frame\n"
		 "frame time: p50 23.000 ms  p99 23.000 ms  max 23.000 ms\n"
		 "slowest: frame 2 23.000 ms\n"
		 "%s"
		 "nt          1         1       1    1000.000    1000.000    1000.000 NtReadFile\n"
		 "\nframe 2, 23.000 ms: its calls, most above their p50 frame first\n%s"
		 "nt          1        1000.000    1000.000 NtReadFile\n"
		 "\nframes of process 500(other.exe), swapchain 0xd: 2 presents, 1 frame\n"
		 "frame time: p50 15.000 ms  p99 15.000 ms  max 15.000 ms\n"
		 "slowest: frame 2 15.000 ms\n"
		 "%s"
		 "nt          1         1       1    1000.000    1000.000    1000.000 NtReadFile\n"
		 "\nframe 2, 15.000 ms: its calls, most above their p50 frame first\n%s"
		 "nt          1        1000.000    1000.000 NtReadFile\n"
		 "(GPU side: no GPU events in this trace)\n"
		 "\n(1 call of processes that presented no frame is not counted)\n",
		 head, slow_head, slow_head, slow_head, head, slow_head, head, slow_head);
	cr_assert_str_eq(b, want);
	oc_free(&out);
	tb_cleanup(&t);
}

Test(stats_frames, json_per_track_rows_and_slowest)
{
	struct katra_stats_opts o = { .per_frame = true, .json = true };
	struct outcap out;
	struct tb t;
	const char *b;

	build(&t);
	b = run(&t, &out, &o);
	/* --per-frame alone: the calls, not the syscalls */
	cr_assert_null(strstr(b, "\"syscalls\""), "%s", b);
	cr_assert_null(strstr(b, "\"name\":\"read\""), "%s", b);
	b = strstr(b, ",\"per_frame\":");
	cr_assert_not_null(b, "%s", oc_text(&out));
	static const char track[] =
		",\"per_frame\":{\"tracks\":[{\"process_id\":300,\"process_name\":\"game.exe\","
		"\"swapchain\":\"0xa\",\"presents\":4,\"frames\":3,\"frame_time_ns\":{\"p50\":10000000,"
		"\"p99\":15000000,\"max\":15000000},\"present_to_flip_ns\":null,"
		"\"calls_before_first_present\":2,"
		"\"calls_after_last_present\":1,\"rows\":[{\"layer\":\"nt\",\"kind\":\"NtReadFile\","
		"\"number\":0,\"name\":\"NtReadFile\",\"frames_seen\":3,\"calls\":4,\"total_ns\":9000000,"
		"\"calls_per_frame\":{\"p50\":1,\"max\":2},\"time_per_frame_ns\":{\"p50\":1000000,"
		"\"p99\":7000000,\"max\":7000000}},";
	cr_assert(!strncmp(b, track, strlen(track)), "%s", b);
	cr_assert_not_null(strstr(b, "{\"layer\":\"wine\",\"kind\":\"WineServerCall\",\"number\":7,"
				     "\"name\":\"WineServerCall get_handle_fd\",\"frames_seen\":1,"
				     "\"calls\":1,\"total_ns\":250000,\"calls_per_frame\":{\"p50\":0,"
				     "\"max\":1},\"time_per_frame_ns\":{\"p50\":0,\"p99\":250000,"
				     "\"max\":250000}}],\"slowest\":[{\"frame\":3,\"start_ns\":20000000,"
				     "\"end_ns\":35000000,\"length_ns\":15000000,\"calls\":[{\"layer\":"
				     "\"nt\",\"kind\":\"NtReadFile\",\"number\":0,\"name\":\"NtReadFile\","
				     "\"calls\":2,\"time_ns\":7000000,\"p50_frame_ns\":1000000},"), "%s", b);
	cr_assert_not_null(strstr(b, "{\"process_id\":500,\"process_name\":\"other.exe\","
				     "\"swapchain\":\"0xd\",\"presents\":2,\"frames\":1,"), "%s", b);
	cr_assert_not_null(strstr(b, "],\"sides\":{\"process_id\":500,\"swapchain\":\"0xc\","
				     "\"frames\":[{\"frame\":2,\"start_ns\":5000000,\"end_ns\":28000000,"
				     "\"cpu_ns\":0,\"gpu_ns\":0,\"gpu_rings\":[],"
				     "\"present_to_flip_ns\":null,\"bound\":\"unknown\"}]},"
				     "\"calls_without_frames\":1,\"unreadable_frame_names\":0,"
				     "\"gpu_events\":0,\"overflow\":{\"tracks\":0,\"rows\":0,"
				     "\"cells\":0}}}\n"), "%s", b);
	oc_free(&out);
	tb_cleanup(&t);
}

/* No frames: said (of the window with --from/--to), exit 0. */
Test(stats_frames, no_frames_says_so_and_succeeds)
{
	struct katra_stats_opts o = { .per_frame = true };
	struct outcap out;
	struct tb t;
	const char *b;

	tb_init(&t);
	tb_epoch(&t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	nt(&t, MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 1);
	tb_epoch(&t, 5 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, "\ncalls per frame: none (no Frame epoch in this trace: "
				     "katra-record writes one per present on a swapchain)\n"), "%s", b);
	oc_free(&out);
	o.json = true;
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, ",\"per_frame\":{\"tracks\":[],\"sides\":null,"
				     "\"calls_without_frames\":1,"),
			   "%s", b);
	oc_free(&out);
	o.json = false;
	o.from = (struct katra_dump_when){ .set = true, .ns = MS / 2 };
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, "\ncalls per frame: none (no Frame epoch in this window: "), "%s", b);
	oc_free(&out);
	tb_cleanup(&t);
}

/* Presents at 10, 20, 30 ms; a read syscall (1 ms) begun at 20 ms just before
 * the epoch is in frame 2, one begun at 20 ms just after it in frame 3: the
 * trace's order decides within the nanosecond.  --syscalls --per-frame: the
 * syscalls alone. */
Test(stats_frames, trace_order_decides_at_the_present_and_syscalls_alone)
{
	struct katra_stats_opts o = { .views = KATRA_STATS_SYSCALLS, .per_frame = true,
				      .json = true };
	struct outcap out;
	struct tb t;
	const char *b;

	tb_init(&t);
	tb_epoch(&t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	frame_epoch(&t, 10 * MS, GAME, 0xa, 1);
	tb_syscall_begin(&t, 20 * MS, GAME, 301, KATRA_KIND_FILE_READ, 1, 0);
	frame_epoch(&t, 20 * MS, GAME, 0xa, 2);
	tb_syscall_begin(&t, 20 * MS, GAME, 302, KATRA_KIND_FILE_READ, 2, 0);
	tb_syscall_end(&t, 21 * MS, GAME, 301, KATRA_KIND_FILE_READ, 1, 0, 1);
	nt(&t, 22 * MS, MS, GAME, GAME, KATRA_KIND_NT_READ_FILE, 3);
	tb_syscall_end(&t, 23 * MS, GAME, 302, KATRA_KIND_FILE_READ, 2, 0, 1);
	frame_epoch(&t, 30 * MS, GAME, 0xa, 3);
	tb_epoch(&t, 40 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, "\"rows\":[{\"layer\":\"linux\",\"kind\":\"syscall\",\"number\":0,"
				     "\"name\":\"read\",\"frames_seen\":2,\"calls\":2,\"total_ns\":4000000,"
				     "\"calls_per_frame\":{\"p50\":1,\"max\":1},\"time_per_frame_ns\":"
				     "{\"p50\":1000000,\"p99\":3000000,\"max\":3000000}}],\"slowest\":"
				     "[{\"frame\":2,"), "%s", b);
	cr_assert_null(strstr(b, "NtReadFile"), "%s", b);
	oc_free(&out);
	tb_cleanup(&t);
}

static struct katra_event *gpu_ev(struct tb *t, uint64_t ts, uint64_t tid, uint32_t kind,
				  uint64_t seqno)
{
	struct katra_event *e = tb_ev(t, ts, GAME, tid, kind, KATRA_PHASE_INSTANT, -1);

	e->scope = KATRA_SCOPE_GPU;
	if (kind == KATRA_KIND_GPU_VBLANK_DELIVERED) {
		e->resource = (struct katra_resource){ KATRA_RES_DISPLAY_CRTC, 0 };
		e->payload.type = KATRA_PAYLOAD_GPU_VBLANK;
		e->payload.u.gpu_vblank.sequence = seqno;
	} else {
		e->resource = (struct katra_resource){ KATRA_RES_GPU_TIMELINE, 9 };
		e->payload.type = KATRA_PAYLOAD_GPU_FENCE;
		e->payload.u.gpu_fence.context = 9;
		e->payload.u.gpu_fence.seqno = seqno;
	}
	return e;
}

/* A trace of the game up to its first present, at 10 ms. */
static void gpu_trace_start(struct tb *t)
{
	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, MS / 10, GAME, "game", "game");
	present(t, 10 * MS, 1, 1);
}

/* Presents at 10, 20, 30 ms.  Frame 2 (10-20 ms) submits job 1 (fence made
 * at 12 ms, run 13-17 ms on the ring, signalled at 18 ms) and job 2 (made
 * at 15 ms, run 19-24 ms: done in frame 3, counted in frame 2, its submit's;
 * signalled at 25 ms); a flip's event is delivered at 21 ms (frame 3).  Per
 * frame: GPU jobs frame 2: 2 jobs, 4 + 5 = 9 ms on the ring; fences frame
 * 2: 2, 6 + 10 = 16 ms; display events: frame 3: 1. */
Test(stats_frames, the_gpu_work_of_each_frame_by_its_submit)
{
	struct katra_stats_opts o = { .per_frame = true, .json = true };
	struct outcap out;
	struct tb t;
	const char *b;

	gpu_trace_start(&t);
	gpu_ev(&t, 12 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 1);
	gpu_ev(&t, 13 * MS, 0, KATRA_KIND_GPU_JOB_RUN, 1);
	gpu_ev(&t, 15 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 2);
	gpu_ev(&t, 17 * MS, 0, KATRA_KIND_GPU_JOB_DONE, 1);
	gpu_ev(&t, 18 * MS, 0, KATRA_KIND_GPU_FENCE_SIGNALED, 1);
	gpu_ev(&t, 19 * MS, 0, KATRA_KIND_GPU_JOB_RUN, 2);
	present(&t, 20 * MS, 2, 2);
	gpu_ev(&t, 21 * MS, 0, KATRA_KIND_GPU_VBLANK_DELIVERED, 5);
	gpu_ev(&t, 24 * MS, 0, KATRA_KIND_GPU_JOB_DONE, 2);
	gpu_ev(&t, 25 * MS, 0, KATRA_KIND_GPU_FENCE_SIGNALED, 2);
	present(&t, 30 * MS, 3, 3);
	tb_epoch(&t, 31 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, "{\"layer\":\"gpu\",\"kind\":\"GpuFenceSignaled\",\"number\":"
				     "null,\"name\":\"GPU fence (made to signalled)\",\"frames_seen\":1,"
				     "\"calls\":2,\"total_ns\":16000000,"), "%s", b);
	cr_assert_not_null(strstr(b, "{\"layer\":\"gpu\",\"kind\":\"GpuJobDone\",\"number\":null,"
				     "\"name\":\"GPU job (run to done)\",\"frames_seen\":1,\"calls\":2,"
				     "\"total_ns\":9000000,"), "%s", b);
	/* the flip 1 ms after present 2; presents 1 and 3 had none */
	cr_assert_not_null(strstr(b, "\"frame_time_ns\":{\"p50\":10000000,\"p99\":10000000,"
				     "\"max\":10000000},\"present_to_flip_ns\":{\"presents\":1,"
				     "\"p50\":1000000,\"p99\":1000000,\"max\":1000000},"), "%s", b);
	cr_assert_not_null(strstr(b, "{\"layer\":\"gpu\",\"kind\":\"GpuVblankDelivered\",\"number\":"
				     "null,\"name\":\"display event delivered\",\"frames_seen\":1,"
				     "\"calls\":1,\"total_ns\":0,"), "%s", b);
	oc_free(&out);
	o.json = false;
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, "\npresent to flip: p50 1.000 ms  p99 1.000 ms  max 1.000 ms "
				     "(1 of 3 presents)\n"), "%s", b);
	cr_assert_not_null(strstr(b, " GPU job (run to done)\n"), "%s", b);
	cr_assert_null(strstr(b, "no GPU events"), "%s", b);
	oc_free(&out);
	tb_cleanup(&t);
}

/* Presents at 10, 20, 30, 40 ms.  Frame 2 (10-20 ms) commits with an
 * out-fence made at 12 ms, frame 3 at 22 and 25 ms; their flips come a
 * frame late, at 31, 42 and 44 ms, each linked to its commit's init (the
 * fence signalled with it).  Present to flip: 11 ms (present 2) and 14 ms
 * (present 3: its frame's last commit's flip, as report --frames says),
 * not 1 and 2 ms from the presents just before the first two flips. */
Test(stats_frames, present_to_flip_is_to_the_flip_of_the_frames_commit)
{
	static uint64_t flip_causes[3][1];
	struct katra_stats_opts o = { .per_frame = true, .json = true };
	struct outcap out;
	struct katra_event *e;
	struct tb t;

	gpu_trace_start(&t);
	flip_causes[0][0] = gpu_ev(&t, 12 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 1)->seq;
	present(&t, 20 * MS, 2, 2);
	flip_causes[1][0] = gpu_ev(&t, 22 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 2)->seq;
	flip_causes[2][0] = gpu_ev(&t, 25 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 3)->seq;
	present(&t, 30 * MS, 3, 3);
	for (uint64_t k = 0; k < 3; k++) { /* the flips at 31, 42, 44 ms; present 4 at 40 */
		uint64_t at = k ? 40 + 2 * k : 31;
		if (k == 1)
			present(&t, 40 * MS, 4, 4);
		e = gpu_ev(&t, at * MS, 0, KATRA_KIND_GPU_VBLANK_DELIVERED, 0);
		e->causes = (struct katra_u64_vec){ flip_causes[k], 1 };
		gpu_ev(&t, at * MS, 0, KATRA_KIND_GPU_FENCE_SIGNALED, k + 1);
	}
	tb_epoch(&t, 50 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	cr_assert_not_null(strstr(run(&t, &out, &o), "\"present_to_flip_ns\":{\"presents\":2,"
				  "\"p50\":11000000,\"p99\":14000000,\"max\":14000000},"),
			   "%s", oc_text(&out));
	oc_free(&out);
	tb_cleanup(&t);
}

/* Every frame's sides (the computation report --frames gives its slowest
 * frames), per ring.  Frame 2 (10-20 ms): on ring vgem:ctx9 job 1 (run
 * 13-17 ms) and job 2 (made at 15 ms, run 19-24 ms), on timeline 10 a
 * fence without a job made at 16 ms, signalled at 19 ms: 9 ms on ctx 9 (2
 * jobs), 3 ms on ctx 10, 11 ms in all (13-24 ms, overlaps once); its flip 1
 * ms after its present.  Frame 3: no GPU work, no flip: present to flip
 * null, never 0. */
Test(stats_frames, every_frame_has_its_gpu_time_per_ring_flip_and_bound)
{
	static const char drv[] = "vgem", tl[] = "ctx9";
	struct katra_stats_opts o = { .per_frame = true, .json = true };
	struct outcap out;
	struct katra_event *e;
	struct tb t;
	const char *b;

	gpu_trace_start(&t);
	e = gpu_ev(&t, 11 * MS, GAME, KATRA_KIND_GPU_TIMELINE, 0);
	e->payload.type = KATRA_PAYLOAD_GPU_TIMELINE;
	e->payload.u.gpu_timeline.context = 9;
	e->payload.u.gpu_timeline.driver = (struct katra_str){ drv, 4 };
	e->payload.u.gpu_timeline.timeline = (struct katra_str){ tl, 4 };
	gpu_ev(&t, 12 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 1);
	gpu_ev(&t, 13 * MS, 0, KATRA_KIND_GPU_JOB_RUN, 1);
	gpu_ev(&t, 15 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 2);
	e = gpu_ev(&t, 16 * MS, GAME, KATRA_KIND_GPU_FENCE_INIT, 1);
	e->payload.u.gpu_fence.context = 10;
	gpu_ev(&t, 17 * MS, 0, KATRA_KIND_GPU_JOB_DONE, 1);
	gpu_ev(&t, 18 * MS, 0, KATRA_KIND_GPU_FENCE_SIGNALED, 1);
	gpu_ev(&t, 19 * MS, 0, KATRA_KIND_GPU_JOB_RUN, 2);
	e = gpu_ev(&t, 19 * MS, 0, KATRA_KIND_GPU_FENCE_SIGNALED, 1);
	e->payload.u.gpu_fence.context = 10;
	present(&t, 20 * MS, 2, 2);
	gpu_ev(&t, 21 * MS, 0, KATRA_KIND_GPU_VBLANK_DELIVERED, 5);
	gpu_ev(&t, 24 * MS, 0, KATRA_KIND_GPU_JOB_DONE, 2);
	gpu_ev(&t, 25 * MS, 0, KATRA_KIND_GPU_FENCE_SIGNALED, 2);
	present(&t, 30 * MS, 3, 3);
	tb_epoch(&t, 31 * MS, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, ",\"sides\":{\"process_id\":300,\"swapchain\":\"0xa\","
				     "\"frames\":[{\"frame\":2,\"start_ns\":10000000,\"end_ns\":20000000,"
				     "\"cpu_ns\":0,\"gpu_ns\":11000000,\"gpu_rings\":[{\"ring\":"
				     "\"vgem:ctx9\",\"context\":9,\"gpu_ns\":9000000,\"jobs\":2,"
				     "\"fences\":2},{\"ring\":\"?:ctx 10\",\"context\":10,\"gpu_ns\":"
				     "3000000,\"jobs\":0,\"fences\":1}],\"present_to_flip_ns\":1000000,"
				     "\"bound\":\"cpu\"},{\"frame\":3,\"start_ns\":20000000,\"end_ns\":"
				     "30000000,\"cpu_ns\":0,\"gpu_ns\":0,\"gpu_rings\":[],"
				     "\"present_to_flip_ns\":null,\"bound\":\"cpu\"}]},"), "%s", b);
	oc_free(&out);
	o.json = false;
	b = run(&t, &out, &o);
	cr_assert_not_null(strstr(b, "\n frame     cpu ms     gpu ms  present to flip  bound    "
				     "gpu per ring\n     2      0.000     11.000         1.000 ms  cpu      "
				     "vgem:ctx9 9.000 ms, ?:ctx 10 3.000 ms\n     3      0.000      0.000"
				     "             none  cpu\n"), "%s", b);
	oc_free(&out);
	tb_cleanup(&t);
}
