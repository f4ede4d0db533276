// SPDX-License-Identifier: GPL-2.0-only
/* The epochs from outside: the --epoch-fifo and SIGUSR1 (recorder_epochs.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/pipeline/pipeline.h"
#include "host.h"
#include "recorder_epochs.h"

static volatile sig_atomic_t marks_requested;
#define MAX_MARK_TIMES 64
static uint64_t mark_times[MAX_MARK_TIMES];  /* when each SIGUSR1 came */

/* An epoch at the time the signal came, not when the loop sees it: FIFO lines
 * and marks are ordered by when they arrived. */
/* FIFO bytes the SIGUSR1 handler read before taking its mark: written before
 * the signal, so their epochs come first (read() is async-signal-safe). */
static int fifo_fd_for_marks = -1;
static char early_fifo[4096];
static volatile sig_atomic_t early_fifo_len;
static uint64_t early_fifo_ts;

static void on_mark(int sig)
{
	struct timespec ts;
	int saved = errno;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (fifo_fd_for_marks >= 0 && early_fifo_len < (sig_atomic_t)sizeof(early_fifo)) {
		ssize_t n = read(fifo_fd_for_marks, early_fifo + early_fifo_len,
				 sizeof(early_fifo) - (size_t)early_fifo_len);
		if (n > 0) {
			if (!early_fifo_len)
				early_fifo_ts = (uint64_t)ts.tv_sec * 1000000000ull +
						(uint64_t)ts.tv_nsec - 1;
			early_fifo_len += (sig_atomic_t)n;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	errno = saved;
	if (marks_requested < MAX_MARK_TIMES)
		mark_times[marks_requested] = (uint64_t)ts.tv_sec * 1000000000ull +
					      (uint64_t)ts.tv_nsec;
	marks_requested++;
}

/* One epoch per line written to the FIFO; partial lines wait for the rest. */
static void fifo_bytes(struct epoch_input *in, struct pipeline *pl, const char *buf, size_t n,
		       uint64_t at)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			in->fifo_line[in->fifo_len] = '\0';
			if (in->fifo_len)
				pipeline_queue_epoch(pl, at, KATRA_EPOCH_FIFO, in->fifo_line);
			in->fifo_len = 0;
		} else if (in->fifo_len < sizeof(in->fifo_line) - 1) {
			in->fifo_line[in->fifo_len++] = buf[i];
		}
	}
}

void katra_record_read_fifo(struct epoch_input *in, struct pipeline *pl, uint64_t now)
{
	char buf[512];
	sigset_t usr1, old;
	ssize_t n;

	/* the mark handler reads the FIFO too: not while we do */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	if (early_fifo_len) {
		/* no later than now, as the mark that follows it is held
		 * (katra_record_queue_marks): the signal can come after the caller
		 * read the clock, and the line must not then sort after its mark;
		 * one read in the teardown, after the end, goes at the end */
		fifo_bytes(in, pl, early_fifo, (size_t)early_fifo_len,
			   early_fifo_ts && early_fifo_ts <= now ? early_fifo_ts : now);
		early_fifo_len = 0;
	}
	while ((n = read(in->fifo_fd, buf, sizeof(buf))) > 0)
		fifo_bytes(in, pl, buf, (size_t)n, now);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int katra_record_open_fifo(struct epoch_input *in, const char *path)
{
	struct stat st;

	in->fifo_created = mkfifo(path, 0600) == 0;
	if (!in->fifo_created && errno != EEXIST)
		return -errno;
	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISFIFO(st.st_mode))
		return -EINVAL;
	/* O_RDWR: writers coming and going never make it read end-of-file */
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	in->fifo_fd = fd;
	/* ours: the user who ran sudo writes the epochs from their shell */
	if (in->fifo_created)
		katra_give_to_sudo_user(fd, path);
	return 0;
}

void katra_record_close_fifo(struct epoch_input *in, const char *path)
{
	/* a SIGUSR1 after this must not read whatever reuses the number */
	fifo_fd_for_marks = -1;
	if (in->fifo_fd >= 0)
		close(in->fifo_fd);
	if (in->fifo_created)
		unlink(path);
}

int katra_record_catch_marks(const struct epoch_input *in)
{
	struct sigaction sa = { .sa_handler = on_mark };

	sigemptyset(&sa.sa_mask);
	fifo_fd_for_marks = in->fifo_fd;
	return sigaction(SIGUSR1, &sa, NULL) ? -errno : 0;
}

void katra_record_queue_marks(struct epoch_input *in, struct pipeline *pl, uint64_t now)
{
	while (in->marks_done != marks_requested) {
		char name[32];
		uint64_t at = in->marks_done < MAX_MARK_TIMES ? mark_times[in->marks_done] : now;
		in->marks_done++;
		snprintf(name, sizeof(name), "mark %d", (int)in->marks_done);
		pipeline_queue_epoch(pl, at && at <= now ? at : now, KATRA_EPOCH_SIGNAL, name);
	}
}
