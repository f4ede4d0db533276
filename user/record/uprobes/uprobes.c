// SPDX-License-Identifier: GPL-2.0-only
/* Uprobes on Wine's ntdll.so and the Vulkan driver: which files, when
 * (the targets' maps, mmap records), and what could not attach.  The
 * layers' own probes are in uprobes_wine.c and uprobes_vk.c; the ELF
 * reading and attaching they share, in uprobes_attach.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "linger.h"
#include "uprobes_int.h"
#include "winenames.h"

/* ---- which files ---- */

/* path as seen from here: itself when it is the file pid maps (same inode),
 * else through /proc/PID/root (another mount namespace: a container). */
static int host_path(uint32_t pid, const char *path, uint64_t ino, char *out, size_t cap,
		     struct stat *st)
{
	if (!stat(path, st) && st->st_ino == ino) {
		snprintf(out, cap, "%s", path);
		return 0;
	}
	if (pid) {
		snprintf(out, cap, "/proc/%u/root%s", pid, path);
		if (!stat(out, st) && st->st_ino == ino)
			return 0;
	}
	return -ENOENT;
}

static bool is_ntdll(const char *path)
{
	return !strcmp(up_base_name(path), "ntdll.so") && strstr(path, "wine/");
}

static bool is_vk_loader(const char *path)
{
	return !strncmp(up_base_name(path), "libvulkan.so", 12);
}

static int consider(struct katra_uprobes *u, uint32_t pid, const char *path, uint64_t ino)
{
	char hp[PATH_MAX];
	struct stat st;
	bool nt = u->o.wine && is_ntdll(path), vk = u->o.vulkan && is_vk_loader(path);

	if (!nt && !vk)
		return 0;
	if (host_path(pid, path, ino, hp, sizeof(hp), &st))
		return 0;
	if (up_find_file(u, st.st_dev, st.st_ino))
		return 0;
	return nt ? up_probe_ntdll(u, hp, &st) : up_probe_vulkan(u, pid, hp, &st);
}

int up_scan_pid(struct katra_uprobes *u, uint32_t pid)
{
	char path[64], line[PATH_MAX + 128];
	int n = 0;
	FILE *f;

	if (!u || (!u->o.wine && !u->o.vulkan))
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		int pos = -1;
		char *p, *nl;
		/* start-end perms offset dev inode path */
		if (sscanf(line, "%*s %*s %*s %*s %llu %n", &ino, &pos) < 1 || pos < 0 || !ino)
			continue;
		p = line + pos;
		if (*p != '/')
			continue;
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (strstr(p, " (deleted)"))
			continue;
		int got = consider(u, pid, p, ino);
		if (got > 0)
			n += got;
	}
	fclose(f);
	return n;
}

int up_scan_command(struct katra_uprobes *u, const char *path)
{
	static const char *const rel[] = {
		"../lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so",
		"../x86_64-linux-gnu/wine/x86_64-unix/ntdll.so",
		"../lib64/wine/x86_64-unix/ntdll.so",
		"../lib/wine/x86_64-unix/ntdll.so",
		"files/lib64/wine/x86_64-unix/ntdll.so", /* Proton: proton beside files/ */
		"files/lib/wine/x86_64-unix/ntdll.so",
	};
	char real[PATH_MAX], dir[PATH_MAX], cand[PATH_MAX * 2];
	const char *b = up_base_name(path);
	struct stat st;
	int n = 0;

	if (!u || !u->o.wine || (!strstr(b, "wine") && !strstr(b, "proton")))
		return 0;
	up_prepare_wineserver(u, path);
	if (!realpath(path, real))
		return 0;
	snprintf(dir, sizeof(dir), "%s", real);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
		if (stat(cand, &st) || up_find_file(u, st.st_dev, st.st_ino))
			continue;
		if (!realpath(cand, real))
			continue;
		int got = up_probe_ntdll(u, real, &st);
		if (got > 0)
			n += got;
	}
	return n;
}

/* ---- rescans from mmap records ---- */

static uint64_t seen_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	return h ? h : 1;
}

void katra_uprobes_note_mapping(struct katra_uprobes *u, uint32_t pid, uint64_t kdev,
				uint64_t ino)
{
	uint64_t h = seen_hash(kdev, ino);
	size_t i;

	if (!u || (!u->o.wine && !u->o.vulkan) || !u->seen)
		return;
	/* open addressing over SEEN_MAX slots (the drain's own table) */
	for (i = h & (SEEN_MAX - 1); u->seen[i]; i = (i + 1) & (SEEN_MAX - 1)) {
		if (u->seen[i] == h)
			return;
	}
	if (u->nseen < SEEN_MAX * 3 / 4) {
		u->seen[i] = h;
		u->nseen++;
	}
	katra_uprobes_request_scan(u, pid);
}

/* A thread that died inside a probed call (a process exiting while its
 * threads wait, a thread killed) leaves its entry in ucall_states: entries of
 * threads that no longer exist go, so the table does not fill up over a long
 * capture.  (A reused tid is told apart in BPF by the thread's start time.) */
void up_sweep_states(struct katra_uprobes *u)
{
	int fd = katra_probes_map_fd(u->probes, "ucall_states");
	uint64_t key, next, dead[256];
	size_t ndead = 0;
	char path[64];
	struct stat st;
	void *prev = NULL;

	if (fd < 0 || !u->nfiles)
		return;
	while (ndead < 256 && !bpf_map_get_next_key(fd, prev, &next)) {
		snprintf(path, sizeof(path), "/proc/%u", (unsigned)(next >> 2));
		if (stat(path, &st) && errno == ENOENT)
			dead[ndead++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < ndead; i++)
		bpf_map_delete_elem(fd, &dead[i]);
}

/* ---- lifetime and reports ---- */

int katra_uprobes_new(struct katra_probes *p, const struct katra_uprobes_opts *o,
		      struct katra_uprobes **out)
{
	struct katra_uprobes *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->probes = p;
	u->o = *o;
	u->seen = calloc(SEEN_MAX, sizeof(*u->seen));
	if (!u->seen) {
		free(u);
		return -ENOMEM;
	}
	pthread_mutex_init(&u->qlock, NULL);
	pthread_cond_init(&u->qcond, NULL);
	pthread_cond_init(&u->qdone, NULL);
	/* tests: a helper that hangs (t_vulkan_hung) */
	const char *test_helper = getenv("KATRA_TEST_VKRESOLVE");
	if (o->vkresolve || test_helper) {
		snprintf(u->vkresolve, sizeof(u->vkresolve), "%s",
			 o->vkresolve ? o->vkresolve : test_helper);
	} else {
		ssize_t n = readlink("/proc/self/exe", u->vkresolve, sizeof(u->vkresolve) - 1);
		if (n > 0) {
			u->vkresolve[n] = 0;
			char *slash = strrchr(u->vkresolve, '/');
			if (slash)
				snprintf(slash + 1, sizeof(u->vkresolve) - (size_t)(slash + 1 - u->vkresolve),
					 "katra-vkresolve");
		}
	}
	*out = u;
	return 0;
}

/* No traced process is left (the tracked set is empty: every uprobe
 * program returns at its first check, and the teardown's grace period sees
 * the runs in flight end): the links are released by a child, after this
 * process has let go of them (linger.h).  True when it took them. */
static bool hand_over_links(struct katra_uprobes *u)
{
	int *fds, release_fd;
	bool handed;

	if (!u->nlinks || katra_probes_tracked_count(u->probes) ||
	    !(fds = malloc(u->nlinks * sizeof(int))))
		return false;
	for (size_t i = 0; i < u->nlinks; i++)
		fds[i] = bpf_link__fd(u->links[i]);
	handed = katra_linger_fork(fds, u->nlinks, &release_fd);
	free(fds);
	if (!handed)
		return false;
	for (size_t i = 0; i < u->nlinks; i++)
		bpf_link__destroy(u->links[i]); /* our copies: not the last */
	close(release_fd);
	return true;
}

void katra_uprobes_detach(struct katra_uprobes *u)
{
	if (!u)
		return;
	katra_uprobes_stop(u); /* no attach after this */
	if (!hand_over_links(u))
		for (size_t i = 0; i < u->nlinks; i++)
			bpf_link__destroy(u->links[i]);
	u->nlinks = 0;
}

void katra_uprobes_free(struct katra_uprobes *u)
{
	if (!u)
		return;
	katra_uprobes_stop(u);
	katra_uprobes_detach(u);
	pthread_mutex_destroy(&u->qlock);
	pthread_cond_destroy(&u->qcond);
	pthread_cond_destroy(&u->qdone);
	free(u->links);
	free(u->files);
	for (unsigned i = 0; i < u->nnt; i++)
		katra_names_free(u->nt[i].names, u->nt[i].count);
	for (unsigned i = 0; i < u->nreq; i++) {
		katra_names_free(u->req[i].names, u->req[i].count);
		free(u->req[i].strs);
	}
	free(u->seen);
	for (size_t i = 0; i < u->nattached; i++)
		free(u->attached[i]);
	for (size_t i = 0; i < u->nfailed; i++)
		free(u->failed[i]);
	free(u);
}

size_t katra_uprobes_attached(const struct katra_uprobes *u, const char *const **names)
{
	*names = u ? (const char *const *)u->attached : NULL;
	return u ? u->nattached : 0;
}

size_t katra_uprobes_failed(const struct katra_uprobes *u, const char *const **names)
{
	*names = u ? (const char *const *)u->failed : NULL;
	return u ? u->nfailed : 0;
}

static bool have_events_dir(const char *sys)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", sys);
	if (!stat(path, &st))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", sys);
	return !stat(path, &st);
}

size_t katra_uprobes_notes(const struct katra_uprobes *u, char (*out)[KATRA_NOTE_MAX],
			   size_t cap)
{
	size_t n = 0;
	unsigned nt = 0, vk = 0;

	if (!u)
		return 0;
	for (size_t i = 0; i < u->nfiles; i++) {
		const struct probed_file *f = &u->files[i];
		if (n < cap && (f->what & FILE_NTDLL) && !(f->what & FILE_SKIPPED)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer wine: %u uprobes on %.200s", f->nprobes,
				 f->path);
			nt++;
		} else if (n < cap && (f->what & FILE_VK_DRIVER)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer vulkan: %u uprobes on %.200s",
				 f->nprobes, f->path);
			vk++;
		} else if (f->what & FILE_VK_LOADER) {
			vk += f->nprobes ? 1 : 0;
		}
	}
	if (!u->o.wine && !u->o.vulkan && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layers wine and vulkan off: --no-uprobes");
	if (u->o.wine && !nt && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer wine off: no traced process maps Wine's "
			 "ntdll.so at start (probed when one does)");
	for (unsigned i = 0; i < u->nnt && n < cap; i++)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->nt[i].note);
	if (u->vk_note[0] && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->vk_note);
	if (u->o.vulkan && !vk && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer vulkan off: no traced process maps the "
			 "Vulkan loader at start (probed when one does)");
	if (n < cap) {
		bool drm = have_events_dir("drm"), sched = have_events_dir("gpu_scheduler"),
		     fence = have_events_dir("dma_fence");
		if (!drm && !sched && !fence)
			snprintf(out[n++], KATRA_NOTE_MAX, "layer gpu unavailable: no drm, "
				 "gpu_scheduler or dma_fence tracepoints in this kernel");
		else
			snprintf(out[n++], KATRA_NOTE_MAX, "layer gpu off: the kernel has%s%s%s "
				 "tracepoints; this version does not record them",
				 drm ? " drm" : "", sched ? " gpu_scheduler" : "",
				 fence ? " dma_fence" : "");
	}
	return n;
}
