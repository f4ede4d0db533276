// SPDX-License-Identifier: GPL-2.0-only
/* A GPU scheduler's jobs from the records bpf/gpu.bpf.c writes to the
 * trace that stats --gpu reads: three jobs of one process, each made and
 * queued in its own submit ioctl on one CPU, run on one ring from another
 * CPU's scheduler thread (not traced: thread 0) while the earlier ones are
 * still running there (three on the hardware at once, as AMD's rings run
 * them), each done and signalled from that CPU's interrupt.  The probes
 * read a job's finished fence through the tracepoints' arguments (the same
 * on both sides of 6.17's renaming), so the records are the same for the
 * old and the new event names; what a kernel with the module would add is
 * the CO-RE reads, which need its BTF. */
#include <sys/syscall.h>

#include "pipeline_test_util.h"
#include "replay_test_util.h"

#define START 1000000u
#define US 1000u
#define GAME 700
#define RING 3 /* the ring's fence context */

static void submit(struct pipeline *pl, uint64_t enter_us, uint32_t seqno)
{
	struct katra_ev_gpu_fence f = {
		.head = { KATRA_EV_GPU_FENCE, 0, GAME, GAME, START + (enter_us + 1) * US },
		.context = RING, .seqno = seqno, .what = KATRA_GPU_FENCE_INIT, .owner_tgid = GAME,
	};
	struct katra_ev_syscall sc = {
		.head = { KATRA_EV_SYSCALL, 0, GAME, GAME, START + (enter_us + 3) * US },
		.enter_ts = START + enter_us * US, .exit_ts = START + (enter_us + 3) * US,
		.nr = SYS_ioctl, .flags = KATRA_SC_ENTER | KATRA_SC_EXIT,
	};

	pipeline_on_record(pl, &f, sizeof(f));
	f.head.ts += US;
	f.what = KATRA_GPU_JOB_QUEUE;
	pipeline_on_record(pl, &f, sizeof(f));
	pipeline_on_record(pl, &sc, sizeof(sc));
}

/* A record of the ring's CPU (1), outside the traced threads. */
static void ring_event(struct pipeline *pl, uint64_t us, uint32_t what, uint32_t seqno)
{
	struct katra_ev_gpu_fence f = {
		.head = { KATRA_EV_GPU_FENCE, 1, 0, 0, START + us * US },
		.context = RING, .seqno = seqno, .what = what, .owner_tgid = GAME,
	};

	pipeline_on_record(pl, &f, sizeof(f));
}

Test(gpu_jobs, jobs_queued_at_once_on_one_ring_through_the_recorder_to_stats)
{
	static const uint64_t run_us[3] = { 21, 25, 30 }, done_us[3] = { 50, 60, 70 };
	struct katra_ev_gpu_timeline names = {
		.head = { KATRA_EV_GPU_TIMELINE, 0, GAME, GAME, START + 10 * US },
		.context = RING, .driver = "drm_sched", .timeline = "gfx_0.0.0",
	};
	struct katra_stats_opts o = { .views = KATRA_STATS_GPU };
	struct outcap out, err;
	struct pl_ev ev[64];
	struct pl_trace t;
	size_t ioctl_begin[3], nb = 0, at[3][5], nat[3] = { 0 };

	pl_trace_open(&t, 2, START);
	pipeline_on_record(&t.pl, &names, sizeof(names));
	for (uint32_t k = 0; k < 3; k++)
		submit(&t.pl, 9 + 4 * k, k + 1);
	for (uint32_t k = 0; k < 3; k++)
		ring_event(&t.pl, run_us[k], KATRA_GPU_JOB_RUN, k + 1);
	for (uint32_t k = 0; k < 3; k++) {
		ring_event(&t.pl, done_us[k], KATRA_GPU_JOB_DONE, k + 1);
		ring_event(&t.pl, done_us[k], KATRA_GPU_FENCE_SIGNALED, k + 1);
	}
	pl_trace_finish(&t, START + 100 * US);

	/* per job: init, queue, run, done, signal; each linked to its init,
	 * the queue also to its submit ioctl; the ring's on thread 0 */
	size_t n = pl_read_events(t.path, ev, 64);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KATRA_KIND_SYSCALL && ev[i].phase == KATRA_PHASE_BEGIN && nb < 3)
			ioctl_begin[nb++] = i;
		else if (ev[i].payload.type == KATRA_PAYLOAD_GPU_FENCE) {
			uint64_t k = ev[i].payload.u.gpu_fence.seqno - 1;
			cr_assert_lt(k, 3);
			cr_assert_lt(nat[k], 5);
			at[k][nat[k]++] = i;
		}
	}
	cr_assert_eq(nb, 3);
	for (size_t k = 0; k < 3; k++) {
		static const uint32_t kinds[5] = { KATRA_KIND_GPU_FENCE_INIT, KATRA_KIND_GPU_JOB_QUEUE,
						   KATRA_KIND_GPU_JOB_RUN, KATRA_KIND_GPU_JOB_DONE,
						   KATRA_KIND_GPU_FENCE_SIGNALED };
		cr_assert_eq(nat[k], 5, "job %zu", k);
		for (size_t j = 0; j < 5; j++) {
			const struct pl_ev *g = &ev[at[k][j]];
			cr_assert_eq(g->kind, kinds[j], "job %zu event %zu", k, j);
			cr_assert_eq(g->tid, j < 2 ? GAME : 0, "job %zu event %zu", k, j);
			cr_assert_eq(g->res.id, RING);
			if (j == 0) {
				cr_assert_eq(g->ncauses, 1);
				cr_assert_eq(g->causes[0], ev[ioctl_begin[k]].seq, "job %zu", k);
				continue;
			}
			cr_assert_eq(g->ncauses, j == 1 ? 2 : 1, "job %zu event %zu", k, j);
			cr_assert_eq(g->causes[0], ev[at[k][0]].seq, "job %zu event %zu", k, j);
			if (j == 1)
				cr_assert_eq(g->causes[1], ev[ioctl_begin[k]].seq, "job %zu", k);
		}
		cr_assert_eq(ev[at[k][3]].ts - ev[at[k][2]].ts, (done_us[k] - run_us[k]) * US);
	}

	/* the ring: busy 21..70 us (49, the three overlapping counted once),
	 * jobs of 29, 35 and 40 us (p50 35 within 1/32: its bucket's 35.3);
	 * the process's fences in flight 40 + 46 + 52 us */
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t.path, out.f, &o, err.f), 0, "%s", oc_text(&err));
	const char *b = strstr(oc_text(&out), "\nGPU scheduler rings");
	cr_assert_not_null(b, "%s", oc_text(&out));
	cr_assert_not_null(strstr(b, "         3 drm_sched    gfx_0.0.0              3        49.0"
				     "       35.3       40.0       40.0\n"), "%s", b);
	cr_assert_not_null(strstr(b, "\n700                                3       3        138.0  100.0%\n"),
			   "%s", b);
	oc_free(&out);
	oc_free(&err);
	temp_dir_remove(t.dir);
}
