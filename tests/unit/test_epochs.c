// SPDX-License-Identifier: GPL-2.0-only
/* The epochs from outside (recorder_epochs.c): a FIFO line written before a
 * SIGUSR1 is the earlier epoch, whenever the signal lands. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "pipeline_test_util.h"
#include "record/recorder_epochs.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The names of the trace's Fifo and Signal epochs, in record order. */
static size_t epoch_names(const char *path, char names[][32], size_t cap)
{
	struct katra_reader *r;
	struct katra_record rec;
	char msg[256];
	size_t n = 0;

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD && n < cap) {
		const struct katra_epoch_marker *m = &rec.u.epoch;
		if (rec.type != KATRA_RECORD_EPOCH_MARKER ||
		    (m->kind != KATRA_EPOCH_FIFO && m->kind != KATRA_EPOCH_SIGNAL))
			continue;
		snprintf(names[n++], 32, "%.*s", (int)m->name.len, m->name.ptr);
	}
	katra_reader_close(r);
	return n;
}

/* Seen once under load in t_cmd_signals: the loop read the clock, then the
 * line was written and the signal came before the loop read the FIFO; the
 * handler read the line (its time: the signal's, less 1 ns) and took the
 * mark, whose time the loop holds to its clock reading: the mark sorted
 * before the line.  Both are held to the loop's clock now, the line first. */
Test(epochs, a_fifo_line_written_before_a_signal_is_first_when_the_signal_comes_late)
{
	struct epoch_input in = { .fifo_fd = -1 };
	struct pl_trace t;
	char names[4][32];
	int fds[2];
	uint64_t now = mono_ns();

	cr_assert_eq(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	in.fifo_fd = fds[0];
	pl_trace_open(&t, 1, now - 1000);
	cr_assert_eq(katra_record_catch_marks(&in), 0);
	/* after the loop's clock reading: the line, then the signal */
	cr_assert_eq(write(fds[1], "before\n", 7), 7);
	cr_assert_eq(raise(SIGUSR1), 0);
	katra_record_read_fifo(&in, &t.pl, now);
	katra_record_queue_marks(&in, &t.pl, now);
	pl_trace_finish(&t, now + 1000);
	cr_assert_eq(epoch_names(t.path, names, 4), 2);
	cr_assert_str_eq(names[0], "before");
	cr_assert_str_eq(names[1], "mark 1");
	close(fds[0]);
	close(fds[1]);
	temp_dir_remove(t.dir);
}
