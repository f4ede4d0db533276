/* SPDX-License-Identifier: GPL-2.0-only */
/* Names that Wine keeps in its own binaries, read at run time from the files
 * a capture really uses (no libbpf, no libelf: unit-tested on the real Wine
 * files when they are installed):
 *
 *  - NT system call numbers and names from the Windows-side ntdll.dll (PE):
 *    each exported `Nt*` function is a stub `mov r10, rcx; mov eax, NUMBER`
 *    (4c 8b d1 b8 imm32) that enters Wine's syscall dispatcher;
 *  - the syscall table of the Unix-side ntdll.so (ELF): the array of
 *    function pointers the dispatcher indexes by that number, found among
 *    the R_X86_64_RELATIVE relocations (the run of slots whose targets are
 *    the exported Nt* functions for numbers 0, 1, ...);
 *  - the request names of a wineserver binary (ELF): the table of pointers
 *    to "new_process", "get_new_process_info", ... in protocol order that
 *    it keeps for +server tracing.
 *
 * Functions return 0 or -errno. */
#ifndef KATRA_RECORD_WINENAMES_H
#define KATRA_RECORD_WINENAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pe/pe.h"

#define KATRA_NT_MAX 4096 /* NT numbers of one table (Wine: index in bits 0-11, table above) */


/* A PE's Nt* stubs of one syscall table (ntdll.dll: table 0; win32u.dll:
 * table 1, whose stubs load 0x1000 | n): names[n] = the name of number n of
 * that table, NULL when none (names malloc'ed: katra_names_free).  *count: 1
 * + the highest number named.  -ENOEXEC when it is no PE32+ file or has no
 * stub of that table; -E2BIG when it exports more than KATRA_PE_EXPORTS_MAX
 * names (Wine's ntdll.dll: about 2500), so the work is bounded by that
 * count, not by the file's size. */
int katra_pe_nt_names(const struct katra_blob *dll, uint32_t table, char ***names,
		      uint32_t *count);
void katra_names_free(char **names, uint32_t count);
/* How many of names[0..count) are not NULL. */
uint32_t katra_names_count(char *const *names, uint32_t count);

/* ELF: a defined dynamic symbol's value, or 0. */
uint64_t katra_elf_dynsym(const struct katra_blob *elf, const char *name);
/* ELF: the same, and *size its st_size (0 when not found). */
uint64_t katra_elf_dynsym_sized(const struct katra_blob *elf, const char *name, uint64_t *size);
/* ELF: the file offset of vaddr (len bytes within one PT_LOAD's file part;
 * exec: an executable one), or UINT64_MAX. */
uint64_t katra_elf_offset(const struct katra_blob *elf, uint64_t vaddr, uint64_t len, bool exec);
/* ELF: the name of the defined dynamic FUNC symbol at vaddr, or NULL. */
const char *katra_elf_dynsym_at(const struct katra_blob *elf, uint64_t vaddr);
/* ELF: names[i] = the name of the defined dynamic FUNC symbol at vaddrs[i]
 * (the first such symbol), or NULL; one pass over the symbols (where n
 * calls of katra_elf_dynsym_at make n).  Names point into elf. */
int katra_elf_func_names(const struct katra_blob *elf, const uint64_t *vaddrs, uint32_t n,
			 const char **names);
/* ELF: the 8-byte pointer stored at vaddr (its R_X86_64_RELATIVE addend when
 * one relocates it, else the file's bytes); 0 when unknown. */
uint64_t katra_elf_pointer(const struct katra_blob *elf, uint64_t vaddr);

/* ntdll.so's syscall table: its vaddr and entry count, given the functions
 * of numbers 0 and 1 (their vaddrs, e.g. from the dynamic symbols named by
 * the PE stubs).  The count ends at the first slot that does not point into
 * an executable segment.  -ENOENT when not found. */
int katra_elf_find_table(const struct katra_blob *elf, uint64_t fn0, uint64_t fn1,
			 uint64_t *table, uint32_t *count);

/* A wineserver's request names (names[i]: request i; malloc'ed), found from
 * the string "new_process" (request 0) and the pointers to it; the table is
 * the longest run of consecutive pointers to lower-case identifiers (at
 * least 64).  -ENOENT when not found.  One pass over the data segments, one
 * over the relocations (or, in a non-PIE binary, the data's words), then
 * the candidate tables' runs in address order, each slot looked at once
 * (64 * (KATRA_NT_MAX + 1) slots at most). */
int katra_wineserver_requests(const struct katra_blob *elf, char ***names, uint32_t *count);
/* The same, and *positions: the places it looked at (8-byte positions of
 * data segments, relocations, table slots); never more than
 * KATRA_WS_WORK_MAX(elf->len), linear in the file's size (-E2BIG when a
 * file would need more: segments that map the same bytes over and over). */
int katra_wineserver_requests_counted(const struct katra_blob *elf, char ***names,
				      uint32_t *count, uint64_t *positions);
#define KATRA_WS_WORK_MAX(len) (5 * ((uint64_t)(len) / 8) + 65ull * (KATRA_NT_MAX + 1))

/* A Wine unix library's function names (unixnames.c), indexed like its
 * exported __wine_unix_call_funcs table (the index a Win->Unix call passes):
 * entry i is named <name> when its function, up to the next function of the
 * table (or of __wine_unix_call_wow64_funcs), at most KATRA_UNIX_SCAN bytes,
 * holds a RIP-relative lea of the NUL-terminated string "thunk64_<name>"
 * (the __func__ of the TRACE that begins each thunk Wine generates for
 * winevulkan.so: "thunk64_vkQueueSubmit" -> "vkQueueSubmit"), the first
 * such lea; else NULL.  *count: the table's entries (its st_size / 8, at
 * most KATRA_UNIX_FUNCS_MAX); *named: the entries named (0 is no error);
 * *table_off: the table's file offset (how a process's handle, the table's
 * address, is told to be this file's).  -ENOENT: no such table (no ELF64
 * x86-64 file). */
#define KATRA_UNIX_FUNCS_MAX 4096
#define KATRA_UNIX_SCAN 16384
int katra_unix_call_names(const struct katra_blob *elf, char ***names, uint32_t *count,
			  uint32_t *named, uint64_t *table_off);
/* The same library's Windows side (winevulkan.dll beside winevulkan.so):
 * the pairs (name, function) of its dispatch tables (a pointer to a "vk..."
 * string, then one to code) whose function is a stub that loads index i
 * into edx (mov $i,%edx) and calls through its import of ntdll's
 * __wine_unix_call_dispatcher; names[i] (of count) that are NULL get such a
 * name (malloc'ed), unless two names claim i.  *added: how many.  0,
 * -ENOEXEC (no PE32+ file), -ENOENT (no such import), -E2BIG (more work
 * than the file's size allows: below), -ENOMEM. */
int katra_pe_unix_call_names(const struct katra_blob *dll, char **names, uint32_t count,
			     uint32_t *added);
/* The same, and *work: the 8-byte positions and string bytes looked at.
 * Each position of the non-executable sections' file bytes is looked at
 * once a pass, however many sections map it; a pass stops (-E2BIG, no name
 * added) past KATRA_PE_PAIRS_WORK(dll->len), so *work never exceeds twice
 * that (and one string's 256 bytes a pass): linear in the file's size. */
int katra_pe_unix_call_names_counted(const struct katra_blob *dll, char **names, uint32_t count,
				     uint32_t *added, uint64_t *work);
#define KATRA_PE_PAIRS_WORK(len) (2 * (uint64_t)(len) + (1ull << 20))

/* How a build's Unix-side NT functions take their arguments, from the bytes
 * just before its syscall dispatcher's call through the table (code[0..n),
 * the call at code + n): the dispatcher moves the first argument (r10, the
 * caller's rcx) into the callee's first argument register, rcx in the
 * Windows x64 convention (Wine 8: mov %r10,%rcx) or rdi in System V (Wine 10:
 * mov %r10,%rdi); either encoding of mov (89 /r, 8b /r), the last one before
 * the call decides.  0: Windows, KATRA_NT_ABI_SYSV (wire.h): System V;
 * -ENOENT: neither move is there. */
int katra_wine_nt_abi(const uint8_t *code, size_t n);

#endif
