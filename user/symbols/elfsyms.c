// SPDX-License-Identifier: GPL-2.0-only
/* Frames named from the binaries at hand (elfsyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include <katra/format.h>

#include "debuginfod.h"
#include "elfsyms.h"
#include "pe/pesymtab.h"
#include "pedwarf.h"

#define PE_FILE_MAX (512u << 20)

struct sym {
	uint64_t addr, size;
	const char *name;
	size_t len; /* the name without its symbol version ("@GLIBC_2.17") */
};

/* A frame named by the recorder (a Symbols record's SymbolName) */
struct tsym {
	uint64_t addr, offset;
	char *name;
};

struct mod {
	uint32_t id;
	char *name, *build_id;
	int loaded; /* 0 not tried, 1 found, -1 not found */
	Elf *elf;
	int fd;
	struct sym *syms;
	size_t nsyms;
	Dwarf *dw;  /* its DWARF, for what its symbols do not name */
	int dw_tried;
	bool pe;                   /* a PE file: its names by rva */
	struct katra_blob blob;    /* the PE file (pe_syms' names point into it) */
	struct katra_pe_symtab pe_syms;
	uint64_t image_base;
	void *pe_dwarf; /* the ELF image of its DWARF that elf reads (pedwarf.h) */
	int given_fd;   /* its file, given open (kr_elfsyms_module_fd), or -1 */
	bool given;     /* so: never looked for elsewhere */
	struct tsym *tsyms; /* the trace's names of its frames, by address */
	size_t ntsyms;
};

struct kr_elfsyms {
	char *dir;
	struct mod *mods;
	size_t n, cap;
};

struct kr_elfsyms *kr_elfsyms_new(const char *dir)
{
	struct kr_elfsyms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (dir && !(s->dir = strdup(dir))) {
		free(s);
		return NULL;
	}
	elf_version(EV_CURRENT);
	return s;
}

void kr_elfsyms_free(struct kr_elfsyms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		struct mod *m = &s->mods[i];
		free(m->syms);
		if (m->dw)
			dwarf_end(m->dw);
		if (m->elf)
			elf_end(m->elf);
		if (m->loaded > 0 && !m->pe)
			close(m->fd);
		katra_pe_symtab_free(&m->pe_syms);
		katra_blob_free(&m->blob);
		free(m->pe_dwarf);
		if (m->given_fd >= 0)
			close(m->given_fd);
		for (size_t j = 0; j < m->ntsyms; j++)
			free(m->tsyms[j].name);
		free(m->tsyms);
		free(m->name);
		free(m->build_id);
	}
	free(s->mods);
	free(s->dir);
	free(s);
}

int kr_elfsyms_module(struct kr_elfsyms *s, uint32_t id, const char *name, size_t name_len,
		      const char *build_id, size_t bid_len)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct mod *m = realloc(s->mods, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		s->mods = m;
		s->cap = cap;
	}
	struct mod *m = &s->mods[s->n];
	memset(m, 0, sizeof(*m));
	m->given_fd = -1;
	m->id = id;
	m->name = strndup(name, name_len);
	m->build_id = strndup(build_id, bid_len);
	if (!m->name || !m->build_id) {
		free(m->name);
		free(m->build_id);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static struct mod *find(const struct kr_elfsyms *s, uint32_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->mods[i].id == id)
			return &s->mods[i];
	return NULL;
}

int kr_elfsyms_module_fd(struct kr_elfsyms *s, uint32_t id, const char *name, int fd)
{
	int rc = kr_elfsyms_module(s, id, name, strlen(name), "", 0);

	if (rc)
		return rc;
	s->mods[s->n - 1].given = true;
	s->mods[s->n - 1].given_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return s->mods[s->n - 1].given_fd < 0 ? -errno : 0;
}

static int by_taddr(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int kr_elfsyms_trace_names(struct kr_elfsyms *s, const struct katra_symbols *sy)
{
	struct mod *m = find(s, sy->module);

	if (!m || !sy->names_len)
		return 0; /* a module no Module record named: verify says so */
	struct tsym *t = realloc(m->tsyms, (m->ntsyms + sy->names_len) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	m->tsyms = t;
	for (uint64_t i = 0; i < sy->names_len; i++) {
		const struct katra_symbol_name *e = &sy->names[i];
		char *nm = strndup(e->name.ptr, e->name.len);
		if (!nm)
			return -ENOMEM;
		t[m->ntsyms++] = (struct tsym){ e->address, e->offset, nm };
	}
	qsort(m->tsyms, m->ntsyms, sizeof(*m->tsyms), by_taddr);
	return 0;
}

/* The trace's name of the frame, when a Symbols record gave one */
static const char *trace_name(const struct mod *m, uint64_t address, int with_offset, char *buf,
			      size_t cap)
{
	size_t lo = 0, hi = m->ntsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->tsyms[mid].addr < address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->ntsyms || m->tsyms[lo].addr != address)
		return NULL;
	if (with_offset)
		snprintf(buf, cap, "%s+0x%" PRIx64, m->tsyms[lo].name, m->tsyms[lo].offset);
	else
		snprintf(buf, cap, "%s", m->tsyms[lo].name);
	return buf;
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A PE file (fd) when its identity is the module's (katra_pe_identity_key,
 * what the recorder writes as a PE module's build id); fd closed */
static int try_open_pe(struct mod *m, int fd)
{
	struct katra_peu_identity id;
	struct katra_pe pe;
	char key[64];
	int rc = katra_blob_read_fd(fd, PE_FILE_MAX, &m->blob);

	close(fd);
	if (rc || katra_pe_identity(&m->blob, &id) || katra_pe_open(&m->blob, &pe))
		goto fail;
	katra_pe_identity_key(&id, key, sizeof(key));
	if (m->build_id[0] && strcmp(key, m->build_id))
		goto fail;
	if (katra_pe_symtab(&m->blob, &m->pe_syms))
		memset(&m->pe_syms, 0, sizeof(m->pe_syms)); /* found, without names */
	m->image_base = pe.image_base;
	m->pe = true;
	return 0;
fail:
	katra_blob_free(&m->blob);
	return -1;
}

/* The file fd when its build id is the module's (or either has none); fd
 * kept, else closed */
static int try_open_fd(struct mod *m, int fd)
{
	const void *bid;
	char hex[129] = "", mz[2];

	if (fd < 0)
		return -1;
	if (pread(fd, mz, 2, 0) == 2 && mz[0] == 'M' && mz[1] == 'Z')
		return try_open_pe(m, fd);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
	for (ssize_t i = 0; i < n && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)bid)[i]);
	if (m->build_id[0] && n > 0 && strcmp(hex, m->build_id)) {
		elf_end(elf);
		close(fd);
		return -1;
	}
	m->elf = elf;
	m->fd = fd;
	return 0;
}

/* The file at path when its build id is the module's (or either has none) */
static int try_open(struct mod *m, const char *path)
{
	return try_open_fd(m, open(path, O_RDONLY | O_CLOEXEC));
}

static int locate(const struct kr_elfsyms *s, struct mod *m)
{
	static const char *const libdirs[] = { "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
					       "/usr/lib64", "/usr/lib", "/lib64", "/lib",
					       "/usr/bin", "/usr/local/bin",
					       "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows",
					       "/usr/lib/x86_64-linux-gnu/wine/x86_64-unix",
					       "/usr/lib/wine/x86_64-unix", "/usr/lib64/wine/x86_64-unix" };
	const char *base = strrchr(m->name, '/') ? strrchr(m->name, '/') + 1 : m->name;
	const char *b = m->build_id;
	char p[4096];

	if (m->given) {
		int fd = m->given_fd;
		m->given_fd = -1;
		return try_open_fd(m, fd);
	}

	if (s->dir) {
		snprintf(p, sizeof(p), "%s/%s", s->dir, base);
		if (!try_open(m, p))
			return 0;
		if (strlen(b) > 2) {
			snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", s->dir, b, b + 2);
			if (!try_open(m, p))
				return 0;
			snprintf(p, sizeof(p), "%s/%s/executable", s->dir, b);
			if (!try_open(m, p))
				return 0;
			snprintf(p, sizeof(p), "%s/%s/debuginfo", s->dir, b);
			if (!try_open(m, p))
				return 0;
			/* a symbol server's layout: NAME/KEY/NAME */
			snprintf(p, sizeof(p), "%s/%s/%s/%s", s->dir, base, b, base);
			if (!try_open(m, p))
				return 0;
		}
	}
	if (m->name[0] == '/' && !try_open(m, m->name))
		return 0;
	if (strlen(b) > 2) {
		snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%.2s/%s.debug", b, b + 2);
		if (!try_open(m, p))
			return 0;
	}
	/* by name only where a build id says it is the same file */
	for (size_t i = 0; b[0] && i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", libdirs[i], base);
		if (!try_open(m, p))
			return 0;
	}
	return -1;
}

/* An ELF file with functions to name: a .symtab, or DWARF */
static bool full_symbols(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		if (sh.sh_type == SHT_SYMTAB || (nm && !strcmp(nm, ".debug_info")))
			return true;
	}
	return false;
}

static void drop(struct mod *m)
{
	elf_end(m->elf);
	close(m->fd);
	m->elf = NULL;
	m->fd = -1;
}

/* The module's debug file, else its executable, from debuginfod where the
 * binaries at hand gave none or one without a .symtab or DWARF (a stripped
 * library): kept only if its build id is the module's and it names more */
static int fetch(struct mod *m, int found)
{
	static const enum kr_debuginfod_kind kinds[] = { KR_DEBUGINFOD_DEBUGINFO,
							 KR_DEBUGINFOD_EXECUTABLE };
	struct mod local = *m;
	int err = 0;

	if (!kr_debuginfod_wanted(m->build_id) || m->given || (found && (m->pe || full_symbols(m->elf))))
		return found ? 0 : -1;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char *path = NULL;
		int rc = kr_debuginfod_fetch(m->build_id, kinds[i], &path);

		if (rc) {
			err = err && err != -EALREADY ? err : rc;
			continue;
		}
		rc = try_open(m, path);
		free(path);
		if (rc) {
			err = -EILSEQ;
			continue;
		}
		if (full_symbols(m->elf) || (!found && i + 1 == sizeof(kinds) / sizeof(kinds[0]))) {
			if (found)
				drop(&local);
			return 0;
		}
		drop(m);
	}
	m->elf = local.elf;
	m->fd = local.fd;
	if (err && err != -EALREADY)
		kr_debuginfod_failed(err, m->name, m->build_id);
	return found ? 0 : -1;
}

/* Wine 8's ntdll.so exports its dispatchers only as labels inside them,
 * untyped and of size 0 (__wine_syscall_dispatcher_prolog_end, the same for
 * __wine_unix_call_dispatcher; Wine 10 exports the functions): such a label
 * names the code after it, up to the next symbol, as its dispatcher.  The
 * name's length without "_prolog_end", else 0. */
static size_t dispatcher_label(const char *nm, int type)
{
	static const char *const labels[] = { "__wine_syscall_dispatcher_prolog_end",
					      "__wine_unix_call_dispatcher_prolog_end" };

	for (size_t i = 0; type == STT_NOTYPE && i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(nm, labels[i]))
			return strlen(labels[i]) - strlen("_prolog_end");
	return 0;
}

/* .symtab, else .dynsym: its functions, sorted */
static void load(const struct kr_elfsyms *s, struct mod *m)
{
	Elf_Scn *scn = NULL, *pick = NULL;
	GElf_Shdr sh, psh = { 0 };

	m->loaded = -1;
	if (fetch(m, !locate(s, m)))
		return;
	m->loaded = 1;
	if (m->pe)
		return;
	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !pick)) {
			pick = scn;
			psh = sh;
		}
	}
	if (!pick || !psh.sh_entsize)
		return;
	Elf_Data *d = elf_getdata(pick, NULL);
	size_t n = psh.sh_size / psh.sh_entsize;
	m->syms = d ? calloc(n ? n : 1, sizeof(*m->syms)) : NULL;
	for (size_t i = 0; m->syms && i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value || sym.st_shndx == SHN_UNDEF)
			continue;
		int t = GELF_ST_TYPE(sym.st_info);
		const char *nm = elf_strptr(m->elf, psh.sh_link, sym.st_name);
		size_t label = nm ? dispatcher_label(nm, t) : 0;
		if (t != STT_FUNC && t != STT_GNU_IFUNC && !label)
			continue;
		if (nm && nm[0])
			m->syms[m->nsyms++] = (struct sym){ sym.st_value, label ? 0 : sym.st_size, nm,
							    label ? label : strcspn(nm, "@") };
	}
	if (m->syms)
		qsort(m->syms, m->nsyms, sizeof(*m->syms), by_addr);
}

/* The function the file's DWARF says holds address (an inlined one's own
 * name, innermost first), where its symbol table names none (a stripped
 * .symtab, a static function missing from .dynsym): buf, or NULL */
static const char *dwarf_name(struct mod *m, uint64_t address, int with_offset, char *buf,
			      size_t cap)
{
	Dwarf_Die cu, *scopes = NULL;
	const char *name = NULL;
	Dwarf_Addr low = 0;
	int n;

	if (!m->dw_tried) {
		m->dw_tried = 1;
		m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	}
	if (!m->dw || !dwarf_addrdie(m->dw, address, &cu))
		return NULL;
	n = dwarf_getscopes(&cu, address, &scopes);
	for (int i = 0; i < n && !name; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		name = dwarf_diename(&scopes[i]); /* an inlined one's: by its origin */
		if (name && dwarf_entrypc(&scopes[i], &low))
			low = address;
	}
	free(scopes);
	if (!name)
		return NULL;
	if (with_offset)
		snprintf(buf, cap, "%s+0x%" PRIx64, name, address - low);
	else
		snprintf(buf, cap, "%s", name);
	return buf;
}

/* A PE module's DWARF (mingw -g) in m->elf, once: for dwarf_name */
static void pe_dwarf(struct mod *m)
{
	struct katra_pe pe;
	size_t len;

	if (m->pe_dwarf || m->dw_tried || katra_pe_open(&m->blob, &pe) ||
	    kr_pe_dwarf_image(&pe, &m->pe_dwarf, &len))
		return;
	m->elf = elf_memory(m->pe_dwarf, len);
}

/* A PE module's frame (ImageBase + rva) by its DWARF (mingw -g: the
 * function whose ranges hold it, an inlined one's own name), else by its
 * COFF symbols and exports (the nearest at or below: they have no size) */
static const char *pe_name(struct mod *m, uint64_t address, int with_offset, char *buf,
			   size_t cap)
{
	const char *base = strrchr(m->name, '/') ? strrchr(m->name, '/') + 1 : m->name;
	uint64_t rva = address - m->image_base;

	pe_dwarf(m);
	if (m->elf && dwarf_name(m, address, with_offset, buf, cap))
		return buf;
	if (address < m->image_base || rva > UINT32_MAX ||
	    !katra_pe_symbolize(&m->pe_syms, (uint32_t)rva, buf, cap)) {
		if (trace_name(m, address, with_offset, buf, cap))
			return buf;
		snprintf(buf, cap, "%s+0x%" PRIx64, base, address);
		return buf;
	}
	if (!with_offset)
		buf[strcspn(buf, "+")] = '\0';
	return buf;
}

const char *kr_elfsyms_name(struct kr_elfsyms *s, uint32_t module, uint64_t address,
			    int with_offset, char *buf, size_t cap)
{
	struct mod *m = module ? find(s, module) : NULL;
	size_t lo = 0, hi;

	if (!m) {
		snprintf(buf, cap, "0x%" PRIx64, address);
		return buf;
	}
	if (!m->loaded)
		load(s, m);
	if (m->pe)
		return pe_name(m, address, with_offset, buf, cap);
	hi = m->nsyms;
	while (lo < hi) { /* the first symbol above address */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct sym *sy = lo ? &m->syms[lo - 1] : NULL;
	if ((!sy || (sy->size && address >= sy->addr + sy->size)) && m->loaded > 0 &&
	    dwarf_name(m, address, with_offset, buf, cap)) {
		return buf;
	} else if ((!sy || (sy->size && address >= sy->addr + sy->size)) &&
		   trace_name(m, address, with_offset, buf, cap)) {
		return buf; /* no file at hand, or one that names less */
	} else if (!sy || (sy->size && address >= sy->addr + sy->size)) {
		const char *base = strrchr(m->name, '/') ? strrchr(m->name, '/') + 1 : m->name;
		snprintf(buf, cap, "%s+0x%" PRIx64, base, address);
	} else if (with_offset) {
		snprintf(buf, cap, "%.*s+0x%" PRIx64, (int)sy->len, sy->name, address - sy->addr);
	} else {
		snprintf(buf, cap, "%.*s", (int)sy->len, sy->name);
	}
	return buf;
}

int kr_elfsyms_symbol(struct kr_elfsyms *s, uint32_t module, uint64_t address, char *buf,
		      size_t cap, uint64_t *offset)
{
	struct mod *m = module ? find(s, module) : NULL;
	char full[512], *end;
	size_t n;

	if (m && !m->loaded)
		load(s, m);
	if (!m || m->loaded < 0 || !cap)
		return -ENOENT;
	/* named: the form with an offset is the name, "+0x" and the offset;
	 * unnamed, both forms are the same "module+0xaddr" */
	kr_elfsyms_name(s, module, address, 0, buf, cap);
	kr_elfsyms_name(s, module, address, 1, full, sizeof(full));
	n = strlen(buf);
	if (!strcmp(full, buf) || strncmp(full, buf, n) || strncmp(full + n, "+0x", 3))
		return -ENOENT;
	*offset = strtoull(full + n + 3, &end, 16);
	return *end ? -ENOENT : 0;
}

const char *kr_elfsyms_module_name(const struct kr_elfsyms *s, uint32_t module, int *found)
{
	struct mod *m = module ? find(s, module) : NULL;

	if (found)
		*found = m && m->loaded > 0;
	return m ? m->name : "?";
}
