/* SPDX-License-Identifier: GPL-2.0-only */
/* Threads created already pinned to one CPU (a thread that moves itself is
 * woken by the migration thread: a wakeup the workload did not make). */
#ifndef KATRA_PINNED_H
#define KATRA_PINNED_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>

#include "workload.h"

/* attr for threads pinned to the first CPU this process may use; returns it */
static inline int wl_pinned_attr(const char *prog, pthread_attr_t *attr)
{
	cpu_set_t set;
	int cpu = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		wl_die(prog, "sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &set))
			cpu = c;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(attr);
	if (pthread_attr_setaffinity_np(attr, sizeof(set), &set))
		wl_die(prog, "pthread_attr_setaffinity_np failed");
	return cpu;
}

#endif /* KATRA_PINNED_H */
