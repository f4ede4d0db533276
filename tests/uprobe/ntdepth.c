// SPDX-License-Identifier: GPL-2.0-only
/* User callbacks nested deeper than the NT layer keeps (8 levels, SPEC §9),
 * for tests/integration/t_wine_ntdepth.sh:
 *
 *   ntdepth.exe STARTED GATE DEPTH ROUNDS
 *
 * creates the file STARTED, waits for GATE (a tracer attaches in between),
 * then ROUNDS times creates a message-only window whose window procedure,
 * on WM_CREATE, creates the next one, until DEPTH windows are being created
 * inside one another: win32u's NtUserCreateWindowEx sends WM_CREATE through
 * a user callback (KeUserModeCallback), so the k-th creation is an NT call
 * at callback level k.  After each round, with every level returned, the
 * main thread calls SwitchToThread once (NtYieldExecution at level 0).
 * Prints its own counts:
 * {"rounds":R,"depth":D,"creates":C,"deepest":M,"yields":Y}
 * (C: windows created, M: the deepest level reached, 0-based). */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "wingate.h"

static int depth, level, deepest, creates;
static const char cls[] = "katra_ntdepth";

static HWND create_one(void)
{
	HWND w = CreateWindowExA(0, cls, "", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL,
				 GetModuleHandleA(NULL), NULL);
	if (w)
		creates++;
	return w;
}

static LRESULT CALLBACK wndproc(HWND w, UINT msg, WPARAM wp, LPARAM lp)
{
	if (msg != WM_CREATE)
		return DefWindowProcA(w, msg, wp, lp);
	if (level > deepest)
		deepest = level;
	if (level + 1 < depth) {
		level++;
		HWND inner = create_one();
		level--;
		if (!inner)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	WNDCLASSA wc = { 0 };
	HANDLE f;
	int rounds, yields = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: ntdepth.exe STARTED GATE DEPTH ROUNDS\n");
		return 2;
	}
	depth = atoi(argv[3]);
	rounds = atoi(argv[4]);
	wc.lpfnWndProc = wndproc;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = cls;
	if (!RegisterClassA(&wc)) {
		fprintf(stderr, "ntdepth: RegisterClassA: %lu\n", GetLastError());
		return 1;
	}
	f = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(f);
	if (wait_gate("ntdepth", argv[2]))
		return 1;
	for (int i = 0; i < rounds; i++) {
		if (!create_one()) {
			fprintf(stderr, "ntdepth: CreateWindowExA: %lu\n", GetLastError());
			return 1;
		}
		SwitchToThread();
		yields++;
	}
	printf("{\"rounds\":%d,\"depth\":%d,\"creates\":%d,\"deepest\":%d,\"yields\":%d}\n",
	       rounds, depth, creates, deepest, yields);
	return 0;
}
