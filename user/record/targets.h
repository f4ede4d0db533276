/* The processes a capture starts from: PIDs given with -p, or a command
 * started paused so that its first instruction runs after the probes are
 * live. */
#ifndef KATRA_RECORD_TARGETS_H
#define KATRA_RECORD_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 0 when the process exists, -ESRCH when it does not. */
int katra_target_check(uint32_t pid);
/* Its command name (/proc/PID/comm) into buf; "" when unknown. */
void katra_target_comm(uint32_t pid, char *buf, size_t cap);

/* Processes (thread-group ids) whose parent chain reaches one of roots[]
 * right now, read from /proc; the roots themselves are not included.  Writes
 * up to cap of them to out and returns how many there are (or -errno). */
int katra_target_descendants(const uint32_t *roots, size_t nroots, uint32_t *out, size_t cap);

struct katra_launch {
	pid_t pid;
	int release_fd; /* write end: a byte here lets the child exec */
};

/* Forks a child that waits for katra_launch_release() before it execs argv.
 * 0 or -errno. */
int katra_launch_start(struct katra_launch *l, char *const argv[]);
/* Lets the child exec; returns 0, or -errno. */
int katra_launch_release(struct katra_launch *l);
/* Kills and reaps a child that was never released. */
void katra_launch_abort(struct katra_launch *l);

#endif
