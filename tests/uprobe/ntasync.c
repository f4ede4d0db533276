// SPDX-License-Identifier: GPL-2.0-only
/* Overlapped reads that Wine completes asynchronously, for the uprobe tests:
 *
 *   ntasync.exe STARTED GATE PIPES SOCKETS
 *
 * creates the file STARTED, waits for GATE to exist (so a tracer can attach
 * first), then issues PIPES overlapped ReadFile calls on the server end of a
 * named pipe (length 300 + i, each into its own buffer) and SOCKETS on a
 * loopback TCP socket (length 400 + i), all pending (no data yet), and only
 * then lets a writer thread write each read's bytes, one write per read, 20 ms
 * apart.  It waits for every read with GetOverlappedResult and prints one
 * JSON line (the ground truth): the handles, and per read its handle,
 * length, buffer address, whether ReadFile returned pending and the bytes
 * it got. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <windows.h>

#include "wingate.h"

#define MAXR 64

static HANDLE pipe_client;
static SOCKET sock_client;
static int npipe, nsock;

/* One write per read, in the reads' order: the pipe is in message mode, so
 * each write completes exactly one read; the socket's reads each ask for
 * exactly what one write sends (a stream: the first pending read takes the
 * first bytes). */
static DWORD WINAPI writer(void *arg)
{
	static char data[1024];
	DWORD put;

	(void)arg;
	memset(data, 'k', sizeof(data));
	for (int i = 0; i < npipe; i++) {
		Sleep(20);
		if (!WriteFile(pipe_client, data, 300 + (DWORD)i, &put, NULL))
			return 1;
	}
	for (int i = 0; i < nsock; i++) {
		Sleep(20);
		if (send(sock_client, data, 400 + i, 0) != 400 + i)
			return 1;
	}
	return 0;
}

static int socket_pair(SOCKET *srv, SOCKET *cli)
{
	struct sockaddr_in a = { 0 };
	int alen = sizeof(a);
	SOCKET l;

	l = WSASocketA(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0, WSA_FLAG_OVERLAPPED);
	*cli = WSASocketA(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0, WSA_FLAG_OVERLAPPED);
	if (l == INVALID_SOCKET || *cli == INVALID_SOCKET)
		return 1;
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen) ||
	    connect(*cli, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	*srv = accept(l, NULL, NULL);
	closesocket(l);
	return *srv == INVALID_SOCKET;
}

int main(int argc, char **argv)
{
	static char bufs[MAXR][1024];
	OVERLAPPED ov[MAXR];
	HANDLE handles[MAXR], pipe_srv, th;
	BOOL pending[MAXR];
	DWORD got[MAXR];
	SOCKET sock_srv;
	WSADATA wsa;
	int n;

	if (argc != 5) {
		fprintf(stderr, "usage: ntasync.exe STARTED GATE PIPES SOCKETS\n");
		return 2;
	}
	npipe = atoi(argv[3]);
	nsock = atoi(argv[4]);
	n = npipe + nsock;
	if (npipe < 0 || nsock < 0 || n > MAXR)
		return 2;
	if (WSAStartup(MAKEWORD(2, 2), &wsa))
		return 1;
	pipe_srv = CreateNamedPipeA("\\\\.\\pipe\\katra-ntasync",
				    PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED,
				    PIPE_TYPE_MESSAGE | PIPE_READMODE_MESSAGE | PIPE_WAIT, 1, 65536,
				    65536, 0, NULL);
	if (pipe_srv == INVALID_HANDLE_VALUE)
		return 1;
	pipe_client = CreateFileA("\\\\.\\pipe\\katra-ntasync", GENERIC_WRITE, 0, NULL,
				  OPEN_EXISTING, 0, NULL);
	if (pipe_client == INVALID_HANDLE_VALUE || socket_pair(&sock_srv, &sock_client)) {
		fprintf(stderr, "ntasync: cannot make the pipe or the sockets\n");
		return 1;
	}
	HANDLE st = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (st == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(st);
	if (wait_gate("ntasync", argv[2]))
		return 1;

	for (int i = 0; i < n; i++) {
		HANDLE h = i < npipe ? pipe_srv : (HANDLE)sock_srv;
		DWORD len = i < npipe ? 300 + (DWORD)i : 400 + (DWORD)(i - npipe);

		memset(&ov[i], 0, sizeof(ov[i]));
		ov[i].hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
		handles[i] = h;
		pending[i] = FALSE;
		got[i] = 0;
		if (!ReadFile(h, bufs[i], len, NULL, &ov[i])) {
			if (GetLastError() != ERROR_IO_PENDING) {
				fprintf(stderr, "ntasync: ReadFile %d failed: %lu\n", i, GetLastError());
				return 1;
			}
			pending[i] = TRUE;
		}
	}
	th = CreateThread(NULL, 0, writer, NULL, 0, NULL);
	if (!th)
		return 1;
	for (int i = 0; i < n; i++)
		if (!GetOverlappedResult(handles[i], &ov[i], &got[i], TRUE)) {
			fprintf(stderr, "ntasync: GetOverlappedResult %d failed: %lu\n", i,
				GetLastError());
			return 1;
		}
	WaitForSingleObject(th, INFINITE);
	printf("{\"pipe_handle\": %llu, \"socket_handle\": %llu, \"reads\": [",
	       (unsigned long long)(ULONG_PTR)pipe_srv, (unsigned long long)sock_srv);
	for (int i = 0; i < n; i++)
		printf("%s{\"handle\": %llu, \"length\": %lu, \"buffer\": %llu, \"pending\": %s, "
		       "\"got\": %lu}", i ? ", " : "", (unsigned long long)(ULONG_PTR)handles[i],
		       i < npipe ? 300ul + (unsigned long)i : 400ul + (unsigned long)(i - npipe),
		       (unsigned long long)(ULONG_PTR)bufs[i], pending[i] ? "true" : "false",
		       (unsigned long)got[i]);
	printf("]}\n");
	fflush(stdout);
	return 0;
}
