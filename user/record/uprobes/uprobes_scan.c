// SPDX-License-Identifier: GPL-2.0-only
/* What the uprobes worker does: scanning a target's maps (and a command's
 * launcher before it runs) for the files the layers probe, and sweeping the
 * call states of threads that are gone.  Below the worker
 * (uprobes_worker.c), which the public entry points (uprobes.c) feed. */
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
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/procfs/procpath.h"
#include "ucall_sweep.h"
#include "uprobes_int.h"
#include "winenames.h"

/* ---- which files ---- */

static bool is_ntdll(const char *path)
{
	return !strcmp(up_base_name(path), "ntdll.so") && strstr(path, "wine/");
}

static bool is_vk_loader(const char *path)
{
	return !strncmp(up_base_name(path), "libvulkan.so", 12);
}

static int consider(struct katra_uprobes *u, uint32_t pid, const char *path, uint64_t dev,
		    uint64_t ino, bool vk_only)
{
	struct stat st;
	int fd, n;
	bool wine = u->o.wine && !vk_only;
	bool nt = wine && is_ntdll(path), vk = u->o.vulkan && is_vk_loader(path);
	bool ws = wine && !strncmp(up_base_name(path), "wineserver", 10);
	bool d3 = wine && up_is_d3d12_dll(path);

	if (!nt && !vk && !ws && !d3)
		return 0;
	/* the file the maps line names, inside pid's root, read from this fd
	 * and probed through it */
	if (up_open_mapped(u, pid, path, 0, dev, ino, &fd, &st))
		return 0;
	if (ws) /* a wineserver's own exe: its request names */
		up_load_wineserver(u, fd, &st);
	if (ws || up_find_file(u, st.st_dev, st.st_ino))
		n = 0;
	else if (d3)
		n = up_probe_d3d12(u, pid, path, fd, &st);
	else if (!nt)
		n = up_probe_vulkan(u, pid, path, fd, &st);
	else
		n = up_probe_ntdll(u, pid, path, fd, &st);
	close(fd);
	if (!nt || ws)
		return n;
	up_wine_frame_set(u, pid, &st); /* this process's syscall frame (--stacks) */
	/* said as it happens: a process in another root (a chrooted Wine) has
	 * no launcher here to probe before it runs; its NT calls are seen from
	 * now on (t_wine10_command waits for this) */
	char root[PATH_MAX], link[64];
	snprintf(link, sizeof(link), "/proc/%u/root", pid);
	ssize_t rl = pid ? readlink(link, root, sizeof(root) - 1) : -1;
	if (n > 0 && rl > 1 && !u->o.quiet) {
		root[rl] = '\0';
		fprintf(stderr, "katra-record: layer wine: %d uprobes on ntdll.so in %s\n", n, root);
	}
	return n;
}

static int scan(struct katra_uprobes *u, uint32_t pid, bool vk_only)
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
		unsigned major, minor;
		int pos = -1;
		char *p, *nl;
		/* start-end perms offset major:minor inode path */
		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &major, &minor, &ino, &pos) < 3 ||
		    pos < 0 || !ino)
			continue;
		p = line + pos;
		if (*p != '/')
			continue;
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (strstr(p, " (deleted)"))
			continue;
		int got = consider(u, pid, p, makedev(major, minor), ino, vk_only);
		if (got > 0)
			n += got;
	}
	fclose(f);
	return n;
}

int up_scan_pid(struct katra_uprobes *u, uint32_t pid)
{
	return scan(u, pid, false);
}

void katra_uprobes_early(struct katra_uprobes *u, struct katra_probes *p)
{
	if (!katra_uprobes_early_known(u))
		return;
	u->probes = p;
	/* each marks the root resolved: the later scan or request finds it so */
	if (u->vk_cached_scan)
		scan(u, u->vk_cached_pid, true);
	else
		up_prepare_vulkan(u, u->vk_cached_pid);
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
		int fd;
		snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
		if (!realpath(cand, real) ||
		    up_open_mapped(u, 0, real, 0, KATRA_PROC_ANY_DEV, 0, &fd, &st))
			continue;
		int got = up_find_file(u, st.st_dev, st.st_ino) ? 0
			: up_probe_ntdll(u, 0, real, fd, &st);
		close(fd);
		if (got > 0)
			n += got;
	}
	return n;
}

/* ucall_states through the bpf() syscall (ucall_sweep.h). */
struct sweep_map {
	int fd;
	uint32_t value_size;
};

static int sweep_next_key(void *ctx, const uint64_t *prev, uint64_t *next)
{
	const struct sweep_map *m = ctx;

	return bpf_map_get_next_key(m->fd, prev, next) ? -errno : 0;
}

static int sweep_start_of(void *ctx, uint64_t key, uint64_t *start)
{
	const struct sweep_map *m = ctx;
	uint64_t v[64]; /* struct ucall_state: the thread's start time first */

	if (m->value_size > sizeof(v) || m->value_size < sizeof(*start))
		return -EINVAL;
	if (bpf_map_lookup_elem(m->fd, &key, v))
		return -errno;
	*start = v[0];
	return 0;
}

static int sweep_del(void *ctx, uint64_t key)
{
	const struct sweep_map *m = ctx;

	return bpf_map_delete_elem(m->fd, &key) ? -errno : 0;
}

static bool sweep_thread_gone(void *ctx, uint32_t tid)
{
	char path[64];
	struct stat st;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%u", (unsigned)tid);
	return stat(path, &st) && errno == ENOENT;
}

/* A thread that died inside a probed call (a process exiting while its
 * threads wait, a thread killed) leaves its entry in ucall_states: entries of
 * threads that no longer exist go, so the table does not fill up over a long
 * capture.  A reused tid is told apart by the thread's start time, in BPF
 * and here: a new thread's entry never goes (ucall_sweep.c). */
void up_sweep_states(struct katra_uprobes *u)
{
	struct sweep_map m = { katra_probes_map_fd(u->probes, "ucall_states"), 0 };
	const struct ucall_sweep_map sm = { sweep_next_key, sweep_start_of, sweep_del,
					    sweep_thread_gone, &m };
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	if (m.fd < 0 || !u->nfiles)
		return;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(m.fd, &info, &len))
		m.value_size = info.value_size;
	ucall_sweep(&sm);
}
