/* SPDX-License-Identifier: GPL-2.0-only */
/* The epochs that come from outside the capture: one per line written to the
 * --epoch-fifo, one per SIGUSR1 ("mark N"), each at the time it arrived, not
 * when the capture loop sees it.  The mark handler reads the FIFO too, so
 * lines written before a signal come before its mark. */
#ifndef KATRA_RECORD_RECORDER_EPOCHS_H
#define KATRA_RECORD_RECORDER_EPOCHS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pipeline;

struct epoch_input {
	int fifo_fd;             /* -1: no --epoch-fifo */
	bool fifo_created;       /* ours: removed at the end */
	char fifo_line[128];     /* a partial line waits for the rest */
	size_t fifo_len;
	sig_atomic_t marks_done; /* SIGUSR1 marks queued as epochs so far */
};

/* Opens the FIFO at path, making it when absent (fifo_created says so even
 * on failure, for katra_record_close_fifo): 0 or -errno. */
int katra_record_open_fifo(struct epoch_input *in, const char *path);
/* The FIFO's lines, an epoch each at now; those the mark handler read keep
 * the time it read them. */
void katra_record_read_fifo(struct epoch_input *in, struct pipeline *pl, uint64_t now);
void katra_record_close_fifo(struct epoch_input *in, const char *path);
/* The SIGUSR1 handler, reading in's FIFO (if any) before each mark: 0 or
 * -errno. */
int katra_record_catch_marks(const struct epoch_input *in);
/* The marks since the last call, an epoch each at the time its signal came
 * (no later than now). */
void katra_record_queue_marks(struct epoch_input *in, struct pipeline *pl, uint64_t now);

#endif
