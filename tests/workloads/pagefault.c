// SPDX-License-Identifier: GPL-2.0-only
/* Workload: mmap P fresh anonymous pages (no huge pages) and write one byte to
 * each, once, after the gate: P first-touch page faults on the main thread.
 *
 * usage: pagefault [--gate FILE] P
 * Prints: {"workload":"pagefault","pid":P,"tid":T,"start":A,"end":B,
 *          "pages":P,"page_size":S,"loop_ns":N}   (mapping is [start, end)) */
#include <sys/mman.h>

#include "workload.h"

static const char *prog = "pagefault";

int main(int argc, char **argv)
{
	const char *gate = NULL;
	unsigned long pages;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), len;
	volatile char *map;
	uint64_t t0, loop_ns;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc - i != 1)
		wl_die(prog, "usage: pagefault [--gate FILE] P");
	pages = wl_num(prog, "P", argv[i]);
	if (!pages)
		wl_die(prog, "P must be at least 1");
	len = pages * ps;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		wl_die(prog, "mmap: %s", strerror(errno));
	/* one fault per page: no transparent huge page may back the range */
	if (madvise((void *)map, len, MADV_NOHUGEPAGE))
		wl_die(prog, "madvise: %s", strerror(errno));

	wl_gate_wait(gate);
	t0 = wl_now_ns();
	for (unsigned long p = 0; p < pages; p++)
		map[p * ps] = 1;
	loop_ns = wl_now_ns() - t0;

	printf("{\"workload\":\"pagefault\",\"pid\":%d,\"tid\":%d,\"start\":%llu,\"end\":%llu,"
	       "\"pages\":%lu,\"page_size\":%zu,\"loop_ns\":%llu}\n",
	       (int)getpid(), (int)wl_gettid(), (unsigned long long)(uintptr_t)map,
	       (unsigned long long)((uintptr_t)map + len), pages, ps,
	       (unsigned long long)loop_ns);
	return 0;
}
