// SPDX-License-Identifier: GPL-2.0-only
/* The cut CO-RE BTF kept between captures (btfcache.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btfcache.h"

#define MAGIC "katra-btfcore 1\n"
#define SEP "---\n"
#define BTF_MAGIC_LE 0xeB9F

/* A checksum of n bytes, 8 at a time (~0.2 ms a MiB): a torn or flipped
 * file is told from a whole one. */
static uint64_t sum_of(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

/* A GNU build id from notes (n bytes) as hex into out, left as it was
 * where notes hold none (an executable may have several note segments). */
static void build_id_hex(const unsigned char *notes, size_t n, char *out, size_t cap)
{
	size_t at = 0;

	while (at + sizeof(Elf64_Nhdr) <= n) {
		const Elf64_Nhdr *h = (const Elf64_Nhdr *)(notes + at);
		size_t name = (h->n_namesz + 3) & ~3u, desc = (h->n_descsz + 3) & ~3u;
		const unsigned char *d = notes + at + sizeof(*h) + name;

		if (at + sizeof(*h) + name + desc > n)
			return;
		if (h->n_type == NT_GNU_BUILD_ID && h->n_namesz == 4 &&
		    !memcmp(notes + at + sizeof(*h), "GNU", 4) && h->n_descsz * 2 < cap) {
			for (size_t i = 0; i < h->n_descsz; i++)
				snprintf(out + 2 * i, cap - 2 * i, "%02x", d[i]);
			return;
		}
		at += sizeof(*h) + name + desc;
	}
}

static int own_notes(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) /* the first object: ours */
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			build_id_hex((const unsigned char *)(info->dlpi_addr +
							     info->dlpi_phdr[i].p_vaddr),
				     info->dlpi_phdr[i].p_memsz, out, 130);
	return 1;
}

int katra_btfcache_key(char *key, size_t cap)
{
	char kid[130] = "-", own[130] = "-";
	unsigned char notes[4096];
	struct stat vm, self;
	struct utsname u;
	ssize_t got = -1;
	int fd, n;

	if (stat("/sys/kernel/btf/vmlinux", &vm) || stat("/proc/self/exe", &self) || uname(&u))
		return -errno;
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = read(fd, notes, sizeof(notes));
		close(fd);
	}
	if (got > 0)
		build_id_hex(notes, (size_t)got, kid, sizeof(kid));
	dl_iterate_phdr(own_notes, own);
	n = snprintf(key, cap,
		     "vmlinux %lld %lld.%09ld\nkernel %s\nuname %s %s\nself %s %lld %lld.%09ld\n",
		     (long long)vm.st_size, (long long)vm.st_mtim.tv_sec, vm.st_mtim.tv_nsec, kid,
		     u.release, u.version, own, (long long)self.st_size,
		     (long long)self.st_mtim.tv_sec, self.st_mtim.tv_nsec);
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

long katra_btfcache_encode(const char *key, const void *btf, size_t len, char **out)
{
	size_t ml = strlen(MAGIC), kl = strlen(key), sl = strlen(SEP), at;
	uint64_t n = len, sum = sum_of(btf, len);
	char *f = malloc(ml + kl + sl + 16 + len);

	*out = f;
	if (!f)
		return -ENOMEM;
	memcpy(f, MAGIC, ml);
	memcpy(f + ml, key, kl);
	memcpy(f + ml + kl, SEP, sl);
	at = ml + kl + sl;
	memcpy(f + at, &n, 8);
	memcpy(f + at + 8, &sum, 8);
	memcpy(f + at + 16, btf, len);
	return (long)(at + 16 + len);
}

int katra_btfcache_parse(const void *file, size_t len, const char *key, const void **btf,
			 size_t *btf_len)
{
	const char *f = file;
	size_t ml = strlen(MAGIC), kl = strlen(key), sl = strlen(SEP), at = ml + kl + sl;
	uint64_t n, sum;
	struct {
		uint16_t magic;
		uint8_t version, flags;
		uint32_t hdr_len, type_off, type_len, str_off, str_len;
	} h;

	if (len < ml || memcmp(f, MAGIC, ml))
		return -EINVAL;
	if (len < at || memcmp(f + ml, key, kl) || memcmp(f + ml + kl, SEP, sl))
		return -ESTALE;
	if (len < at + 16)
		return -EINVAL;
	memcpy(&n, f + at, 8);
	memcpy(&sum, f + at + 8, 8);
	if (n != len - at - 16 || n < sizeof(h) || sum != sum_of(f + at + 16, n))
		return -EINVAL;
	memcpy(&h, f + at + 16, sizeof(h));
	if (h.magic != BTF_MAGIC_LE || h.version != 1 || h.hdr_len < sizeof(h) || h.hdr_len > n ||
	    (uint64_t)h.type_off + h.type_len > n - h.hdr_len ||
	    (uint64_t)h.str_off + h.str_len > n - h.hdr_len || !h.type_len || !h.str_len)
		return -EINVAL;
	*btf = f + at + 16;
	*btf_len = n;
	return 0;
}

int katra_cache_dir_open(const char *dir, bool create, char *why, size_t cap)
{
	char parent[4096], *slash;
	struct stat st;
	int pfd, fd, e;

	if (why && cap)
		*why = 0;
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || !slash[1])
		return -EINVAL;
	*slash = 0;
	pfd = open(*parent ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	/* only root can replace the directory in it */
	if (fstat(pfd, &st) || st.st_uid != 0 ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		if (why)
			snprintf(why, cap, "%s is not root's, or others can change it",
				 *parent ? parent : "/");
		close(pfd);
		return -EPERM;
	}
	if (create)
		mkdirat(pfd, slash + 1, 0700);
	fd = openat(pfd, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	close(pfd);
	if (fd < 0) {
		if ((e == ELOOP || e == ENOTDIR) && why)
			snprintf(why, cap, "%s is not a directory", dir);
		return e == ELOOP || e == ENOTDIR ? -EPERM : -e;
	}
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 077)) {
		if (why)
			snprintf(why, cap, "%s is not root's with mode 0700 (owner %u, mode %04o)", dir,
				 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The cache directory (made when create): its fd or -errno. */
static int cache_dir(bool create)
{
	const char *dir = getenv("KATRA_TEST_BTFCACHE_DIR");

	return katra_cache_dir_open(dir && *dir ? dir : KATRA_BTFCACHE_DIR, create, NULL, 0);
}

int katra_btfcache_load(const char *key, void **map, size_t *map_len, const void **btf,
			size_t *btf_len)
{
	int dfd = cache_dir(false), fd, rc;
	struct stat st;
	void *m;

	*map = NULL;
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, KATRA_BTFCACHE_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	close(dfd);
	if (rc)
		return rc;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) ||
	    st.st_size <= 0 || st.st_size > KATRA_BTFCACHE_MAX) {
		close(fd);
		return -EPERM;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	rc = katra_btfcache_parse(m, (size_t)st.st_size, key, btf, btf_len);
	if (rc) {
		munmap(m, (size_t)st.st_size);
		return rc;
	}
	*map = m;
	*map_len = (size_t)st.st_size;
	return 0;
}

int katra_btfcache_store(const char *key, const void *btf, size_t len)
{
	char tmp[64], *f = NULL;
	long n = katra_btfcache_encode(key, btf, len, &f);
	int dfd, fd, rc = 0;

	if (n < 0)
		return (int)n;
	dfd = cache_dir(true);
	if (dfd < 0) {
		free(f);
		return dfd;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", KATRA_BTFCACHE_FILE, (int)getpid());
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
	} else {
		/* no fsync: a file torn by a crash fails its checksum, and is made again */
		if (write(fd, f, (size_t)n) != n || renameat(dfd, tmp, dfd, KATRA_BTFCACHE_FILE)) {
			rc = -EIO;
			unlinkat(dfd, tmp, 0);
		}
		close(fd);
	}
	free(f);
	close(dfd);
	return rc;
}
