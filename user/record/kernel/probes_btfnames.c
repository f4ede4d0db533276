// SPDX-License-Identifier: GPL-2.0-only
/* The shared copy of the kernel's BTF with the names of the structs and
 * unions that no program type names blanked, for libbpf's CO-RE candidate
 * search.  libbpf 1.1 finds a relocated type's candidates by walking every
 * kernel type (126 k here) and, for each one of the same kind, measuring
 * its name without a flavour suffix (a scan of the whole name backwards)
 * and comparing it: ~1 ms a search, ~28 searches a start-up (each object
 * its own), nearly all of them for structs (perf: a quarter of a start's
 * samples).  A blanked name is empty, and the walk passes it at once.
 *
 * Exact: the candidates are the kernel types whose essential name is a
 * relocated program type's, and every program type's essential name keeps
 * its kernel types' names; past the candidates, libbpf 1.1 compares the
 * names of enums and forward declarations only (field relocations' last
 * member), which stay, never a struct's or a union's (a composite matches
 * by kind; TYPE_MATCHES relocations, which would compare them, none of the
 * programs has).  Typedefs and functions keep theirs: attach targets and
 * kfuncs are found by name.  Our own checks that name a struct (pt_regs,
 * io_kiocb) keep theirs too.  KATRA_TEST_FULL_BTF=1 blanks nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "probes_int.h"

struct keep {
	char *name; /* essential name, owned; NULL: empty slot */
	size_t len;
};

static struct keep *keep; /* NULL: nothing is blanked */
static uint32_t keep_mask;

/* libbpf's bpf_core_essential_name_len: the name up to its last "X___Y". */
static size_t essential_len(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = n >= 5 ? n - 5 + 1 : 0; i-- > 0;)
		if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' &&
		    name[i + 3] == '_' && name[i + 4] != '_')
			return i + 1;
	return n;
}

static uint32_t hash_of(const char *name, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

static struct keep *slot_of(const char *name, size_t len)
{
	uint32_t i = hash_of(name, len) & keep_mask;

	while (keep[i].name && (keep[i].len != len || memcmp(keep[i].name, name, len)))
		i = (i + 1) & keep_mask;
	return &keep[i];
}

static int add(const char *name)
{
	size_t len = essential_len(name);
	struct keep *k;

	if (!len)
		return 0;
	k = slot_of(name, len);
	if (k->name)
		return 0;
	k->name = strndup(name, len);
	k->len = len;
	return k->name ? 0 : -ENOMEM;
}

void pk_btf_keep_free(void)
{
	for (uint32_t i = 0; keep && i <= keep_mask; i++)
		free(keep[i].name);
	free(keep);
	keep = NULL;
}

int pk_btf_keep_names(const struct btf *local)
{
	static const char *const ours[] = { "pt_regs", "io_kiocb" };
	uint32_t n = local ? btf__type_cnt(local) : 0, slots = 64;
	int err = 0;

	pk_btf_keep_free();
	if (!local || getenv("KATRA_TEST_FULL_BTF"))
		return 0;
	while (slots < 2 * (n + 2))
		slots *= 2;
	keep = calloc(slots, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	keep_mask = slots - 1;
	for (uint32_t id = 1; !err && id < n; id++) {
		const char *name = btf__name_by_offset(local, btf__type_by_id(local, id)->name_off);

		if (name && *name)
			err = add(name);
	}
	for (size_t i = 0; !err && i < sizeof(ours) / sizeof(ours[0]); i++)
		err = add(ours[i]);
	if (err)
		pk_btf_keep_free();
	return err;
}

void pk_btf_blank_names(const struct btf *btf)
{
	uint32_t n = btf__type_cnt(btf);

	if (!keep)
		return;
	for (uint32_t id = 1; id < n; id++) {
		/* the parsed copy is libbpf's own buffer, written in place */
		struct btf_type *t = (struct btf_type *)btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_composite(t) || !t->name_off)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (name && !slot_of(name, essential_len(name))->name)
			t->name_off = 0;
	}
}
