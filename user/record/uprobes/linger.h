/* SPDX-License-Identifier: GPL-2.0-only */
/* Releasing uprobe links without waiting for it.  Closing a uprobe link
 * unregisters its uprobe, and the kernel then waits for an RCU-tasks-trace
 * grace period, under its event_mutex: one after another, ~100-150 ms each
 * on 2 busy CPUs, 1.1-1.8 s for the Vulkan layer's 12 at the end of a
 * capture under two CPU hogs (closing them from many threads at once took as
 * long).  Where nothing depends on that wait, a child process takes over the
 * links' last references and releases them after this one has let go of its
 * own: the recorder exits at once, the kernel finishes in the background. */
#ifndef KATRA_RECORD_LINGER_H
#define KATRA_RECORD_LINGER_H

#include <stdbool.h>
#include <stddef.h>

/* Forks a child that keeps fds[0..n) (and closes every other fd it
 * inherited, stdin/stdout/stderr included), waits until *release_fd is
 * closed, closes its fds and exits.  True when the child runs: the caller
 * then closes its own copies of the fds (cheap: not the last references)
 * and then *release_fd; false (no child) leaves *release_fd at -1. */
bool katra_linger_fork(const int *fds, size_t n, int *release_fd);

#endif
