/* SPDX-License-Identifier: GPL-2.0-only */
/* Uprobes on user-space libraries: Wine's Unix-side ntdll.so (NT calls,
 * wine_server_call, the Win->Unix call dispatcher) and the Vulkan driver's
 * entry points.  Files are found at run time from what the traced processes
 * really map (/proc/PID/maps: Debian's
 * /usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so, Proton's
 * files/lib{,64}/wine/x86_64-unix/ntdll.so, libvulkan.so.1), symbols resolved
 * with libelf, and each FILE is probed once (pid -1): the programs filter on
 * the tracked set.  A probe that cannot attach is recorded with its reason and
 * the capture goes on.
 *
 *	katra_uprobes_new(probes, &opts, &u);
 *	katra_uprobes_start(u);                      // the worker thread
 *	katra_uprobes_request_scan(u, pid);          // each traced process at start
 *	katra_uprobes_request_command(u, pid, path); // -- COMMAND, stopped before exec
 *	katra_uprobes_settle(u, &stop);              // all of it attached: release it
 *	... in the capture loop: katra_uprobes_note_mapping() from mmap records
 *	katra_uprobes_free(u);                       // stops the worker, detaches
 *
 * The slow work (/proc/PID/maps, whole-file ELF reads, uprobe registration,
 * katra-vkresolve) runs on a worker thread at the normal policy, never on the
 * drain: neither can starve the other. */
#ifndef KATRA_RECORD_UPROBES_H
#define KATRA_RECORD_UPROBES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/kernel/probes.h"

struct katra_uprobes;

struct katra_uprobes_opts {
	bool wine;               /* probe Wine's ntdll.so */
	bool vulkan;             /* probe the Vulkan driver */
	bool quiet;              /* no stderr line per probe not attached */
	bool stacks;             /* --stacks: Wine's syscall frame read from each
				  * ntdll.so, per process (uprobes_frames.c) */
	const char *vkresolve;   /* the katra-vkresolve helper; NULL: next to
				  * /proc/self/exe */
};

int katra_uprobes_new(struct katra_probes *p, const struct katra_uprobes_opts *o,
		      struct katra_uprobes **out);
/* The probes, when new was given NULL (made before they load): before start. */
void katra_uprobes_set_probes(struct katra_uprobes *u, struct katra_probes *p);
/* A command about to run (pid stopped before its exec), before the probes
 * load: katra-vkresolve starts now, with its environment, where the loader
 * has a driver to load, so that its ~0.1 s runs beside the load; the
 * command's request (katra_uprobes_request_command) takes its output. */
void katra_uprobes_command_early(struct katra_uprobes *u, uint32_t pid);
/* A -p target, before the probes load: where it maps the Vulkan loader in
 * our root and katra-vkresolve's answer for it is kept (vkcache.h), that
 * answer is taken now (one target's at most; the command's first). */
void katra_uprobes_pid_early(struct katra_uprobes *u, uint32_t pid);
/* Whether such an answer was found (by the call above or by
 * katra_uprobes_command_early): then katra_uprobes_early probes those
 * drivers while the probes load (their first link's wait for the kernel,
 * an RCU grace period, off the way to live). */
bool katra_uprobes_early_known(const struct katra_uprobes *u);
/* Probes them now, through p (katra_probes_opts.uprobes_ready: only the
 * Vulkan layer's programs loaded yet), on the calling thread; before
 * katra_uprobes_start.  The command's request, or the target's scan, then
 * finds them done. */
void katra_uprobes_early(struct katra_uprobes *u, struct katra_probes *p);
/* Detaches every uprobe (waits until the uprobe_multi links' release has
 * ended) and frees; NULL is fine.  True when the worker was left behind
 * (katra_uprobes_stop): nothing is freed, and the probes it was given must
 * not be either (it may still use them until the process exits). */
bool katra_uprobes_free(struct katra_uprobes *u);
/* Detaches every uprobe: uprobe_multi links released from threads of their
 * own (waited for by katra_uprobes_free), perf-event links handed to a child
 * (linger.h) once nothing traced is left. */
void katra_uprobes_detach(struct katra_uprobes *u);

/* Starts the worker thread (0 or -errno; without it each request is done
 * at once, on the caller's thread). */
int katra_uprobes_start(struct katra_uprobes *u);
/* Stops the worker (a katra-vkresolve run is killed); requests left are
 * dropped.  A worker still busy after a deadline (5 s) is left behind, said
 * on stderr.  Idempotent; free and detach call it. */
void katra_uprobes_stop(struct katra_uprobes *u);
/* Probes the libraries process pid maps that are not probed yet. */
void katra_uprobes_request_scan(struct katra_uprobes *u, uint32_t pid);
/* For a command about to run (pid stopped before its exec, path its
 * resolved file): a Wine or Proton launcher's ntdll.so and the Vulkan
 * drivers the loader would pick with its environment, before it maps them. */
void katra_uprobes_request_command(struct katra_uprobes *u, uint32_t pid, const char *path);
/* Waits until every request so far is done, *stop becomes nonzero (a stop
 * signal; NULL: none) or a deadline (20 s) passes: 0, -EINTR or
 * -ETIMEDOUT (then said on stderr and in the notes). */
int katra_uprobes_settle(struct katra_uprobes *u, const volatile sig_atomic_t *stop);
/* A traced process mapped a file executable (kernel dev_t, ino): a file
 * never seen before gets the process rescanned (the drain's call: it only
 * queues). */
void katra_uprobes_note_mapping(struct katra_uprobes *u, uint32_t pid, uint64_t kdev,
				uint64_t ino);

/* The emitter's Wine name tables (emit.h: nt_name, server_requests,
 * unix_names, names_ready; ctx = the struct katra_uprobes): the name of NT
 * number `number` of the ntdll.so probed in `slot`, or NULL; a wineserver's
 * request names, once per wineserver process (comm "wineserver*"): its
 * binary (/proc/TGID/exe) is read by the worker, so they may come later
 * (-EAGAIN, then names_ready). */
const char *katra_uprobes_nt_name(void *ctx, uint32_t slot, uint32_t number);
struct katra_str_vec;
int katra_uprobes_server_requests(void *ctx, uint32_t tgid, const char *comm, size_t comm_len,
				  struct katra_str_vec *out);
/* The unix library call names of process tgid's library at handle (a
 * WinToUnix call's): asked for once (-EAGAIN), read by the worker; then the
 * tables read since, one a call (-EAGAIN: none yet; *handle 0: a
 * wineserver's request names; 0: read, no names). */
int katra_uprobes_unix_names(void *ctx, uint32_t tgid, uint64_t handle);
int katra_uprobes_names_ready(void *ctx, uint32_t *tgid, uint64_t *handle,
			      struct katra_str_vec *out);

/* "uprobe ntdll.so:NtReadFile", ...: valid until free. */
size_t katra_uprobes_attached(const struct katra_uprobes *u, const char *const **names);
/* "ntdll.so:NtFoo: no such symbol in PATH", ...: valid until free. */
size_t katra_uprobes_failed(const struct katra_uprobes *u, const char *const **names);
/* Layer lines for the header's notes (wine, vulkan, gpu). */
size_t katra_uprobes_notes(const struct katra_uprobes *u, char (*out)[KATRA_NOTE_MAX],
			   size_t cap);

#endif
