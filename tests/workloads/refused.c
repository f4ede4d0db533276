// SPDX-License-Identifier: GPL-2.0-only
/* Workload: page faults the kernel refuses, and ordinary ones.
 *
 * usage: refused [--gate FILE] [--contend] N M
 *
 * N times: getppid, then a write to a read-only page, which the kernel
 * refuses before handle_mm_fault (SIGSEGV; the handler siglongjmps past the
 * write, as a guard page or write watch handler moves on); then one more
 * getppid.  So in time order the thread's getppid calls and the refused
 * faults alternate, G F G F ... G, each fault exactly once.  Then M first
 * writes to fresh pages of a private anonymous mapping (no huge pages):
 * M ordinary faults.  loop_ns bounds the whole measured part: no fault of
 * it can last longer.  --contend: a second thread changes the protection
 * of 32 MiB of its own meanwhile (the mmap lock held for writing), so that
 * the faulting thread often sleeps on that lock inside the kernel's handling
 * of a fault, before the kernel refuses it.
 * Prints: {"workload":"refused","pid":P,"tid":T,"n":N,"m":M,"ro":A,"start":S,
 *          "end":E,"page_size":PS,"loop_ns":L} */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/mman.h>

#include "workload.h"

static const char *prog = "refused";
static sigjmp_buf env;

static volatile int contend_stop;
static volatile unsigned long progress; /* refused writes so far */

#define CONTEND_BYTES (32ul << 20)

/* Changes the protection of CONTEND_BYTES of populated pages back and forth,
 * each change holding the mmap lock for writing while it rewrites every
 * page table entry: at most 2 changes per refused write (a spin, no
 * syscall, when ahead), so contention all along with few events. */
static void *contend(void *region)
{
	for (unsigned long k = 0; !contend_stop; k++) {
		while (k >= 2 * (progress + 1) && !contend_stop)
			__asm__ volatile("pause");
		mprotect(region, CONTEND_BYTES, k & 1 ? PROT_READ : PROT_READ | PROT_WRITE);
	}
	return NULL;
}

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	volatile bool contended = false;
	pthread_t contender;
	void *own = NULL;
	struct sigaction sa = { .sa_handler = on_segv };
	unsigned long n, m;
	volatile unsigned long refused = 0;
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *ro;
	char *region;
	uint64_t t0, t1;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc > i && !strcmp(argv[i], "--contend")) {
		contended = true;
		i++;
	}
	if (argc != i + 2)
		wl_die(prog, "usage: refused [--gate FILE] [--contend] N M");
	n = wl_num(prog, "N", argv[i]);
	m = wl_num(prog, "M", argv[i + 1]);
	ro = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	region = mmap(NULL, m * ps + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED || region == MAP_FAILED)
		wl_die(prog, "mmap: %s", strerror(errno));
	madvise(region, m * ps + 1, MADV_NOHUGEPAGE);
	ro[0] = 1; /* present, then read-only: every later write is refused */
	if (mprotect((void *)ro, ps, PROT_READ))
		wl_die(prog, "mprotect: %s", strerror(errno));
	if (sigaction(SIGSEGV, &sa, NULL))
		wl_die(prog, "sigaction: %s", strerror(errno));
	if (contended) {
		own = mmap(NULL, CONTEND_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (own != MAP_FAILED)
			memset(own, 1, CONTEND_BYTES);
		if (own == MAP_FAILED || pthread_create(&contender, NULL, contend, own))
			wl_die(prog, "contending thread: %s", strerror(errno));
	}
	wl_gate_wait(gate);
	t0 = wl_now_ns();
	for (unsigned long k = 0; k < n; k++) {
		syscall(SYS_getppid);
		if (!sigsetjmp(env, 1))
			ro[0] = 2;
		else
			refused++;
		progress = k + 1;
	}
	syscall(SYS_getppid);
	if (contended) {
		contend_stop = 1;
		pthread_join(contender, NULL);
	}
	for (unsigned long k = 0; k < m; k++)
		region[k * ps] = 1;
	t1 = wl_now_ns();
	if (refused != n)
		wl_die(prog, "%lu of %lu writes refused", (unsigned long)refused, n);
	printf("{\"workload\":\"refused\",\"pid\":%d,\"tid\":%d,\"n\":%lu,\"m\":%lu,\"ro\":%lu,"
	       "\"start\":%lu,\"end\":%lu,\"page_size\":%ld,\"loop_ns\":%llu}\n",
	       (int)getpid(), (int)wl_gettid(), n, m, (unsigned long)ro, (unsigned long)region,
	       (unsigned long)(region + m * ps), ps, (unsigned long long)(t1 - t0));
	return 0;
}
