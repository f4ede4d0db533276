// SPDX-License-Identifier: GPL-2.0-only
/* A game's CPU side, as a Proton game's looks to the kernel, with exact
 * per-kind syscall counts (the ground truth for a tracer's loss).
 *
 * usage: gameloop [--gate FILE] [--frames N | --duration S] [--workers W]
 *                 [--seed S] [--uncapped] [--hz HZ] [--jobs J] [--job-kib K]
 *                 [--pak-mib M] [--no-raw]
 *
 * Threads (all created, warmed up and parked before the gate opens):
 *   main/render  per frame: hands J jobs to the workers and waits for them
 *                (raw futexes, as Wine's sync objects and a job system do),
 *                then "submits" (4 ioctl on /dev/null + one 64-byte write to
 *                the fake driver's pipe), then paces to 1/HZ with
 *                clock_nanosleep(TIMER_ABSTIME) (--uncapped: no pacing)
 *   W workers    per job: FNV-1a over --job-kib KiB of a seeded scene buffer
 *                (fixed CPU work), 6 pread64 of 4 KiB from the pak (asset
 *                reads), 2 clock_gettime(THREAD_CPUTIME) syscalls (profiler
 *                scopes), and for one job in 4 an mmap of 64 KiB, a first
 *                touch of its 16 pages (page faults) and munmap (churn)
 *   driver       blocks in read() on the submit pipe, hashes each command
 *   streaming    every 2 ms: 2 pread64 of 64 KiB at seeded random 4 KiB-aligned
 *                offsets of a generated pak file, and one io_uring_enter that
 *                submits the reads prepared last time and waits for one
 *                completion, keeping 4 reads of 64 KiB in flight
 *   audio        ppoll() on a silent pipe with a 5 ms timeout, then mixes
 *
 * Job j of frame f is a function of (seed, f, j) only, so the job-side counts
 * and the checksum are deterministic given the seed and the frame count; the
 * futex, streaming and audio counts depend on timing (they are counted).
 *
 * Per frame it records the work time (frame start -> all jobs done and the
 * submit made, before pacing) and the pacing error (wake-up - deadline; for a
 * missed deadline, work end - deadline, and the schedule restarts).  Prints
 * one JSON object: summaries, the raw per-frame arrays (ns; not with
 * --no-raw), syscalls per kind counted from gate open to the end, and the
 * tracepoint ground truth as benchwl prints it, and each thread's own account
 * of its counted window ("calls", see print_calls).  Counts in the window are
 * exact for the code's own syscalls; a tracer also sees the gate's
 * nanosleep, thread exits and the JSON output (a few dozen events). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 64
#define SCENE_BYTES (4u << 20)
#define ASSET_READS 6
#define ASSET_BYTES 4096
#define CHURN_PAGES 16
#define STREAM_BYTES (64u << 10)
#define STREAM_TICK_NS 2000000ull
#define STREAM_PREADS 2
#define URING_DEPTH 4
#define AUDIO_NS 5000000ll
#define SUBMIT_IOCTLS 4
#define CMD_BYTES 64

/* syscall kinds counted; the names are the JSON keys */
enum { K_FUTEX, K_IOCTL, K_WRITE, K_READ, K_PREAD64, K_CLOCK_GETTIME, K_MMAP, K_MUNMAP,
       K_IO_URING_ENTER, K_PPOLL, K_CLOCK_NANOSLEEP, K_GETRUSAGE, K_NKINDS };
static const char *const kind_name[K_NKINDS] = {
	"futex", "ioctl", "write", "read", "pread64", "clock_gettime", "mmap", "munmap",
	"io_uring_enter", "ppoll", "clock_nanosleep", "getrusage",
};
static const long kind_nr[K_NKINDS] = {
	SYS_futex, SYS_ioctl, SYS_write, SYS_read, SYS_pread64, SYS_clock_gettime, SYS_mmap,
	SYS_munmap, SYS_io_uring_enter, SYS_ppoll, SYS_clock_nanosleep, SYS_getrusage,
};

/* one per thread; counting starts once the gate is open */
struct tstat {
	uint64_t sc[K_NKINDS];
	uint64_t vcsw, ivcsw, minflt;
	uint64_t user_ns, sys_ns; /* CPU time in the counted window */
	uint64_t uring_sub, uring_done, jobs, churn;
	uint64_t checksum;
	struct rusage r0;
	int counting;
	pid_t tid;
	uint64_t t0, t1; /* the counted window, CLOCK_MONOTONIC ns */
};

static const char *gate;
static uint64_t seed = 1, nframes = 600, hz = 60, njobs_opt, job_bytes = 32u << 10;
static double duration_s;
static int nworkers = 4, uncapped, raw = 1, pak_mib = 32;
static int pak_fd, devnull_fd, cmd_pipe[2], silent_pipe[2];
static unsigned char *scene;
static uint64_t pak_blocks; /* 4 KiB blocks */
static long page_size;

/* the job system's shared words */
static _Atomic uint32_t gen, next_job, remaining, go, stop_all;
static _Atomic uint64_t cur_frame;
static uint32_t njobs;

static void die(const char *what)
{
	fprintf(stderr, "gameloop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t fnv1a(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* counted syscall wrappers: each is exactly one syscall instruction */
#define COUNT(st, k) ((st)->sc[k] += (uint64_t)(st)->counting)

static long futex(struct tstat *st, _Atomic uint32_t *w, int op, uint32_t val)
{
	COUNT(st, K_FUTEX);
	return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void futex_wait_while(struct tstat *st, _Atomic uint32_t *w, uint32_t val)
{
	while (atomic_load(w) == val)
		futex(st, w, FUTEX_WAIT, val);
}

static ssize_t c_pread(struct tstat *st, int fd, void *b, size_t n, off_t off)
{
	COUNT(st, K_PREAD64);
	return syscall(SYS_pread64, fd, b, n, off);
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static void start_counting(struct tstat *st)
{
	st->tid = (pid_t)syscall(SYS_gettid);
	st->t0 = now_ns();
	st->counting = 1;
	COUNT(st, K_GETRUSAGE);
	getrusage(RUSAGE_THREAD, &st->r0);
}

static void stop_counting(struct tstat *st)
{
	struct rusage r1;

	COUNT(st, K_GETRUSAGE);
	getrusage(RUSAGE_THREAD, &r1);
	st->t1 = now_ns();
	st->counting = 0;
	st->vcsw = r1.ru_nvcsw - st->r0.ru_nvcsw;
	st->ivcsw = r1.ru_nivcsw - st->r0.ru_nivcsw;
	st->minflt = r1.ru_minflt - st->r0.ru_minflt;
	st->user_ns = tv_ns(&r1.ru_utime) - tv_ns(&st->r0.ru_utime);
	st->sys_ns = tv_ns(&r1.ru_stime) - tv_ns(&st->r0.ru_stime);
}

/* every thread but main parks here until the gate opens */
static void park(struct tstat *st)
{
	futex_wait_while(st, &go, 0);
	start_counting(st);
}

/* ---- workers ---- */

struct worker {
	pthread_t th;
	struct tstat st;
	unsigned char *abuf;
};

static void run_job(struct worker *w, uint64_t frame, uint32_t j)
{
	struct tstat *st = &w->st;
	uint64_t s = seed ^ (frame * 0xd1b54a32d192ed03ull) ^ ((uint64_t)j << 32 | j), h;
	struct timespec ts;

	COUNT(st, K_CLOCK_GETTIME); /* a profiler scope: the thread's CPU clock */
	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	h = fnv1a(scene + splitmix(&s) % (SCENE_BYTES - job_bytes), job_bytes,
		  0xcbf29ce484222325ull);
	for (int i = 0; i < ASSET_READS; i++)
		if (c_pread(st, pak_fd, w->abuf, ASSET_BYTES,
			    (off_t)(splitmix(&s) % pak_blocks) * ASSET_BYTES) != ASSET_BYTES)
			die("asset pread");
	h = fnv1a(w->abuf, 64, h);
	if (splitmix(&s) % 4 == 0) { /* allocation churn */
		size_t len = CHURN_PAGES * (size_t)page_size;
		unsigned char *m;

		COUNT(st, K_MMAP);
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap");
		for (size_t o = 0; o < len; o += (size_t)page_size)
			m[o] = (unsigned char)h;
		h = fnv1a(m, 16, h);
		COUNT(st, K_MUNMAP);
		if (munmap(m, len))
			die("munmap");
		st->churn++;
	}
	COUNT(st, K_CLOCK_GETTIME);
	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	st->checksum ^= h; /* xor: the same whichever worker ran the job */
	st->jobs++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct tstat save = w->st;
	uint32_t seen = 0;

	/* a warm-up job (stack, buffers, caches), uncounted */
	run_job(w, ~0ull, 0);
	w->st = save;
	park(&w->st);
	for (;;) {
		uint32_t g;

		while ((g = atomic_load(&gen)) == seen)
			futex(&w->st, &gen, FUTEX_WAIT, seen);
		seen = g;
		if (atomic_load(&stop_all))
			break;
		for (;;) {
			uint32_t j = atomic_fetch_add(&next_job, 1);

			if (j >= njobs)
				break;
			run_job(w, atomic_load(&cur_frame), j);
			if (atomic_fetch_sub(&remaining, 1) == 1)
				futex(&w->st, &remaining, FUTEX_WAKE, 1);
		}
	}
	stop_counting(&w->st);
	return NULL;
}

/* ---- the fake driver: drains the submit pipe ---- */

static struct tstat driver_st, stream_st, audio_st, main_st;
static uint64_t driver_cmds;

static void *driver_main(void *arg)
{
	unsigned char cmd[CMD_BYTES];
	uint64_t h = 0;

	(void)arg;
	park(&driver_st);
	for (;;) {
		ssize_t n;

		COUNT(&driver_st, K_READ);
		n = read(cmd_pipe[0], cmd, sizeof(cmd));
		if (n != (ssize_t)sizeof(cmd))
			die("driver read");
		if (cmd[0] == 'Q')
			break;
		h = fnv1a(cmd, sizeof(cmd), h);
		driver_cmds++;
	}
	driver_st.checksum = h;
	stop_counting(&driver_st);
	return NULL;
}

/* ---- streaming: pread + io_uring from the pak ---- */

static void *stream_main(void *arg)
{
	static unsigned char pbuf[STREAM_BYTES], ubuf[URING_DEPTH][STREAM_BYTES];
	struct tstat *st = &stream_st;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t s = seed ^ 0x5eed5eed5eedull, next, inflight = 0, prepared = 0;
	struct timespec ts;

	(void)arg;
	if (io_uring_queue_init(8, &ring, 0))
		die("io_uring_queue_init");
	memset(pbuf, 0, sizeof(pbuf));
	memset(ubuf, 0, sizeof(ubuf));
	for (int i = 0; i < URING_DEPTH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, pak_fd, ubuf[i], STREAM_BYTES,
				   (splitmix(&s) % (pak_blocks - 16)) * ASSET_BYTES);
		sqe->user_data = (uint64_t)i;
		prepared++;
	}
	park(st);
	next = now_ns();
	while (!atomic_load(&stop_all)) {
		for (int i = 0; i < STREAM_PREADS; i++)
			if (c_pread(st, pak_fd, pbuf, STREAM_BYTES,
				    (off_t)(splitmix(&s) % (pak_blocks - 16)) * ASSET_BYTES) !=
			    STREAM_BYTES)
				die("stream pread");
		/* submits what was prepared, waits for >= 1 completion: always
		 * one io_uring_enter in liburing (wait_nr > 0) */
		COUNT(st, K_IO_URING_ENTER);
		if (io_uring_submit_and_wait(&ring, 1) < 0)
			die("io_uring_submit_and_wait");
		st->uring_sub += prepared;
		inflight += prepared;
		prepared = 0;
		while (!io_uring_peek_cqe(&ring, &cqe)) { /* no syscall */
			uint64_t i = cqe->user_data;
			struct io_uring_sqe *sqe;

			if (cqe->res != (int)STREAM_BYTES) {
				errno = cqe->res < 0 ? -cqe->res : EIO;
				die("io_uring read");
			}
			io_uring_cqe_seen(&ring, cqe);
			st->uring_done++;
			inflight--;
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, pak_fd, ubuf[i], STREAM_BYTES,
					   (splitmix(&s) % (pak_blocks - 16)) * ASSET_BYTES);
			sqe->user_data = i;
			prepared++;
		}
		st->checksum ^= fnv1a(pbuf, 64, ubuf[0][0]);
		next += STREAM_TICK_NS;
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		COUNT(st, K_CLOCK_NANOSLEEP);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	while (inflight) { /* reads submitted and not reaped yet (none when
			    * they completed inline, as page-cache reads do) */
		COUNT(st, K_IO_URING_ENTER);
		if (io_uring_submit_and_wait(&ring, 1) < 0)
			die("io_uring_submit_and_wait");
		st->uring_sub += prepared;
		inflight += prepared;
		prepared = 0;
		while (!io_uring_peek_cqe(&ring, &cqe)) {
			io_uring_cqe_seen(&ring, cqe);
			st->uring_done++;
			inflight--;
		}
	}
	stop_counting(st);
	io_uring_queue_exit(&ring);
	return NULL;
}

/* ---- audio: a 5 ms period ---- */

static void *audio_main(void *arg)
{
	static unsigned char mixbuf[2048];
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct timespec period = { 0, AUDIO_NS };
	uint64_t h = 0;

	(void)arg;
	pfd.fd = silent_pipe[0];
	park(&audio_st);
	while (!atomic_load(&stop_all)) {
		COUNT(&audio_st, K_PPOLL);
		if (ppoll(&pfd, 1, &period, NULL) < 0 && errno != EINTR)
			die("ppoll");
		mixbuf[h & 2047] ^= (unsigned char)h;
		h = fnv1a(mixbuf, sizeof(mixbuf), h);
	}
	audio_st.checksum = h;
	stop_counting(&audio_st);
	return NULL;
}

/* ---- main/render ---- */

static void frame(uint64_t f)
{
	unsigned char cmd[CMD_BYTES];
	struct tstat *st = &main_st;
	uint32_t r;
	int x;

	atomic_store(&cur_frame, f);
	atomic_store(&remaining, njobs);
	atomic_store(&next_job, 0);
	atomic_fetch_add(&gen, 1);
	futex(st, &gen, FUTEX_WAKE, INT_MAX);
	while ((r = atomic_load(&remaining)) != 0)
		futex(st, &remaining, FUTEX_WAIT, r);
	for (int i = 0; i < SUBMIT_IOCTLS; i++) {
		COUNT(st, K_IOCTL);
		ioctl(devnull_fd, FIONREAD, &x); /* ENOTTY: a syscall all the same */
	}
	memset(cmd, (int)(f & 0x7f) | 1, sizeof(cmd));
	memcpy(cmd, &f, sizeof(f));
	cmd[0] = 'C';
	COUNT(st, K_WRITE);
	if (write(cmd_pipe[1], cmd, sizeof(cmd)) != (ssize_t)sizeof(cmd))
		die("submit write");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of a sorted array */
static uint64_t pct(const uint64_t *s, uint64_t n, double p)
{
	uint64_t k;

	if (!n)
		return 0;
	k = (uint64_t)(p / 100.0 * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	return s[k > n ? n - 1 : k - 1];
}

static void print_summary(const char *name, const uint64_t *v, uint64_t n)
{
	uint64_t *s = malloc((n ? n : 1) * sizeof(*s)), sum = 0;

	if (!s)
		die("malloc");
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	for (uint64_t i = 0; i < n; i++)
		sum += s[i];
	printf("\"%s\":{\"p50\":%llu,\"p99\":%llu,\"p999\":%llu,\"max\":%llu,\"mean\":%llu},", name,
	       (unsigned long long)pct(s, n, 50), (unsigned long long)pct(s, n, 99),
	       (unsigned long long)pct(s, n, 99.9), (unsigned long long)(n ? s[n - 1] : 0),
	       (unsigned long long)(n ? sum / n : 0));
	free(s);
}

static void print_array(const char *name, const uint64_t *v, uint64_t n)
{
	printf("\"%s\":[", name);
	for (uint64_t i = 0; i < n; i++)
		printf(i ? ",%llu" : "%llu", (unsigned long long)v[i]);
	printf("],");
}

/* "calls": each thread's own account of its counted window, for checking a
 * trace against (bench/tools/spancount): tid, the window (CLOCK_MONOTONIC),
 * the syscalls it made there by number, its faults (getrusage) and io_uring
 * requests submitted.  Every syscall in a window is one of the counted
 * wrappers'; completions are left out (an io-wq worker may post them). */
static void print_calls(struct tstat *const *all, int nall)
{
	printf("\"calls\":[");
	for (int i = 0; i < nall; i++) {
		const struct tstat *st = all[i];

		printf("%s{\"tid\":%d,\"start_mono_ns\":%llu,\"end_mono_ns\":%llu,\"syscalls\":{",
		       i ? "," : "", (int)st->tid, (unsigned long long)st->t0,
		       (unsigned long long)st->t1);
		for (int k = 0, first = 1; k < K_NKINDS; k++) {
			if (!st->sc[k])
				continue;
			printf("%s\"%ld\":%llu", first ? "" : ",", kind_nr[k],
			       (unsigned long long)st->sc[k]);
			first = 0;
		}
		printf("},\"faults\":%llu,\"uring_submit\":%llu", (unsigned long long)st->minflt,
		       (unsigned long long)st->uring_sub);
		printf("}");
	}
	printf("]}\n");
}

static void make_pak(void)
{
	char tmpl[] = "/tmp/katra-pak-XXXXXX";
	unsigned char *blk = malloc(1u << 20);
	uint64_t s = seed ^ 0x9a4ull;

	if (!blk)
		die("malloc");
	pak_fd = mkstemp(tmpl);
	if (pak_fd < 0)
		die("mkstemp");
	unlink(tmpl);
	for (int m = 0; m < pak_mib; m++) {
		for (size_t i = 0; i < (1u << 20); i += 8) {
			uint64_t v = splitmix(&s);

			memcpy(blk + i, &v, 8);
		}
		if (write(pak_fd, blk, 1u << 20) != (ssize_t)(1u << 20))
			die("pak write");
	}
	free(blk);
	pak_blocks = (uint64_t)pak_mib * (1u << 20) / ASSET_BYTES;
	/* the pak stays in the page cache: reads cost a copy, never the disk */
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gameloop [--gate FILE] [--frames N | --duration S] [--workers W]\n"
		"                [--seed S] [--uncapped] [--hz HZ] [--jobs J] [--job-kib K]\n"
		"                [--pak-mib M] [--no-raw]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_WORKERS];
	pthread_t th_driver, th_stream, th_audio;
	uint64_t *work_ns, *pace_ns, cap, f, interval, base, t_start, t_end, missed = 0;
	struct tstat tot = { 0 };
	struct tstat *all[MAX_WORKERS + 4];
	int nall = 0;
	uint64_t checksum = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--uncapped")) {
			uncapped = 1;
			continue;
		}
		if (!strcmp(a, "--no-raw")) {
			raw = 0;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--gate"))
			gate = v;
		else if (!strcmp(a, "--frames"))
			nframes = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--duration"))
			duration_s = strtod(v, NULL);
		else if (!strcmp(a, "--workers"))
			nworkers = atoi(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--hz"))
			hz = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--jobs"))
			njobs_opt = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--job-kib"))
			job_bytes = strtoull(v, NULL, 10) << 10;
		else if (!strcmp(a, "--pak-mib"))
			pak_mib = atoi(v);
		else
			usage();
	}
	if (nworkers < 1 || nworkers > MAX_WORKERS || !hz || pak_mib < 1 || pak_mib > 4096 ||
	    job_bytes < 64 || job_bytes > SCENE_BYTES / 2 || duration_s < 0 ||
	    (!duration_s && !nframes))
		usage();
	njobs = (uint32_t)(njobs_opt ? njobs_opt : 16u * (unsigned)nworkers);
	interval = 1000000000ull / hz;
	if (duration_s && !uncapped)
		nframes = (uint64_t)(duration_s * (double)hz + 0.5);
	cap = duration_s && uncapped ? 4096 : nframes;
	work_ns = malloc(cap * sizeof(*work_ns));
	pace_ns = malloc(cap * sizeof(*pace_ns));
	page_size = sysconf(_SC_PAGESIZE);
	scene = malloc(SCENE_BYTES);
	if (!work_ns || !pace_ns || !scene)
		die("malloc");
	{
		uint64_t s = seed;

		for (size_t i = 0; i < SCENE_BYTES; i += 8) {
			uint64_t v = splitmix(&s);

			memcpy(scene + i, &v, 8);
		}
	}
	make_pak();
	devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull_fd < 0 || pipe(cmd_pipe) || pipe(silent_pipe))
		die("setup");
	for (int t = 0; t < nworkers; t++) {
		w[t].abuf = aligned_alloc(4096, ASSET_BYTES);
		if (!w[t].abuf)
			die("malloc");
		memset(w[t].abuf, 0, ASSET_BYTES); /* no fault inside pread */
		if (pthread_create(&w[t].th, NULL, worker_main, &w[t]))
			die("pthread_create");
		all[nall++] = &w[t].st;
	}
	if (pthread_create(&th_driver, NULL, driver_main, NULL) ||
	    pthread_create(&th_stream, NULL, stream_main, NULL) ||
	    pthread_create(&th_audio, NULL, audio_main, NULL))
		die("pthread_create");
	all[nall++] = &driver_st;
	all[nall++] = &stream_st;
	all[nall++] = &audio_st;
	all[nall++] = &main_st;

	/* the gate (benchwl's convention): a file polled every 1 ms */
	while (gate && access(gate, F_OK)) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	start_counting(&main_st);
	atomic_store(&go, 1);
	futex(&main_st, &go, FUTEX_WAKE, INT_MAX);

	t_start = base = now_ns();
	for (f = 0;; f++) {
		uint64_t t0, t1, deadline;

		if (duration_s && uncapped) {
			if (now_ns() - t_start >= (uint64_t)(duration_s * 1e9))
				break;
			if (f == cap) {
				cap *= 2;
				work_ns = realloc(work_ns, cap * sizeof(*work_ns));
				pace_ns = realloc(pace_ns, cap * sizeof(*pace_ns));
				if (!work_ns || !pace_ns)
					die("realloc");
			}
		} else if (f == nframes) {
			break;
		}
		t0 = now_ns();
		frame(f);
		t1 = now_ns();
		work_ns[f] = t1 - t0;
		pace_ns[f] = 0;
		if (uncapped)
			continue;
		deadline = base + (f + 1) * interval;
		if (t1 < deadline) {
			struct timespec ts = { (time_t)(deadline / 1000000000ull),
					       (long)(deadline % 1000000000ull) };

			COUNT(&main_st, K_CLOCK_NANOSLEEP);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			pace_ns[f] = now_ns() - deadline;
		} else {
			/* missed: the next frame starts now, on a new schedule */
			pace_ns[f] = t1 - deadline;
			base = t1 - (f + 1) * interval;
			missed++;
		}
	}
	t_end = now_ns();
	nframes = f;

	/* shutdown: workers (futex), driver (quit command); the streaming and
	 * audio threads see stop_all within one period */
	atomic_store(&stop_all, 1);
	atomic_fetch_add(&gen, 1);
	futex(&main_st, &gen, FUTEX_WAKE, INT_MAX);
	{
		unsigned char q[CMD_BYTES] = { 'Q' };

		COUNT(&main_st, K_WRITE);
		if (write(cmd_pipe[1], q, sizeof(q)) != (ssize_t)sizeof(q))
			die("quit write");
	}
	/* before the joins: glibc's futex waits and thread-stack munmaps there
	 * are not the game's and not counted */
	stop_counting(&main_st);
	for (int t = 0; t < nworkers; t++)
		pthread_join(w[t].th, NULL);
	pthread_join(th_driver, NULL);
	pthread_join(th_stream, NULL);
	pthread_join(th_audio, NULL);

	for (int i = 0; i < nall; i++) {
		for (int k = 0; k < K_NKINDS; k++)
			tot.sc[k] += all[i]->sc[k];
		tot.vcsw += all[i]->vcsw;
		tot.ivcsw += all[i]->ivcsw;
		tot.minflt += all[i]->minflt;
		tot.user_ns += all[i]->user_ns;
		tot.sys_ns += all[i]->sys_ns;
		tot.uring_sub += all[i]->uring_sub;
		tot.uring_done += all[i]->uring_done;
		tot.jobs += all[i]->jobs;
		tot.churn += all[i]->churn;
	}
	for (int t = 0; t < nworkers; t++)
		checksum ^= w[t].st.checksum;

	uint64_t sc = 0;

	for (int k = 0; k < K_NKINDS; k++)
		sc += tot.sc[k];
	double el = (double)(t_end - t_start);

	printf("{\"workload\":\"gameloop\",\"pid\":%d,\"seed\":%llu,\"workers\":%d,\"jobs_per_frame\":%u,"
	       "\"job_kib\":%llu,\"hz\":%llu,\"uncapped\":%s,\"frames\":%llu,\"elapsed_ns\":%llu,"
	       "\"fps\":%.3f,\"missed\":%llu,\"start_mono_ns\":%llu,\"end_mono_ns\":%llu,",
	       (int)getpid(), (unsigned long long)seed, nworkers, njobs,
	       (unsigned long long)(job_bytes >> 10), (unsigned long long)hz,
	       uncapped ? "true" : "false", (unsigned long long)nframes,
	       (unsigned long long)(t_end - t_start), el > 0 ? (double)nframes * 1e9 / el : 0.0,
	       (unsigned long long)missed, (unsigned long long)t_start,
	       (unsigned long long)t_end);
	print_summary("work_ns", work_ns, nframes);
	print_summary("pacing_ns", pace_ns, nframes);
	if (raw) {
		print_array("frame_work_ns", work_ns, nframes);
		print_array("pacing_err_ns", pace_ns, nframes);
	}
	printf("\"syscalls\":{");
	for (int k = 0; k < K_NKINDS; k++)
		printf("%s\"%s\":%llu", k ? "," : "", kind_name[k], (unsigned long long)tot.sc[k]);
	printf("},\"syscalls_total\":%llu,", (unsigned long long)sc);
	printf("\"deterministic\":{\"jobs\":%llu,\"churn\":%llu,\"submits\":%llu,"
	       "\"checksum\":\"%016llx\"},",
	       (unsigned long long)tot.jobs, (unsigned long long)tot.churn,
	       (unsigned long long)driver_cmds, (unsigned long long)checksum);
	/* the threads' own CPU time: a tracer's in-context cost (its probes run
	 * in the traced threads) without the scheduling noise of wall time */
	printf("\"cpu_ns\":{\"user\":%llu,\"sys\":%llu},", (unsigned long long)tot.user_ns,
	       (unsigned long long)tot.sys_ns);
	printf("\"ctx_switches\":{\"voluntary\":%llu,\"involuntary\":%llu},\"page_faults\":%llu,"
	       "\"io_uring\":{\"submitted\":%llu,\"completed\":%llu},",
	       (unsigned long long)tot.vcsw, (unsigned long long)tot.ivcsw,
	       (unsigned long long)tot.minflt, (unsigned long long)tot.uring_sub,
	       (unsigned long long)tot.uring_done);
	/* tracepoint hits, as benchwl counts them: each syscall is sys_enter +
	 * sys_exit; every switch-out is a sched_switch; every voluntary one
	 * (a blocking wait) ends with one sched_waking */
	printf("\"events\":{\"sys_enter\":%llu,\"sys_exit\":%llu,\"sched_switch\":%llu,"
	       "\"sched_waking\":%llu,\"page_fault_user\":%llu,\"io_uring_submit_req\":%llu,"
	       "\"io_uring_complete\":%llu},\"total\":%llu,",
	       (unsigned long long)sc, (unsigned long long)sc,
	       (unsigned long long)(tot.vcsw + tot.ivcsw), (unsigned long long)tot.vcsw,
	       (unsigned long long)tot.minflt, (unsigned long long)tot.uring_sub,
	       (unsigned long long)tot.uring_done,
	       (unsigned long long)(2 * sc + 2 * tot.vcsw + tot.ivcsw + tot.minflt +
				    tot.uring_sub + tot.uring_done));
	print_calls(all, nall);
	return 0;
}
