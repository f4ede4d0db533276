/* SPDX-License-Identifier: GPL-2.0-only */
/* What a syscall's number and raw arguments mean in the format: its kind,
 * the payload of its Begin, and the domain its file identity belongs to.
 * x86_64 numbers.  Pure functions: testable without root. */
#ifndef KATRA_RECORD_SYSCALLS_H
#define KATRA_RECORD_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "katra/format.h"
#include "katra/wire.h"

/* Whether the Begin payload of nr uses its arguments (else the probes send
 * the short record); nr < KATRA_SYSCALL_NR_LIMIT. */
#define KATRA_SYSCALL_NR_LIMIT 512
bool katra_syscall_has_args(uint32_t nr);
/* Whether the Begin payload of nr reads no argument past the fourth (x86_64
 * numbering): the probes may then send the mid-sized record. */
bool katra_syscall_four_args(uint32_t nr);
/* The probes' bitmaps (KATRA_SYSCALL_NR_LIMIT / 64 words each, bits or'ed
 * in): the numbers decoded, and of them those that may travel mid-sized. */
void katra_syscall_record_bitmaps(uint64_t *decoded, uint64_t *mid);

/* The helpers every syscall calls are inline: called, each cost more in
 * saved registers than its one test. */
extern const uint8_t katra_syscall_kinds[KATRA_SYSCALL_NR_LIMIT];
static inline uint32_t katra_syscall_kind(uint32_t nr)
{
	return nr < KATRA_SYSCALL_NR_LIMIT ? katra_syscall_kinds[nr] : KATRA_KIND_SYSCALL;
}
/* Begin payload from nr + args (+ aux when KATRA_SC_AUX); paths are left
 * absent for the caller to fill.  _cleared: into a payload already zeroed. */
void katra_syscall_payload(const struct katra_ev_syscall *sc, struct katra_payload *p);
void katra_syscall_payload_cleared(const struct katra_ev_syscall *sc, struct katra_payload *p);
/* The domain of a file identity from the record's class flags
 * (KATRA_SC_PIPE, SOCKET, ANON; File for every other file). */
static inline uint32_t katra_syscall_resource_domain(uint32_t flags)
{
	if (flags & KATRA_SC_PIPE)
		return KATRA_RES_PIPE;
	if (flags & KATRA_SC_SOCKET)
		return KATRA_RES_SOCKET;
	if (flags & KATRA_SC_ANON)
		return KATRA_RES_ANON_INODE;
	return KATRA_RES_FILE;
}
/* An AnonInode id from the dentry name the record carries in dev, ino. */
uint64_t katra_syscall_anon_inode(const struct katra_ev_syscall *sc);

/* Either ABI, from the record (syscalls_i386.c): an i386 syscall
 * (KATRA_SC_I386) is written with its i386 number | KATRA_NR_I386, and gets
 * the kind and payload of its x86_64 twin where one means the same. */
#define KATRA_NR_I386 0x80000000u
static inline uint32_t katra_syscall_trace_nr(const struct katra_ev_syscall *sc)
{
	return sc->flags & KATRA_SC_I386 ? sc->nr | KATRA_NR_I386 : sc->nr;
}
uint32_t katra_syscall_kind_i386(const struct katra_ev_syscall *sc);
static inline uint32_t katra_syscall_kind_of(const struct katra_ev_syscall *sc)
{
	if (!(sc->flags & KATRA_SC_I386))
		return katra_syscall_kind(sc->nr);
	return katra_syscall_kind_i386(sc);
}
/* Into p, which the caller cleared (emit_base). */
void katra_syscall_payload_i386(const struct katra_ev_syscall *sc, struct katra_payload *p);
static inline void katra_syscall_payload_of(const struct katra_ev_syscall *sc,
					    struct katra_payload *p)
{
	if (!(sc->flags & KATRA_SC_I386))
		katra_syscall_payload_cleared(sc, p);
	else
		katra_syscall_payload_i386(sc, p);
}

#endif
