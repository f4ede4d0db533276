// SPDX-License-Identifier: GPL-2.0-only
/* The README's demo workload (~0.5 s): a little of everything katra-record
 * shows, with known counts.
 *
 * usage: demo [--gate FILE]
 *
 * - a loader thread read(2)s a 256 KiB file in 16 KiB chunks and hands each
 *   chunk to a worker thread (mutex + condition variable), which checksums it
 *   and hands it back: two threads waking each other;
 * - the main thread reads the same file through io_uring, 64 KiB per request,
 *   user_data = 1, 2, ...;
 * - once, a child process pread(2)s the file and exits with status 0;
 * - ITERATIONS rounds, paced by a sleep.
 * Prints: {"workload":"demo","pid":P,"loader_tid":L,"worker_tid":W,"child_pid":C,
 *  "file_dev":D,"file_ino":I,"read_calls":N,"read_chunks":N,"uring_reads":R,"handoffs":H,
 *  "checksum":S} */
#include <liburing.h>
#include <pthread.h>
#include <sys/wait.h>

#include "workload.h"

#define FILE_BYTES (256u * 1024u)
#define CHUNK (16u * 1024u)
#define URING_CHUNK (64u * 1024u)
#define ITERATIONS 5
#define PACE_NS (90u * 1000u * 1000u)

static const char *prog = "demo";
static int data_fd;

/* One-slot mailbox between the loader and the worker. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned char *slot;
static size_t slot_len;
static int slot_full, done;
static uint64_t checksum;
static unsigned long handoffs, read_chunks, read_calls;
static pid_t loader_tid, worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = wl_gettid();
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!slot_full && !done)
			pthread_cond_wait(&cond, &lock);
		if (!slot_full && done)
			break;
		for (size_t i = 0; i < slot_len; i++)
			checksum = checksum * 31 + slot[i];
		slot_full = 0;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *loader(void *arg)
{
	static unsigned char buf[CHUNK];

	(void)arg;
	loader_tid = wl_gettid();
	for (int it = 0; it < ITERATIONS; it++) {
		if (lseek(data_fd, 0, SEEK_SET) < 0)
			wl_die(prog, "lseek: %s", strerror(errno));
		for (;;) {
			ssize_t n = read(data_fd, buf, sizeof(buf));

			read_calls++;
			if (n < 0)
				wl_die(prog, "read: %s", strerror(errno));
			if (!n)
				break;
			read_chunks++;
			pthread_mutex_lock(&lock);
			slot = buf;
			slot_len = (size_t)n;
			slot_full = 1;
			handoffs++;
			pthread_cond_broadcast(&cond);
			while (slot_full)
				pthread_cond_wait(&cond, &lock);
			pthread_mutex_unlock(&lock);
		}
		wl_sleep_ns(PACE_NS);
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static unsigned long uring_reads(struct io_uring *ring, unsigned long next_id)
{
	static char buf[URING_CHUNK];

	for (unsigned off = 0; off < FILE_BYTES; off += URING_CHUNK) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		struct io_uring_cqe *cqe;
		int rc;

		if (!sqe)
			wl_die(prog, "no free submission entry");
		io_uring_prep_read(sqe, data_fd, buf, URING_CHUNK, off);
		io_uring_sqe_set_data64(sqe, next_id);
		rc = io_uring_submit_and_wait(ring, 1);
		if (rc >= 0)
			rc = io_uring_wait_cqe(ring, &cqe);
		if (rc < 0)
			wl_die(prog, "io_uring: %s", strerror(-rc));
		if (cqe->res != (int)URING_CHUNK || cqe->user_data != next_id)
			wl_die(prog, "io_uring read %lu returned %d", next_id, cqe->res);
		io_uring_cqe_seen(ring, cqe);
		next_id++;
	}
	return next_id;
}

static pid_t spawn_child(void)
{
	pid_t child = fork();

	if (child < 0)
		wl_die(prog, "fork: %s", strerror(errno));
	if (!child) {
		static char buf[CHUNK];

		for (off_t off = 0; off < FILE_BYTES; off += CHUNK)
			if (pread(data_fd, buf, CHUNK, off) != CHUNK)
				_exit(1);
		_exit(0);
	}
	return child;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	struct io_uring ring;
	pthread_t lt, wt;
	unsigned long next_id = 1;
	struct stat st;
	pid_t child = 0;
	int status, rc;

	if (argc == 3 && !strcmp(argv[1], "--gate"))
		gate = argv[2];
	else if (argc != 1)
		wl_die(prog, "usage: demo [--gate FILE]");
	data_fd = wl_data_file(prog, NULL, FILE_BYTES, &st);
	rc = io_uring_queue_init(8, &ring, 0);
	if (rc < 0)
		wl_die(prog, "io_uring_queue_init: %s", strerror(-rc));
	wl_gate_wait(gate);

	if (pthread_create(&wt, NULL, worker, NULL) || pthread_create(&lt, NULL, loader, NULL))
		wl_die(prog, "pthread_create failed");
	for (int it = 0; it < ITERATIONS; it++) {
		next_id = uring_reads(&ring, next_id);
		if (it == 1)
			child = spawn_child();
		wl_sleep_ns(PACE_NS);
	}
	pthread_join(lt, NULL);
	pthread_join(wt, NULL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		wl_die(prog, "child process failed");
	io_uring_queue_exit(&ring);

	printf("{\"workload\":\"demo\",\"pid\":%d,\"loader_tid\":%d,\"worker_tid\":%d,"
	       "\"child_pid\":%d,\"file_dev\":%llu,\"file_ino\":%llu,\"read_calls\":%lu,"
	       "\"read_chunks\":%lu,\"uring_reads\":%lu,\"handoffs\":%lu,\"checksum\":%llu}\n",
	       (int)getpid(), (int)loader_tid, (int)worker_tid, (int)child,
	       (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, read_calls, read_chunks,
	       next_id - 1, handoffs, (unsigned long long)checksum);
	return 0;
}
