// SPDX-License-Identifier: GPL-2.0-only
/* Known call chains that leave the CPU, for --stacks: each round,
 * main -> chain_a -> chain_b -> leaf_sleep (nanosleep), -> leaf_read (a pread
 * with O_DIRECT: the disk, every time) and -> leaf_fault (a read of a file
 * page dropped from the page cache: a major fault).  Built without frame
 * pointers, with CFI (the Makefile's rule): only CFI unwinds it.
 *
 * usage: stackchains DIR ROUNDS   (DIR on a disk, not tmpfs)
 *        stackchains spin MS      (main -> spin_a -> spin_b -> spin_leaf, on
 *                                  the CPU for MS ms of its own CPU time:
 *                                  --sample-hz) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { SLEEP, READ, FAULT };

static int fd_direct, fd_map;
static void *buf;
static volatile char sink;

/* the empty asm after each call: no tail call, the caller stays a frame */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) static void leaf_sleep(void)
{
	struct timespec ts = { 0, 3000000 };

	nanosleep(&ts, NULL);
	KEEP_FRAME();
}

__attribute__((noinline)) static void leaf_read(void)
{
	if (pread(fd_direct, buf, 4096, 0) != 4096)
		exit(3);
	KEEP_FRAME();
}

__attribute__((noinline)) static void leaf_fault(void)
{
	/* the page cache dropped first: the read below faults to the disk */
	if (posix_fadvise(fd_map, 0, 0, POSIX_FADV_DONTNEED))
		exit(4);
	char *p = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd_map, 0);
	if (p == MAP_FAILED)
		exit(5);
	sink = p[8192];
	munmap(p, 65536);
	KEEP_FRAME();
}

__attribute__((noinline)) static void chain_b(int what)
{
	if (what == SLEEP)
		leaf_sleep();
	else if (what == READ)
		leaf_read();
	else
		leaf_fault();
	KEEP_FRAME();
}

__attribute__((noinline)) static void chain_a(int what)
{
	chain_b(what);
	KEEP_FRAME();
}

/* the thread's CPU time: MS ms on the CPU however loaded the machine is */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* on the CPU until the time: the loop and its clock reads are all here */
__attribute__((noinline)) static void spin_leaf(double until_ms)
{
	static volatile unsigned long n;

	while (now_ms() < until_ms)
		for (int i = 0; i < 100000; i++)
			n++;
	KEEP_FRAME();
}

__attribute__((noinline)) static void spin_b(double until_ms)
{
	spin_leaf(until_ms);
	KEEP_FRAME();
}

__attribute__((noinline)) static void spin_a(double until_ms)
{
	spin_b(until_ms);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	char path[4096];
	int rounds;

	if (argc == 3 && !strcmp(argv[1], "spin")) {
		spin_a(now_ms() + atoi(argv[2]));
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: stackchains DIR ROUNDS\n");
		return 2;
	}
	rounds = atoi(argv[2]);
	snprintf(path, sizeof(path), "%s/stackchains.dat", argv[1]);
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0 || posix_memalign(&buf, 4096, 65536))
		return 1;
	memset(buf, 'k', 65536);
	if (write(fd, buf, 65536) != 65536 || fsync(fd))
		return 1;
	close(fd);
	fd_direct = open(path, O_RDONLY | O_DIRECT);
	fd_map = open(path, O_RDONLY);
	if (fd_direct < 0 || fd_map < 0)
		return 1;
	for (int i = 0; i < rounds; i++) {
		chain_a(SLEEP);
		chain_a(READ);
		chain_a(FAULT);
	}
	unlink(path);
	return 0;
}
