// SPDX-License-Identifier: GPL-2.0-only
/* A small Windows console program for the Wine session tests: it prints
 * "ready", then waits on an event with a 20 ms timeout in a loop (each wait
 * is a wineserver call, so both this process and wineserver keep making
 * syscalls) until SECONDS have passed (0: until killed).
 *
 * usage: ticker.exe [SECONDS]   (built as first.exe, second.exe, third.exe) */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0;
	HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
	DWORD start = GetTickCount();

	if (!ev) {
		fprintf(stderr, "ticker: CreateEvent failed: %lu\n", GetLastError());
		return 1;
	}
	printf("ready %lu\n", GetCurrentProcessId());
	fflush(stdout);
	while (seconds <= 0 || (GetTickCount() - start) < seconds * 1000)
		WaitForSingleObject(ev, 20);
	CloseHandle(ev);
	return 0;
}
