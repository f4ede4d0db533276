// SPDX-License-Identifier: GPL-2.0-only
/* user/record/kernel/btfcache.c: the cut CO-RE BTF kept between captures
 * is taken only from a whole file made for this kernel and this recorder;
 * a foreign, torn or flipped one is refused (and then made again). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/kernel/btfcache.h"

#define KEY "vmlinux 5 1.000000000\nkernel ab\nuname 6.18 #1\nself cd 9 2.000000000\n"

/* A BTF of 64 bytes: its header (24), 16 bytes of types, 24 of strings. */
static void fake_btf(unsigned char *b)
{
	uint32_t hdr[6] = { 0x0001eB9F, 24, 0, 16, 16, 24 };

	memcpy(b, hdr, sizeof(hdr));
	for (int i = 24; i < 64; i++)
		b[i] = (unsigned char)(i * 7);
}

/* The cache file for KEY and fake_btf()'s BTF (in btf), malloc'd in *f: its
 * length. */
static long fake_file(unsigned char *btf, char **f)
{
	long n;

	fake_btf(btf);
	n = katra_btfcache_encode(KEY, btf, 64, f);
	cr_assert_gt(n, 64);
	return n;
}

Test(btfcache, a_file_made_for_the_key_gives_its_btf_back)
{
	unsigned char btf[64];
	const void *got;
	size_t len = 0;
	char *f;
	long n;

	n = fake_file(btf, &f);
	cr_assert_eq(katra_btfcache_parse(f, (size_t)n, KEY, &got, &len), 0);
	cr_assert_eq(len, sizeof(btf));
	cr_assert_eq(memcmp(got, btf, sizeof(btf)), 0);
	free(f);
}

Test(btfcache, another_kernels_or_recorders_file_is_stale)
{
	unsigned char btf[64];
	const void *got;
	size_t len;
	char *f;
	long n;

	n = fake_file(btf, &f);
	cr_assert_eq(katra_btfcache_parse(f, (size_t)n,
					  "vmlinux 5 1.000000000\nkernel ab\nuname 6.18 #2\n"
					  "self cd 9 2.000000000\n", &got, &len), -ESTALE);
	cr_assert_eq(katra_btfcache_parse(f, (size_t)n,
					  "vmlinux 5 1.000000000\nkernel ab\nuname 6.18 #1\n"
					  "self cd 9 2.000000001\n", &got, &len), -ESTALE);
	free(f);
}

Test(btfcache, every_flipped_byte_and_every_torn_length_is_refused)
{
	unsigned char btf[64];
	const void *got;
	size_t len;
	char *f;
	long n;

	n = fake_file(btf, &f);
	for (long i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			f[i] ^= (char)(1 << bit);
			cr_assert_lt(katra_btfcache_parse(f, (size_t)n, KEY, &got, &len), 0,
				     "byte %ld bit %d flipped: taken", i, bit);
			f[i] ^= (char)(1 << bit);
		}
	for (long cut = 0; cut < n; cut++)
		cr_assert_lt(katra_btfcache_parse(f, (size_t)cut, KEY, &got, &len), 0,
			     "torn at %ld of %ld: taken", cut, n);
	free(f);
}

Test(btfcache, a_btf_whose_header_does_not_hold_is_refused_whatever_its_checksum)
{
	unsigned char btf[64];
	const void *got;
	size_t len;
	char *f;
	long n;

	fake_btf(btf);
	btf[20] = 200; /* the strings end past the BTF */
	n = katra_btfcache_encode(KEY, btf, sizeof(btf), &f);
	cr_assert_eq(katra_btfcache_parse(f, (size_t)n, KEY, &got, &len), -EINVAL);
	free(f);
	fake_btf(btf);
	btf[0] = 0x9f; /* not BTF's magic */
	btf[1] = 0x9f;
	n = katra_btfcache_encode(KEY, btf, sizeof(btf), &f);
	cr_assert_eq(katra_btfcache_parse(f, (size_t)n, KEY, &got, &len), -EINVAL);
	free(f);
}
