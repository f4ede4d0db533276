/* SPDX-License-Identifier: GPL-2.0-only */
/* Workload: a static i386 program making its syscalls with int $0x80.
 *
 * Exactly 1000 read(fd, buf, 1) of /dev/zero (i386 nr 3), then exactly 1000
 * getppid() (i386 nr 64), then exit_group(0) (nr 252); exit status 1 if the
 * open or a read fails.  No libc, so no syscall of its own besides these and
 * the open: the test knows the ground truth without output.  Built with
 *   gcc -m32 -c prog.S && ld -m elf_i386
 * (see the Makefile); it runs on an x86_64 kernel with IA32_EMULATION.
 * On i386 the 32-bit syscall numbers differ from x86_64's: nr 3 is close and
 * nr 64 is semget there, so a tracer that ignores the ABI misnames both. */

#define NR_exit_group 252
#define NR_read 3
#define NR_open 5
#define NR_getppid 64
#define CALLS 1000

	.section .rodata
path:	.asciz "/dev/zero"

	.bss
	.lcomm buf, 16

	.text
	.globl _start
_start:
	/* fd = open("/dev/zero", O_RDONLY) */
	movl $NR_open, %eax
	movl $path, %ebx
	xorl %ecx, %ecx
	int $0x80
	testl %eax, %eax
	js fail
	movl %eax, %esi			/* the kernel keeps every register but eax */

	movl $CALLS, %edi
1:	movl $NR_read, %eax
	movl %esi, %ebx
	movl $buf, %ecx
	movl $1, %edx
	int $0x80
	cmpl $1, %eax
	jne fail
	decl %edi
	jnz 1b

	movl $CALLS, %edi
2:	movl $NR_getppid, %eax
	int $0x80
	decl %edi
	jnz 2b

	movl $NR_exit_group, %eax
	xorl %ebx, %ebx
	int $0x80

fail:
	movl $NR_exit_group, %eax
	movl $1, %ebx
	int $0x80
