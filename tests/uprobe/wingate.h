/* SPDX-License-Identifier: GPL-2.0-only */
/* The gate of the Windows test programs (the .c files here, built with mingw): wait until
 * the file GATE exists, so a tracer can attach first.  0, or 1 after 30 s
 * (said on stderr, naming the program). */
#ifndef KATRA_TESTS_WINGATE_H
#define KATRA_TESTS_WINGATE_H

#include <stdio.h>
#include <windows.h>

static int wait_gate(const char *prog, const char *gate)
{
	for (int i = 0; i < 6000; i++) {
		if (GetFileAttributesA(gate) != INVALID_FILE_ATTRIBUTES)
			return 0;
		Sleep(5);
	}
	fprintf(stderr, "%s: no gate %s after 30 s\n", prog, gate);
	return 1;
}

/* Whether a thread is blocked in a Wine wait that the wineserver answered
 * as pending: the thread opens its own /proc/PID/task/TID/syscall
 * (own_syscall_file: its Linux ids straight from the syscall instruction,
 * since Wine opens files in the wineserver and /proc/thread-self would be
 * the server's), another reads it (in_wine_wait) until it shows read(2) of
 * 16 bytes: Wine's read of the server's wake-up (struct wake_up_reply),
 * made only once the server has the wait.  1 blocked, 0 not, -1 error. */
static inline long linux_syscall0(long nr)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	return ret;
}

static inline HANDLE own_syscall_file(void)
{
	char path[64];

	snprintf(path, sizeof(path), "Z:\\proc\\%ld\\task\\%ld\\syscall",
		 linux_syscall0(39 /* getpid */), linux_syscall0(186 /* gettid */));
	return CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			   OPEN_EXISTING, 0, NULL);
}

static inline int in_wine_wait(HANDLE syscall_file)
{
	char line[256];
	DWORD got = 0;
	unsigned long nr, fd, buf, len;

	if (SetFilePointer(syscall_file, 0, NULL, FILE_BEGIN) == INVALID_SET_FILE_POINTER ||
	    !ReadFile(syscall_file, line, sizeof(line) - 1, &got, NULL))
		return -1;
	line[got] = 0;
	return sscanf(line, "%lu %lx %lx %lx", &nr, &fd, &buf, &len) == 4 && nr == 0 && len == 16;
}

#endif
