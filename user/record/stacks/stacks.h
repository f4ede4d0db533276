/* SPDX-License-Identifier: GPL-2.0-only */
/* Call stacks (--stacks), after the hot path: the stack ring's records
 * spooled to a temporary file as they come (with each process's module
 * table, read at its first stack, its files opened then), and at the end of
 * the capture unwound (CFI by libdw, frame pointers where CFI gives
 * nothing), deduplicated and written as Module, Stack and StackOf records,
 * then the user frames named from the files the processes mapped (Symbols).
 * No libbpf: the kernel stacks come through a callback.  Functions return 0
 * or -errno. */
#ifndef KATRA_RECORD_STACKS_H
#define KATRA_RECORD_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct katra_stacks;
struct katra_writer;

struct katra_stacks_opts {
	const char *proc;  /* "/proc" (tests: a fake tree) */
	bool full_paths;   /* --paths: a module's whole path, else its basename */
	bool fp_only;      /* tests: frame pointers only, never CFI */
	bool no_symbols;   /* --no-symbols: no Symbols records */
	uint64_t start_mono_ns; /* the capture's start: the trace's times are from it */
};

int katra_stacks_new(const struct katra_stacks_opts *o, struct katra_stacks **out);
void katra_stacks_free(struct katra_stacks *st);

/* One struct katra_stack_rec (wire.h) of size bytes, as the stack ring gave
 * it: spooled (the reader's thread; one at a time) */
int katra_stacks_take(struct katra_stacks *st, const void *rec, size_t size);

/* A kernel stack id's return addresses (KATRA_STACK_KDEPTH, 0 past the last) */
typedef int (*katra_kstack_fn)(void *ctx, int32_t id, uint64_t *ips);

struct katra_stacks_result {
	uint64_t taken;     /* records spooled */
	uint64_t written;   /* StackOf records written */
	uint64_t stacks;    /* distinct Stack records */
	uint64_t modules;   /* Module records */
	uint64_t truncated; /* stacks whose unwinding stopped short */
	uint64_t no_module; /* records of a process whose maps could not be read */
	uint64_t before;    /* intervals begun before the capture's start: not written */
	uint64_t kernel_beside; /* kernel stacks the map refused, taken in the record */
	uint64_t named;      /* user frames' addresses named in Symbols records */
	uint64_t unnamed;    /* those their file names not */
	uint64_t symbols_ns; /* the naming's time */
};

/* Unwinds what was spooled and appends the records to w (before its
 * SessionSummary). */
int katra_stacks_finish(struct katra_stacks *st, struct katra_writer *w, katra_kstack_fn kstack,
			void *kctx, struct katra_stacks_result *res);

#endif
