// SPDX-License-Identifier: GPL-2.0-only
/* Uprobes on Wine's ntdll.so and the Vulkan driver: which files, which
 * offsets (libelf), attach per file (pid -1), and what could not attach. */
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra/format.h"
#include "katra/wire.h"
#include "uprobes.h"
#include "winenames.h"

#define NAME_MAX_LIST 256
#define SEEN_MAX 8192   /* distinct mapped files remembered (then: rescan anyway) */
#define PENDING_MAX 64

struct probed_file {
	uint64_t dev, ino;     /* stat() identity */
	char path[PATH_MAX];   /* the path it was attached through */
	unsigned nprobes;
	unsigned what;         /* FILE_* */
};

enum { FILE_NTDLL = 1, FILE_VK_LOADER = 2, FILE_VK_DRIVER = 4, FILE_SKIPPED = 8 };

struct katra_uprobes {
	struct katra_probes *probes;
	struct katra_uprobes_opts o;
	char vkresolve[PATH_MAX];
	struct bpf_link **links;
	size_t nlinks, cap_links;
	struct probed_file *files;
	size_t nfiles, cap_files;
	char *attached[NAME_MAX_LIST];
	size_t nattached;
	char *failed[NAME_MAX_LIST];
	size_t nfailed;
	uint64_t *seen;        /* (dev, ino) hashes of mapped files already looked at */
	size_t nseen;
	uint32_t pending[PENDING_MAX];
	size_t npending;
	bool pending_overflow;
	bool vk_resolved;      /* the helper ran (whatever it found) */
	uint64_t next_sweep;   /* CLOCK_MONOTONIC ns of the next sweep of ucall_states */
	char vk_note[KATRA_NOTE_MAX];
	/* generic NT calls: per probed dispatcher (slot = attach cookie), the
	 * names by number */
	struct nt_slot {
		char **names;
		uint32_t count;
		char note[KATRA_NOTE_MAX];
	} nt[KATRA_NT_FILES];
	unsigned nnt;
	/* wineserver request names, per binary (dev, ino), and the wineservers
	 * whose table was handed out */
	struct req_table {
		uint64_t dev, ino;
		char **names;
		uint32_t count;
		struct katra_str *strs;
	} req[8];
	unsigned nreq;
	uint32_t req_given[64];
	unsigned nreq_given;
};

static void add_name(char **list, size_t *n, char *s)
{
	if (!s)
		return;
	if (*n < NAME_MAX_LIST)
		list[(*n)++] = s;
	else
		free(s);
}

static void failed(struct katra_uprobes *u, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void failed(struct katra_uprobes *u, const char *name, const char *fmt, ...)
{
	char why[512], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (asprintf(&s, "%s: %s", name, why) < 0)
		return;
	if (!u->o.quiet)
		fprintf(stderr, "katra-record: probe %s not attached: %s\n", name, why);
	add_name(u->failed, &u->nfailed, s);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* ---- ELF: symbols and virtual addresses as file offsets ---- */

struct elf_file {
	int fd;
	Elf *e;
};

static int elf_open_file(const char *path, struct elf_file *ef, const char **why)
{
	GElf_Ehdr eh;

	ef->e = NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0) {
		*why = strerror(errno);
		return -errno;
	}
	if (elf_version(EV_CURRENT) == EV_NONE || !(ef->e = elf_begin(ef->fd, ELF_C_READ, NULL)) ||
	    elf_kind(ef->e) != ELF_K_ELF || !gelf_getehdr(ef->e, &eh)) {
		*why = "not an ELF file";
		goto bad;
	}
	if (gelf_getclass(ef->e) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		*why = "not an x86_64 ELF file (32-bit libraries are not probed)";
		goto bad;
	}
	return 0;
bad:
	if (ef->e)
		elf_end(ef->e);
	close(ef->fd);
	ef->e = NULL;
	ef->fd = -1;
	return -ENOEXEC;
}

static void elf_close_file(struct elf_file *ef)
{
	if (ef->e)
		elf_end(ef->e);
	if (ef->fd >= 0)
		close(ef->fd);
}

/* The file offset of virtual address vaddr (in a PT_LOAD with file bytes). */
static int elf_vaddr_to_offset(Elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* A defined symbol's value (.dynsym, then .symtab); -ENOENT when absent. */
static int elf_symbol(Elf *e, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	for (int pass = 0; pass < 2; pass++) {
		uint32_t want = pass ? SHT_SYMTAB : SHT_DYNSYM;
		scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			size_t n = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				const char *sn;
				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
					continue;
				sn = elf_strptr(e, sh.sh_link, s.st_name);
				if (sn && !strcmp(sn, name)) {
					*value = s.st_value;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

/* ---- attaching ---- */

static int keep_link(struct katra_uprobes *u, struct bpf_link *l)
{
	if (u->nlinks == u->cap_links) {
		size_t cap = u->cap_links ? 2 * u->cap_links : 32;
		struct bpf_link **m = realloc(u->links, cap * sizeof(*m));
		if (!m) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		u->links = m;
		u->cap_links = cap;
	}
	u->links[u->nlinks++] = l;
	return 0;
}

/* Attaches program prog_name at path+offset (ret: as a uretprobe). */
static int attach_cookie(struct katra_uprobes *u, const char *label, const char *prog_name,
			 const char *path, uint64_t offset, bool ret, uint64_t cookie)
{
	struct bpf_program *prog = katra_probes_program(u->probes, prog_name);
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = cookie);
	struct bpf_link *l;
	char *s;
	int err;

	if (!prog) {
		failed(u, label, "no BPF program %s", prog_name);
		return -ENOENT;
	}
	l = bpf_program__attach_uprobe_opts(prog, -1, path, (size_t)offset, &uo);
	if (!l) {
		err = -errno;
		failed(u, label, "%s at %s+0x%llx: %s", ret ? "uretprobe" : "uprobe", path,
		       (unsigned long long)offset, strerror(-err));
		return err ? err : -EINVAL;
	}
	err = keep_link(u, l);
	if (err)
		return err;
	if (asprintf(&s, "%s %s", ret ? "uretprobe" : "uprobe", label) >= 0)
		add_name(u->attached, &u->nattached, s);
	return 0;
}

static int attach_at(struct katra_uprobes *u, const char *label, const char *prog_name,
		     const char *path, uint64_t offset, bool ret)
{
	return attach_cookie(u, label, prog_name, path, offset, ret, 0);
}

/* A function's entry (and return, when ret_prog): label "FILE:NAME". */
static int attach_function(struct katra_uprobes *u, Elf *e, const char *path, const char *sym,
			   const char *entry_prog, const char *ret_prog)
{
	char label[160];
	uint64_t value, off;
	int n = 0;

	snprintf(label, sizeof(label), "%.96s:%.60s", base_name(path), sym);
	if (elf_symbol(e, sym, &value)) {
		failed(u, label, "no such symbol in %s", path);
		return 0;
	}
	if (elf_vaddr_to_offset(e, value, &off)) {
		failed(u, label, "address 0x%llx of the symbol is in no loadable segment of %s",
		       (unsigned long long)value, path);
		return 0;
	}
	if (!attach_at(u, label, entry_prog, path, off, false))
		n++;
	if (ret_prog && !attach_at(u, label, ret_prog, path, off, true))
		n++;
	return n;
}

static const char *const nt_functions[] = {
	"NtReadFile", "NtWriteFile", "NtCreateFile", "NtWaitForSingleObject",
	"NtWaitForMultipleObjects", "NtDelayExecution", "NtMapViewOfSection",
	"NtAllocateVirtualMemory", "NtCreateUserProcess",
};

/* The Win->Unix call dispatcher: its entry after the prologue (exported as
 * __wine_unix_call_dispatcher_prolog_end by Wine 8 and later) and the
 * instruction after its `call *(%r10,%rdx,8)` (41 ff 14 d2), found in the
 * bytes that follow. */
static int attach_unix_dispatcher(struct katra_uprobes *u, Elf *e, int fd, const char *path)
{
	static const unsigned char call_insn[4] = { 0x41, 0xff, 0x14, 0xd2 };
	const char *sym = "__wine_unix_call_dispatcher_prolog_end";
	char label[160];
	unsigned char code[512];
	uint64_t value, off;
	ssize_t got;
	int n = 0;

	snprintf(label, sizeof(label), "%.96s:__wine_unix_call", base_name(path));
	if (elf_symbol(e, sym, &value)) {
		failed(u, label, "no %s in %s (a Wine before 8, or a different build)", sym, path);
		return 0;
	}
	if (elf_vaddr_to_offset(e, value, &off)) {
		failed(u, label, "%s is in no loadable segment of %s", sym, path);
		return 0;
	}
	got = pread(fd, code, sizeof(code), (off_t)off);
	for (ssize_t i = 0; got > 0 && i + 4 <= got; i++) {
		if (memcmp(code + i, call_insn, 4))
			continue;
		if (!attach_at(u, label, "up_unix_call", path, off, false))
			n++;
		if (!attach_at(u, label, "up_unix_call_ret", path, off + (uint64_t)i + 4, false))
			n++;
		return n;
	}
	failed(u, label, "the dispatcher's call instruction was not found after %s in %s", sym,
	       path);
	return 0;
}

/* ---- every NT call: Wine's syscall dispatcher ---- */

#define WINE_FILE_MAX (256u << 20)

/* The Windows-side ntdll.dll beside PATH (.../x86_64-unix/ntdll.so ->
 * .../x86_64-windows/ntdll.dll: Debian's and Proton's layouts alike). */
static bool pe_beside(const char *path, char *out, size_t cap)
{
	const char *unix_dir = strstr(path, "/x86_64-unix/");

	if (!unix_dir)
		return false;
	return snprintf(out, cap, "%.*s/x86_64-windows/ntdll.dll", (int)(unix_dir - path), path) <
	       (int)cap;
}

/* The dispatcher's `call *(%r10,%rax,8)` (41 ff 14 c2) after its exported
 * __wine_syscall_dispatcher_prolog_end (Wine 8 and later), probed at the call
 * and at the instruction after it; the table and its names from the files
 * (winenames.h).  Numbers whose function has a probe of its own (the NT
 * calls above, wine_server_call) and NtCallbackReturn (it never returns
 * there) are skipped.  Returns the uprobes attached. */
static int attach_nt_dispatcher(struct katra_uprobes *u, Elf *e, int fd, const char *path)
{
	static const unsigned char call_insn[4] = { 0x41, 0xff, 0x14, 0xc2 };
	static const char *const own[] = { "NtReadFile", "NtWriteFile", "NtCreateFile",
		"NtWaitForSingleObject", "NtWaitForMultipleObjects", "NtDelayExecution",
		"NtMapViewOfSection", "NtAllocateVirtualMemory", "NtCreateUserProcess",
		"wine_server_call", "NtCallbackReturn" };
	struct katra_blob so = { 0 }, dll = { 0 };
	struct katra_nt_file nf = { 0 };
	char label[160], pe[PATH_MAX];
	char **pe_names = NULL, **names = NULL;
	uint32_t pe_count = 0, slot = u->nnt, from_pe = 0, from_sym = 0, skipped = 0;
	unsigned char code[512];
	uint64_t prolog, off;
	int n = 0, mfd, rc;
	ssize_t got;
	const char *why = NULL;

	snprintf(label, sizeof(label), "%.96s:NtSyscall", base_name(path));
	if (slot >= KATRA_NT_FILES || (slot && !katra_probes_have_attach_cookie(u->probes))) {
		failed(u, label, "%s", slot ? "one ntdll.so only without bpf_get_attach_cookie "
			 "(Linux 5.15)" : "too many ntdll.so files");
		return 0;
	}
	mfd = katra_probes_map_fd(u->probes, "nt_files");
	if (mfd < 0) {
		failed(u, label, "no nt_files map");
		return 0;
	}
	if ((rc = katra_blob_read(path, WINE_FILE_MAX, &so))) {
		failed(u, label, "%s: %s", path, strerror(-rc));
		return 0;
	}
	prolog = katra_elf_dynsym(&so, "__wine_syscall_dispatcher_prolog_end");
	if (!prolog || elf_vaddr_to_offset(e, prolog, &off)) {
		why = "no __wine_syscall_dispatcher_prolog_end (a Wine before 8, or another build)";
		goto out;
	}
	got = pread(fd, code, sizeof(code), (off_t)off);
	for (ssize_t i = 0; got > 0 && i + 4 <= got; i++)
		if (!memcmp(code + i, call_insn, 4)) {
			nf.call_vaddr = prolog + (uint64_t)i;
			off += (uint64_t)i;
			break;
		}
	if (!nf.call_vaddr) {
		why = "the dispatcher's call through its table was not found";
		goto out;
	}
	/* the numbers: the PE stubs when ntdll.dll is there; the table is the
	 * run of pointers to the functions of numbers 0, 1, ... */
	if (pe_beside(path, pe, sizeof(pe)) && !katra_blob_read(pe, WINE_FILE_MAX, &dll))
		katra_pe_nt_names(&dll, &pe_names, &pe_count);
	{
		const char *n0 = pe_count > 1 && pe_names[0] ? pe_names[0] : "NtAcceptConnectPort";
		const char *n1 = pe_count > 1 && pe_names[1] ? pe_names[1] : "NtAccessCheck";
		uint64_t tv;
		uint32_t tc;
		if (katra_elf_find_table(&so, katra_elf_dynsym(&so, n0), katra_elf_dynsym(&so, n1),
					 &tv, &tc)) {
			why = "its syscall table was not found";
			goto out;
		}
		nf.table_vaddr = tv;
		nf.count = tc;
	}
	names = calloc(nf.count, sizeof(*names));
	if (!names) {
		why = "out of memory";
		goto out;
	}
	for (uint32_t k = 0; k < nf.count; k++) {
		uint64_t fn = katra_elf_pointer(&so, nf.table_vaddr + 8ull * k);
		const char *sym = katra_elf_dynsym_at(&so, fn);
		const char *nm = k < pe_count && pe_names[k] ? pe_names[k] : sym;
		if (nm)
			names[k] = strdup(nm);
		if (k < pe_count && pe_names[k])
			from_pe++;
		else if (sym)
			from_sym++;
		for (size_t j = 0; j < sizeof(own) / sizeof(own[0]) && k < 64 * KATRA_NT_SKIP_WORDS; j++)
			if (sym ? !strcmp(sym, own[j]) : nm && !strcmp(nm, own[j])) {
				nf.skip[k >> 6] |= 1ull << (k & 63);
				skipped++;
			}
	}
	if (bpf_map_update_elem(mfd, &slot, &nf, BPF_ANY)) {
		why = strerror(errno);
		goto out;
	}
	if (!attach_cookie(u, label, "up_nt_syscall", path, off, false, slot))
		n++;
	if (!attach_cookie(u, label, "up_nt_syscall_ret", path, off + 4, false, slot))
		n++;
	if (n) {
		u->nt[slot].names = names;
		u->nt[slot].count = nf.count;
		names = NULL;
		snprintf(u->nt[slot].note, sizeof(u->nt[slot].note),
			 "layer wine: NtSyscall at the dispatcher of %.40s: %u numbers (%u named "
			 "by ntdll.dll, %u by ntdll.so symbols), %u left to their own probes, "
			 "win32u's not written",
			 base_name(path), nf.count, from_pe, from_sym, skipped);
		u->nnt++;
	}
out:
	if (why)
		failed(u, label, "%s in %s", why, path);
	if (names)
		katra_names_free(names, nf.count);
	katra_names_free(pe_names, pe_count);
	katra_blob_free(&dll);
	katra_blob_free(&so);
	return n;
}

const char *katra_uprobes_nt_name(void *ctx, uint32_t slot, uint32_t number)
{
	const struct katra_uprobes *u = ctx;

	if (!u || slot >= u->nnt || number >= u->nt[slot].count)
		return NULL;
	return u->nt[slot].names[number];
}

/* ---- wineserver request names ---- */

bool katra_uprobes_server_requests(void *ctx, uint32_t tgid, const char *comm, size_t comm_len,
				   struct katra_str_vec *out)
{
	struct katra_uprobes *u = ctx;
	char exe[64];
	struct stat st;
	struct req_table *t = NULL;

	if (!u || !u->o.wine || comm_len < 10 || strncmp(comm, "wineserver", 10))
		return false;
	for (unsigned i = 0; i < u->nreq_given; i++)
		if (u->req_given[i] == tgid)
			return false;
	snprintf(exe, sizeof(exe), "/proc/%u/exe", tgid);
	if (stat(exe, &st))
		return false;
	for (unsigned i = 0; i < u->nreq; i++)
		if (u->req[i].dev == st.st_dev && u->req[i].ino == st.st_ino)
			t = &u->req[i];
	if (!t && u->nreq < sizeof(u->req) / sizeof(u->req[0])) {
		struct katra_blob b;
		t = &u->req[u->nreq++];
		memset(t, 0, sizeof(*t));
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		if (!katra_blob_read(exe, WINE_FILE_MAX, &b)) {
			int rc = katra_wineserver_requests(&b, &t->names, &t->count);
			katra_blob_free(&b);
			if (!rc && (t->strs = calloc(t->count, sizeof(*t->strs))))
				for (uint32_t i = 0; i < t->count; i++)
					t->strs[i] = katra_cstr(t->names[i]);
		}
		if (!t->strs && !u->o.quiet)
			fprintf(stderr, "katra-record: no request names found in the wineserver of "
				"pid %u (its session's WineServerCall spans carry numbers only)\n", tgid);
	}
	if (!t || !t->strs)
		return false;
	if (u->nreq_given < sizeof(u->req_given) / sizeof(u->req_given[0]))
		u->req_given[u->nreq_given++] = tgid;
	*out = (struct katra_str_vec){ t->strs, t->count };
	return true;
}

static struct probed_file *find_file(struct katra_uprobes *u, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].dev == dev && u->files[i].ino == ino)
			return &u->files[i];
	return NULL;
}

static struct probed_file *add_file(struct katra_uprobes *u, const struct stat *st,
				    const char *path, unsigned what)
{
	if (u->nfiles == u->cap_files) {
		size_t cap = u->cap_files ? 2 * u->cap_files : 8;
		struct probed_file *m = realloc(u->files, cap * sizeof(*m));
		if (!m)
			return NULL;
		u->files = m;
		u->cap_files = cap;
	}
	struct probed_file *f = &u->files[u->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->what = what;
	snprintf(f->path, sizeof(f->path), "%s", path);
	return f;
}

static int probe_ntdll(struct katra_uprobes *u, const char *path, const struct stat *st)
{
	struct probed_file *f = add_file(u, st, path, FILE_NTDLL);
	struct elf_file ef;
	const char *why = NULL;
	int n = 0;

	if (!f)
		return -ENOMEM;
	if (elf_open_file(path, &ef, &why)) {
		char label[160];
		snprintf(label, sizeof(label), "%.150s", base_name(path));
		failed(u, label, "%s: %s", path, why);
		f->what |= FILE_SKIPPED;
		return 0;
	}
	for (size_t i = 0; i < sizeof(nt_functions) / sizeof(nt_functions[0]); i++) {
		char prog[64];
		snprintf(prog, sizeof(prog), "up_%s", nt_functions[i]);
		n += attach_function(u, ef.e, path, nt_functions[i], prog, "ur_nt");
	}
	n += attach_function(u, ef.e, path, "wine_server_call", "up_wine_server_call", "ur_server");
	n += attach_unix_dispatcher(u, ef.e, ef.fd, path);
	n += attach_nt_dispatcher(u, ef.e, ef.fd, path);
	elf_close_file(&ef);
	f->nprobes = (unsigned)n;
	return n;
}

/* ---- Vulkan: the driver's entry points through katra-vkresolve ---- */

static const char *const vk_functions[] = {
	"vkQueueSubmit", "vkQueueSubmit2", "vkQueuePresentKHR", "vkWaitForFences",
	"vkWaitSemaphores", "vkAcquireNextImageKHR",
};

static bool is_vk_function(const char *name)
{
	for (size_t i = 0; i < sizeof(vk_functions) / sizeof(vk_functions[0]); i++)
		if (!strcmp(vk_functions[i], name))
			return true;
	return false;
}

/* The Vulkan loader's variables that choose drivers, copied from pid's
 * environment into envp (NULL-terminated; strings malloc'ed). */
static size_t vk_environ(uint32_t pid, char **envp, size_t cap)
{
	static const char *const keep[] = {
		"VK_ICD_FILENAMES=", "VK_DRIVER_FILES=", "VK_ADD_DRIVER_FILES=",
		"VK_LOADER_DRIVERS_SELECT=", "VK_LOADER_DRIVERS_DISABLE=", "LD_LIBRARY_PATH=",
		"MESA_VK_DEVICE_SELECT=", "XDG_DATA_DIRS=",
	};
	char path[64], *buf = NULL;
	size_t n = 0, len = 0, bcap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/environ", pid);
	f = fopen(path, "re");
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

/* Runs the helper: lines "entry FUNCTION VADDR PATH".  It loads the drivers
 * the traced process's environment names, so it runs as that process's
 * owner, never as root for someone else (VK_ICD_FILENAMES could name any
 * library); its output is capped. */
#define VKRESOLVE_MAX_OUT (1u << 20)
static int run_vkresolve(struct katra_uprobes *u, uint32_t pid, char **out, size_t *outlen)
{
	char *envp[16], *argv[] = { u->vkresolve, NULL }, proc[64];
	int pfd[2], st;
	pid_t child;
	size_t n, cap = 4096, len = 0;
	struct stat owner;
	char *buf;

	if (access(u->vkresolve, X_OK))
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/%u", pid);
	if (stat(proc, &owner))
		return -errno;
	n = vk_environ(pid, envp, 15);
	buf = malloc(cap);
	if (!buf || pipe2(pfd, O_CLOEXEC)) {
		free(buf);
		for (size_t i = 0; i < n; i++)
			free(envp[i]);
		return -ENOMEM;
	}
	child = fork();
	if (child == 0) {
		dup2(pfd[1], 1);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2);
		if (owner.st_uid != 0 && (setgroups(0, NULL) || setgid(owner.st_gid) ||
					  setuid(owner.st_uid)))
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	for (size_t i = 0; i < n; i++)
		free(envp[i]);
	if (child < 0) {
		close(pfd[0]);
		free(buf);
		return -EAGAIN;
	}
	for (;;) {
		if (len + 1024 > cap && cap >= VKRESOLVE_MAX_OUT) {
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
		ssize_t got = read(pfd[0], buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(pfd[0]);
	buf[len] = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		free(buf);
		return WIFEXITED(st) ? -WEXITSTATUS(st) : -EINTR;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* Attaches one resolved entry point (file + vaddr), once per (file, offset). */
static int probe_vk_entry(struct katra_uprobes *u, const char *fn, const char *path,
			  uint64_t vaddr)
{
	char label[160], prog[64];
	struct elf_file ef;
	struct stat st;
	const char *why = NULL;
	uint64_t off;
	struct probed_file *f;
	int n = 0;

	snprintf(label, sizeof(label), "%.96s:%.60s", base_name(path), fn);
	if (stat(path, &st)) {
		failed(u, label, "%s: %s", path, strerror(errno));
		return 0;
	}
	if (elf_open_file(path, &ef, &why)) {
		failed(u, label, "%s: %s", path, why);
		return 0;
	}
	if (elf_vaddr_to_offset(ef.e, vaddr, &off)) {
		failed(u, label, "0x%llx is in no loadable segment of %s", (unsigned long long)vaddr,
		       path);
		elf_close_file(&ef);
		return 0;
	}
	elf_close_file(&ef);
	f = find_file(u, st.st_dev, st.st_ino);
	if (!f)
		f = add_file(u, &st, path, FILE_VK_DRIVER);
	if (!f)
		return -ENOMEM;
	/* the same function on several devices of one driver: once */
	char key[200];
	snprintf(key, sizeof(key), "uprobe %.170s", label);
	for (size_t i = 0; i < u->nattached; i++)
		if (!strcmp(u->attached[i], key))
			return 0;
	snprintf(prog, sizeof(prog), "up_%.56s", fn);
	if (!attach_at(u, label, prog, path, off, false))
		n++;
	if (!attach_at(u, label, "ur_vulkan", path, off, true))
		n++;
	f->nprobes += (unsigned)n;
	return n;
}

/* The loader's own exports (calls through vkGetDeviceProcAddr pointers do
 * not pass there). */
static int probe_vk_loader_exports(struct katra_uprobes *u, const char *path)
{
	struct elf_file ef;
	const char *why = NULL;
	int n = 0;

	if (elf_open_file(path, &ef, &why)) {
		failed(u, base_name(path), "%s: %s", path, why);
		return 0;
	}
	for (size_t i = 0; i < sizeof(vk_functions) / sizeof(vk_functions[0]); i++) {
		char prog[64];
		snprintf(prog, sizeof(prog), "up_%s", vk_functions[i]);
		n += attach_function(u, ef.e, path, vk_functions[i], prog, "ur_vulkan");
	}
	elf_close_file(&ef);
	return n;
}

static int probe_vulkan(struct katra_uprobes *u, uint32_t pid, const char *loader,
			const struct stat *st)
{
	struct probed_file *f = add_file(u, st, loader, FILE_VK_LOADER);
	char *out = NULL, *line, *save = NULL;
	size_t len = 0;
	int n = 0, found = 0, rc;

	if (!f)
		return -ENOMEM;
	if (u->vk_resolved)
		return 0; /* the drivers are probed already (one helper run per capture) */
	u->vk_resolved = true;
	rc = run_vkresolve(u, pid, &out, &len);
	if (!rc) {
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char fn[64], path[PATH_MAX];
			unsigned long long vaddr;
			if (sscanf(line, "entry %63s %llx %4095s", fn, &vaddr, path) != 3 ||
			    !is_vk_function(fn))
				continue;
			found++;
			n += probe_vk_entry(u, fn, path, vaddr);
		}
		free(out);
	}
	if (rc || !found) {
		snprintf(u->vk_note, sizeof(u->vk_note),
			 "layer vulkan partial: %s: the loader's exports are probed (calls through "
			 "vkGetDeviceProcAddr pointers are not seen)",
			 rc == -ENOENT ? "katra-vkresolve not found"
			 : rc ? "katra-vkresolve failed" : "no driver entry point resolved");
		if (!u->o.quiet)
			fprintf(stderr, "katra-record: %s\n", u->vk_note);
		n += probe_vk_loader_exports(u, loader);
	}
	f->nprobes = (unsigned)n;
	return n;
}

/* ---- which files ---- */

/* path as seen from here: itself when it is the file pid maps (same inode),
 * else through /proc/PID/root (another mount namespace: a container). */
static int host_path(uint32_t pid, const char *path, uint64_t ino, char *out, size_t cap,
		     struct stat *st)
{
	if (!stat(path, st) && st->st_ino == ino) {
		snprintf(out, cap, "%s", path);
		return 0;
	}
	if (pid) {
		snprintf(out, cap, "/proc/%u/root%s", pid, path);
		if (!stat(out, st) && st->st_ino == ino)
			return 0;
	}
	return -ENOENT;
}

static bool is_ntdll(const char *path)
{
	return !strcmp(base_name(path), "ntdll.so") && strstr(path, "wine/");
}

static bool is_vk_loader(const char *path)
{
	return !strncmp(base_name(path), "libvulkan.so", 12);
}

static int consider(struct katra_uprobes *u, uint32_t pid, const char *path, uint64_t ino)
{
	char hp[PATH_MAX];
	struct stat st;
	bool nt = u->o.wine && is_ntdll(path), vk = u->o.vulkan && is_vk_loader(path);

	if (!nt && !vk)
		return 0;
	if (host_path(pid, path, ino, hp, sizeof(hp), &st))
		return 0;
	if (find_file(u, st.st_dev, st.st_ino))
		return 0;
	return nt ? probe_ntdll(u, hp, &st) : probe_vulkan(u, pid, hp, &st);
}

int katra_uprobes_scan_pid(struct katra_uprobes *u, uint32_t pid)
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
		int pos = -1;
		char *p, *nl;
		/* start-end perms offset dev inode path */
		if (sscanf(line, "%*s %*s %*s %*s %llu %n", &ino, &pos) < 1 || pos < 0 || !ino)
			continue;
		p = line + pos;
		if (*p != '/')
			continue;
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (strstr(p, " (deleted)"))
			continue;
		int got = consider(u, pid, p, ino);
		if (got > 0)
			n += got;
	}
	fclose(f);
	return n;
}

int katra_uprobes_scan_command(struct katra_uprobes *u, const char *path)
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
	const char *b = base_name(path);
	struct stat st;
	int n = 0;

	if (!u || !u->o.wine || (!strstr(b, "wine") && !strstr(b, "proton")))
		return 0;
	if (!realpath(path, real))
		return 0;
	snprintf(dir, sizeof(dir), "%s", real);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
		if (stat(cand, &st) || find_file(u, st.st_dev, st.st_ino))
			continue;
		if (!realpath(cand, real))
			continue;
		int got = probe_ntdll(u, real, &st);
		if (got > 0)
			n += got;
	}
	return n;
}

/* ---- rescans from mmap records ---- */

static uint64_t seen_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	return h ? h : 1;
}

void katra_uprobes_note_mapping(struct katra_uprobes *u, uint32_t pid, uint64_t kdev,
				uint64_t ino)
{
	uint64_t h = seen_hash(kdev, ino);
	size_t i;

	if (!u || (!u->o.wine && !u->o.vulkan) || !u->seen)
		return;
	/* open addressing over SEEN_MAX slots */
	for (i = h & (SEEN_MAX - 1); u->seen[i]; i = (i + 1) & (SEEN_MAX - 1)) {
		if (u->seen[i] == h)
			return;
	}
	if (u->nseen < SEEN_MAX * 3 / 4) {
		u->seen[i] = h;
		u->nseen++;
	}
	for (i = 0; i < u->npending; i++)
		if (u->pending[i] == pid)
			return;
	if (u->npending < PENDING_MAX)
		u->pending[u->npending++] = pid;
	else
		u->pending_overflow = true;
}

/* A thread that died inside a probed call (a process exiting while its
 * threads wait, a thread killed) leaves its entry in ucall_states: entries of
 * threads that no longer exist go, so the table does not fill up over a long
 * capture.  (A reused tid is told apart in BPF by the thread's start time.) */
static void sweep_states(struct katra_uprobes *u)
{
	int fd = katra_probes_map_fd(u->probes, "ucall_states");
	uint64_t key, next, dead[256];
	size_t ndead = 0;
	char path[64];
	struct stat st;
	void *prev = NULL;

	if (fd < 0 || !u->nfiles)
		return;
	while (ndead < 256 && !bpf_map_get_next_key(fd, prev, &next)) {
		snprintf(path, sizeof(path), "/proc/%u", (unsigned)(next >> 2));
		if (stat(path, &st) && errno == ENOENT)
			dead[ndead++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < ndead; i++)
		bpf_map_delete_elem(fd, &dead[i]);
}

void katra_uprobes_poll(struct katra_uprobes *u)
{
	struct timespec ts;

	if (!u)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now >= u->next_sweep) {
		sweep_states(u);
		u->next_sweep = now + 1000000000ull;
	}
	if (!u->npending)
		return;
	for (size_t i = 0; i < u->npending; i++)
		katra_uprobes_scan_pid(u, u->pending[i]);
	u->npending = 0;
	u->pending_overflow = false;
}

/* ---- lifetime and reports ---- */

int katra_uprobes_new(struct katra_probes *p, const struct katra_uprobes_opts *o,
		      struct katra_uprobes **out)
{
	struct katra_uprobes *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->probes = p;
	u->o = *o;
	u->seen = calloc(SEEN_MAX, sizeof(*u->seen));
	if (!u->seen) {
		free(u);
		return -ENOMEM;
	}
	if (o->vkresolve) {
		snprintf(u->vkresolve, sizeof(u->vkresolve), "%s", o->vkresolve);
	} else {
		ssize_t n = readlink("/proc/self/exe", u->vkresolve, sizeof(u->vkresolve) - 1);
		if (n > 0) {
			u->vkresolve[n] = 0;
			char *slash = strrchr(u->vkresolve, '/');
			if (slash)
				snprintf(slash + 1, sizeof(u->vkresolve) - (size_t)(slash + 1 - u->vkresolve),
					 "katra-vkresolve");
		}
	}
	*out = u;
	return 0;
}

void katra_uprobes_detach(struct katra_uprobes *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nlinks; i++)
		bpf_link__destroy(u->links[i]);
	u->nlinks = 0;
}

void katra_uprobes_free(struct katra_uprobes *u)
{
	if (!u)
		return;
	katra_uprobes_detach(u);
	free(u->links);
	free(u->files);
	for (unsigned i = 0; i < u->nnt; i++)
		katra_names_free(u->nt[i].names, u->nt[i].count);
	for (unsigned i = 0; i < u->nreq; i++) {
		katra_names_free(u->req[i].names, u->req[i].count);
		free(u->req[i].strs);
	}
	free(u->seen);
	for (size_t i = 0; i < u->nattached; i++)
		free(u->attached[i]);
	for (size_t i = 0; i < u->nfailed; i++)
		free(u->failed[i]);
	free(u);
}

size_t katra_uprobes_attached(const struct katra_uprobes *u, const char *const **names)
{
	*names = u ? (const char *const *)u->attached : NULL;
	return u ? u->nattached : 0;
}

size_t katra_uprobes_failed(const struct katra_uprobes *u, const char *const **names)
{
	*names = u ? (const char *const *)u->failed : NULL;
	return u ? u->nfailed : 0;
}

static bool have_events_dir(const char *sys)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", sys);
	if (!stat(path, &st))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", sys);
	return !stat(path, &st);
}

size_t katra_uprobes_notes(const struct katra_uprobes *u, char (*out)[KATRA_NOTE_MAX],
			   size_t cap)
{
	size_t n = 0;
	unsigned nt = 0, vk = 0;

	if (!u)
		return 0;
	for (size_t i = 0; i < u->nfiles; i++) {
		const struct probed_file *f = &u->files[i];
		if (n < cap && (f->what & FILE_NTDLL) && !(f->what & FILE_SKIPPED)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer wine: %u uprobes on %.200s", f->nprobes,
				 f->path);
			nt++;
		} else if (n < cap && (f->what & FILE_VK_DRIVER)) {
			snprintf(out[n++], KATRA_NOTE_MAX, "layer vulkan: %u uprobes on %.200s",
				 f->nprobes, f->path);
			vk++;
		} else if (f->what & FILE_VK_LOADER) {
			vk += f->nprobes ? 1 : 0;
		}
	}
	if (!u->o.wine && !u->o.vulkan && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layers wine and vulkan off: --no-uprobes");
	if (u->o.wine && !nt && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer wine off: no traced process maps Wine's "
			 "ntdll.so at start (probed when one does)");
	for (unsigned i = 0; i < u->nnt && n < cap; i++)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->nt[i].note);
	if (u->vk_note[0] && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "%s", u->vk_note);
	if (u->o.vulkan && !vk && n < cap)
		snprintf(out[n++], KATRA_NOTE_MAX, "layer vulkan off: no traced process maps the "
			 "Vulkan loader at start (probed when one does)");
	if (n < cap) {
		bool drm = have_events_dir("drm"), sched = have_events_dir("gpu_scheduler"),
		     fence = have_events_dir("dma_fence");
		if (!drm && !sched && !fence)
			snprintf(out[n++], KATRA_NOTE_MAX, "layer gpu unavailable: no drm, "
				 "gpu_scheduler or dma_fence tracepoints in this kernel");
		else
			snprintf(out[n++], KATRA_NOTE_MAX, "layer gpu off: the kernel has%s%s%s "
				 "tracepoints; this version does not record them",
				 drm ? " drm" : "", sched ? " gpu_scheduler" : "",
				 fence ? " dma_fence" : "");
	}
	return n;
}
