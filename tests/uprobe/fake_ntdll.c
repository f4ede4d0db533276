// SPDX-License-Identifier: GPL-2.0-only
/* A stand-in for another Wine's ntdll.so (t_uprobe_partial): it exports
 * NtReadFile and wine_server_call only, as a different or stripped build
 * might, so the other uprobes cannot attach.  call_read() makes one
 * NtReadFile (the Windows x64 calling convention, as Wine 8's) that calls
 * wine_server_call inside.  The recorder reads the calling convention from
 * the syscall dispatcher's code, so a stand-in dispatcher says it: Wine 8's
 * move of the first argument into rcx before the call through its table
 * (never called; it has no table, so no NtSyscall probes). */
#include <stdint.h>

#ifndef NO_DISPATCHER /* -DNO_DISPATCHER: a build whose convention is unknown */
__asm__(".globl __wine_syscall_dispatcher_prolog_end\n"
	".type __wine_syscall_dispatcher_prolog_end, @function\n"
	"__wine_syscall_dispatcher_prolog_end:\n"
	"\tmovq %r10, %rcx\n"
	"\tcallq *(%r10, %rax, 8)\n"
	"\tret\n");
#endif

struct request_header {
	int req;
	unsigned request_size, reply_size;
};

__attribute__((ms_abi, noipa)) unsigned wine_server_call(void *req)
{
	return ((struct request_header *)req)->req == 42 ? 0 : 0xc0000001;
}

__attribute__((ms_abi, noipa)) unsigned NtReadFile(void *handle, void *event, void *apc,
						      void *apc_user, uint64_t *io, void *buffer,
						      unsigned length, int64_t *offset, void *key)
{
	struct request_header r = { 42, 0, 0 };
	(void)event, (void)apc, (void)apc_user, (void)buffer, (void)offset, (void)key, (void)handle;
	io[0] = wine_server_call(&r);
	io[1] = length / 2;
	return 0;
}

int call_read(int n)
{
	uint64_t io[2];
	int64_t off = 4096;
	char buf[64];
	for (int i = 0; i < n; i++)
		NtReadFile((void *)0x44, 0, 0, 0, io, buf, 64, &off, 0);
	return (int)io[1];
}
