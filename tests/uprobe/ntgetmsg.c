// SPDX-License-Identifier: GPL-2.0-only
/* A win32u wait released by another thread, with a user callback inside
 * it, for tests/integration/t_wine_getmsg.sh:
 *
 *   ntgetmsg.exe STARTED GATE N
 *
 * creates a message-only window whose window procedure, for each WM_APP,
 * calls SwitchToThread once (NtYieldExecution); creates the file STARTED,
 * waits for GATE (a tracer attaches in between), then N times calls
 * GetMessageA (NtUserGetMessage), which blocks in Wine's wait for the
 * wineserver.  A second thread, once it sees the main thread blocked in
 * that wait (in_wine_wait, wingate.h), sends it one WM_APP
 * (SendNotifyMessageA: the wake-up) and posts one WM_USER: GetMessageA wakes,
 * delivers the sent WM_APP by calling the window procedure back
 * (KeUserModeCallback, inside NtUserGetMessage) and returns the WM_USER.
 * Prints the program's own counts:
 * {"rounds":N,"got_user":U,"app":A,"in_get":G,"yields":Y} (G: WM_APP
 * received inside GetMessageA). */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "wingate.h"

static int app_msgs, in_get, yields;
static volatile LONG getting;
static HWND hwnd;
static HANDLE ready, main_syscall;
static int rounds;

static LRESULT CALLBACK wndproc(HWND w, UINT msg, WPARAM wp, LPARAM lp)
{
	if (msg != WM_APP)
		return DefWindowProcA(w, msg, wp, lp);
	app_msgs++;
	in_get += getting != 0;
	SwitchToThread();
	yields++;
	return 0;
}

static DWORD WINAPI sender(void *arg)
{
	int b;

	(void)arg;
	for (int i = 0; i < rounds; i++) {
		if (WaitForSingleObject(ready, 30000) != WAIT_OBJECT_0)
			return 1;
		while (!(b = in_wine_wait(main_syscall)))
			Sleep(1);
		if (b < 0 || !SendNotifyMessageA(hwnd, WM_APP, (WPARAM)i, 0) ||
		    !PostMessageA(hwnd, WM_USER, (WPARAM)i, 0))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	WNDCLASSA wc = { 0 };
	HANDLE f, th;
	MSG m;
	DWORD code = 1;
	int got_user = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: ntgetmsg.exe STARTED GATE N\n");
		return 2;
	}
	rounds = atoi(argv[3]);
	wc.lpfnWndProc = wndproc;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = "katra_ntgetmsg";
	if (!RegisterClassA(&wc))
		return 1;
	hwnd = CreateWindowExA(0, wc.lpszClassName, "", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL,
			       wc.hInstance, NULL);
	ready = CreateEventA(NULL, FALSE, FALSE, NULL);
	main_syscall = own_syscall_file();
	if (!hwnd || !ready || main_syscall == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "ntgetmsg: set-up failed: %lu\n", GetLastError());
		return 1;
	}
	th = CreateThread(NULL, 0, sender, NULL, 0, NULL);
	if (!th)
		return 1;
	f = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(f);
	if (wait_gate("ntgetmsg", argv[2]))
		return 1;
	for (int i = 0; i < rounds; i++) {
		SetEvent(ready);
		getting = 1;
		if (GetMessageA(&m, hwnd, 0, 0) <= 0)
			return 1;
		getting = 0;
		got_user += m.message == WM_USER;
	}
	if (WaitForSingleObject(th, 30000) != WAIT_OBJECT_0 || !GetExitCodeThread(th, &code) ||
	    code)
		return 1;
	printf("{\"rounds\":%d,\"got_user\":%d,\"app\":%d,\"in_get\":%d,\"yields\":%d}\n", rounds,
	       got_user, app_msgs, in_get, yields);
	return 0;
}
