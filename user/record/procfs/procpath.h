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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* path (absolute, as PID's maps name it) as PROC/PID/root/FILE: FILE is
 * path less the name of PID's root when it begins with it (the chroot in
 * another namespace), else path itself (PID's root is the top of its
 * namespace, or ours).  -ENAMETOOLONG, -EINVAL (not absolute), or -errno of
 * reading PROC/PID/root (then out is unset).  A name to print: opening or
 * stat'ing it would follow its symbolic links out of PID's root. */
int katra_proc_path(const char *proc, uint32_t pid, const char *path, char *out, size_t cap);

/* stat() of path as PID names it (katra_proc_path); when PID's root cannot
 * be read or followed (EACCES: not root; a fake /proc without it), of the
 * plain path.  0 or -errno.  A stat only (an identity to compare): its
 * links are followed as from here; a file to read is katra_proc_open's. */
int katra_proc_stat(const char *proc, uint32_t pid, const char *path, struct stat *st);

/* ---- the one opener of a file a traced process names ----
 *
 * Read-only, never blocking and never a terminal (O_NONBLOCK | O_NOCTTY:
 * a FIFO or a device opens at once, then is refused), resolved inside the
 * root (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS on a directory fd
 * of PROC/PID/root: an absolute symbolic link or ".." stays inside; where
 * the kernel has no openat2, an equivalent walk, one name at a time), a
 * regular file only, and the file mapped where the maps line said which
 * (device and inode).  Whatever is read of it is read from *fd (never by
 * its name again; a probe attaches through /proc/self/fd/N of it). */

/* The refusals (negated), told apart from the errors of the open itself */
#define KATRA_PROC_NOTREG  EMEDIUMTYPE /* not a regular file (FIFO, device, socket, directory) */
#define KATRA_PROC_CHANGED ESTALE      /* not the file mapped (device, inode): changed since */
#define KATRA_PROC_OUTSIDE EXDEV       /* would leave the root (a magic link, /proc/PID/fd/N) */

/* flags */
#define KATRA_PROC_FOLLOW 1u /* the last name may be a symbolic link (followed inside the root) */
#define KATRA_PROC_AS_IS  2u /* path is inside PID's root already (no root name to drop) */

/* No expectation: dev KATRA_PROC_ANY_DEV, ino 0 */
#define KATRA_PROC_ANY_DEV UINT64_MAX

/* path in the root that rootfd (a directory, O_PATH will do) is: *fd
 * (O_RDONLY | O_CLOEXEC) and its fstat.  dev (st_dev as makedev() makes
 * it) and ino: what it must be (KATRA_PROC_ANY_DEV, 0: anything).  On
 * failure *fd is -1. */
int katra_root_open(int rootfd, const char *path, unsigned flags, uint64_t dev, uint64_t ino,
		    int *fd, struct stat *st);
/* path as PID names it (its maps: the root's name dropped as
 * katra_proc_path does, unless KATRA_PROC_AS_IS), opened inside
 * PROC/PID/root; pid 0: our own root.  As katra_root_open. */
int katra_proc_open(const char *proc, uint32_t pid, const char *path, unsigned flags,
		    uint64_t dev, uint64_t ino, int *fd, struct stat *st);
/* What a refusal (or an error) of the opener says, for a note. */
const char *katra_proc_why(int rc);
/* Whether rc is a refusal worth noting (the file is there, and was not
 * opened on purpose), not merely absent. */
bool katra_proc_refused(int rc);

/* Tests: the walk even where the kernel has openat2 */
extern bool katra_proc_force_walk;

#endif
