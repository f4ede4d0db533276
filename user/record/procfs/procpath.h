/* SPDX-License-Identifier: GPL-2.0-only */
/* A path a traced process names, as seen from here (procfs/README.md).
 *
 * /proc/PID/maps (and readlink of /proc/PID/root) print a path as d_path
 * makes it for the reader: up from the file to our root, or, when our root
 * is not above it (another mount namespace), to the top of that namespace.
 * A process chrooted to R inside a namespace of its own (unshare -m, then
 * chroot, as pressure-vessel-like launchers do) therefore names its files
 * "R/FILE": neither our "R/FILE" (its namespace may mount a tmpfs on R/tmp)
 * nor "/proc/PID/root/R/FILE".  Its root's own name is the prefix to drop:
 * /proc/PID/root/FILE is the file, through its own mounts.  No libbpf, no
 * root needed to unit-test (proc: a fake tree whose PID/root is a symlink).
 * Functions return 0 or -errno. */
#ifndef KATRA_RECORD_PROCPATH_H
#define KATRA_RECORD_PROCPATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* path (absolute, as PID's maps name it) as PROC/PID/root/FILE: FILE is
 * path less the name of PID's root when it begins with it (the chroot in
 * another namespace), else path itself (PID's root is the top of its
 * namespace, or ours).  -ENAMETOOLONG, -EINVAL (not absolute), or -errno of
 * reading PROC/PID/root (then out is unset). */
int katra_proc_path(const char *proc, uint32_t pid, const char *path, char *out, size_t cap);

/* stat() of path as PID names it (katra_proc_path); when PID's root cannot
 * be read or followed (EACCES: not root; a fake /proc without it), of the
 * plain path.  0 or -errno. */
int katra_proc_stat(const char *proc, uint32_t pid, const char *path, struct stat *st);

#endif
