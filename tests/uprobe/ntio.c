// SPDX-License-Identifier: GPL-2.0-only
/* A Windows console program (x86_64-w64-mingw32-gcc) with known NT calls,
 * for the uprobe tests and benchmarks under Wine:
 *
 *   ntio.exe STARTED GATE DATA PLAIN OVERLAPPED WAITS [UNIXCALLS]
 *
 * creates the file STARTED, waits for GATE to exist (so a tracer can attach
 * first), then on DATA: PLAIN ReadFile calls (length 100 + i) on a plain
 * handle, OVERLAPPED ReadFile calls (length 200 + i at offset 512 * i) on an
 * overlapped handle, and WAITS WaitForSingleObject calls on a signalled
 * event; and prints one JSON line with the handles, each read's length,
 * offset and whether it was pending (the ground truth).  UNIXCALLS: then
 * that many gethostname calls (ws2_32: one Win->Unix call each) between a
 * Sleep(7) and a Sleep(9), the markers a test finds them by.
 *
 *   ntio.exe --loop GATE DATA COUNT
 *
 * (the benchmark) COUNT sequential ReadFile calls of 64 bytes on DATA, and
 * prints the ns per call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <windows.h>

#include "wingate.h"

static int loop(int argc, char **argv)
{
	LARGE_INTEGER f, t0, t1;
	char buf[64];
	DWORD got;
	HANDLE h;
	long n;

	if (argc != 5)
		return 2;
	n = atol(argv[4]);
	if (wait_gate("ntio", argv[2]))
		return 1;
	h = CreateFileA(argv[3], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return 1;
	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&t0);
	for (long i = 0; i < n; i++) {
		/* sequential: each call one read(2) on the cached fd; back to the
		 * start at the end of the file */
		if (!ReadFile(h, buf, sizeof(buf), &got, NULL))
			return 1;
		if (got < sizeof(buf))
			SetFilePointer(h, 0, NULL, FILE_BEGIN);
	}
	QueryPerformanceCounter(&t1);
	printf("{\"calls\": %ld, \"ns_per_call\": %.1f}\n", n,
	       (double)(t1.QuadPart - t0.QuadPart) * 1e9 / (double)f.QuadPart / (double)n);
	CloseHandle(h);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[4096];
	DWORD got;
	HANDLE plain, ovl, ev, done;
	int nplain, novl, nwait;

	if (argc > 1 && !strcmp(argv[1], "--loop"))
		return loop(argc, argv);
	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: ntio.exe STARTED GATE DATA PLAIN OVERLAPPED WAITS [UNIXCALLS]\n");
		return 2;
	}
	nplain = atoi(argv[4]);
	novl = atoi(argv[5]);
	nwait = atoi(argv[6]);
	HANDLE st = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (st == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(st);
	if (wait_gate("ntio", argv[2]))
		return 1;

	plain = CreateFileA(argv[3], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	ovl = CreateFileA(argv[3], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			  FILE_FLAG_OVERLAPPED, NULL);
	ev = CreateEventA(NULL, TRUE, TRUE, NULL);   /* the waits' event: signalled */
	done = CreateEventA(NULL, TRUE, FALSE, NULL); /* the overlapped reads' event */
	if (plain == INVALID_HANDLE_VALUE || ovl == INVALID_HANDLE_VALUE || !ev || !done) {
		fprintf(stderr, "ntio: cannot open %s\n", argv[3]);
		return 1;
	}
	printf("{\"plain_handle\": %llu, \"ovl_handle\": %llu, \"wait_handle\": %llu, "
	       "\"waits\": %d, \"reads\": [",
	       (unsigned long long)(ULONG_PTR)plain, (unsigned long long)(ULONG_PTR)ovl,
	       (unsigned long long)(ULONG_PTR)ev, nwait);
	for (int i = 0; i < nplain; i++) {
		DWORD len = 100 + (DWORD)i;
		if (!ReadFile(plain, buf, len, &got, NULL)) {
			fprintf(stderr, "ntio: ReadFile failed: %lu\n", GetLastError());
			return 1;
		}
		printf("%s{\"handle\": %llu, \"length\": %lu, \"offset\": null, \"pending\": false, "
		       "\"got\": %lu}", i ? ", " : "", (unsigned long long)(ULONG_PTR)plain,
		       (unsigned long)len, (unsigned long)got);
	}
	for (int i = 0; i < novl; i++) {
		OVERLAPPED o = { 0 };
		DWORD len = 200 + (DWORD)i;
		BOOL pending = FALSE;
		o.Offset = 512 * (DWORD)i;
		o.hEvent = done;
		ResetEvent(done);
		if (!ReadFile(ovl, buf, len, NULL, &o)) {
			if (GetLastError() != ERROR_IO_PENDING) {
				fprintf(stderr, "ntio: overlapped ReadFile failed: %lu\n", GetLastError());
				return 1;
			}
			pending = TRUE;
		}
		if (!GetOverlappedResult(ovl, &o, &got, TRUE)) {
			fprintf(stderr, "ntio: GetOverlappedResult failed: %lu\n", GetLastError());
			return 1;
		}
		printf("%s{\"handle\": %llu, \"length\": %lu, \"offset\": %lu, \"pending\": %s, "
		       "\"got\": %lu}", nplain + i ? ", " : "", (unsigned long long)(ULONG_PTR)ovl,
		       (unsigned long)len, (unsigned long)o.Offset, pending ? "true" : "false",
		       (unsigned long)got);
	}
	for (int i = 0; i < nwait; i++) {
		if (WaitForSingleObject(ev, 1000) != WAIT_OBJECT_0) {
			fprintf(stderr, "ntio: WaitForSingleObject did not return WAIT_OBJECT_0\n");
			return 1;
		}
	}
	int nunix = argc == 8 ? atoi(argv[7]) : 0;
	if (nunix) {
		WSADATA wsa;
		char host[256];
		if (WSAStartup(MAKEWORD(2, 2), &wsa))
			return 1;
		gethostname(host, sizeof(host));
		Sleep(7);
		for (int i = 0; i < nunix; i++)
			if (gethostname(host, sizeof(host)))
				return 1;
		Sleep(9);
		WSACleanup();
	}
	printf("], \"unix_calls\": %d}\n", nunix);
	fflush(stdout);
	CloseHandle(plain);
	CloseHandle(ovl);
	CloseHandle(ev);
	CloseHandle(done);
	return 0;
}
