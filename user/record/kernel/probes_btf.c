// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's BTF, mapped rather than read, and parsed once per start-up.
 * /sys/kernel/btf/vmlinux reads a page per read() call: libbpf 1.1's
 * btf__load_vmlinux_btf makes ~1,350 of them for 5.5 MiB (~12-20 ms here,
 * most of it in the kernel).  Since Linux 6.16 the file can be mapped
 * (private, read-only); parsed from the mapping it takes ~5 ms.  A start-up
 * wants it three times (the flavours' choice, the skeleton's load, the
 * syscall probes' object: probes_split.c), at once on three threads: while
 * pk_btf_share is on, every caller gets the one copy (the first parses it,
 * the others wait for it), and libbpf's btf__free of it drops a reference.
 * The names of the structs and unions no program names are blanked in it,
 * for libbpf's CO-RE candidate search (probes_btfnames.c), where that search
 * walks it: not where it walks the cut CO-RE copy (probes_btfcore.c).
 * Its lookups of typedefs by name go through an index built beside the
 * parse (probes_btfindex.c).  These definitions take the place of libbpf's for
 * libbpf's own calls too (it calls all three through its PLT, so the
 * executable's come first: checked with objdump for Debian's 1.1.2); where
 * the file cannot be mapped, libbpf's own parse runs, unchanged. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "probes_int.h"

static struct btf *map_vmlinux_btf(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	struct stat st;
	void *m;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			btf = btf__new(m, (__u32)st.st_size); /* a copy: unmapped after */
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return btf;
}

/* Whether the kernel's BTF file can be mapped (Linux 6.16+): tried once. */
bool pk_btf_mappable(void)
{
	static int known = -1;
	int fd;
	struct stat st;
	void *m = MAP_FAILED;

	if (known >= 0)
		return known;
	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	known = 0;
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && st.st_size > 0)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	munmap(m, (size_t)st.st_size);
	known = 1;
	return true;
}

/* Set on a thread inside libbpf's own btf__load_vmlinux_btf, whose
 * btf__parse of the same path must be libbpf's (and not wait for the lock
 * its caller may hold) */
static __thread bool in_libbpfs_load;

static struct btf *libbpfs_load(void)
{
	struct btf *(*libbpfs)(void), *btf;

	libbpfs = (struct btf *(*)(void))dlsym(RTLD_NEXT, "btf__load_vmlinux_btf");
	if (!libbpfs) {
		errno = ENOENT;
		return NULL;
	}
	in_libbpfs_load = true;
	btf = libbpfs();
	in_libbpfs_load = false;
	return btf;
}

/* Whether /sys/kernel/btf holds vmlinux alone (no module BTF). */
static bool no_module_btf(void)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *de;
	bool alone = d != NULL;

	while (d && alone && (de = readdir(d)))
		alone = de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux");
	if (d)
		closedir(d);
	return alone;
}

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static bool sharing;
/* The copy parsed ahead, on a thread started when sharing begins (before
 * the skeleton is opened: its ~3 ms on the main thread overlap the ~5 ms
 * of the copy and the parse, which every later step waits for); the first
 * sharing caller takes it.  Under share_lock. */
static pthread_t ahead_t;
static bool ahead_running;
static struct btf *ahead;
static struct btf *shared;   /* the one copy, NULL before the first call */
static unsigned shared_refs; /* the share's own and each caller's not yet freed */
static struct pk_btf_index *shared_index; /* its lookups by name (NULL: walks) */
/* The shared copy's functions looked up by name, with their ids: a walk of
 * every type each (~0.4 ms here), and the same kfunc is asked for by the
 * flavours' choice and by each object's load (bpf_rdonly_cast: 3 times). */
#define FUNC_MEMO 8
static struct {
	char name[64];
	int id;
} func_memo[FUNC_MEMO];
static unsigned func_memo_n; /* under share_lock; emptied with the copy */
/* The CO-RE copy (probes_btfcore.c), made from the shared one at the first
 * btf__parse(CORE_PATH) while sharing, and its references as above. */
#define CORE_PATH "/sys/kernel/btf/vmlinux"
static pthread_mutex_t core_lock = PTHREAD_MUTEX_INITIALIZER;
static bool core_wanted, core_tried, core_cache_tried;
static char core_key[1024]; /* the cache's (btfcache.h), set with core_cache_tried */
static struct btf *core;
static unsigned core_refs;

static void *ahead_main(void *arg)
{
	(void)arg;
	ahead = map_vmlinux_btf(); /* read by the taker after the join */
	return NULL;
}

/* The copy parsed ahead, its thread joined (NULL: none).  Under share_lock. */
static struct btf *take_ahead(void)
{
	struct btf *btf;

	if (ahead_running)
		pthread_join(ahead_t, NULL);
	ahead_running = false;
	btf = ahead;
	ahead = NULL;
	return btf;
}

/* Starts the parse ahead where the file can be mapped (else libbpf's own
 * parse runs, as before).  Under share_lock. */
static void start_ahead(void)
{
	sigset_t all, old;

	if (ahead_running || ahead || !pk_btf_mappable())
		return;
	sigfillset(&all); /* signals are the capture loop's business */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ahead_running = !pthread_create(&ahead_t, NULL, ahead_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

struct btf *btf__load_vmlinux_btf(void)
{
	struct btf *btf = NULL;
	bool shares;
	int err = 0;

	pthread_mutex_lock(&share_lock);
	shares = sharing;
	if (shares) {
		if (!shared) {
			shared = take_ahead();
			if (!shared)
				shared = map_vmlinux_btf();
			if (!shared)
				shared = libbpfs_load();
			err = shared ? 0 : errno;
			/* for libbpf's candidate search, which walks the cut
			 * instead where there is one (pk_btf_core_path) */
			if (shared && !pk_btf_core_path())
				pk_btf_blank_names(shared); /* probes_btfnames.c */
			shared_refs = shared ? 1 : 0;
			shared_index = shared ? pk_btf_index_build(shared) : NULL;
		}
		if (shared)
			shared_refs++;
		btf = shared;
	}
	pthread_mutex_unlock(&share_lock);
	if (shares) {
		errno = err;
		return btf;
	}
	btf = map_vmlinux_btf();
	return btf ? btf : libbpfs_load();
}

const char *pk_btf_core_path(void)
{
	return core_wanted ? CORE_PATH : NULL;
}

/* libbpf's parse of a btf_custom_path (its CO-RE relocations' BTF): the
 * CO-RE copy for CORE_PATH while sharing, else libbpf's own. */
struct btf *btf__parse(const char *path, struct btf_ext **btf_ext)
{
	struct btf *(*libbpfs)(const char *, struct btf_ext **);
	struct btf *btf = NULL, *vm;

	if (path && !btf_ext && !in_libbpfs_load && !strcmp(path, CORE_PATH)) {
		bool build, made = false;

		pthread_mutex_lock(&core_lock);
		if (core_wanted && !core_tried && !core_cache_tried) {
			/* kept by an earlier capture: the shared copy not waited for */
			core_cache_tried = true;
			core = pk_btf_core_cached(core_key, sizeof(core_key));
			core_tried = core != NULL;
			core_refs = core ? 1 : 0;
		}
		build = core_wanted && !core_tried;
		pthread_mutex_unlock(&core_lock);
		vm = build ? btf__load_vmlinux_btf() : NULL; /* the shared copy */
		pthread_mutex_lock(&core_lock);
		if (core_wanted && !core_tried && vm) {
			core_tried = true;
			core = pk_btf_core_build(vm);
			core_refs = core ? 1 : 0;
			made = core != NULL;
		}
		if (core_wanted && core) {
			core_refs++;
			btf = core;
		}
		build = core_wanted && !core;
		pthread_mutex_unlock(&core_lock);
		if (vm)
			btf__free(vm);
		if (made)
			pk_btf_core_keep(core_key, btf); /* its reference is held */
		if (btf)
			return btf;
		if (build) /* not made: the whole of the shared copy, as without it */
			return btf__load_vmlinux_btf();
	}
	libbpfs = (struct btf *(*)(const char *, struct btf_ext **))dlsym(RTLD_NEXT, "btf__parse");
	if (!libbpfs) {
		errno = ENOENT;
		return NULL;
	}
	return libbpfs(path, btf_ext);
}

/* Drops one reference to the CO-RE copy (and the share's own with own);
 * sets *free_now to it with the last.  Returns whether btf was it. */
static bool put_core(struct btf *btf, bool own, struct btf **free_now)
{
	bool mine;

	*free_now = NULL;
	pthread_mutex_lock(&core_lock);
	mine = core && (own || btf == core);
	if (mine && !--core_refs) {
		*free_now = core;
		core = NULL;
	}
	if (own) {
		core_wanted = false;
		core_tried = false;
		core_cache_tried = false;
	}
	pthread_mutex_unlock(&core_lock);
	return mine;
}

/* Drops one reference to the shared copy; it is freed with the last.
 * Returns whether btf was the shared copy. */
static bool put_shared(struct btf *btf, struct btf **free_now)
{
	bool mine;

	*free_now = NULL;
	if (put_core(btf, false, free_now))
		return true;
	pthread_mutex_lock(&share_lock);
	mine = btf && btf == shared;
	if (mine && !--shared_refs) {
		*free_now = shared;
		shared = NULL;
		pk_btf_index_free(shared_index);
		func_memo_n = 0;
		shared_index = NULL;
	}
	pthread_mutex_unlock(&share_lock);
	return mine;
}

static void libbpfs_free(struct btf *btf)
{
	void (*libbpfs)(struct btf *) = (void (*)(struct btf *))dlsym(RTLD_NEXT, "btf__free");

	if (libbpfs)
		libbpfs(btf);
}

void btf__free(struct btf *btf)
{
	struct btf *last;

	if (!put_shared(btf, &last))
		libbpfs_free(btf);
	else if (last)
		libbpfs_free(last);
}

static void *free_main(void *btf)
{
	libbpfs_free(btf);
	return NULL;
}

/* The copy freed on a thread of its own: ~1 ms (its 5.5 MiB handed back, a
 * TLB flush on every CPU) that the start-up need not wait for. */
static void free_aside(struct btf *btf)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all); /* signals are the capture loop's business */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, &attr, free_main, btf);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		libbpfs_free(btf);
}

void pk_btf_share(bool on)
{
	struct btf *last = NULL, *core_last = NULL, *unused = NULL;

	if (on) {
		pthread_mutex_lock(&core_lock);
		core_wanted = !getenv("KATRA_TEST_FULL_BTF") && pk_btf_mappable() &&
			      no_module_btf();
		pthread_mutex_unlock(&core_lock);
	} else {
		put_core(NULL, true, &core_last);
	}
	if (core_last)
		free_aside(core_last);

	pthread_mutex_lock(&share_lock);
	if (on && !sharing && !shared)
		start_ahead();
	if (!on)
		unused = take_ahead(); /* a load that failed before its first parse */
	if (on != sharing && shared) {
		/* the share's own reference: callers that still hold the copy
		 * free it through btf__free, the last one for good */
		if (on)
			shared_refs++;
		else if (!--shared_refs)
			last = shared;
		if (last) {
			shared = NULL;
			pk_btf_index_free(shared_index);
			func_memo_n = 0;
			shared_index = NULL;
		}
	}
	sharing = on;
	if (!on)
		pk_btf_keep_free(); /* a copy parsed from now on keeps every name */
	pthread_mutex_unlock(&share_lock);
	if (last)
		free_aside(last);
	if (unused)
		libbpfs_free(unused);
}

__s32 btf__find_by_name_kind(const struct btf *btf, const char *type_name, __u32 kind)
{
	__s32 (*libbpfs)(const struct btf *, const char *, __u32);
	const struct pk_btf_index *ix = NULL;
	bool memo = false;
	int id = 0;

	pthread_mutex_lock(&share_lock);
	if (btf && btf == shared) {
		ix = shared_index; /* freed only with the copy, which the caller holds */
		memo = kind == BTF_KIND_FUNC && type_name &&
		       strlen(type_name) < sizeof(func_memo[0].name);
		for (unsigned i = 0; memo && !id && i < func_memo_n; i++)
			if (!strcmp(func_memo[i].name, type_name))
				id = func_memo[i].id;
	}
	pthread_mutex_unlock(&share_lock);
	if (id) {
		if (id < 0)
			errno = -id;
		return id;
	}
	if (ix && type_name && *type_name && kind == BTF_KIND_TYPEDEF && strcmp(type_name, "void")) {
		id = pk_btf_index_find(ix, btf, type_name);
		if (id < 0)
			errno = -id;
		return id;
	}
	libbpfs = (__s32 (*)(const struct btf *, const char *, __u32))dlsym(
		RTLD_NEXT, "btf__find_by_name_kind");
	if (!libbpfs) {
		errno = ENOENT;
		return -ENOENT;
	}
	id = libbpfs(btf, type_name, kind);
	pthread_mutex_lock(&share_lock);
	if (memo && btf == shared && func_memo_n < FUNC_MEMO) {
		snprintf(func_memo[func_memo_n].name, sizeof(func_memo[0].name), "%s", type_name);
		func_memo[func_memo_n++].id = id;
	}
	pthread_mutex_unlock(&share_lock);
	if (id < 0)
		errno = -id;
	return id;
}
