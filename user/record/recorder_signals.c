// SPDX-License-Identifier: GPL-2.0-only
/* The signals that stop a capture (recorder_signals.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "recorder_signals.h"

volatile sig_atomic_t katra_stop_requested;
volatile sig_atomic_t katra_stop_signals;
volatile sig_atomic_t katra_stop_signal;
volatile sig_atomic_t katra_command_pending;
volatile pid_t katra_command_pid;

/* The first SIGINT/SIGTERM/SIGHUP: with -- COMMAND, it goes to the command and
 * the capture ends when the command does (as perf and strace do; during the
 * start-up, the command gets it when it is released, before its first
 * instruction); otherwise the capture ends.  The second ends the capture now,
 * still with a complete trace.  A third is the default action (a capture
 * stuck in its final drain). */
static void on_stop(int sig)
{
	int saved = errno;

	if (++katra_stop_signals == 1 && (katra_command_pid > 0 || katra_command_pending)) {
		katra_stop_signal = sig;
		if (katra_command_pid > 0)
			kill(katra_command_pid, sig);
	} else {
		katra_stop_requested = 1;
		if (katra_stop_signals >= 2)
			signal(sig, SIG_DFL);
	}
	errno = saved;
}

/* From the very start (before the command is forked): a stop signal during
 * the start-up is taken when the capture is live, never the default action
 * that would leave the paused command behind.  ignored: the stop signals our
 * caller ignores (the command inherits that). */
int katra_catch_stop_signals(sigset_t *ignored)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop }, old;

	sigemptyset(&sa.sa_mask);
	sigemptyset(ignored);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, &old))
			return -errno;
		if (old.sa_handler == SIG_IGN)
			sigaddset(ignored, sigs[i]);
	}
	return 0;
}

/* Around the creation of a helper thread (the writer's, the drain's
 * watchdog): it starts with every signal blocked, so SIGINT and SIGUSR1 run
 * their handlers on this thread only, never beside its own FIFO reads. */
void katra_block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

void katra_restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Tests only: a start-up or a teardown that takes this long (as the Wine
 * layers' can), to check what -d and the epochs are measured from. */
void katra_test_delay(const char *var)
{
	const char *ms = getenv(var);

	if (ms) {
		struct timespec ts = { atoi(ms) / 1000, (long)(atoi(ms) % 1000) * 1000000 };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
}

uint64_t katra_test_ms(const char *var, uint64_t dflt_ns)
{
	const char *ms = getenv(var);

	return ms ? strtoull(ms, NULL, 10) * 1000000ull : dflt_ns;
}
