/* SPDX-License-Identifier: GPL-2.0-only */
/* The signals that stop a capture, caught from the very start (before the
 * command is forked), and the helper threads kept out of every signal. */
#ifndef KATRA_RECORD_RECORDER_SIGNALS_H
#define KATRA_RECORD_RECORDER_SIGNALS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

extern volatile sig_atomic_t katra_stop_requested;  /* end the capture now */
extern volatile sig_atomic_t katra_stop_signals;    /* SIGINT/SIGTERM/SIGHUP received */
extern volatile sig_atomic_t katra_stop_signal;     /* the first, kept for the command */
extern volatile sig_atomic_t katra_command_pending; /* -- COMMAND, not yet released */
extern volatile pid_t katra_command_pid;            /* -- COMMAND, until it exits */

/* Installs the stop handler for SIGINT, SIGTERM, SIGHUP; ignored: those our
 * caller left ignored (the command inherits that).  0 or -errno. */
int katra_catch_stop_signals(sigset_t *ignored);
/* Around the creation of a helper thread: it starts with every signal
 * blocked, so the handlers run on the capture's own thread only. */
void katra_block_signals(sigset_t *old);
void katra_restore_signals(const sigset_t *old);
/* Tests only: sleeps the milliseconds in environment variable var, if set
 * (a start-up or a teardown as slow as the Wine layers' can be). */
void katra_test_delay(const char *var);
/* Tests only: the milliseconds in var, in ns, or dflt_ns where it is unset. */
uint64_t katra_test_ms(const char *var, uint64_t dflt_ns);

#endif
