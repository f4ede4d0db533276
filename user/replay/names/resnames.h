/* SPDX-License-Identifier: GPL-2.0-only */
/* The one spelling of a resource that every command (dump, stats, report,
 * export, compare) writes.  Pipes, sockets and anon inodes as /proc/PID/fd
 * and strace -y name them: pipe:[INO], socket:[INO], anon_inode:[eventfd]
 * (anon_inode:? for a kind the format has no name for).  Every other
 * resource as "Domain:id", the domain as the format names it, the id in
 * decimal where it is a number (File identities, Thread and Process ids,
 * Ring) and in 0x-hex where it is an address or a handle (Futex, Memory,
 * IoUring, WinHandle, VulkanQueue):
 *   File:11436596390239650683  Thread:18547  Futex:0x7f3a2c
 * A file's identity is a hash of its device and inode (SPEC, Files); a
 * path, when the capture has one (--paths), is written beside the name by
 * the commands, never instead of it. */
#ifndef KATRA_REPLAY_RESNAMES_H
#define KATRA_REPLAY_RESNAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kr_procnames;

/* Whether the domain's resources are what an fd refers to (File, Pipe,
 * Socket, AnonInode): what stats --files and report's waits count. */
int kr_res_is_open_file(uint32_t domain);
/* Whether the domain's ids are addresses or handles (written in hex). */
int kr_res_id_is_hex(uint32_t domain);
/* "Domain:id"; nothing for (None, 0). */
void kr_res_put(FILE *f, uint32_t domain, uint64_t id);
/* The same in buf (cut to cap - 1 bytes); returns buf. */
const char *kr_res_label(uint32_t domain, uint64_t id, char *buf, size_t cap);

#endif
