// SPDX-License-Identifier: GPL-2.0-only
/* katra-vkresolve's answers kept between captures (vkcache.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/kernel/btfcache.h"
#include "vkcache.h"

#define VKCACHE_FILE_MAX (1u << 20)
#define VKCACHE_MAGIC "katra-vkcache 1\n"

/* A growing text. */
struct text {
	char *s;
	size_t len, cap;
	bool bad;
	long long newest; /* the latest ctime of a dependency (s) */
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->bad = true;
		return;
	}
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = (t->cap ? t->cap : 4096);
		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		char *m = realloc(t->s, cap);
		if (!m) {
			t->bad = true;
			free(s);
			return;
		}
		t->s = m;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, (size_t)n + 1);
	t->len += (size_t)n;
	free(s);
}

/* One dependency's line: "dep DEV INO SIZE MTIME CTIME PATH" ("-" for each
 * when absent). */
static void dep_line(struct text *t, const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		text_add(t, "dep - - - - - %s\n", path);
		return;
	}
	if ((long long)st.st_ctim.tv_sec > t->newest)
		t->newest = (long long)st.st_ctim.tv_sec;
	text_add(t, "dep %llu %llu %lld %lld.%09ld %lld.%09ld %s\n",
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, path);
}

/* A directory and every entry in it (a manifest added, removed or changed
 * changes one of them). */
static void dep_dir(struct text *t, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096 + 256];

	dep_line(t, dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			t->bad = true; /* not kept: a dependency not looked at */
		else
			dep_line(t, path);
	}
	closedir(d);
}

/* The value of "env NAME=" in key, or NULL; up to the line's end in out. */
static const char *key_env(const char *key, const char *name, char *out, size_t cap)
{
	char pat[64];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "\nenv %s=", name);
	p = strstr(key, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	end = strchr(p, '\n');
	snprintf(out, cap, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return out;
}

/* Each ':'-separated element of list, with suffix, as a directory or file. */
static void dep_list(struct text *t, const char *list, const char *suffix, bool dirs)
{
	char *copy = strdup(list), *save = NULL, path[4096 + 64];

	if (!copy) {
		t->bad = true;
		return;
	}
	for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s%s", p, suffix);
		struct stat st;
		if (dirs || (!stat(path, &st) && S_ISDIR(st.st_mode)))
			dep_dir(t, path);
		else
			dep_line(t, path);
	}
	free(copy);
}

/* What the helper's answer for key depends on, out its output (its "file"
 * and "entry" lines name what it loaded). */
static void deps(struct text *t, const char *key, const char *out)
{
	static const char *const fixed[] = { "/etc/ld.so.cache", "/dev/dri" };
	static const char *const kinds[] = { "icd.d", "implicit_layer.d" };
	char v[4096], sfx[64];

	if (sscanf(key, "helper %4095[^\n]", v) == 1)
		dep_line(t, v);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		dep_line(t, fixed[i]);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		snprintf(sfx, sizeof(sfx), "/vulkan/%s", kinds[k]);
		dep_list(t, "/etc/xdg:/etc", sfx, true);
		dep_list(t, key_env(key, "XDG_DATA_DIRS", v, sizeof(v)) ? v
			    : "/usr/local/share:/usr/share", sfx, true);
	}
	static const char *const files[] = { "VK_ICD_FILENAMES", "VK_DRIVER_FILES",
					     "VK_ADD_DRIVER_FILES" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (key_env(key, files[i], v, sizeof(v)))
			dep_list(t, v, "", false);
	if (key_env(key, "LD_LIBRARY_PATH", v, sizeof(v)))
		dep_list(t, v, "", true);
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n'), *path = NULL;
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char line[4200];
		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (!strncmp(line, "file /", 6))
			path = line + 5;
		else if (!strncmp(line, "entry ", 6) && (path = strrchr(line, ' ')))
			path++;
		if (path && *path == '/')
			dep_line(t, path);
		l = nl ? nl + 1 : NULL;
	}
}

int katra_vkcache_key(uint32_t pid, const char *helper, char *const envp[], char *key,
		      size_t cap)
{
	char path[64], line[512];
	struct stat mine, its, mns, ins;
	struct text t = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/root", pid);
	if (stat("/", &mine) || stat(path, &its) || mine.st_dev != its.st_dev ||
	    mine.st_ino != its.st_ino)
		return -EXDEV;
	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	if (stat("/proc/self/ns/mnt", &mns) || stat(path, &ins) || mns.st_ino != ins.st_ino ||
	    mns.st_dev != ins.st_dev)
		return -EXDEV;
	text_add(&t, "helper %s\nroot %llu %llu\nmntns %llu\n", helper,
		 (unsigned long long)its.st_dev, (unsigned long long)its.st_ino,
		 (unsigned long long)ins.st_ino);
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (!(f = fopen(path, "re"))) {
		free(t.s);
		return -ESRCH;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) ||
		    !strncmp(line, "Groups:", 7))
			text_add(&t, "%s", line);
	fclose(f);
	for (size_t i = 0; envp[i]; i++)
		text_add(&t, "env %s\n", envp[i]);
	if (t.bad || t.len + 1 > cap) {
		free(t.s);
		return t.bad ? -ENOMEM : -E2BIG;
	}
	memcpy(key, t.s, t.len + 1);
	free(t.s);
	return 0;
}

/* The cache directory, checked (and made when create): its fd or -errno
 * (why filled). */
static int cache_dir(bool create, char *why, size_t cap)
{
	const char *dir = getenv("KATRA_TEST_VKCACHE_DIR");

	return katra_cache_dir_open(dir && *dir ? dir : KATRA_VKCACHE_DIR, create, why, cap);
}

static void key_name(const char *key, char *name, size_t cap)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	snprintf(name, cap, "vk-%016llx", (unsigned long long)h);
}

int katra_vkcache_load(const char *key, char **out, size_t *len, char *why, size_t cap)
{
	char name[32], *buf = NULL;
	struct text now = { 0 };
	struct stat st;
	int dfd, fd = -1, rc = -ENOENT;
	ssize_t got;

	*out = NULL;
	dfd = cache_dir(false, why, cap);
	if (dfd < 0)
		return dfd == -EPERM ? -EPERM : -ENOENT;
	key_name(key, name, sizeof(name));
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) ||
	    st.st_size > VKCACHE_FILE_MAX) {
		snprintf(why, cap, "%s/%s is not root's regular file of mode 0600", "cache", name);
		rc = -EPERM;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || (got = pread(fd, buf, (size_t)st.st_size, 0)) != st.st_size)
		goto out;
	buf[got] = 0;
	/* magic, key, "---", deps, "---", the helper's output */
	size_t ml = strlen(VKCACHE_MAGIC), kl = strlen(key);
	if (strncmp(buf, VKCACHE_MAGIC, ml) || strncmp(buf + ml, key, kl) ||
	    strncmp(buf + ml + kl, "---\n", 4))
		goto out;
	char *d = buf + ml + kl + 4, *sep = strstr(d, "\n---\n");
	if (!sep)
		goto out;
	char *answer = sep + 5;
	deps(&now, key, answer);
	if (now.bad || now.len != (size_t)(sep + 1 - d) || memcmp(now.s, d, now.len))
		goto out; /* something it depends on changed */
	*len = strlen(answer);
	*out = strdup(answer);
	rc = *out ? 0 : -ENOMEM;
out:
	free(now.s);
	free(buf);
	if (fd >= 0)
		close(fd);
	close(dfd);
	return rc;
}

int katra_vkcache_store(const char *key, const char *out, size_t len, long long since, char *why,
			size_t cap)
{
	char name[32], tmp[64];
	struct text t = { 0 };
	int dfd, fd, rc = 0;

	dfd = cache_dir(true, why, cap);
	if (dfd < 0)
		return dfd;
	key_name(key, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", name, (int)getpid());
	text_add(&t, "%s%s---\n", VKCACHE_MAGIC, key);
	deps(&t, key, out);
	/* something changed while the helper ran (or just before, within the
	 * ctime's granularity): what it loaded may not be what was stat'ed */
	if (t.newest >= since - 1) {
		rc = -EAGAIN;
		goto out;
	}
	text_add(&t, "---\n%.*s", (int)len, out);
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (t.bad || fd < 0) {
		rc = t.bad ? -ENOMEM : -errno;
		goto out;
	}
	if (write(fd, t.s, t.len) != (ssize_t)t.len || fsync(fd) ||
	    renameat(dfd, tmp, dfd, name)) {
		rc = -EIO;
		unlinkat(dfd, tmp, 0);
	}
	close(fd);
out:
	free(t.s);
	close(dfd);
	return rc;
}
