// SPDX-License-Identifier: GPL-2.0-only
/* The Vulkan driver's entry points, resolved by katra-vkresolve (the ICD's
 * own vkGetDeviceProcAddr), or the loader's exports as a fallback. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asproc.h"
#include "uprobes_int.h"
#include "vkcache.h"

/* ---- Vulkan: the driver's entry points through katra-vkresolve ---- */

static const char *const vk_functions[] = {
	"vkQueueSubmit", "vkQueueSubmit2", "vkQueuePresentKHR", "vkWaitForFences",
	"vkWaitSemaphores", "vkAcquireNextImageKHR",
};

/* Its index in vk_functions, or -1. */
static int vk_function_index(const char *name)
{
	for (size_t i = 0; i < sizeof(vk_functions) / sizeof(vk_functions[0]); i++)
		if (!strcmp(vk_functions[i], name))
			return (int)i;
	return -1;
}

static bool is_vk_function(const char *name)
{
	return vk_function_index(name) >= 0;
}

/* The Vulkan loader's variables that choose drivers, copied from the
 * environment of the process whose /proc/PID directory is procfd into envp
 * (NULL-terminated; strings malloc'ed). */
static size_t vk_environ_at(int procfd, char **envp, size_t cap)
{
	static const char *const keep[] = {
		"VK_ICD_FILENAMES=", "VK_DRIVER_FILES=", "VK_ADD_DRIVER_FILES=",
		"VK_LOADER_DRIVERS_SELECT=", "VK_LOADER_DRIVERS_DISABLE=", "LD_LIBRARY_PATH=",
		"MESA_VK_DEVICE_SELECT=", "XDG_DATA_DIRS=",
	};
	char *buf = NULL;
	size_t n = 0, len = 0, bcap = 0;
	int fd = openat(procfd, "environ", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;

	if (!f && fd >= 0)
		close(fd);
	if (f) {
		ssize_t got;
		while ((got = getdelim(&buf, &bcap, '\0', f)) > 0) {
			len = (size_t)got;
			for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]) && n + 1 < cap; k++)
				if (!strncmp(buf, keep[k], strlen(keep[k])) && len > 1)
					envp[n++] = strdup(buf);
		}
		fclose(f);
	}
	free(buf);
	envp[n] = NULL;
	return n;
}

static size_t vk_environ(uint32_t pid, char **envp, size_t cap)
{
	char path[64];
	int procfd;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u", pid);
	procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n = vk_environ_at(procfd, envp, cap);
	if (procfd >= 0)
		close(procfd);
	return n;
}

/* The root a process sees, when it is not ours (a container's, a chroot:
 * /proc/PID/root), into out; false when it is ours. */
static bool other_root(uint32_t pid, char *out, size_t cap)
{
	struct stat mine, its;

	snprintf(out, cap, "/proc/%u/root", pid);
	return !stat("/", &mine) && !stat(out, &its) &&
	       (mine.st_dev != its.st_dev || mine.st_ino != its.st_ino);
}

/* Whether the helper already ran for the root pid sees; if not, notes that
 * it runs now (false: a root never seen, or no room left to remember). */
static bool vk_root_resolved(struct katra_uprobes *u, uint32_t pid, bool mark)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/root", pid);
	if (stat(path, &st))
		return false;
	for (unsigned i = 0; i < u->vk_nroots; i++)
		if (u->vk_roots[i].dev == st.st_dev && u->vk_roots[i].ino == st.st_ino)
			return true;
	if (mark && u->vk_nroots < sizeof(u->vk_roots) / sizeof(u->vk_roots[0])) {
		u->vk_roots[u->vk_nroots].dev = st.st_dev;
		u->vk_roots[u->vk_nroots++].ino = st.st_ino;
	}
	return false;
}

/* Runs the helper: lines "entry FUNCTION VADDR PATH".  It loads the drivers
 * (and, through its ELF interpreter, the ld.so and libc) of the root pid
 * sees, chosen by pid's environment: code that process controls.  So it
 * runs with no more power than pid has (asproc.h: its namespaces, root,
 * ids, no capability); the paths it prints are inside that root.  Its
 * output is capped.  -EPERM: it could not run so (u->vk_why says why). */
#define VKRESOLVE_MAX_OUT (1u << 20)
static int vk_spawn(struct katra_uprobes *u, uint32_t pid, struct up_vk_run *run)
{
	char *envp[16], *argv[] = { u->vkresolve, NULL };
	int pfd[2] = { -1, -1 }, exe = -1, rc;
	size_t n = 0;
	struct katra_asproc a;

	if (access(u->vkresolve, X_OK))
		return -errno;
	if (katra_asproc_open(pid, &a, u->vk_why, sizeof(u->vk_why))) {
		rc = -EPERM;
		goto out;
	}
	/* opened here: the process's root need not have it */
	if ((exe = open(u->vkresolve, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		goto out;
	}
	n = vk_environ_at(a.procfd, envp, 15);
	if (pipe2(pfd, O_CLOEXEC)) {
		rc = -ENOMEM;
		goto out;
	}
	if (katra_asproc_spawn(&a, exe, argv, envp, pfd[1], VKRESOLVE_TIMEOUT_MS, &run->child,
			       &run->errfd, u->vk_why, sizeof(u->vk_why))) {
		rc = -EPERM;
		goto out;
	}
	__atomic_store_n(&u->vk_child, run->child, __ATOMIC_SEQ_CST);
	rc = 0;
	run->fd = pfd[0];
	run->pid = pid;
	pfd[0] = -1;
	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	run->started = (long long)time(NULL);
out:
	for (int i = 0; i < 2; i++)
		if (pfd[i] >= 0)
			close(pfd[i]);
	if (exe >= 0)
		close(exe);
	for (size_t i = 0; i < n; i++)
		free(envp[i]);
	katra_asproc_close(&a);
	return rc;
}

/* Its output, once it has exited (killed at VKRESOLVE_TIMEOUT_MS after its
 * start): 0; -ETIMEDOUT; -EPERM: it could not run as the process; -ECHILD:
 * it failed (u->vk_why says why). */
static int vk_collect(struct katra_uprobes *u, struct up_vk_run *run, char **out, size_t *outlen)
{
	size_t cap = 4096, len = 0;
	pid_t child = run->child;
	char *buf = malloc(cap);
	bool timed_out = false;
	ssize_t got;
	int st;

	for (;;) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = VKRESOLVE_TIMEOUT_MS - ((t.tv_sec - run->t0.tv_sec) * 1000 +
						    (t.tv_nsec - run->t0.tv_nsec) / 1000000);
		struct pollfd pf = { .fd = run->fd, .events = POLLIN };
		int pr = left > 0 ? poll(&pf, 1, (int)left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			kill(child, SIGKILL); /* a driver hung in vkCreateDevice */
			timed_out = true;
			break;
		}
		if (!buf || (len + 1024 > cap && cap >= VKRESOLVE_MAX_OUT)) {
			kill(child, SIGKILL); /* far more than any driver list */
			break;
		}
		if (len + 1024 > cap) {
			char *m = realloc(buf, cap * 2);
			if (!m)
				break;
			buf = m;
			cap *= 2;
		}
		got = read(run->fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(run->fd);
	run->child = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	__atomic_store_n(&u->vk_child, 0, __ATOMIC_SEQ_CST);
	if (katra_asproc_failed(run->errfd, u->vk_why, sizeof(u->vk_why))) {
		free(buf);
		return -EPERM;
	}
	if (timed_out || !buf || !WIFEXITED(st) || WEXITSTATUS(st)) {
		if (timed_out)
			u->vk_timeouts++;
		else if (buf && WIFEXITED(st))
			snprintf(u->vk_why, sizeof(u->vk_why), "exit %d", WEXITSTATUS(st));
		else if (buf)
			snprintf(u->vk_why, sizeof(u->vk_why), "killed by signal %d", WTERMSIG(st));
		free(buf);
		return timed_out ? -ETIMEDOUT : !buf ? -ENOMEM : -ECHILD;
	}
	buf[len] = 0;
	*out = buf;
	*outlen = len;
	return 0;
}

/* A refused cache directory or file, said once: the helper runs. */
static void vk_cache_refused(struct katra_uprobes *u, const char *why)
{
	if (u->vk_cache_said || u->o.quiet)
		return;
	u->vk_cache_said = true;
	fprintf(stderr, "katra-record: vulkan driver cache refused: %s: katra-vkresolve runs "
		"instead (hint: the directory must be root's, mode 0700)\n", why);
}

/* The cache key for pid's run (vkcache.h), malloc'ed; NULL when its answer
 * is not kept (another root or mount namespace). */
static char *vk_key(struct katra_uprobes *u, uint32_t pid)
{
	char *envp[16], *key = malloc(KATRA_VKCACHE_KEY_MAX);
	size_t n = vk_environ(pid, envp, 15);

	if (key && katra_vkcache_key(pid, u->vkresolve, envp, key, KATRA_VKCACHE_KEY_MAX)) {
		free(key);
		key = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(envp[i]);
	return key;
}

/* A kept answer for pid: 0 and *out, else -ENOENT. */
static int vk_cache_get(struct katra_uprobes *u, uint32_t pid, const char *key, char **out,
			size_t *outlen)
{
	char why[256] = "";
	int rc;

	if (!key)
		return -ENOENT;
	rc = katra_vkcache_load(key, out, outlen, why, sizeof(why));
	if (rc == -EPERM)
		vk_cache_refused(u, why);
	(void)pid;
	return rc ? -ENOENT : 0;
}

static int run_vkresolve(struct katra_uprobes *u, uint32_t pid, const char *root, char **out,
			 size_t *outlen)
{
	struct up_vk_run run;
	char *key = NULL, why[256] = "";
	long long started;
	int rc;

	if (!root && u->vk_cached && u->vk_cached_pid == pid) {
		*out = u->vk_cached; /* found with the command (katra_uprobes_command_early) */
		*outlen = strlen(*out);
		u->vk_cached = NULL;
		return 0;
	}
	if (!root && u->vk_early.child > 0 && u->vk_early.pid == pid) {
		run = u->vk_early; /* started with the command (up_vk_start_early) */
		u->vk_early.child = 0;
	} else {
		if (!root && (key = vk_key(u, pid)) && !vk_cache_get(u, pid, key, out, outlen)) {
			free(key);
			return 0;
		}
		if ((rc = vk_spawn(u, pid, &run))) {
			free(key);
			return rc;
		}
	}
	started = run.started;
	rc = vk_collect(u, &run, out, outlen);
	if (!rc && !root && !key)
		key = vk_key(u, pid);
	/* kept only when it named an entry point: a failure runs again */
	if (!rc && key && strstr(*out, "entry ") &&
	    katra_vkcache_store(key, *out, *outlen, started, why, sizeof(why)) == -EPERM)
		vk_cache_refused(u, why);
	free(key);
	return rc;
}

/* Attaches one resolved entry point (file + vaddr), once per (file, offset):
 * file as the helper names it inside pid's root (pid 0: ours), path as it
 * is said. */
static int probe_vk_entry(struct katra_uprobes *u, uint32_t pid, const char *fn,
			  const char *file, const char *path, uint64_t vaddr)
{
	char label[160], prog[64];
	struct elf_file ef;
	struct stat st;
	const char *why = NULL;
	uint64_t off;
	struct probed_file *f;
	int n = 0, fd, rc;

	snprintf(label, sizeof(label), "%.96s:%.60s", up_base_name(path), fn);
	/* inside its root, its links followed there only */
	rc = up_open_mapped(u, pid, file, KATRA_PROC_AS_IS | KATRA_PROC_FOLLOW, KATRA_PROC_ANY_DEV,
			    0, &fd, &st);
	if (rc) {
		up_failed(u, label, "%s: %s", path, katra_proc_why(rc));
		return 0;
	}
	if (up_elf_open(fd, &ef, &why)) {
		up_failed(u, label, "%s: %s", path, why);
		close(fd);
		return 0;
	}
	rc = up_elf_vaddr_to_offset(ef.e, vaddr, &off);
	up_elf_close(&ef);
	if (rc) {
		up_failed(u, label, "0x%llx is in no loadable segment of %s", (unsigned long long)vaddr,
		       path);
		close(fd);
		return 0;
	}
	f = up_find_file(u, st.st_dev, st.st_ino);
	if (!f)
		f = up_add_file(u, &st, path, FILE_VK_DRIVER);
	/* the same function on several devices of one driver file: once (the
	 * same driver in another root is another file) */
	int fi = vk_function_index(fn);
	if (!f || fi < 0 || (f->vk_functions & (1u << fi))) {
		close(fd);
		return f ? 0 : -ENOMEM;
	}
	f->vk_functions |= 1u << fi;
	snprintf(prog, sizeof(prog), "up_%.56s", fn);
	/* the return first: a call is seen whole or not at all; through the
	 * file read (a queued attach holds a copy of fd) */
	up_via(u, fd, path);
	if (!up_attach_at(u, label, "ur_vulkan", path, off, true))
		n++;
	if (!up_attach_at(u, label, prog, path, off, false))
		n++;
	up_via_end(u);
	close(fd);
	f->nprobes += (unsigned)n;
	return n;
}

/* The loader's own exports (calls through vkGetDeviceProcAddr pointers do
 * not pass there). */
static int probe_vk_loader_exports(struct katra_uprobes *u, const char *path, int fd)
{
	struct elf_file ef;
	const char *why = NULL;
	int n = 0;

	if (up_elf_open(fd, &ef, &why)) {
		up_failed(u, up_base_name(path), "%s: %s", path, why);
		return 0;
	}
	up_via(u, fd, path); /* probed through the file read */
	up_batch_begin(u); /* one uprobe_multi link per program, where they work */
	for (size_t i = 0; i < sizeof(vk_functions) / sizeof(vk_functions[0]); i++) {
		char prog[64];
		snprintf(prog, sizeof(prog), "up_%s", vk_functions[i]);
		n += up_attach_function(u, ef.e, path, vk_functions[i], prog, "ur_vulkan");
	}
	n -= (int)up_batch_end(u);
	up_via_end(u);
	up_elf_close(&ef);
	return n;
}

/* Runs katra-vkresolve with pid's environment and probes the entry points it
 * names: the probes attached; *found: the entry points named. */
static int probe_vk_drivers(struct katra_uprobes *u, uint32_t pid, const char *root,
			    int *found)
{
	char *out = NULL, *line, *save = NULL;
	size_t len = 0;
	int n = 0, rc;

	*found = 0;
	rc = run_vkresolve(u, pid, root, &out, &len);
	if (rc)
		return rc;
	/* one uprobe_multi link per program and driver file, where they work */
	up_batch_begin(u);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char fn[64], path[PATH_MAX], seen[PATH_MAX + 64];
		unsigned long long vaddr;
		if (sscanf(line, "entry %63s %llx %4095s", fn, &vaddr, path) != 3 ||
		    !is_vk_function(fn))
			continue;
		(*found)++;
		/* a path inside the process's root, as seen from here */
		snprintf(seen, sizeof(seen), "%s%s", root ? root : "", path);
		int got = probe_vk_entry(u, root ? pid : 0, fn, path, seen, vaddr);
		if (got < 0) {
			up_batch_end(u);
			free(out);
			return got;
		}
		n += got;
	}
	n -= (int)up_batch_end(u);
	free(out);
	return n;
}

int up_probe_vulkan(struct katra_uprobes *u, uint32_t pid, const char *loader, int fd,
		    const struct stat *st)
{
	struct probed_file *f = up_add_file(u, st, loader, FILE_VK_LOADER);
	char root[64], label[64];
	bool in_root = other_root(pid, root, sizeof(root));
	int n = 0, found = 0, rc;

	if (!f)
		return -ENOMEM;
	if (vk_root_resolved(u, pid, true))
		return 0; /* this root's drivers are probed already (one helper run per root) */
	rc = probe_vk_drivers(u, pid, in_root ? root : NULL, &found);
	if (rc == -ENOMEM)
		return rc;
	if (rc > 0)
		n = rc;
	/* said when it happens (after the header, in the summary's
	 * probes_failed): for this process, the layer is off or partial */
	snprintf(label, sizeof(label), "vulkan drivers of process %u", pid);
	if (rc == -EPERM) { /* nothing runs with more power than the process has */
		up_failed(u, label, "katra-vkresolve cannot run with no more power than the "
			  "process has (%s): layer vulkan off for it", u->vk_why);
	} else if (rc < 0 || !found) {
		char why[160];
		if (rc == -ECHILD)
			snprintf(why, sizeof(why), "katra-vkresolve failed (%s)", u->vk_why);
		else
			snprintf(why, sizeof(why), "%s",
				 rc == -ENOENT ? "katra-vkresolve not found"
				 : rc == -ETIMEDOUT ? "katra-vkresolve timed out after 10 s (killed)"
				 : rc ? "katra-vkresolve failed" : "no driver entry point resolved");
		up_failed(u, label, "%s: the loader's exports are probed (calls through "
			  "vkGetDeviceProcAddr pointers are not seen)", why);
		n += probe_vk_loader_exports(u, loader, fd);
	}
	/* said as it happens: the layer of a process in another root comes
	 * later than its first Vulkan calls (t_proton_d3d11 waits for this) */
	if (in_root && n > 0 && !u->o.quiet)
		fprintf(stderr, "katra-record: layer vulkan: %d uprobes on the drivers in %s\n", n,
			root);
	f = up_find_file(u, st->st_dev, st->st_ino); /* probe_vk_entry may move files */
	if (f)
		f->nprobes = (unsigned)n;
	return n;
}

/* Whether the loader has a driver to load for pid: its VK_ICD_FILENAMES /
 * VK_DRIVER_FILES, or a manifest in the directories it searches. */
static bool vk_has_driver(uint32_t pid)
{
	static const char *const dirs[] = {
		"/usr/share/vulkan/icd.d/*.json", "/usr/local/share/vulkan/icd.d/*.json",
		"/etc/vulkan/icd.d/*.json",
	};
	char *envp[16];
	size_t n = vk_environ(pid, envp, 15);
	bool yes = false;

	for (size_t i = 0; i < n; i++) {
		if (!strncmp(envp[i], "VK_ICD_FILENAMES=", 17) ||
		    !strncmp(envp[i], "VK_DRIVER_FILES=", 16) ||
		    !strncmp(envp[i], "VK_ADD_DRIVER_FILES=", 20))
			yes = true;
		free(envp[i]);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !yes; i++) {
		glob_t g;
		if (!glob(dirs[i], 0, NULL, &g))
			yes = g.gl_pathc > 0;
		globfree(&g);
	}
	return yes;
}

int up_prepare_vulkan(struct katra_uprobes *u, uint32_t pid)
{
	int found = 0, rc;

	if (!u->o.vulkan || vk_root_resolved(u, pid, false) || !vk_has_driver(pid))
		return 0;
	/* uprobes are per inode: a driver file probed now catches the command's
	 * first call, whenever it maps the file */
	rc = probe_vk_drivers(u, pid, NULL, &found);
	if (rc == -ETIMEDOUT || rc == -EPERM || found)
		vk_root_resolved(u, pid, true); /* once per root; the loader's mapping finds it so */
	/* before the header, which says it */
	if (rc == -ETIMEDOUT)
		snprintf(u->vk_note, sizeof(u->vk_note),
			 "layer vulkan off: katra-vkresolve timed out after 10 s (killed)");
	if (rc == -EPERM)
		snprintf(u->vk_note, sizeof(u->vk_note),
			 "layer vulkan off: katra-vkresolve cannot run with no more power than "
			 "process %u has (%s)", pid, u->vk_why);
	if ((rc == -ETIMEDOUT || rc == -EPERM) && !u->o.quiet)
		fprintf(stderr, "katra-record: %s\n", u->vk_note);
	return rc > 0 ? rc : 0;
}

void katra_uprobes_command_early(struct katra_uprobes *u, uint32_t pid)
{
	char *key, *out = NULL;
	size_t len;

	if (!u || !u->o.vulkan || u->vk_early.child || u->vk_cached || !vk_has_driver(pid))
		return;
	key = vk_key(u, pid);
	if (!vk_cache_get(u, pid, key, &out, &len)) {
		u->vk_cached = out; /* nothing to run: the answer is kept */
		u->vk_cached_pid = pid;
	} else {
		vk_spawn(u, pid, &u->vk_early); /* on failure: run again later */
	}
	free(key);
}

bool katra_uprobes_early_known(const struct katra_uprobes *u)
{
	return u && u->o.vulkan && u->vk_cached;
}

/* Whether pid's maps name the Vulkan loader (libvulkan.so*, as
 * uprobes_scan.c finds it) */
static bool maps_vk_loader(uint32_t pid)
{
	char path[64], line[PATH_MAX + 128];
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	while (f && !yes && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n'), *p = strchr(line, '/');
		if (nl)
			*nl = 0;
		yes = p && !strncmp(up_base_name(p), "libvulkan.so", 12);
	}
	if (f)
		fclose(f);
	return yes;
}

void katra_uprobes_pid_early(struct katra_uprobes *u, uint32_t pid)
{
	char root[64], *key, *out = NULL;
	size_t len;

	/* one answer kept at most; another root's is never kept */
	if (!u || !u->o.vulkan || u->vk_early.child || u->vk_cached ||
	    other_root(pid, root, sizeof(root)) || !maps_vk_loader(pid) || !vk_has_driver(pid))
		return;
	key = vk_key(u, pid);
	if (!vk_cache_get(u, pid, key, &out, &len)) {
		u->vk_cached = out;
		u->vk_cached_pid = pid;
		u->vk_cached_scan = true;
	}
	free(key);
}

void up_vk_early_drop(struct katra_uprobes *u)
{
	free(u->vk_cached);
	u->vk_cached = NULL;
	if (u->vk_early.child <= 0)
		return;
	kill(u->vk_early.child, SIGKILL);
	char *out = NULL;
	size_t len;
	if (!vk_collect(u, &u->vk_early, &out, &len))
		free(out);
}
