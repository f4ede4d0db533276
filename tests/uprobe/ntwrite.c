// SPDX-License-Identifier: GPL-2.0-only
/* Overlapped writes that Wine completes later, for the uprobe tests:
 *
 *   ntwrite.exe STARTED GATE K
 *
 * creates the file STARTED, waits for GATE to exist (so a tracer can attach
 * first), then issues K overlapped WriteFile calls on the server end of a
 * named pipe whose buffer (512 bytes) none of them fits in (length 2000 + i,
 * each from its own buffer and with its own event), so each stays pending,
 * then waits for each with GetOverlappedResult while a reader thread reads
 * the messages, one ReadFile per write, each only once the main thread is
 * blocked in the wait for that write (in_wine_wait, wingate.h): so every
 * GetOverlappedResult waits (NtWaitForSingleObject on the write's event)
 * and is released by the read.  It prints one JSON line (the ground truth):
 * the pipe handle, and per write its length, buffer address, event handle,
 * whether WriteFile returned pending and the bytes written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "wingate.h"

#define MAXW 64

static HANDLE pipe_client, main_syscall;
static volatile LONG writes_done;
static int nwrites;

static DWORD WINAPI reader(void *arg)
{
	static char data[4096];
	DWORD got;

	(void)arg;
	for (int i = 0; i < nwrites; i++) {
		int b;
		while (writes_done < i)
			Sleep(0);
		while (!(b = in_wine_wait(main_syscall)))
			Sleep(0);
		if (b < 0 || !ReadFile(pipe_client, data, sizeof(data), &got, NULL) ||
		    got != 2000u + i)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char bufs[MAXW][2100];
	OVERLAPPED ov[MAXW];
	BOOL pending[MAXW];
	DWORD put[MAXW], rc = 0;
	HANDLE pipe_srv, th;

	if (argc != 4) {
		fprintf(stderr, "usage: ntwrite.exe STARTED GATE K\n");
		return 2;
	}
	nwrites = atoi(argv[3]);
	if (nwrites < 0 || nwrites > MAXW)
		return 2;
	pipe_srv = CreateNamedPipeA("\\\\.\\pipe\\katra-ntwrite",
				    PIPE_ACCESS_OUTBOUND | FILE_FLAG_OVERLAPPED,
				    PIPE_TYPE_MESSAGE | PIPE_READMODE_MESSAGE | PIPE_WAIT, 1, 512, 512,
				    0, NULL);
	if (pipe_srv == INVALID_HANDLE_VALUE)
		return 1;
	pipe_client = CreateFileA("\\\\.\\pipe\\katra-ntwrite", GENERIC_READ, 0, NULL,
				  OPEN_EXISTING, 0, NULL);
	DWORD mode = PIPE_READMODE_MESSAGE; /* a client end starts in byte mode */
	if (pipe_client == INVALID_HANDLE_VALUE ||
	    !SetNamedPipeHandleState(pipe_client, &mode, NULL, NULL)) {
		fprintf(stderr, "ntwrite: cannot make the pipe\n");
		return 1;
	}
	main_syscall = own_syscall_file();
	if (main_syscall == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "ntwrite: cannot open its /proc/PID/task/TID/syscall\n");
		return 1;
	}
	HANDLE st = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (st == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(st);
	if (wait_gate("ntwrite", argv[2]))
		return 1;

	for (int i = 0; i < nwrites; i++) {
		memset(bufs[i], 'w', sizeof(bufs[i]));
		memset(&ov[i], 0, sizeof(ov[i]));
		ov[i].hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
		pending[i] = FALSE;
		put[i] = 0;
		if (!WriteFile(pipe_srv, bufs[i], 2000 + (DWORD)i, NULL, &ov[i])) {
			if (GetLastError() != ERROR_IO_PENDING) {
				fprintf(stderr, "ntwrite: WriteFile %d failed: %lu\n", i, GetLastError());
				return 1;
			}
			pending[i] = TRUE;
		}
	}
	th = CreateThread(NULL, 0, reader, NULL, 0, NULL);
	if (!th)
		return 1;
	for (int i = 0; i < nwrites; i++) {
		if (!GetOverlappedResult(pipe_srv, &ov[i], &put[i], TRUE)) {
			fprintf(stderr, "ntwrite: GetOverlappedResult %d failed: %lu\n", i,
				GetLastError());
			return 1;
		}
		InterlockedIncrement(&writes_done);
	}
	WaitForSingleObject(th, INFINITE);
	if (!GetExitCodeThread(th, &rc) || rc) {
		fprintf(stderr, "ntwrite: the reader failed\n");
		return 1;
	}
	printf("{\"pipe_handle\": %llu, \"writes\": [", (unsigned long long)(ULONG_PTR)pipe_srv);
	for (int i = 0; i < nwrites; i++)
		printf("%s{\"length\": %lu, \"buffer\": %llu, \"event\": %llu, \"pending\": %s, "
		       "\"put\": %lu}", i ? ", " : "", 2000ul + (unsigned long)i,
		       (unsigned long long)(ULONG_PTR)bufs[i],
		       (unsigned long long)(ULONG_PTR)ov[i].hEvent, pending[i] ? "true" : "false",
		       (unsigned long)put[i]);
	printf("]}\n");
	fflush(stdout);
	return 0;
}
