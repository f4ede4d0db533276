/* SPDX-License-Identifier: GPL-2.0-only */
/* The CO-RE BTF cut from the kernel's (probes_btfcore.c) kept between
 * captures, per kernel build and recorder build: one root-owned file in a
 * root-owned 0700 directory (/run/katra-record, beside katra-vkresolve's
 * answers: gone at reboot), never a path a traced process controls.  The
 * file is "katra-btfcore 1\n", the key (what the cut depends on: the
 * kernel's BTF file's size and mtime, the kernel's build id and uname, the
 * recorder's own build id, size and mtime), "---\n", the BTF's length and
 * a checksum of it (8 bytes each), then the BTF.  A file whose key is not
 * this one's, whose length or checksum is wrong, or whose BTF header does
 * not hold is ignored (and then rewritten): never trusted. */
#ifndef KATRA_RECORD_KERNEL_BTFCACHE_H
#define KATRA_RECORD_KERNEL_BTFCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KATRA_BTFCACHE_DIR "/run/katra-record"
#define KATRA_BTFCACHE_FILE "btf-core"
#define KATRA_BTFCACHE_MAX (64u << 20)

/* The running kernel's and this recorder's identity as the key's text, in
 * key (cap bytes): 0 or -errno (no identity: no cache). */
int katra_btfcache_key(char *key, size_t cap);

/* The file's bytes for key and btf (len bytes), malloc'd, in *out: its
 * length, or -ENOMEM. */
long katra_btfcache_encode(const char *key, const void *btf, size_t len, char **out);

/* The BTF in file (len bytes) made for key: 0 with *btf inside file,
 * -ESTALE for another key, -EINVAL where anything else does not hold. */
int katra_btfcache_parse(const void *file, size_t len, const char *key, const void **btf,
			 size_t *btf_len);

/* The cache file for key, mapped (private, read-only): 0 with *map, *map_len
 * (to munmap) and *btf, *btf_len inside it, or -errno (-ENOENT: none,
 * -EPERM: the directory or file is not root's alone, -ESTALE/-EINVAL:
 * another key's or a corrupt one). */
int katra_btfcache_load(const char *key, void **map, size_t *map_len, const void **btf,
			size_t *btf_len);

/* Writes the cache file for key (replaced whole, by a rename): 0 or -errno. */
int katra_btfcache_store(const char *key, const void *btf, size_t len);

/* Cache directory dir, root's with mode 0700 in a parent only root can
 * change (made when create), opened: its fd or -errno (-EPERM: not root's
 * alone, not a directory; then why, cap bytes, says which when not NULL).
 * This cache's and katra-vkresolve's answers' (uprobes/vkcache.c). */
int katra_cache_dir_open(const char *dir, bool create, char *why, size_t cap);

#endif
