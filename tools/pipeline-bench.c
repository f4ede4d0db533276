// SPDX-License-Identifier: GPL-2.0-only
/* User-space cost of the recorder per event, without the kernel: feeds
 * synthetic ring records (the pread64 + getppid loop of the benchmarks: a full
 * record with file identity, then a short one) through the real pipeline and
 * writer, the way the capture loop does, and prints ns per event.  Run it
 * under `valgrind --tool=callgrind` for instruction counts that do not depend
 * on what else the machine is doing.
 *
 * usage: pipeline-bench [ITERATIONS] [OUTPUT] [RINGS] [keep]
 *                       [pingpong|pagefault|pagefault-instant|overlap]
 *        (default 1000000, /dev/shm, 2): ITERATIONS pairs on RINGS synthetic
 *        CPUs, a thread each; prints ns per event and the process's own peak
 *        RSS, so the merge's cost can be compared across ring counts.  With
 *        `keep` the trace is left in OUTPUT (named in the JSON line): the
 *        input is deterministic, so two builds' traces compare with cmp.
 *        A word after RINGS picks other records than the syscall pair
 *        below: `pingpong` a wakeup then a switch between the ring's two threads
 *        (the woken one in, the waker out blocked; three events); `pagefault`
 *        one measured fault (its Begin and End) at a new address;
 *        `pagefault-instant` one fault as an instant (no fexit on
 *        handle_mm_fault: what the probes write on kernels without it).
 *        With `overlap`: two threads on rings 0 and 1 (RINGS is 2), each
 *        looping, their syscalls overlapping in time (`benchwl sys --threads 2`):
 *        a pair's End mostly comes after the other thread's next event.
 *
 * Arrival: pairs 1 us apart, each on a ring drawn at random, skewed (half of
 * them on the first quarter of the rings, the rest anywhere): consecutive
 * pairs are mostly on different rings, the hardest interleave for the merge (every
 * pair moves a ring through the heap; a pair's four events are a run).  They reach the pipeline as the capture
 * loop's drain (rings.c) hands them over: every 8192 pairs (8 ms of
 * synthetic time), one ring's records after the other, each ring in its own
 * time order; then everything older than 1 ms is written.
 *
 * Memory is VmHWM from /proc/self/status: the peak of this process's own
 * address space (program, libc, writer, pipeline).  Not getrusage's
 * ru_maxrss: Linux keeps that across execve (signal->maxrss), so a bench
 * driver's own RSS at fork shows up as the child's.  rss_at_start_kib is
 * VmRSS before the writer and the pipeline exist (program and libc). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/pipeline/pipeline.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "VmHWM" or "VmRSS" in KiB, or -1 when /proc cannot say */
static long proc_status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = strlen(field);
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			kib = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

#define MAX_RINGS 1024
/* pairs between two drains of the capture loop: 8 ms of synthetic time (the
 * recorder drains every ~10 ms) */
#define DRAIN_PAIRS 8192

/* Pair i (pread64 then getppid, 1 us apart each) on ring, from ts. */
static void feed_pair(struct pipeline *pl, struct katra_ev_syscall *rd,
		      struct katra_ev_syscall_short *gp, uint64_t i, uint64_t ts, unsigned ring)
{
	rd->head.cpu = gp->head.cpu = ring;
	rd->head.tid = gp->head.tid = 4242 + ring;
	rd->enter_ts = ts;
	rd->head.ts = rd->exit_ts = ts + 600;
	rd->args[3] = i & 4095;
	pipeline_on_record(pl, rd, sizeof(*rd));
	gp->enter_ts = ts + 700;
	gp->head.ts = ts + 900;
	gp->ret = 1;
	pipeline_on_record(pl, gp, sizeof(*gp));
}

/* benchwl pingpong's scheduler records on ring: the ring's running thread
 * wakes the other, then blocks and switches to it (turn: which of the two
 * runs). */
static void feed_pingpong(struct pipeline *pl, uint64_t ts, unsigned ring, unsigned turn)
{
	uint32_t me = 5000 + 2 * ring + (turn & 1), other = 5000 + 2 * ring + !(turn & 1);
	struct katra_ev_waking wk = {
		.head = { KATRA_EV_WAKING, ring, 5000, me, ts },
		.target_tgid = 5000, .target_tid = other, .target_cpu = ring,
	};
	struct katra_ev_switch sw = {
		.head = { KATRA_EV_SWITCH, ring, 5000, me, ts + 400 },
		.prev_state = 1, /* TASK_INTERRUPTIBLE: blocked in its read */
		.next_tgid = 5000, .next_tid = other,
		.flags = KATRA_SW_PREV_TRACKED | KATRA_SW_NEXT_TRACKED,
	};

	pipeline_on_record(pl, &wk, sizeof(wk));
	pipeline_on_record(pl, &sw, sizeof(sw));
}

/* benchwl pagefault's records on ring: one first touch, measured or an
 * instant. */
static void feed_fault(struct pipeline *pl, uint64_t i, uint64_t ts, unsigned ring, bool measured)
{
	struct katra_ev_page_fault pf = {
		.head = { KATRA_EV_PAGE_FAULT, ring, 6000, 6000 + ring, ts + 700 },
		.address = 0x7f0000000000ull + (i << 12), .ip = 0x401000 + (i & 15),
		.error_code = 6, .enter_ts = ts, .flags = measured ? KATRA_PF_MEASURED : 0,
	};

	pipeline_on_record(pl, &pf, sizeof(pf));
}

/* `overlap`: thread t (ring t) does pair j from j * 1000 + t * 350 ns on:
 * pread64 for 600 ns, 100 ns in user space, getppid for 200 ns; the other
 * thread's events fall inside most of its syscalls. */
static void feed_overlap(struct pipeline *pl, struct katra_ev_syscall *rd,
			 struct katra_ev_syscall_short *gp, uint64_t first, unsigned n,
			 uint64_t ts)
{
	for (unsigned t = 0; t < 2; t++)
		for (unsigned k = 0; k < n; k++)
			feed_pair(pl, rd, gp, first + k, ts + (uint64_t)k * 1000 + t * 350, t);
}

static bool has_arg(int argc, char **argv, const char *word)
{
	for (int i = 4; i < argc; i++)
		if (!strcmp(argv[i], word))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	long rss_at_start_kib = proc_status_kib("VmRSS");
	uint64_t iterations = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	char path[256];
	struct katra_header h = { .format_version = KATRA_FORMAT_VERSION };
	struct katra_writer *w;
	struct pipeline pl;
	unsigned nrings = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 2;
	bool overlap = has_arg(argc, argv, "overlap");
	struct pipeline_config pc = {
		.nrings = !nrings || overlap ? 2 : nrings > MAX_RINGS ? MAX_RINGS : nrings,
		.fifo_items = 1024, .start_mono = 1000,
		.max_items = (24u << 20) / sizeof(struct pending),
		.limits = { 65536, 16384, 65536 },
	};
	struct katra_ev_syscall rd = { .nr = SYS_pread64 };
	struct katra_ev_syscall_short gp = { .nr = SYS_getppid };
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_drop_count drops[8];
	struct katra_summary s;
	static uint64_t ring_drops[MAX_RINGS];
	static unsigned ring_next[MAX_RINGS + 1];
	static uint16_t ring_of[DRAIN_PAIRS], by_ring[DRAIN_PAIRS];
	static unsigned turns[MAX_RINGS];
	bool pingpong = has_arg(argc, argv, "pingpong");
	bool instants = has_arg(argc, argv, "pagefault-instant");
	bool pagefault = instants || has_arg(argc, argv, "pagefault");
	int rc;

	snprintf(path, sizeof(path), "%s/pipeline-bench.%d.ktrc", argc > 2 ? argv[2] : "/dev/shm",
		 getpid());
	h.schema_hash = katra_schema_hash;
	rc = katra_writer_open(&w, path, &h, KATRA_WRITER_OVERWRITE);
	if (rc) {
		fprintf(stderr, "pipeline-bench: cannot open '%s': %s\n", path, strerror(-rc));
		return 1;
	}
	if (pipeline_init(&pl, w, &pc)) {
		fprintf(stderr, "pipeline-bench: out of memory\n");
		return 1;
	}
	rd.head = (struct katra_wire_head){ KATRA_EV_SYSCALL, 1, 4242, 4242, 0 };
	rd.flags = KATRA_SC_ENTER | KATRA_SC_EXIT | KATRA_SC_FILE;
	rd.args[0] = 3;
	rd.args[2] = 1;
	rd.dev = (8u << 20) | 1;
	rd.ino = 12;
	rd.ret = 1;
	gp.head = (struct katra_wire_head){ KATRA_EV_SYSCALL_SHORT, 1, 4242, 4242, 0 };
	gp.flags = KATRA_SC_ENTER | KATRA_SC_EXIT;

	uint64_t t0 = mono_ns(), ts = 2000;
	uint32_t seed = 1;
	for (uint64_t first = 0; first < iterations; first += DRAIN_PAIRS) {
		unsigned n = iterations - first < DRAIN_PAIRS ? (unsigned)(iterations - first)
							       : DRAIN_PAIRS;

		if (overlap) { /* n pairs of each thread, 2 * n in all */
			n = (n + 1) / 2;
			feed_overlap(&pl, &rd, &gp, first, n, ts);
			ts += (uint64_t)n * 1000;
			if (ts > 1000000)
				pipeline_emit_until(&pl, ts - 1000000);
			continue;
		}

		/* this drain period's timeline: pair k at ts + k us, on ring_of[k];
		 * skewed: half the pairs go to ring 0's quarter, the rest anywhere */
		memset(ring_next, 0, (pc.nrings + 1) * sizeof(*ring_next));
		for (unsigned k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned ring = (seed >> 16) % pc.nrings;
			if (seed & 0x80000000u)
				ring %= (pc.nrings + 3) / 4;
			ring_of[k] = (uint16_t)ring;
			ring_next[ring + 1]++;
		}
		for (unsigned r = 0; r < pc.nrings; r++)
			ring_next[r + 1] += ring_next[r];
		for (unsigned k = 0; k < n; k++)
			by_ring[ring_next[ring_of[k]]++] = (uint16_t)k;
		/* drained as the recorder's katra_rings_drain() does: one ring after another,
		 * each in its own time order */
		for (unsigned j = 0; j < n; j++) {
			unsigned k = by_ring[j];
			if (pingpong)
				feed_pingpong(&pl, ts + (uint64_t)k * 1000, ring_of[k],
					      turns[ring_of[k]]++);
			else if (pagefault)
				feed_fault(&pl, first + k, ts + (uint64_t)k * 1000, ring_of[k],
					   !instants);
			else
				feed_pair(&pl, &rd, &gp, first + k, ts + (uint64_t)k * 1000,
					  ring_of[k]);
		}
		ts += (uint64_t)n * 1000;
		/* then written: what is below the watermark (here: all but the
		 * last 1 ms) */
		if (ts > 1000000)
			pipeline_emit_until(&pl, ts - 1000000);
	}
	rc = pipeline_finish(&pl, ts, ring_drops, NULL, &s, kinds, drops, 8);
	if (!rc)
		rc = katra_writer_finish(w, &s);
	uint64_t t1 = mono_ns();
	uint64_t bytes = katra_writer_bytes(w);
	rc = rc ? rc : katra_writer_close(w);
	pipeline_free(&pl);
	bool keep = has_arg(argc, argv, "keep");
	if (!keep)
		unlink(path);
	if (rc) {
		fprintf(stderr, "pipeline-bench: %s\n", strerror(-rc));
		return 1;
	}
	printf("{\"mode\":\"%s\",\"rings\":%u,\"events\":%" PRIu64 ",\"ns_per_event\":%.1f,"
	       "\"bytes_per_event\":%.1f,\"peak_rss_kib\":%ld,\"rss_at_start_kib\":%ld,"
	       "\"peak_rss_of\":\"this process (VmHWM): program, libc, writer, pipeline\"%s%s%s}\n",
	       pingpong ? "pingpong" : instants ? "pagefault-instant" : pagefault ? "pagefault" : "sys",
	       pc.nrings, s.event_count, (double)(t1 - t0) / (double)s.event_count,
	       (double)bytes / (double)s.event_count, proc_status_kib("VmHWM"),
	       rss_at_start_kib, keep ? ",\"trace\":\"" : "", keep ? path : "", keep ? "\"" : "");
	return 0;
}
