// SPDX-License-Identifier: GPL-2.0-only
/* --stacks through Wine: where each ntdll.so's dispatcher keeps the
 * syscall frame (wineframe.h), read once per file by the worker, and given
 * to the probe per process (the wine_frames map, by tgid: bpf/stacks.bpf.h)
 * when a traced process maps that file.  A process without an entry (its
 * mapping not seen yet, uprobes off) falls back to wire.h's constants,
 * which the probe's Self check and the join's rsp-in-the-copy check guard;
 * a file whose layout could not be read gives its processes an entry of
 * TEB offset 0: no Windows half.  What was read is said in the header's
 * notes (a file read before the capture started: a command's Wine) and in
 * the summary's probes_attached or probes_failed (any file, a Wine in
 * another root found later too). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>

#include "uprobes_int.h"
#include "wineframe.h"
#include "winenames.h"

#define WINE_FILE_MAX (256u << 20)

static uint64_t kdev_of(uint64_t dev)
{
	return ((uint64_t)major(dev) << 20) | minor(dev);
}

static const struct up_wine_frame *find(const struct katra_uprobes *u, unsigned n,
					uint64_t kdev, uint64_t ino)
{
	for (unsigned i = 0; i < n; i++)
		if (u->wf[i].kdev == kdev && u->wf[i].ino == ino)
			return &u->wf[i];
	return NULL;
}

void up_wine_frame_read(struct katra_uprobes *u, const char *path, int fd, const struct stat *st)
{
	unsigned n = u->nwf;
	struct up_wine_frame *w;
	struct katra_wine_frame fr;
	struct katra_blob so;
	int rc;

	if (!u->o.stacks || n >= UP_WINE_FRAMES_MAX || find(u, n, kdev_of(st->st_dev), st->st_ino))
		return;
	w = &u->wf[n];
	memset(w, 0, sizeof(*w));
	w->kdev = kdev_of(st->st_dev);
	w->ino = st->st_ino;
	snprintf(w->path, sizeof(w->path), "%s", path);
	rc = katra_blob_read_fd(fd, WINE_FILE_MAX, &so);
	if (rc) {
		w->why = "the file could not be read";
	} else {
		if (!katra_wine_frame_read(&so, &fr, &w->why))
			w->offs = fr.offs;
		katra_blob_free(&so);
	}
	char label[160], *s = NULL;
	snprintf(label, sizeof(label), "%.120s:syscall frame", up_base_name(path));
	if (!w->offs.teb_frame) {
		up_failed(u, label, "%s in %s (no Windows half in its processes' stacks)", w->why,
			  path);
	} else if (asprintf(&s, "%s at TEB+0x%x, rip rsp rbp at +0x%x +0x%x +0x%x", label,
			    w->offs.teb_frame, w->offs.slot[0], w->offs.slot[1],
			    w->offs.slot[2]) >= 0) {
		up_add_name(u->attached, &u->nattached, s);
	}
	/* published: the drain's lookups see it whole from now on */
	__atomic_store_n(&u->nwf, n + 1, __ATOMIC_RELEASE);
}

static void set_entry(const struct katra_uprobes *u, uint32_t pid, const struct up_wine_frame *w)
{
	int fd = katra_probes_map_fd(u->probes, "wine_frames");

	if (fd >= 0)
		bpf_map_update_elem(fd, &pid, &w->offs, BPF_ANY);
}

void up_wine_frame_set(struct katra_uprobes *u, uint32_t pid, const struct stat *st)
{
	const struct up_wine_frame *w;

	if (!pid || !u->o.stacks)
		return;
	w = find(u, u->nwf, kdev_of(st->st_dev), st->st_ino);
	if (w)
		set_entry(u, pid, w);
}

/* The drain's: one comparison per file read (UP_WINE_FRAMES_MAX at most) for
 * a mapping of executable code, a map update for one of ntdll.so */
void up_wine_frame_mapped(struct katra_uprobes *u, uint32_t pid, uint64_t kdev, uint64_t ino)
{
	unsigned n = __atomic_load_n(&u->nwf, __ATOMIC_ACQUIRE);
	const struct up_wine_frame *w = n ? find(u, n, kdev, ino) : NULL;

	if (w)
		set_entry(u, pid, w);
}

size_t up_wine_frame_notes(const struct katra_uprobes *u, char (*out)[KATRA_NOTE_MAX], size_t cap)
{
	unsigned n = __atomic_load_n(&u->nwf, __ATOMIC_ACQUIRE);
	size_t k = 0;

	if (u->o.stacks && !u->o.wine && k < cap)
		snprintf(out[k++], KATRA_NOTE_MAX, "wine stacks: syscall frame at TEB+0x%x as Wine 7 "
			 "to 10 keep it (ntdll.so not read: --no-uprobes)",
			 KATRA_WINE_TEB_SYSCALL_FRAME);
	for (unsigned i = 0; i < n && k < cap; i++) {
		const struct up_wine_frame *w = &u->wf[i];
		const __u16 *s = w->offs.slot;
		if (w->offs.teb_frame)
			snprintf(out[k++], KATRA_NOTE_MAX,
				 "wine stacks: syscall frame at TEB+0x%x, rip rsp rbp at "
				 "+0x%x +0x%x +0x%x%s (read from %s)",
				 w->offs.teb_frame, s[0], s[1], s[2],
				 katra_wine_frame_is_default(&w->offs) ? "" : " (not the constants')",
				 w->path);
		else
			snprintf(out[k++], KATRA_NOTE_MAX,
				 "wine stacks off for the processes that map %s: %s", w->path,
				 w->why ? w->why : "not read");
	}
	return k;
}
