// SPDX-License-Identifier: GPL-2.0-only
/* A Windows console program (x86_64-w64-mingw32-gcc) whose NT calls have no
 * kind of their own, for the generic NtSyscall spans and the wineserver's
 * request names (tests/integration/t_wine_generic.sh):
 *
 *   ntgen.exe STARTED GATE YIELDS EVENTS
 *
 * creates the file STARTED, waits for GATE to exist (a tracer attaches in
 * between), then calls SwitchToThread YIELDS times (NtYieldExecution, one
 * NT call each) and CreateEventA EVENTS times (NtCreateEvent, one
 * create_event request to the wineserver each), closing each event, and
 * prints {"yields":Y,"events":E}. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char **argv)
{
	HANDLE f;
	int yields, events, i;

	if (argc != 5) {
		fprintf(stderr, "usage: ntgen.exe STARTED GATE YIELDS EVENTS\n");
		return 2;
	}
	yields = atoi(argv[3]);
	events = atoi(argv[4]);
	f = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(f);
	for (i = 0; i < 3000 && GetFileAttributesA(argv[2]) == INVALID_FILE_ATTRIBUTES; i++)
		Sleep(10);
	if (i == 3000) {
		fprintf(stderr, "ntgen: no gate %s after 30 s\n", argv[2]);
		return 1;
	}
	for (i = 0; i < yields; i++)
		SwitchToThread();
	for (i = 0; i < events; i++) {
		HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
		if (!ev)
			return 1;
		CloseHandle(ev);
	}
	printf("{\"yields\":%d,\"events\":%d}\n", yields, events);
	return 0;
}
