// SPDX-License-Identifier: GPL-2.0-only
/* Wine's Unix-side ntdll.so: the NT functions, the Win->Unix and syscall
 * dispatchers (every NT call), and the wineserver's request names. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "uprobes_int.h"
#include "winenames.h"

static const char *const nt_functions[] = {
	"NtReadFile", "NtWriteFile", "NtCreateFile", "NtWaitForSingleObject",
	"NtWaitForMultipleObjects", "NtDelayExecution", "NtMapViewOfSection",
	"NtAllocateVirtualMemory", "NtCreateUserProcess",
};

/* ---- what this build lays out: read from its own code ---- */

/* A dispatcher's call through its table, found in the build's bytes: after
 * the label Wine 8 exports at the end of its prologue
 * (__wine_*_dispatcher_prolog_end), else (Wine 10 exports no such label) in
 * the exported dispatcher itself.  entry: where the prologue ends (Wine 8) or
 * the call itself (Wine 10); call: the call instruction; as ELF virtual
 * addresses and file offsets. */
struct dispatcher_call {
	uint64_t entry_off, call_vaddr, call_off;
	unsigned char before[32]; /* the bytes just before the call */
	unsigned nbefore;
	unsigned char after[3]; /* the first bytes after the call */
};

static int find_dispatcher_call(Elf *e, int fd, const char *dispatcher,
				const unsigned char insn[4], struct dispatcher_call *dc,
				const char **why)
{
	char prolog[96];
	unsigned char code[1024];
	uint64_t value, off;
	bool after_prolog;
	ssize_t got;

	memset(dc, 0, sizeof(*dc));
	snprintf(prolog, sizeof(prolog), "%s_prolog_end", dispatcher);
	after_prolog = !up_elf_symbol(e, prolog, &value);
	if (!after_prolog && up_elf_symbol(e, dispatcher, &value)) {
		*why = "neither the dispatcher nor its prologue's end is exported (a Wine "
		       "before 8, or another build)";
		return -ENOENT;
	}
	if (up_elf_vaddr_to_offset(e, value, &off)) {
		*why = "the dispatcher is in no loadable segment";
		return -ENOENT;
	}
	/* the call is ~350 bytes after the prologue's end (Wine 8), ~400 after
	 * the dispatcher's entry (Wine 10) */
	got = pread(fd, code, sizeof(code), (off_t)off);
	for (ssize_t i = 0; got > 0 && i + 4 <= got; i++) {
		if (memcmp(code + i, insn, 4))
			continue;
		dc->call_vaddr = value + (uint64_t)i;
		dc->call_off = off + (uint64_t)i;
		dc->entry_off = after_prolog ? off : dc->call_off;
		dc->nbefore = i < (ssize_t)sizeof(dc->before) ? (unsigned)i : sizeof(dc->before);
		memcpy(dc->before, code + i - dc->nbefore, dc->nbefore);
		if (i + 4 + (ssize_t)sizeof(dc->after) <= got)
			memcpy(dc->after, code + i + 4, sizeof(dc->after));
		return 0;
	}
	*why = "the dispatcher's call through its table was not found";
	return -ENOENT;
}

/* A function's entry (and return) with the build's calling convention as the
 * attach cookie; without attach cookies only the Windows convention. */
static int attach_nt_function(struct katra_uprobes *u, Elf *e, const char *path, const char *sym,
			      const char *entry_prog, const char *ret_prog, int abi,
			      const char *abi_why)
{
	char label[160];
	uint64_t value, off;
	int n = 0;

	snprintf(label, sizeof(label), "%.96s:%.60s", up_base_name(path), sym);
	if (abi < 0) {
		up_failed(u, label, "%s in %s", abi_why, path);
		return 0;
	}
	if (abi && !katra_probes_have_attach_cookie(u->probes)) {
		up_failed(u, label, "this build's System V arguments need bpf_get_attach_cookie "
			  "(Linux 5.15)");
		return 0;
	}
	if (up_elf_symbol(e, sym, &value)) {
		up_failed(u, label, "no such symbol in %s", path);
		return 0;
	}
	if (up_elf_vaddr_to_offset(e, value, &off)) {
		up_failed(u, label, "address 0x%llx of the symbol is in no loadable segment of %s",
			  (unsigned long long)value, path);
		return 0;
	}
	/* the return first: a call is seen whole or not at all */
	if (ret_prog && !up_attach_cookie(u, label, ret_prog, path, off, true, (uint64_t)abi))
		n++;
	if (!up_attach_cookie(u, label, entry_prog, path, off, false, (uint64_t)abi))
		n++;
	return n;
}

/* The Win->Unix call dispatcher: its entry after the prologue (Wine 8) or its
 * `call *(%r10,%rdx,8)` (41 ff 14 d2; Wine 10), where r10, rdx and r8 hold
 * the handle, the function and the arguments in both, and the instruction
 * after that call. */
static int attach_unix_dispatcher(struct katra_uprobes *u, Elf *e, int fd, const char *path)
{
	static const unsigned char call_insn[4] = { 0x41, 0xff, 0x14, 0xd2 };
	struct dispatcher_call dc;
	const char *why = NULL;
	char label[160];
	int n = 0;

	snprintf(label, sizeof(label), "%.96s:__wine_unix_call", up_base_name(path));
	if (find_dispatcher_call(e, fd, "__wine_unix_call_dispatcher", call_insn, &dc, &why)) {
		up_failed(u, label, "%s in %s", why, path);
		return 0;
	}
	/* the return first: a call is seen whole or not at all */
	if (!up_attach_at(u, label, "up_unix_call_ret", path, dc.call_off + 4, false))
		n++;
	if (!up_attach_at(u, label, "up_unix_call", path, dc.entry_off, false))
		n++;
	return n;
}

/* ---- every NT call: Wine's syscall dispatcher ---- */

#define WINE_FILE_MAX (256u << 20)

/* The Windows-side DLL beside PATH (.../x86_64-unix/ntdll.so ->
 * .../x86_64-windows/DLL: Debian's and Proton's layouts alike). */
static bool pe_beside(const char *path, const char *dll, char *out, size_t cap)
{
	const char *unix_dir = strstr(path, "/x86_64-unix/");

	if (!unix_dir)
		return false;
	return snprintf(out, cap, "%.*s/x86_64-windows/%s", (int)(unix_dir - path), path, dll) <
	       (int)cap;
}

/* A file beside ntdll.so, opened inside pid's root as pid names it (a
 * FIFO, a device or a link out of the root there: refused and named) */
static int read_beside(struct katra_uprobes *u, uint32_t pid, const char *path,
		       struct katra_blob *b)
{
	struct stat st;
	int fd, rc = up_open_mapped(u, pid, path, 0, KATRA_PROC_ANY_DEV, 0, &fd, &st);

	if (rc)
		return rc;
	rc = katra_blob_read_fd(fd, WINE_FILE_MAX, b);
	close(fd);
	return rc;
}

/* What the dispatcher's code around its call lets the probes tell
 * (KATRA_NT_FILE_*, wire.h): `mov (%rbx),%r10` just before it (4c 8b 13),
 * `lea disp32(%rbp),%rcx` just after it (48 8d 8d). */
static uint32_t dispatcher_shape(const struct dispatcher_call *dc)
{
	uint32_t flags = 0;

	if (dc->nbefore >= 3 && !memcmp(dc->before + dc->nbefore - 3, "\x4c\x8b\x13", 3))
		flags |= KATRA_NT_FILE_TABLE1;
	if (!memcmp(dc->after, "\x48\x8d\x8d", 3))
		flags |= KATRA_NT_FILE_FRAME;
	return flags;
}

/* The dispatcher's `call *(%r10,%rax,8)` (41 ff 14 c2, find_dispatcher_call),
 * probed at the call and at the instruction after it; the table and its names from the files
 * (winenames.h).  Numbers whose function has a probe of its own (the NT
 * calls above, wine_server_call) and NtCallbackReturn (it never returns
 * there) are skipped.  Returns the uprobes attached. */
static int attach_nt_dispatcher(struct katra_uprobes *u, uint32_t pid, int fd,
				const struct dispatcher_call *dc, const char *dc_why, const char *path)
{
	static const char *const own[] = { "NtReadFile", "NtWriteFile", "NtCreateFile",
		"NtWaitForSingleObject", "NtWaitForMultipleObjects", "NtDelayExecution",
		"NtMapViewOfSection", "NtAllocateVirtualMemory", "NtCreateUserProcess",
		"wine_server_call", "NtCallbackReturn" };
	struct katra_blob so = { 0 }, dll = { 0 };
	struct katra_nt_file nf = { 0 };
	char label[160], pe[PATH_MAX];
	char **pe_names = NULL, **names = NULL, **names1 = NULL;
	uint32_t count1 = 0;
	const char **syms = NULL;
	uint64_t *fns = NULL;
	uint32_t pe_count = 0, slot = u->nnt, from_pe = 0, from_sym = 0, skipped = 0;
	uint64_t off;
	int n = 0, mfd, rc;
	const char *why = NULL;

	snprintf(label, sizeof(label), "%.96s:NtSyscall", up_base_name(path));
	if (slot >= KATRA_NT_FILES || (slot && !katra_probes_have_attach_cookie(u->probes))) {
		up_failed(u, label, "%s", slot ? "one ntdll.so only without bpf_get_attach_cookie "
			 "(Linux 5.15)" : "too many ntdll.so files");
		return 0;
	}
	mfd = katra_probes_map_fd(u->probes, "nt_files");
	if (mfd < 0) {
		up_failed(u, label, "no nt_files map");
		return 0;
	}
	if (dc_why) {
		why = dc_why;
		goto out;
	}
	nf.call_vaddr = dc->call_vaddr;
	off = dc->call_off;
	/* the numbers: the PE stubs when ntdll.dll is there; the table is the
	 * run of pointers to the functions of numbers 0, 1, ... */
	nf.flags = dispatcher_shape(dc);
	if (!(nf.flags & KATRA_NT_FILE_FRAME)) {
		why = "the dispatcher does not find its frame from rbp after its call (another "
		      "build)";
		goto out;
	}
	if (pe_beside(path, "ntdll.dll", pe, sizeof(pe)) &&
	    !read_beside(u, pid, pe, &dll) &&
	    katra_pe_nt_names(&dll, 0, &pe_names, &pe_count) == -E2BIG)
		up_failed(u, label, "%s: names not read (more than %d exports)", pe,
			  KATRA_PE_EXPORTS_MAX);
	katra_blob_free(&dll);
	/* win32u's numbers: its stubs, table 1 */
	if ((nf.flags & KATRA_NT_FILE_TABLE1) && pe_beside(path, "win32u.dll", pe, sizeof(pe)) &&
	    !read_beside(u, pid, pe, &dll) &&
	    katra_pe_nt_names(&dll, 1, &names1, &count1) == -E2BIG)
		up_failed(u, label, "%s: names not read (more than %d exports)", pe,
			  KATRA_PE_EXPORTS_MAX);
	katra_blob_free(&dll);
	/* ntdll.so after the DLLs: one file of up to WINE_FILE_MAX held at a time */
	if ((rc = katra_blob_read_fd(fd, WINE_FILE_MAX, &so))) {
		why = strerror(-rc);
		goto out;
	}
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
	fns = calloc(nf.count, sizeof(*fns));
	syms = calloc(nf.count, sizeof(*syms));
	if (!names || !fns || !syms) {
		why = "out of memory";
		goto out;
	}
	/* the table's functions, then their names in one pass over the symbols */
	for (uint32_t k = 0; k < nf.count; k++)
		fns[k] = katra_elf_pointer(&so, nf.table_vaddr + 8ull * k);
	if (katra_elf_func_names(&so, fns, nf.count, syms)) {
		why = "out of memory";
		goto out;
	}
	for (uint32_t k = 0; k < nf.count; k++) {
		const char *sym = syms[k];
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
	/* the return first: a call is seen whole or not at all */
	if (!up_attach_cookie(u, label, "up_nt_syscall_ret", path, off + 4, false, slot))
		n++;
	if (!up_attach_cookie(u, label, "up_nt_syscall", path, off, false, slot))
		n++;
	if (n) {
		char w32[64];
		if (!(nf.flags & KATRA_NT_FILE_TABLE1))
			snprintf(w32, sizeof(w32), "win32u's not written (its table is not told "
				 "apart)");
		else
			snprintf(w32, sizeof(w32), "win32u's as 0x1000 | n (%u named by win32u.dll)",
				 count1 ? katra_names_count(names1, count1) : 0);
		u->nt[slot].names = names;
		u->nt[slot].count = nf.count;
		u->nt[slot].names1 = names1;
		u->nt[slot].count1 = count1;
		names = names1 = NULL;
		snprintf(u->nt[slot].note, sizeof(u->nt[slot].note),
			 "layer wine: NtSyscall at the dispatcher of %.40s: %u numbers (%u named "
			 "by ntdll.dll, %u by ntdll.so symbols), %u left to their own probes, %.63s",
			 up_base_name(path), nf.count, from_pe, from_sym, skipped, w32);
		/* published: the drain's emitter reads the names from here on */
		__atomic_store_n(&u->nnt, slot + 1, __ATOMIC_RELEASE);
	}
out:
	if (why)
		up_failed(u, label, "%s in %s", why, path);
	if (names)
		katra_names_free(names, nf.count);
	katra_names_free(pe_names, pe_count);
	katra_names_free(names1, count1);
	free(fns);
	free(syms);
	katra_blob_free(&dll);
	katra_blob_free(&so);
	return n;
}

const char *katra_uprobes_nt_name(void *ctx, uint32_t slot, uint32_t number)
{
	const struct katra_uprobes *u = ctx;

	if (!u || slot >= __atomic_load_n(&u->nnt, __ATOMIC_ACQUIRE))
		return NULL;
	if (number >> 12 == 1) /* win32u's table */
		return (number & 0xfff) < u->nt[slot].count1 ? u->nt[slot].names1[number & 0xfff]
							      : NULL;
	if (number >= u->nt[slot].count)
		return NULL;
	return u->nt[slot].names[number];
}

/* ---- wineserver request names ---- */

/* The request names of the wineserver binary at path (dev, ino of st), read
 * once into a table, published to the drain (nreq, release); NULL when the
 * tables are full.  The worker's only: a whole-file read. */
static struct req_table *req_load(struct katra_uprobes *u, int fd, const struct stat *st)
{
	struct katra_blob b;
	struct req_table *t;

	for (unsigned i = 0; i < u->nreq; i++)
		if (u->req[i].dev == st->st_dev && u->req[i].ino == st->st_ino)
			return &u->req[i];
	if (u->nreq >= sizeof(u->req) / sizeof(u->req[0]))
		return NULL;
	t = &u->req[u->nreq];
	memset(t, 0, sizeof(*t));
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	if (!katra_blob_read_fd(fd, WINE_FILE_MAX, &b)) {
		int rc = katra_wineserver_requests(&b, &t->names, &t->count);
		katra_blob_free(&b);
		if (!rc && (t->strs = calloc(t->count, sizeof(*t->strs))))
			for (uint32_t i = 0; i < t->count; i++)
				t->strs[i] = katra_cstr(t->names[i]);
	}
	__atomic_store_n(&u->nreq, u->nreq + 1, __ATOMIC_RELEASE);
	return t;
}

static bool is_elf(int fd)
{
	char magic[4] = { 0 };

	return pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "\177ELF", 4);
}

void up_load_wineserver(struct katra_uprobes *u, int fd, const struct stat *st)
{
	if (S_ISREG(st->st_mode) && is_elf(fd))
		req_load(u, fd, st);
}

/* A Wine launcher about to run: the wineserver it will start, beside it, has
 * its request names read now (the worker's job, before the command runs:
 * the drain, which names the wineserver when it starts, only looks them up;
 * u->req is not written by the worker after that). */
void up_prepare_wineserver(struct katra_uprobes *u, const char *launcher)
{
	static const char *const rel[] = {
		"wineserver", "../lib/wine/wineserver64", "../lib/wine/wineserver",
		"../lib64/wine/wineserver", "files/bin/wineserver", /* Proton */
	};
	char real[PATH_MAX], dir[PATH_MAX], cand[PATH_MAX * 2];
	struct stat st;

	if (!realpath(launcher, real))
		return;
	snprintf(dir, sizeof(dir), "%s", real);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		int fd;
		snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
		if (!realpath(cand, real) ||
		    up_open_mapped(u, 0, real, 0, KATRA_PROC_ANY_DEV, 0, &fd, &st))
			continue;
		if (is_elf(fd))
			req_load(u, fd, &st);
		close(fd);
	}
}

int up_probe_ntdll(struct katra_uprobes *u, uint32_t pid, const char *path, int fd,
		   const struct stat *st)
{
	static const unsigned char nt_call[4] = { 0x41, 0xff, 0x14, 0xc2 };
	struct probed_file *f = up_add_file(u, st, path, FILE_NTDLL);
	struct dispatcher_call dc;
	struct elf_file ef;
	const char *why = NULL, *dc_why = NULL, *abi_why = NULL;
	int n = 0, abi = -1;

	if (!f)
		return -ENOMEM;
	up_wine_frame_read(u, path, fd, st); /* --stacks: where its syscall frame is */
	if (up_elf_open(fd, &ef, &why)) {
		char label[160];
		snprintf(label, sizeof(label), "%.150s", up_base_name(path));
		up_failed(u, label, "%s: %s", path, why);
		f->what |= FILE_SKIPPED;
		return 0;
	}
	/* the calling convention, from the syscall dispatcher's own code */
	if (find_dispatcher_call(ef.e, ef.fd, "__wine_syscall_dispatcher", nt_call, &dc, &dc_why))
		abi_why = "the calling convention is unknown: no syscall dispatcher";
	else if ((abi = katra_wine_nt_abi(dc.before, dc.nbefore)) < 0)
		abi_why = "the calling convention is unknown: the syscall dispatcher moves its "
			  "first argument to neither rcx nor rdi";
	up_via(u, fd, path); /* probed through the file read */
	up_batch_begin(u); /* one uprobe_multi link per program, where they work */
	for (size_t i = 0; i < sizeof(nt_functions) / sizeof(nt_functions[0]); i++) {
		char prog[64];
		snprintf(prog, sizeof(prog), "up_%s", nt_functions[i]);
		n += attach_nt_function(u, ef.e, path, nt_functions[i], prog, "ur_nt", abi, abi_why);
	}
	n += attach_nt_function(u, ef.e, path, "wine_server_call", "up_wine_server_call", "ur_server",
				abi, abi_why);
	n += attach_unix_dispatcher(u, ef.e, ef.fd, path);
	n += attach_nt_dispatcher(u, pid, fd, &dc, dc_why, path);
	n -= (int)up_batch_end(u);
	up_via_end(u);
	up_elf_close(&ef);
	f->nprobes = (unsigned)n;
	return n;
}

