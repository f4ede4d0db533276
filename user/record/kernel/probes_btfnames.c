// SPDX-License-Identifier: GPL-2.0-only
/* The shared copy of the kernel's BTF with the names of the structs and
 * unions that no CO-RE relocation of the programs names blanked, for
 * libbpf's CO-RE candidate search.  libbpf 1.1 finds a relocated type's
 * candidates by walking every kernel type (126 k here) and, for each one of
 * the same kind, measuring its name without a flavour suffix (a scan of the
 * whole name backwards) and comparing it: ~30 searches a start-up (each
 * object its own), nearly all of them for structs.  A blanked name is
 * empty, and the walk passes it at once.  The relocations' types are read
 * from the object's .BTF.ext (their essential names: the keep set, which
 * probes_btfcore.c also cuts the BTF by).
 *
 * Exact: the candidates are the kernel types whose essential name is a
 * relocated type's, all kept; past the candidates, libbpf 1.1 compares the
 * names of enums and forward declarations only (field relocations' last
 * member), which stay, never a struct's or a union's (a composite matches
 * by kind); a TYPE_MATCHES relocation would compare them: with one, nothing
 * is kept and nothing blanked.  Typedefs and functions keep their names:
 * attach targets and kfuncs are found by name.  Our own checks that name a
 * struct (pt_regs, io_kiocb) keep theirs too.  KATRA_TEST_FULL_BTF=1
 * blanks nothing. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "probes_int.h"

struct keep {
	char *name; /* essential name, owned; NULL: empty slot */
	size_t len;
	bool follow; /* a type-based relocation reads past its candidates' kind */
};

#define KEEP_SLOTS 4096
static struct keep *keep; /* NULL: nothing is blanked */
static uint32_t keep_mask, keep_used;

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

static int add(const char *name, bool follow)
{
	size_t len = essential_len(name);
	struct keep *k;

	if (!len)
		return 0;
	k = slot_of(name, len);
	k->follow |= follow;
	if (k->name)
		return 0;
	if (++keep_used > KEEP_SLOTS / 2)
		return -ENOENT; /* more names than a program set has: keep none */
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
	keep_used = 0;
}

/* Section want of the ELF image elf (size bytes), or NULL. */
static const char *elf_section(const char *elf, size_t size, const char *want, size_t *len)
{
	const Elf64_Ehdr *eh = (const void *)elf;
	const Elf64_Shdr *sh, *names;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(elf + eh->e_shoff);
	names = &sh[eh->e_shstrndx];
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		size_t at = names->sh_offset + sh[i].sh_name;

		if (at + strlen(want) + 1 > size || strcmp(elf + at, want) ||
		    sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		*len = sh[i].sh_size;
		return elf + sh[i].sh_offset;
	}
	return NULL;
}

/* .BTF.ext's header (libbpf's struct btf_ext_header) */
struct ext_hdr {
	__u16 magic;
	__u8 version, flags;
	__u32 hdr_len, func_info_off, func_info_len, line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

/* A CO-RE relocation's record (struct bpf_core_relo) */
struct relo {
	__u32 insn_off, type_id, access_str_off, kind;
};

enum { TYPE_ID_LOCAL = 6, TYPE_SIZE = 9, TYPE_MATCHES = 12 };

/* Whether libbpf 1.1 compares a candidate of local type t past its kind in
 * a type-based relocation (pointers, arrays and function prototypes are
 * followed; see probes_btfcore.c) */
static bool follows(const struct btf *local, const struct btf_type *t)
{
	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(local, t->type);
	return t && (btf_is_ptr(t) || btf_is_array(t) || btf_is_func_proto(t));
}

/* The essential names of the object's CO-RE relocations' types, from its
 * .BTF.ext: 0, or -ENOENT where they cannot be told or a TYPE_MATCHES
 * relocation would compare more names (then nothing is kept). */
static int relocated_names(const struct btf *local, const char *elf, size_t size)
{
	const struct ext_hdr *h;
	const char *ext, *p, *end;
	size_t len;
	__u32 rec;
	int err = 0;

	ext = elf_section(elf, size, ".BTF.ext", &len);
	h = (const void *)ext;
	if (!ext || len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > len || h->core_relo_off > len - h->hdr_len ||
	    h->core_relo_len > len - h->hdr_len - h->core_relo_off || h->core_relo_len < 4)
		return -ENOENT;
	p = ext + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	memcpy(&rec, p, sizeof(rec));
	if (rec < sizeof(struct relo))
		return -ENOENT;
	for (p += 4; !err && end - p >= 8;) {
		__u32 sec[2];

		memcpy(sec, p, sizeof(sec));
		p += 8;
		if ((size_t)(end - p) / rec < sec[1])
			return -ENOENT;
		for (__u32 i = 0; !err && i < sec[1]; i++, p += rec) {
			struct relo r;
			const struct btf_type *t;
			const char *name;

			memcpy(&r, p, sizeof(r));
			t = btf__type_by_id(local, r.type_id);
			name = t ? btf__name_by_offset(local, t->name_off) : NULL;
			if (r.kind == TYPE_MATCHES || !name || !*name)
				return -ENOENT;
			err = add(name, r.kind >= TYPE_ID_LOCAL && r.kind <= TYPE_SIZE &&
					    follows(local, t));
		}
	}
	return err;
}

int pk_btf_keep_names(const struct btf *local, const void *elf, size_t size)
{
	static const char *const ours[] = { "pt_regs", "io_kiocb" };
	int err;

	pk_btf_keep_free();
	if (!local || getenv("KATRA_TEST_FULL_BTF"))
		return 0;
	keep = calloc(KEEP_SLOTS, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	keep_mask = KEEP_SLOTS - 1;
	err = relocated_names(local, elf, size);
	for (size_t i = 0; !err && i < sizeof(ours) / sizeof(ours[0]); i++)
		err = add(ours[i], false);
	if (err)
		pk_btf_keep_free();
	return err == -ENOENT ? 0 : err;
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

bool pk_btf_keep_ready(void)
{
	return keep != NULL;
}

bool pk_btf_name_kept(const char *name, bool *follow)
{
	struct keep *k = keep && name ? slot_of(name, essential_len(name)) : NULL;

	*follow = k && k->follow;
	return k && k->name;
}
