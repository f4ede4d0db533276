// SPDX-License-Identifier: GPL-2.0-only
/* A wait released by another thread, for the uprobe tests:
 *
 *   ntwait.exe STARTED GATE K
 *
 * creates the file STARTED, waits for GATE to exist (so a tracer can attach
 * first), then a waiter thread waits K times on an auto-reset event
 * (WaitForSingleObject) that the main thread sets K times (SetEvent), then K
 * times on a semaphore that it releases K times (ReleaseSemaphore).  Each
 * set or release comes only once the waiter is blocked in that wait: after
 * the waiter counted its previous wait done, the main thread reads the
 * waiter's /proc/PID/task/TID/syscall until it shows the waiter in Wine's
 * wait for the wineserver's wake-up (in_wine_wait, wingate.h).  So every
 * wait is released by one SetEvent or ReleaseSemaphore, through the
 * wineserver.  It prints one
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

static DWORD WINAPI waiter(void *arg)
{
	(void)arg;
	self_syscall = own_syscall_file();
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
		while (!(b = in_wine_wait(self_syscall)))
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
