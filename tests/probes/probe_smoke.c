/* Smoke test of the katra probes on the real kernel (root): loads them, runs a
 * workload with known ground truth behind a gate, drains the rings and checks
 * the records.  Build:
 *   gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -Ibuild/gen -Iuser/record \
 *     -o build/probe-smoke tests/probes/probe_smoke.c user/record/probes.c -lbpf -lelf -lz -luring -lpthread
 * Usage: probe-smoke [--raw] pread|pingpong|faults|uring|forkexec|bench N|all */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <katra/wire.h>
#include "probes.h"

#define N_PREAD 1000
#define N_PPID 1000
#define K_PING 1000
#define P_PAGES 256
#define R_URING 100

static char *recs;
static size_t nrecs, caprecs;
static const size_t sizes[] = KATRA_WIRE_SIZES;
static size_t bad_size;
static int failures;
static bool use_raw;
static bool count_only; /* bench: the consumer only counts */

#define CHECK(cond, ...)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			failures++;                                                         \
			printf("FAIL: " __VA_ARGS__);                                       \
			printf("\n");                                                       \
		}                                                                           \
	} while (0)

/* Every record is stored in a fixed 512-byte slot (largest type is the path). */
#define SLOT 512
static int on_record(void *ctx, void *data, size_t size)
{
	const struct katra_wire_head *h = data;

	(void)ctx;
	if (h->type == 0 || h->type >= KATRA_EV_TYPE_COUNT || sizes[h->type] != size) {
		bad_size++;
		return 0;
	}
	if (count_only) {
		nrecs++;
		return 0;
	}
	if (nrecs == caprecs) {
		caprecs = caprecs ? caprecs * 2 : 4096;
		recs = realloc(recs, caprecs * SLOT);
		if (!recs)
			abort();
	}
	memcpy(recs + nrecs * SLOT, data, size);
	nrecs++;
	return 0;
}

#define REC(i) ((const struct katra_wire_head *)(recs + (i) * SLOT))

/* ---- workloads (run in the child after the gate opens) ---- */
static char tmpfile_path[] = "/tmp/katra-smoke-XXXXXX";

static void wl_pread(void)
{
	int fd = open(tmpfile_path, O_RDONLY);
	char c;
	int i;

	for (i = 0; i < N_PREAD; i++)
		if (pread(fd, &c, 1, i % 64) != 1)
			_exit(3);
	for (i = 0; i < N_PPID; i++)
		syscall(SYS_getppid);
	close(fd);
}

static int ping[2], pong[2];
static void *pong_thread(void *arg)
{
	char c;
	int i;

	(void)arg;
	for (i = 0; i < K_PING; i++) {
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			_exit(4);
	}
	return NULL;
}

static void wl_pingpong(void)
{
	pthread_t t;
	char c = 'x';
	int i;

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, pong_thread, NULL))
		_exit(5);
	for (i = 0; i < K_PING; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			_exit(4);
	}
	pthread_join(t, NULL);
}

static void wl_faults(void)
{
	char *m = mmap(NULL, P_PAGES * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (m == MAP_FAILED)
		_exit(6);
	/* tell the parent where the mapping is via a getppid-free marker:
	 * madvise(m, 0, MADV_NORMAL) is a syscall whose args carry m */
	madvise(m, 0, MADV_NORMAL);
	for (i = 0; i < P_PAGES; i++)
		m[i * 4096] = 1;
}

static void wl_uring(void)
{
	struct io_uring ring;
	int fd = open(tmpfile_path, O_RDONLY), i;
	char buf[8];

	if (fd < 0 || io_uring_queue_init(8, &ring, 0))
		_exit(7);
	for (i = 0; i < R_URING; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		io_uring_prep_read(sqe, fd, buf, 4, i % 32);
		sqe->user_data = 0x1000 + i;
		io_uring_submit(&ring);
		if (io_uring_wait_cqe(&ring, &cqe) || cqe->res != 4)
			_exit(8);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

static void wl_forkexec(void)
{
	pid_t c = fork();
	int st;

	if (c == 0) {
		pid_t g = fork();

		if (g == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(9);
		}
		waitpid(g, &st, 0);
		_exit(0);
	}
	waitpid(c, &st, 0);
}

static long bench_iters;
static int bench_pipe[2];
static void wl_bench(void)
{
	int fd = open(tmpfile_path, O_RDONLY);
	struct timespec a, b;
	char c;
	long i;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < bench_iters; i++) {
		if (pread(fd, &c, 1, 0) != 1)
			_exit(3);
		syscall(SYS_getppid);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	if (write(bench_pipe[1], &ns, sizeof(ns)) != sizeof(ns))
		_exit(10);
}

/* ---- driver ---- */
static pid_t start_gated(void (*fn)(void), int *gate_w)
{
	int g[2];
	pid_t pid;
	char c;

	if (pipe(g))
		exit(2);
	pid = fork();
	if (pid == 0) {
		close(g[1]);
		if (read(g[0], &c, 1) != 1)
			_exit(2);
		fn();
		_exit(0);
	}
	close(g[0]);
	*gate_w = g[1];
	return pid;
}

static pid_t busy_pid;
static void start_busy(void)
{
	busy_pid = fork();
	if (busy_pid == 0) {
		for (;;)
			syscall(SYS_getppid);
	}
}

/* Run fn traced (or not); returns the child pid; records are in recs. */
static pid_t run(void (*fn)(void), bool traced, bool busy)
{
	struct katra_probes_opts o = KATRA_PROBES_OPTS_DEFAULT;
	struct katra_probes *p = NULL;
	struct ring_buffer *rb = NULL;
	const char *const *names;
	size_t n, i;
	uint64_t drops;
	int gate, st;
	pid_t pid;

	nrecs = 0;
	o.force_raw_tp = use_raw;
	o.record_paths = getenv("KATRA_PATHS") != NULL;
	o.verbose = getenv("KATRA_VERBOSE") != NULL;
	o.ring_bytes = getenv("KATRA_RING") ? (uint32_t)atoi(getenv("KATRA_RING")) : 1u << 20;
	if (busy)
		start_busy();
	pid = start_gated(fn, &gate);
	if (traced) {
		if (katra_probes_open(&o, &p) || katra_probes_track_tgid(p, pid) ||
		    katra_probes_attach(p) || katra_probes_new_ring_buffer(p, on_record, NULL, &rb))
			exit(2);
		n = katra_probes_failed(p, &names);
		for (i = 0; i < n; i++)
			printf("  failed probe: %s\n", names[i]);
	}
	if (write(gate, "g", 1) != 1)
		exit(2);
	close(gate);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (rb)
			ring_buffer__poll(rb, 10);
		else if (!w)
			usleep(1000);
		if (w == pid)
			break;
	}
	if (rb) {
		ring_buffer__consume(rb);
		drops = katra_probes_read_drops(p, NULL, 0);
		printf("  flavour %s, %zu records, drops %llu, bad sizes %zu, still tracked %d\n",
		       katra_probes_flavour(p), nrecs, (unsigned long long)drops, bad_size,
		       katra_probes_tracked_count(p));
		CHECK(drops == 0 && bad_size == 0, "drops or bad record sizes");
		ring_buffer__free(rb);
		katra_probes_destroy(p);
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "workload status %d", st);
	if (busy) {
		kill(busy_pid, SIGKILL);
		waitpid(busy_pid, NULL, 0);
	}
	return pid;
}

static void print_counts(void)
{
	size_t cnt[KATRA_EV_TYPE_COUNT] = {0}, i;

	for (i = 0; i < nrecs; i++)
		cnt[REC(i)->type]++;
	printf("  counts: syscall %zu path %zu switch %zu waking %zu fork %zu exec %zu exit %zu "
	       "fault %zu uring create/submit/complete %zu/%zu/%zu\n",
	       cnt[1], cnt[2], cnt[3], cnt[4], cnt[5], cnt[6], cnt[7], cnt[8], cnt[9], cnt[10],
	       cnt[11]);
}

static void test_pread(void)
{
	struct stat sb;
	size_t i, npread = 0, nppid = 0, good = 0;
	pid_t pid;

	printf("pread: %d pread64 + %d getppid\n", N_PREAD, N_PPID);
	pid = run(wl_pread, true, false);
	print_counts();
	stat(tmpfile_path, &sb);
	for (i = 0; i < nrecs; i++) {
		const struct katra_ev_syscall *e = (const void *)REC(i);

		if (e->head.type != KATRA_EV_SYSCALL || e->head.tid != (__u32)pid ||
		    !(e->flags & KATRA_SC_EXIT))
			continue;
		if (e->nr == SYS_pread64) {
			npread++;
			if ((e->flags & KATRA_SC_FILE) && e->ino == sb.st_ino &&
			    makedev(e->dev >> 20, e->dev & 0xfffff) == sb.st_dev &&
			    e->args[2] == 1 && e->args[3] == (npread - 1) % 64 && e->ret == 1 &&
			    e->enter_ts && e->enter_ts <= e->exit_ts)
				good++;
		} else if (e->nr == SYS_getppid) {
			nppid++;
		}
	}
	printf("  pread64 exits %zu (correct fd identity/offset/len/ret: %zu), getppid %zu\n",
	       npread, good, nppid);
	CHECK(npread == N_PREAD && good == N_PREAD && nppid == N_PPID, "pread counts");
}

static void test_pingpong(void)
{
	size_t i, sw_out = 0, wk_in = 0, rw = 0;
	pid_t pid;

	printf("pingpong: %d round trips over pipes\n", K_PING);
	pid = run(wl_pingpong, true, false);
	print_counts();
	for (i = 0; i < nrecs; i++) {
		const struct katra_wire_head *h = REC(i);

		if (h->type == KATRA_EV_SWITCH) {
			const struct katra_ev_switch *e = (const void *)h;

			if ((e->flags & KATRA_SW_PREV_TRACKED) && e->prev_state == 1)
				sw_out++;
		} else if (h->type == KATRA_EV_WAKING) {
			const struct katra_ev_waking *e = (const void *)h;

			if (e->target_tgid == (__u32)pid && h->tgid == (__u32)pid)
				wk_in++;
		} else if (h->type == KATRA_EV_SYSCALL) {
			const struct katra_ev_syscall *e = (const void *)h;

			if ((e->flags & KATRA_SC_EXIT) && (e->nr == SYS_read || e->nr == SYS_write)
			    && e->ret == 1 && (e->flags & KATRA_SC_FILE))
				rw++;
		}
	}
	printf("  sleeping switch-outs %zu, in-process wakeups %zu, 1-byte pipe read/write %zu\n",
	       sw_out, wk_in, rw);
	CHECK(rw == 4 * K_PING, "pipe read+write count %zu != %d", rw, 4 * K_PING);
	CHECK(sw_out >= K_PING && wk_in >= K_PING, "too few switches/wakeups");
}

static void test_faults(void)
{
	size_t i, in = 0;
	__u64 base = 0;

	printf("faults: %d fresh anonymous pages\n", P_PAGES);
	run(wl_faults, true, false);
	print_counts();
	for (i = 0; i < nrecs; i++) {
		const struct katra_ev_syscall *e = (const void *)REC(i);

		if (e->head.type == KATRA_EV_SYSCALL && e->nr == SYS_madvise && e->args[1] == 0)
			base = e->args[0];
	}
	for (i = 0; i < nrecs; i++) {
		const struct katra_ev_page_fault *e = (const void *)REC(i);

		if (e->head.type == KATRA_EV_PAGE_FAULT && e->address >= base &&
		    e->address < base + P_PAGES * 4096)
			in++;
	}
	printf("  faults inside the mapping %zu\n", in);
	CHECK(base && in >= P_PAGES, "faults inside mapping %zu < %d", in, P_PAGES);
}

static void test_uring(void)
{
	size_t i, j, sub = 0, paired = 0;

	printf("uring: %d reads through io_uring\n", R_URING);
	run(wl_uring, true, false);
	print_counts();
	for (i = 0; i < nrecs; i++) {
		const struct katra_ev_uring_submit *s = (const void *)REC(i);

		if (s->head.type != KATRA_EV_URING_SUBMIT || s->opcode != 22 /* IORING_OP_READ */)
			continue;
		sub++;
		for (j = i + 1; j < nrecs; j++) {
			const struct katra_ev_uring_complete *c = (const void *)REC(j);

			if (c->head.type == KATRA_EV_URING_COMPLETE && c->req == s->req &&
			    c->user_data == s->user_data && c->res == 4) {
				paired++;
				break;
			}
		}
	}
	printf("  read submits %zu, paired with completion %zu\n", sub, paired);
	CHECK(sub == R_URING && paired == R_URING, "uring pairs");
}

static void test_forkexec(void)
{
	size_t i, busy = 0, execs = 0, forks = 0, exits_dead = 0;
	__u32 tgids[8] = {0};
	size_t ntg = 0, k;
	pid_t pid;

	printf("forkexec: child -> grandchild -> exec /bin/true, busy unrelated process\n");
	pid = run(wl_forkexec, true, true);
	print_counts();
	for (i = 0; i < nrecs; i++) {
		const struct katra_wire_head *h = REC(i);

		/* head = current: the busy process may be the waker or the thread a
		 * tracked one switched in after; anything else of it is a leak */
		if (h->tgid == (__u32)busy_pid && h->type != KATRA_EV_WAKING &&
		    !(h->type == KATRA_EV_SWITCH &&
		      ((const struct katra_ev_switch *)h)->flags == KATRA_SW_NEXT_TRACKED))
			busy++;
		if (h->type == KATRA_EV_WAKING &&
		    ((const struct katra_ev_waking *)h)->target_tgid == (__u32)busy_pid)
			busy++;
		if (h->type == KATRA_EV_EXEC)
			execs++;
		if (h->type == KATRA_EV_FORK) {
			const struct katra_ev_fork *f = (const void *)h;

			forks++;
			CHECK(f->flags & KATRA_FORK_TRACKED, "fork not followed");
		}
		if (h->type == KATRA_EV_EXIT &&
		    (((const struct katra_ev_exit *)h)->flags & KATRA_EXIT_GROUP_DEAD))
			exits_dead++;
		if (h->tgid && h->tgid != (__u32)busy_pid) {
			for (k = 0; k < ntg && tgids[k] != h->tgid; k++)
				;
			if (k == ntg && ntg < 8)
				tgids[ntg++] = h->tgid;
		}
	}
	printf("  processes seen %zu (root %d), forks %zu, execs %zu, group exits %zu, "
	       "busy-process records %zu\n", ntg, pid, forks, execs, exits_dead, busy);
	CHECK(forks == 2 && execs == 1 && exits_dead == 3 && busy == 0, "fork/exec tree");
}

static void test_bench(void)
{
	double untraced = 0, traced = 0, ns;
	int round;

	if (pipe(bench_pipe))
		exit(2);
	count_only = true;
	for (round = 0; round < 3; round++) {
		run(wl_bench, false, false);
		if (read(bench_pipe[0], &ns, sizeof(ns)) != sizeof(ns))
			exit(2);
		untraced += ns;
		run(wl_bench, true, false);
		if (read(bench_pipe[0], &ns, sizeof(ns)) != sizeof(ns))
			exit(2);
		traced += ns;
	}
	untraced /= 3;
	traced /= 3;
	printf("bench: %ld iterations (pread64 + getppid): untraced %.1f ns/iter, traced %.1f "
	       "ns/iter; added %.1f ns per syscall record, %.1f ns per enter/exit event\n",
	       bench_iters, untraced / bench_iters, traced / bench_iters,
	       (traced - untraced) / bench_iters / 2, (traced - untraced) / bench_iters / 4);
}

int main(int argc, char **argv)
{
	const char *what;
	int fd, i = 1;
	char data[64];

	if (i < argc && !strcmp(argv[i], "--raw")) {
		use_raw = true;
		i++;
	}
	what = i < argc ? argv[i] : "all";
	bench_iters = i + 1 < argc ? atol(argv[i + 1]) : 1000000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = mkstemp(tmpfile_path);
	for (i = 0; i < 64; i++)
		data[i] = 'a' + i % 26;
	if (fd < 0 || write(fd, data, 64) != 64)
		return 2;
	close(fd);
	if (!strcmp(what, "pread") || !strcmp(what, "all"))
		test_pread();
	if (!strcmp(what, "pingpong") || !strcmp(what, "all"))
		test_pingpong();
	if (!strcmp(what, "faults") || !strcmp(what, "all"))
		test_faults();
	if (!strcmp(what, "uring") || !strcmp(what, "all"))
		test_uring();
	if (!strcmp(what, "forkexec") || !strcmp(what, "all"))
		test_forkexec();
	if (!strcmp(what, "bench"))
		test_bench();
	unlink(tmpfile_path);
	printf(failures ? "FAILED (%d)\n" : "OK\n", failures);
	return failures ? 1 : 0;
}
