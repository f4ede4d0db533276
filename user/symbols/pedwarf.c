// SPDX-License-Identifier: GPL-2.0-only
/* A PE file's DWARF as an ELF image (pedwarf.h). */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pedwarf.h"

#define NAME_MAX_LEN 64

struct dsec {
	char name[NAME_MAX_LEN];
	uint64_t addr, off, size;
};

/* A section's name: its 8 bytes, or "/N": N bytes into the COFF string
 * table (after the symbols, 18 bytes each); 0, or -1 when unreadable */
static int sec_name(const struct katra_pe *pe, const uint8_t *h, char *out)
{
	const struct katra_blob *b = pe->b;
	uint64_t coff = pe->opt - 20, strtab, at = 0;

	if (h[0] != '/') {
		memcpy(out, h, 8);
		out[8] = '\0';
		return 0;
	}
	for (int i = 1; i < 8 && h[i] >= '0' && h[i] <= '9'; i++)
		at = at * 10 + (uint64_t)(h[i] - '0');
	strtab = katra_rd32(b->p + coff + 8) + 18ull * katra_rd32(b->p + coff + 12);
	if (!katra_rd32(b->p + coff + 8) || !katra_in_blob(b, strtab + at, 1))
		return -1;
	size_t max = b->len - (strtab + at) < NAME_MAX_LEN - 1 ? b->len - (strtab + at)
							       : NAME_MAX_LEN - 1;
	const char *s = (const char *)b->p + strtab + at;
	size_t n = strnlen(s, max);
	if (n == max)
		return -1;
	memcpy(out, s, n + 1);
	return 0;
}

int kr_pe_dwarf_image(const struct katra_pe *pe, void **image, size_t *len)
{
	const struct katra_blob *b = pe->b;
	struct dsec secs[KATRA_PE_SECTIONS_MAX];
	size_t n = 0, data = 0, names = 1 + sizeof(".shstrtab");
	bool info = false;
	uint8_t *img;

	*image = NULL;
	for (uint32_t i = 0; i < pe->nsec && i < KATRA_PE_SECTIONS_MAX; i++) {
		const uint8_t *h = b->p + pe->sec + 40ull * i;
		struct dsec *d = &secs[n];
		uint32_t vsize = katra_rd32(h + 8), raw = katra_rd32(h + 16);

		if (sec_name(pe, h, d->name) || strncmp(d->name, ".debug_", 7))
			continue;
		d->addr = pe->image_base + katra_rd32(h + 12);
		d->off = katra_rd32(h + 20);
		d->size = vsize && vsize < raw ? vsize : raw; /* raw is padded */
		if (!katra_in_blob(b, d->off, d->size))
			continue;
		info |= !strcmp(d->name, ".debug_info");
		data += d->size;
		names += strlen(d->name) + 1;
		n++;
	}
	if (!info)
		return -ENOENT;
	/* header, the sections' bytes, their names, the section headers */
	size_t shoff = (sizeof(Elf64_Ehdr) + data + names + 7) & ~(size_t)7;
	*len = shoff + (n + 2) * sizeof(Elf64_Shdr);
	img = calloc(1, *len);
	if (!img)
		return -ENOMEM;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shoff = shoff;
	eh->e_shnum = (uint16_t)(n + 2);
	eh->e_shstrndx = (uint16_t)(n + 1);
	size_t at = sizeof(Elf64_Ehdr), nameat = sizeof(Elf64_Ehdr) + data, name = 1;
	for (size_t i = 0; i < n; i++) {
		memcpy(img + at, b->p + secs[i].off, secs[i].size);
		sh[i + 1] = (Elf64_Shdr){ .sh_name = (uint32_t)name, .sh_type = SHT_PROGBITS,
					  .sh_addr = secs[i].addr, .sh_offset = at,
					  .sh_size = secs[i].size, .sh_addralign = 1 };
		strcpy((char *)img + nameat + name, secs[i].name);
		name += strlen(secs[i].name) + 1;
		at += secs[i].size;
	}
	strcpy((char *)img + nameat + name, ".shstrtab");
	sh[n + 1] = (Elf64_Shdr){ .sh_name = (uint32_t)name, .sh_type = SHT_STRTAB,
				  .sh_offset = nameat, .sh_size = names, .sh_addralign = 1 };
	*image = img;
	return 0;
}
