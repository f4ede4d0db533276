/* SPDX-License-Identifier: GPL-2.0-only */
/* The processes a capture starts from: PIDs given with -p, or a command
 * started paused so that its first instruction runs after the probes are
 * live. */
#ifndef KATRA_RECORD_TARGETS_H
#define KATRA_RECORD_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* 0 when the process exists, -ESRCH when it does not. */
int katra_target_check(uint32_t pid);
/* Its command name (/proc/PID/comm) into buf; "" when unknown. */
void katra_target_comm(uint32_t pid, char *buf, size_t cap);

/* Processes (thread-group ids) whose parent chain reaches one of roots[]
 * right now, read from /proc; the roots themselves are not included.  Writes
 * up to cap of them to out and returns how many there are (or -errno). */
int katra_target_descendants(const uint32_t *roots, size_t nroots, uint32_t *out, size_t cap);

/* The thread-group id of a thread id (itself for a process), 0 if none. */
uint32_t katra_target_tgid(uint32_t tid);
/* readlink /proc/PID/exe into buf; 0 or -errno. */
int katra_target_exe(uint32_t pid, char *buf, size_t cap);
/* The file execvp would run for name (PATH search unless it has a '/'):
 * 0, -ENOENT, -EACCES. */
int katra_resolve_command(const char *name, char *out, size_t cap);

/* Who -- COMMAND runs as (under sudo: the invoking user, see -u). */
struct katra_run_as {
	bool set;
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	int ngroups;
	char home[256];
	bool stdout_to_stderr; /* -o -: the trace is our stdout, the command's goes to stderr */
	/* SIGINT, SIGTERM, SIGHUP as our caller left them ignored (nohup, a
	 * background job): the command inherits that, not our handlers */
	sigset_t ignored;
};

struct katra_launch {
	pid_t pid;
	int release_fd; /* >= 0 while the child waits for katra_launch_release() */
	volatile int *released; /* shared with the child until it is released */
};

/* Forks a child (as `as`, when set) that stops itself before it execs argv
 * (PATH resolved here, as strace does); returns once it is stopped.  0 or
 * -errno (-ENOENT: no such command, -EINTR: a signal killed it first).  The
 * child dies with us until it is released (PR_SET_PDEATHSIG). */
int katra_launch_start(struct katra_launch *l, char *const argv[], const struct katra_run_as *as);
/* Lets the child exec; returns 0, or -errno. */
int katra_launch_release(struct katra_launch *l);
/* Kills and reaps a child that was never released. */
void katra_launch_abort(struct katra_launch *l);

/* How katra_launch_end() found the command. */
enum katra_launch_end_how {
	KATRA_LAUNCH_HAD_EXITED, /* it had ended by itself */
	KATRA_LAUNCH_ENDED_TERM, /* it ended on SIGTERM */
	KATRA_LAUNCH_ENDED_KILL, /* it outlived grace_ms after SIGTERM: SIGKILL */
	KATRA_LAUNCH_NOT_REAPED, /* still not reaped grace_ms after SIGKILL */
};
/* A released command still running when the capture ends (-d, a second stop
 * signal): SIGTERM, SIGKILL grace_ms later, reaped within grace_ms more; a
 * capture never ends leaving its command running.  *status: its wait status
 * (unset unless reaped); l->pid is -1 once reaped. */
enum katra_launch_end_how katra_launch_end(struct katra_launch *l, unsigned grace_ms, int *status);

/* Whether process pid ignores signal sig (SigIgn of PROC/PID/status): a
 * shell's background job ignores SIGINT, and its children inherit that. */
bool katra_proc_ignores(const char *proc, pid_t pid, int sig);

#endif
