// SPDX-License-Identifier: GPL-2.0-only
/* A known Windows call chain that blocks in an NT call: main -> chain_a ->
 * chain_b -> leaf -> Sleep (NtDelayExecution), ROUNDS times (argv[1],
 * default 5).  Built -O2 (no frame pointers), .pdata present: --stacks must
 * name the chain in order above Wine's syscall dispatcher
 * (tests/integration/t_wine_stacks.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE static void leaf(int n)
{
	Sleep(40);
	sink += n;
}

/* a frame of its own (a buffer), so the chain's frames differ */
NOINLINE static void chain_b(int n)
{
	volatile char buf[256];

	buf[n & 255] = (char)n;
	leaf(n + buf[n & 255]);
	sink += buf[(n + 1) & 255];
}

NOINLINE static void chain_a(int n)
{
	chain_b(n * 2);
	sink++;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;

	for (int i = 0; i < rounds; i++)
		chain_a(i + argc);
	printf("done %d\n", sink > 0);
	return 0;
}
