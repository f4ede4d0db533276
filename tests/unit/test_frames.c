// SPDX-License-Identifier: GPL-2.0-only
/* Frames through the recorder's pipeline, from hand-made wire records: each
 * vkQueuePresentKHR that returns writes a Frame epoch named after its
 * process and swapchain, counted per swapchain; the presents carry the
 * number of the frame they end, the process's other events the frame in
 * progress; another process's events none. */
#include <sys/syscall.h>

#include "pipeline_test_util.h"

#define START 1000000u
#define GAME 700
#define OTHER 800

static void present(struct pipeline *pl, uint32_t tgid, uint64_t ts, uint32_t flags,
		    uint64_t swapchain)
{
	struct katra_ev_ucall u = {
		.head = { KATRA_EV_UCALL, 0, tgid, tgid, START + ts },
		.call = KATRA_UC_VK_QUEUE_PRESENT, .flags = flags, .a = { 0x9000, 1, swapchain, 0 },
	};

	pipeline_on_record(pl, &u, sizeof(u));
}

static void getpid_call(struct pipeline *pl, uint32_t tgid, uint64_t enter, uint64_t exit)
{
	struct katra_ev_syscall sc = {
		.head = { KATRA_EV_SYSCALL, 0, tgid, tgid, START + exit },
		.enter_ts = START + enter, .exit_ts = START + exit, .ret = tgid, .nr = SYS_getpid,
		.flags = KATRA_SC_ENTER | KATRA_SC_EXIT,
	};

	pipeline_on_record(pl, &sc, sizeof(sc));
}

Test(frames, a_present_ends_a_frame_of_its_swapchain_and_tags_its_process)
{
	/* what each record must be, in file order: an event (kind, pid, its
	 * request_id or 0 for none) or a Frame epoch (its name) */
	static const struct {
		uint32_t kind, pid;
		uint64_t request;
		const char *epoch;
	} want[] = {
		{ 0, 0, 0, "capture start" },
		{ KATRA_KIND_SYSCALL, GAME, 0, NULL }, /* before any present: no frame */
		{ KATRA_KIND_SYSCALL, GAME, 0, NULL },
		{ KATRA_KIND_VULKAN_QUEUE_PRESENT, GAME, 1, NULL },
		{ KATRA_KIND_VULKAN_QUEUE_PRESENT, GAME, 1, NULL },
		{ 0, 0, 0, "frame 1 (pid 700, swapchain 0xa)" },
		{ KATRA_KIND_SYSCALL, GAME, 2, NULL },
		{ KATRA_KIND_SYSCALL, GAME, 2, NULL },
		{ KATRA_KIND_SYSCALL, OTHER, 0, NULL }, /* another process: none */
		{ KATRA_KIND_SYSCALL, OTHER, 0, NULL },
		{ KATRA_KIND_VULKAN_QUEUE_PRESENT, GAME, 1, NULL }, /* a second window */
		{ KATRA_KIND_VULKAN_QUEUE_PRESENT, GAME, 1, NULL },
		{ 0, 0, 0, "frame 1 (pid 700, swapchain 0xb)" },
		{ KATRA_KIND_VULKAN_QUEUE_PRESENT, GAME, 2, NULL },
		{ KATRA_KIND_VULKAN_QUEUE_PRESENT, GAME, 2, NULL },
		{ 0, 0, 0, "frame 2 (pid 700, swapchain 0xa)" },
		{ KATRA_KIND_SYSCALL, GAME, 3, NULL },
		{ KATRA_KIND_SYSCALL, GAME, 3, NULL },
		{ 0, 0, 0, "capture end" },
	};
	struct katra_reader *r;
	struct katra_record rec;
	struct pl_trace t;
	uint64_t epochs = 0;
	char msg[256];
	size_t n = 0;

	pl_trace_open(&t, 1, START);
	pipeline_queue_epoch(&t.pl, START, KATRA_EPOCH_CAPTURE_START, "capture start");
	getpid_call(&t.pl, GAME, 50, 60);
	present(&t.pl, GAME, 100, KATRA_UC_ENTER, 0xa);
	present(&t.pl, GAME, 110, KATRA_UC_EXIT, 0xa);
	getpid_call(&t.pl, GAME, 120, 130);
	getpid_call(&t.pl, OTHER, 132, 134);
	present(&t.pl, GAME, 140, KATRA_UC_ENTER, 0xb);
	present(&t.pl, GAME, 150, KATRA_UC_EXIT, 0xb);
	present(&t.pl, GAME, 180, KATRA_UC_ENTER, 0xa);
	present(&t.pl, GAME, 190, KATRA_UC_EXIT, 0xa);
	getpid_call(&t.pl, GAME, 200, 210);
	pl_trace_finish(&t, START + 300);

	cr_assert_eq(katra_reader_open(&r, t.path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD) {
		if (rec.type == KATRA_RECORD_SESSION_SUMMARY)
			break;
		cr_assert_lt(n, sizeof(want) / sizeof(*want), "more records than expected");
		if (want[n].epoch) {
			const struct katra_epoch_marker *m = &rec.u.epoch;
			cr_assert_eq(rec.type, KATRA_RECORD_EPOCH_MARKER, "record %zu", n);
			cr_assert_eq(m->epoch, epochs++, "record %zu: epochs numbered as written", n);
			cr_assert_eq(m->name.len, strlen(want[n].epoch), "record %zu: %.*s", n,
				     (int)m->name.len, m->name.ptr);
			cr_assert_eq(memcmp(m->name.ptr, want[n].epoch, m->name.len), 0,
				     "record %zu: %.*s", n, (int)m->name.len, m->name.ptr);
			bool frame = !strncmp(want[n].epoch, "frame", 5);
			cr_assert_eq(m->kind == KATRA_EPOCH_FRAME, frame, "record %zu: kind %u", n,
				     m->kind);
		} else {
			const struct katra_event *ev = &rec.u.event;
			cr_assert_eq(rec.type, KATRA_RECORD_EVENT, "record %zu", n);
			cr_assert_eq(ev->kind, want[n].kind, "record %zu", n);
			cr_assert_eq(ev->process_id, want[n].pid, "record %zu", n);
			cr_assert_eq(ev->request_id.present, want[n].request != 0, "record %zu", n);
			cr_assert_eq(ev->request_id.value, want[n].request, "record %zu", n);
		}
		n++;
	}
	katra_reader_close(r);
	cr_assert_eq(n, sizeof(want) / sizeof(*want));
	cr_assert_eq(katra_verify_path(t.path, NULL, NULL, 0, NULL), 0);
	temp_dir_remove(t.dir);
}
