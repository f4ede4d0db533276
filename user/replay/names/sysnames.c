// SPDX-License-Identifier: GPL-2.0-only
/* Syscall, task-state and errno names (see sysnames.h). */
#define _GNU_SOURCE /* strerrorname_np */
#include <stdio.h>
#include <string.h>

#include "sysnames.h"

const char *kr_syscall_name(uint32_t nr, char buf[KR_SYSNAME_BUF])
{
	const char *const *tab = kr_syscalls_x86_64;
	unsigned len = kr_syscalls_x86_64_len;
	const char *abi = "";
	uint32_t n = nr;

	if (nr == KR_NR_UNKNOWN)
		return "unknown";
	if (nr & KR_NR_I386) {
		tab = kr_syscalls_i386;
		len = kr_syscalls_i386_len;
		abi = "i386:";
		n = nr & ~KR_NR_I386;
	}
	if (n < len && tab[n]) {
		if (!abi[0])
			return tab[n];
		snprintf(buf, KR_SYSNAME_BUF, "%s%s", abi, tab[n]);
		return buf;
	}
	snprintf(buf, KR_SYSNAME_BUF, "%ssyscall_%u", abi, n);
	return buf;
}

#define TASK_REPORT 0x7fu
#define TASK_DEAD 0x80u
#define TASK_IDLE 0x402u /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_RTLOCK_WAIT 0x1000u

char kr_task_state(uint64_t s)
{
	static const char letters[] = "RSDTtXZP";
	unsigned bits = (unsigned)s & TASK_REPORT, idx = 0;

	if ((s & TASK_IDLE) == TASK_IDLE)
		return 'I';
	if (s == TASK_RTLOCK_WAIT)
		return 'D';
	if (!bits && (s & TASK_DEAD))
		return 'X';
	while (bits) { /* fls(): the highest report bit wins, as in the kernel */
		idx++;
		bits >>= 1;
	}
	return letters[idx];
}

const char *kr_task_state_word(char state)
{
	switch (state) {
	case 'R': return "preempted";
	case 'S': return "sleeping";
	case 'D': return "uninterruptible";
	case 'T': return "stopped";
	case 't': return "traced";
	case 'X': return "dead";
	case 'Z': return "zombie";
	case 'P': return "parked";
	case 'I': return "idle";
	default: return "?";
	}
}

const char *kr_errno_name(int64_t e)
{
	if (e <= 0 || e >= 4096)
		return NULL;
	return strerrorname_np((int)e);
}
