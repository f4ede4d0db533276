// SPDX-License-Identifier: GPL-2.0-only
/* Workload: calls into a uprobed library between syscalls of its own.
 *
 * usage: uprobed [--gate FILE] LIB STARTED N
 *
 * Loads LIB (a stand-in Wine ntdll.so, tests/uprobe/fake_ntdll.c, whose
 * functions katra-record probes with uprobes and uretprobes), creates the
 * file STARTED once it is mapped, waits for the gate, then N times: one
 * call_read(1) (one NtReadFile calling wine_server_call: two uretprobe
 * returns, each through the kernel's trampoline syscall since Linux 6.11)
 * and one getppid.  The program's own syscalls in that loop: N getppid.
 * Prints: {"workload":"uprobed","pid":P,"tid":T,"n":N,"ppid":PP} */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "workload.h"

static const char *prog = "uprobed";

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int (*call_read)(int);
	unsigned long n;
	void *lib;
	pid_t ppid = 0;
	int i = 1, fd;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc != i + 3)
		wl_die(prog, "usage: uprobed [--gate FILE] LIB STARTED N");
	n = wl_num(prog, "N", argv[i + 2]);
	lib = dlopen(argv[i], RTLD_NOW);
	if (!lib)
		wl_die(prog, "cannot load '%s': %s", argv[i], dlerror());
	call_read = (int (*)(int))dlsym(lib, "call_read");
	if (!call_read)
		wl_die(prog, "'%s' has no call_read", argv[i]);
	fd = open(argv[i + 1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_die(prog, "cannot create '%s': %s", argv[i + 1], strerror(errno));
	close(fd);
	wl_gate_wait(gate);
	for (unsigned long k = 0; k < n; k++) {
		call_read(1);
		ppid = (pid_t)syscall(SYS_getppid);
	}
	printf("{\"workload\":\"uprobed\",\"pid\":%d,\"tid\":%d,\"n\":%lu,\"ppid\":%d}\n",
	       (int)getpid(), (int)wl_gettid(), n, (int)ppid);
	return 0;
}
