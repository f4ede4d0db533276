// SPDX-License-Identifier: GPL-2.0-only
/* win32u calls with user callbacks nested in them, for the NtSyscall spans
 * of win32u's table (tests/integration/t_wine_win32u.sh):
 *
 *   ntwin32u.exe STARTED GATE N
 *
 * creates a message-only window (no display needed) whose window procedure
 * counts what it receives and, for each WM_APP message, calls
 * SwitchToThread once (NtYieldExecution: one NT call of ntdll's table);
 * creates the file STARTED, waits for GATE to exist (a tracer attaches in
 * between), then N times: a second thread sends one WM_APP message to the
 * window (SendNotifyMessageA: queued to the window's thread, not waited
 * for), and once it is queued the main thread calls PeekMessageA
 * (NtUserPeekMessage), whose Unix side delivers the sent message by calling
 * the window procedure back on the Windows side (KeUserModeCallback), so
 * each NtYieldExecution runs inside one NtUserPeekMessage.  (A message the
 * window's own thread sends is delivered by user32 after NtUserMessageCall
 * returned: no callback.)  Prints the window procedure's own counts:
 * {"rounds":N,"app":A,"in_peek":P,"yields":Y,"received":R} (P: the WM_APP
 * messages received inside PeekMessageA; R: every message, window
 * creation's included). */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "wingate.h"

static int app_msgs, in_peek, yields, received;
static volatile LONG peeking;
static HWND hwnd;
static HANDLE go, sent;
static int rounds;

static LRESULT CALLBACK wndproc(HWND w, UINT msg, WPARAM wp, LPARAM lp)
{
	received++;
	if (msg != WM_APP)
		return DefWindowProcA(w, msg, wp, lp);
	app_msgs++;
	in_peek += peeking != 0;
	SwitchToThread();
	yields++;
	return 0;
}

static DWORD WINAPI sender(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		if (WaitForSingleObject(go, 30000) != WAIT_OBJECT_0 ||
		    !SendNotifyMessageA(hwnd, WM_APP, (WPARAM)i, 0))
			return 1;
		SetEvent(sent);
	}
	return 0;
}

int main(int argc, char **argv)
{
	WNDCLASSA wc = { 0 };
	HANDLE f, th;
	MSG m;
	DWORD code = 1;
	int i;

	if (argc != 4) {
		fprintf(stderr, "usage: ntwin32u.exe STARTED GATE N\n");
		return 2;
	}
	rounds = atoi(argv[3]);
	wc.lpfnWndProc = wndproc;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = "katra_ntwin32u";
	if (!RegisterClassA(&wc)) {
		fprintf(stderr, "ntwin32u: RegisterClassA: %lu\n", GetLastError());
		return 1;
	}
	hwnd = CreateWindowExA(0, wc.lpszClassName, "", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL,
			       wc.hInstance, NULL);
	go = CreateEventA(NULL, FALSE, FALSE, NULL);
	sent = CreateEventA(NULL, FALSE, FALSE, NULL);
	if (!hwnd || !go || !sent) {
		fprintf(stderr, "ntwin32u: CreateWindowExA: %lu\n", GetLastError());
		return 1;
	}
	th = CreateThread(NULL, 0, sender, NULL, 0, NULL);
	if (!th)
		return 1;
	f = CreateFileA(argv[1], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return 1;
	CloseHandle(f);
	if (wait_gate("ntwin32u", argv[2]))
		return 1;
	for (i = 0; i < rounds; i++) {
		SetEvent(go);
		if (WaitForSingleObject(sent, 30000) != WAIT_OBJECT_0)
			return 1;
		peeking = 1;
		PeekMessageA(&m, hwnd, 0, 0, PM_NOREMOVE);
		peeking = 0;
	}
	if (WaitForSingleObject(th, 30000) != WAIT_OBJECT_0 || !GetExitCodeThread(th, &code) ||
	    code)
		return 1;
	printf("{\"rounds\":%d,\"app\":%d,\"in_peek\":%d,\"yields\":%d,\"received\":%d}\n",
	       rounds, app_msgs, in_peek, yields, received);
	return 0;
}
