// SPDX-License-Identifier: GPL-2.0-only
/* A wait released by another thread, for the uprobe tests:
 *
 *   ntwait.exe STARTED GATE K
 *
 * creates the file STARTED, waits for GATE to exist (so a tracer can attach
 * first), then a waiter thread waits K times on an auto-reset event
 * (WaitForSingleObject) that the main thread sets K times (SetEvent), then K
 * times on a semaphore that it releases K times (ReleaseSemaphore).  Each
 * set or release comes only once the waiter is blocked in that wait: after the
 * waiter counted its previous wait done, the main thread reads the waiter's
 * /proc/PID/task/TID/syscall (its Linux ids from the syscall instruction:
 * Wine opens files in the wineserver, so /proc/thread-self would be the
 * server's) until it shows the waiter in read(2) of 16 bytes: Wine's wait
 * for the wineserver's wake-up (struct wake_up_reply), made only after the
 * server answered that the wait is pending.  So every wait is released by
 * one SetEvent or ReleaseSemaphore, through the wineserver.  It prints one
 * JSON line (the ground truth): the event's and the semaphore's handles, the
 * waits done, the sets and releases made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "wingate.h"

static HANDLE event, sem, self_syscall, opened;
static volatile LONG waits_done;
static int nwaits;

static long linux_syscall0(long nr)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	return ret;
}

static DWORD WINAPI waiter(void *arg)
{
	(void)arg;
	char path[64];

	/* its Linux ids, straight from the kernel: Wine opens files in the
	 * wineserver, so /proc/thread-self would name the server's thread */
	snprintf(path, sizeof(path), "Z:\\proc\\%ld\\task\\%ld\\syscall", linux_syscall0(39),
		 linux_syscall0(186));
	self_syscall = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
				   OPEN_EXISTING, 0, NULL);
	SetEvent(opened);
	if (self_syscall == INVALID_HANDLE_VALUE)
		return 1;
	for (int i = 0; i < 2 * nwaits; i++) {
		if (WaitForSingleObject(i < nwaits ? event : sem, INFINITE) != WAIT_OBJECT_0)
			return 1;
		InterlockedIncrement(&waits_done);
	}
	return 0;
}

/* The waiter is in read(2) of 16 bytes (/proc's "0 FD BUF 0x10 ..."). */
static int waiter_blocked(void)
{
	char line[256];
	DWORD got = 0;
	unsigned long nr, fd, buf, len;

	if (SetFilePointer(self_syscall, 0, NULL, FILE_BEGIN) == INVALID_SET_FILE_POINTER ||
	    !ReadFile(self_syscall, line, sizeof(line) - 1, &got, NULL))
		return -1;
	line[got] = 0;
	return sscanf(line, "%lu %lx %lx %lx", &nr, &fd, &buf, &len) == 4 && nr == 0 && len == 16;
}

int main(int argc, char **argv)
{
	DWORD rc = 0;
	HANDLE th;
	int sets = 0, releases = 0, b;

	if (argc != 4) {
		fprintf(stderr, "usage: ntwait.exe STARTED GATE K\n");
		return 2;
	}
	nwaits = atoi(argv[3]);
	event = CreateEventA(NULL, FALSE, FALSE, NULL);
	sem = CreateSemaphoreA(NULL, 0, 1, NULL);
	opened = CreateEventA(NULL, TRUE, FALSE, NULL);
	if (nwaits < 0 || !event || !sem || !opened)
		return 2;
	HANDLE st = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (st == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(st);
	if (wait_gate("ntwait", argv[2]))
		return 1;

	th = CreateThread(NULL, 0, waiter, NULL, 0, NULL);
	if (!th || WaitForSingleObject(opened, INFINITE) != WAIT_OBJECT_0)
		return 1;
	if (self_syscall == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "ntwait: cannot open the waiter's /proc/PID/task/TID/syscall\n");
		return 1;
	}
	for (int i = 0; i < 2 * nwaits; i++) {
		while (waits_done < i)
			Sleep(0);
		while (!(b = waiter_blocked()))
			Sleep(0);
		if (b < 0) {
			fprintf(stderr, "ntwait: cannot read the waiter's syscall\n");
			return 1;
		}
		if (i < nwaits ? !SetEvent(event) : !ReleaseSemaphore(sem, 1, NULL))
			return 1;
		if (i < nwaits)
			sets++;
		else
			releases++;
	}
	WaitForSingleObject(th, INFINITE);
	if (!GetExitCodeThread(th, &rc) || rc) {
		fprintf(stderr, "ntwait: the waiter failed\n");
		return 1;
	}
	printf("{\"event_handle\": %llu, \"semaphore_handle\": %llu, \"waits\": %ld, "
	       "\"sets\": %d, \"releases\": %d}\n", (unsigned long long)(ULONG_PTR)event,
	       (unsigned long long)(ULONG_PTR)sem, (long)waits_done, sets, releases);
	fflush(stdout);
	return 0;
}
