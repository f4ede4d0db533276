/* SPDX-License-Identifier: GPL-2.0-only */
/* Running a helper with no more power than a traced process has.  A helper
 * that loads what a process chooses (katra-vkresolve: the drivers its
 * environment names, with its root's ld.so and libc) runs code the process
 * controls, so it runs as that process could run it: in every namespace of
 * the process (user, mount, PID, network, IPC, UTS, cgroup: joined through a
 * pidfd, Linux 5.8), chrooted at its root, with its uids, gids and
 * supplementary groups, with no capability (effective, permitted,
 * inheritable, ambient, and an empty bounding set, so that an exec as uid 0
 * gains none), no_new_privs, and no descriptor of ours but stdout.  Where
 * any step fails the helper does not run, and the step is said. */
#ifndef KATRA_RECORD_ASPROC_H
#define KATRA_RECORD_ASPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What the child takes of the process, opened before the fork. */
struct katra_asproc {
	int pidfd, procfd, rootfd; /* procfd: its /proc/PID (read its environ there) */
	int nsflags;               /* CLONE_NEW*: its namespaces that are not ours */
	gid_t *groups;             /* its supplementary groups, as seen from here */
	size_t ngroups;
};

/* Opens pid for katra_asproc_spawn: 0, or -errno with why (the step)
 * filled.  procfd is the process the pidfd holds (checked alive after the
 * open), so what is read there is that process's. */
int katra_asproc_open(uint32_t pid, struct katra_asproc *a, char *why, size_t cap);
void katra_asproc_close(struct katra_asproc *a);

/* Runs exe (an open file: it need not exist in the process's root; a
 * script is read through /dev/fd/3) as the process, stdout to out, stdin
 * and stderr /dev/null.  A first child sets up and gives way to the helper,
 * a child of ours (CLONE_PARENT: killed and reaped as any child, never
 * orphaned), within timeout_ms.  The helper dies with the calling thread
 * (PR_SET_PDEATHSIG).  0: *child is the helper; *errfd is read with
 * katra_asproc_failed once *child is reaped.  Else -errno, nothing left
 * running, why filled (the step). */
int katra_asproc_spawn(const struct katra_asproc *a, int exe, char *const argv[],
		       char *const envp[], int out, int timeout_ms, pid_t *child, int *errfd,
		       char *why, size_t cap);

/* After the child was reaped: true when the helper could not run as the
 * process (why: the step and its errno).  Closes errfd. */
bool katra_asproc_failed(int errfd, char *why, size_t cap);

#endif
