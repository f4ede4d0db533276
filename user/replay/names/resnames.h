/* SPDX-License-Identifier: GPL-2.0-only */
/* The one spelling of a resource that every command (dump, stats, report,
 * export, compare) writes: "Domain:id", the domain as the format names it,
 * the id in decimal where it is a number (File and Socket identities,
 * Thread and Process ids, Ring) and in 0x-hex where it is an address or a
 * handle (Futex, Memory, IoUring, WinHandle, VulkanQueue):
 *   File:11436596390239650683  Socket:42  Thread:18547  Futex:0x7f3a2c
 * A file's identity is a hash of its device and inode (SPEC, Files): the
 * trace does not say whether it is a pipe or a socket, nor its inode, so
 * strace's "pipe:[ino]" cannot be written; a path, when the capture has
 * one, is written beside the name by the commands, never instead of it. */
#ifndef KATRA_REPLAY_RESNAMES_H
#define KATRA_REPLAY_RESNAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kr_procnames;

/* Whether the domain's ids are addresses or handles (written in hex). */
int kr_res_id_is_hex(uint32_t domain);
/* "Domain:id"; nothing for (None, 0). */
void kr_res_put(FILE *f, uint32_t domain, uint64_t id);
/* The same in buf (cut to cap - 1 bytes); returns buf. */
const char *kr_res_label(uint32_t domain, uint64_t id, char *buf, size_t cap);

#endif
