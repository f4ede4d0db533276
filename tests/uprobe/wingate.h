/* SPDX-License-Identifier: GPL-2.0-only */
/* The gate of the Windows test programs (the .c files here, built with mingw): wait until
 * the file GATE exists, so a tracer can attach first.  0, or 1 after 30 s
 * (said on stderr, naming the program). */
#ifndef KATRA_TESTS_WINGATE_H
#define KATRA_TESTS_WINGATE_H

#include <stdio.h>
#include <windows.h>

static int wait_gate(const char *prog, const char *gate)
{
	for (int i = 0; i < 6000; i++) {
		if (GetFileAttributesA(gate) != INVALID_FILE_ATTRIBUTES)
			return 0;
		Sleep(5);
	}
	fprintf(stderr, "%s: no gate %s after 30 s\n", prog, gate);
	return 1;
}

#endif
