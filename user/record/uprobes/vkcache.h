/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-vkresolve's answers kept between captures, so that a capture does
 * not wait ~40 ms of CPU for a run whose answer is known.  An answer is kept
 * under a key (the helper's path, the process's root, mount namespace, ids
 * and the loader variables the helper runs with) beside what it depends on:
 * the (dev, ino, size, mtime, ctime) of the helper, every directory the
 * loader searches for manifests and every file there, every file named in
 * the variables, /dev/dri, /etc/ld.so.cache and every object the helper had
 * loaded (the loader, the drivers and what they link).  It is used only when
 * every one of them is unchanged; else the helper runs as before.  The
 * directory (/run/katra-record) must be root's, 0700, in a parent only root
 * can change; the files root's 0600; anything else is refused (said) and
 * the helper runs. */
#ifndef KATRA_RECORD_VKCACHE_H
#define KATRA_RECORD_VKCACHE_H

#include <stddef.h>
#include <stdint.h>

#define KATRA_VKCACHE_DIR "/run/katra-record"
#define KATRA_VKCACHE_KEY_MAX 8192

/* The key for pid's run of helper with envp (NULL-terminated): 0, or
 * -EXDEV when pid's root or mount namespace is not ours (not kept). */
int katra_vkcache_key(uint32_t pid, const char *helper, char *const envp[], char *key,
		      size_t cap);

/* The kept answer for key: 0 and *out (malloc'ed, NUL-terminated) when it
 * is there and nothing it depends on changed; -ENOENT when not; -EPERM when
 * the directory or file is not safe (why filled). */
int katra_vkcache_load(const char *key, char **out, size_t *len, char *why, size_t cap);

/* Keeps out (the helper's output, exit 0, of a run started at since,
 * CLOCK_REALTIME seconds) for key: 0 or -errno (why); -EAGAIN, not kept,
 * when a dependency's ctime is not at least a second before since (it may
 * have changed while the helper ran). */
int katra_vkcache_store(const char *key, const char *out, size_t len, long long since, char *why,
			size_t cap);

#endif
