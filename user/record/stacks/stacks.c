// SPDX-License-Identifier: GPL-2.0-only
/* Call stacks after the hot path (stacks.h): the spool, each process's
 * module table, and the records written at the end. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include <katra/format.h>

#include "record/peunwind/peunwind.h"
#include "record/procfs/procpath.h"
#include "kallsyms.h"
#include "stacks.h"
#include "stacks_int.h"

#define MAX_PROCS 1024
#define MAX_FILES 1024
#define MAX_MAPS  2048 /* file-backed mappings of one process */

struct katra_stacks {
	struct katra_stacks_opts o;
	FILE *spool;
	uint64_t taken;
	struct stk_proc procs[MAX_PROCS];
	uint32_t nprocs;
	struct stk_file files[MAX_FILES];
	uint32_t nfiles;
	uint32_t next_module;
	struct stk_stack *stacks;
	size_t nstacks, capstacks;
};

int katra_stacks_new(const struct katra_stacks_opts *o, struct katra_stacks **out)
{
	struct katra_stacks *st = calloc(1, sizeof(*st));

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->o = *o;
	if (!st->o.proc)
		st->o.proc = "/proc";
	st->spool = tmpfile();
	if (!st->spool) {
		int err = -errno;
		free(st);
		return err;
	}
	elf_version(EV_CURRENT);
	*out = st;
	return 0;
}

void katra_stacks_free(struct katra_stacks *st)
{
	if (!st)
		return;
	for (uint32_t i = 0; i < st->nprocs; i++)
		stk_proc_release(&st->procs[i]);
	for (uint32_t i = 0; i < st->nfiles; i++) {
		if (st->files[i].fd >= 0)
			close(st->files[i].fd);
		katra_blob_free(&st->files[i].blob);
	}
	for (size_t i = 0; i < st->nstacks; i++) {
		free(st->stacks[i].frames);
		free(st->stacks[i].kernel);
	}
	free(st->stacks);
	if (st->spool)
		fclose(st->spool);
	free(st);
}

static uint32_t file_of(struct katra_stacks *st, uint32_t pid, const char *path, uint64_t dev,
			uint64_t ino)
{
	for (uint32_t i = 0; i < st->nfiles; i++)
		if (st->files[i].dev == dev && st->files[i].ino == ino)
			return i;
	if (st->nfiles == MAX_FILES)
		return UINT32_MAX;
	struct stk_file *f = &st->files[st->nfiles];
	struct stat sb;
	/* the one opener of a traced process's files: inside its root, the file
	 * its maps line names (device, inode) or none */
	if (katra_proc_open(st->o.proc, pid, path, 0, dev, ino, &f->fd, &sb))
		return UINT32_MAX;
	char mz[2];
	f->dev = dev;
	f->ino = ino;
	f->module_id = 0;
	/* a PE image (Wine): its headers name it; read whole at its first walk */
	f->pe = pread(f->fd, mz, 2, 0) == 2 && mz[0] == 'M' && mz[1] == 'Z';
	f->pe_read = false;
	f->wine_read = false;
	f->wine_call_ret = 0;
	f->blob = (struct katra_blob){ NULL, 0 };
	snprintf(f->path, sizeof(f->path), "%s", path);
	return st->nfiles++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The process's size in pages (/proc/PID/statm's first field; 0 if gone):
 * one short read, to tell whether its mappings may have changed */
static uint64_t vm_pages(const struct katra_stacks *st, uint32_t pid)
{
	char name[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "%s/%u/statm", st->o.proc, pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

/* The mappings read now (fresh, n) merged into those read before: an older
 * one stays while no fresh one overlaps it and its file is not mapped
 * elsewhere now (a library unloaded: older stacks may name it; the same file
 * at a new address: an exec, or a library loaded again, replaces it) */
static void merge_maps(struct stk_proc *p, const struct stk_map *fresh, uint32_t n)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < p->nmaps; i++) {
		const struct stk_map *o = &p->maps[i];
		bool keep = true, same = false;
		for (uint32_t k = 0; k < n && keep; k++) {
			const struct stk_map *m = &fresh[k];
			if (o->start == m->start && o->end == m->end && o->pgoff == m->pgoff &&
			    o->file == m->file)
				same = true;
			else if ((o->start < m->end && m->start < o->end) || o->file == m->file)
				keep = false;
		}
		if (keep && !same)
			p->maps[j++] = *o;
	}
	p->nmaps = j;
	for (uint32_t k = 0; k < n && p->nmaps < MAX_MAPS; k++)
		p->maps[p->nmaps++] = fresh[k];
}

/* The process's file-backed mappings, merged with those read before: at
 * its first stack, and again at a stack whose pc (or Windows half's pc) none
 * covers, when its size changed since (a library mapped since: a caller's
 * frame in it, its pc covered, as Wine's kernelbase.dll mapped after a
 * read at the process's start) or a second after the last read (an exec) */
static void read_maps(struct katra_stacks *st, struct stk_proc *p)
{
	char name[64], line[4096];
	struct stk_map *fresh = calloc(MAX_MAPS, sizeof(*fresh));
	uint32_t n = 0;
	FILE *f;

	p->read_ns = now_ns();
	/* before the maps: a mapping added meanwhile is read next time */
	p->vm_pages = vm_pages(st, p->pid);
	snprintf(name, sizeof(name), "%s/%u/maps", st->o.proc, p->pid);
	f = fopen(name, "re");
	if (!p->maps)
		p->maps = calloc(MAX_MAPS, sizeof(*p->maps));
	if (!f || !p->maps || !fresh) {
		p->read_failed = !p->nmaps;
		if (f)
			fclose(f);
		free(fresh);
		return;
	}
	p->read_failed = false;
	while (fgets(line, sizeof(line), f) && n < MAX_MAPS) {
		uint64_t start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start,
			   &end, perms, &pgoff, &maj, &min, &ino, &at) < 7 || !at || line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* " (deleted)": the file is gone; its inode still opens if linked */
		uint32_t fi = file_of(st, p->pid, line + at, makedev(maj, min), ino);
		if (fi == UINT32_MAX)
			continue;
		fresh[n++] = (struct stk_map){ start, end, pgoff, fi };
	}
	fclose(f);
	merge_maps(p, fresh, n);
	free(fresh);
}

static bool covered(const struct stk_proc *p, uint64_t pc)
{
	for (uint32_t i = 0; i < p->nmaps; i++)
		if (pc >= p->maps[i].start && pc < p->maps[i].end)
			return true;
	return false;
}

static struct stk_proc *proc_of(struct katra_stacks *st, uint32_t pid, bool create)
{
	for (uint32_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].pid == pid)
			return &st->procs[i];
	if (!create || st->nprocs == MAX_PROCS)
		return NULL;
	struct stk_proc *p = &st->procs[st->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	read_maps(st, p);
	return p;
}

int katra_stacks_take(struct katra_stacks *st, const void *rec, size_t size)
{
	const struct katra_stack_rec *r = rec;

	if (size < KATRA_STACK_HEAD_BYTES || r->stack_len > KATRA_STACK_BYTES ||
	    r->pe_len > KATRA_STACK_BYTES - r->stack_len ||
	    size < KATRA_STACK_HEAD_BYTES + r->stack_len + r->pe_len)
		return 0; /* malformed: not ours to write */
	/* the module table now, while the process is there */
	struct stk_proc *p = proc_of(st, r->tgid, true);
	if (p && (!covered(p, r->regs[16]) ||
		  (r->pe_len && !covered(p, r->pe_frame[KATRA_WF_RIP])) ||
		  now_ns() - p->read_ns > 1000000000ull || vm_pages(st, p->pid) != p->vm_pages))
		read_maps(st, p);
	if (fwrite(rec, KATRA_STACK_HEAD_BYTES + r->stack_len + r->pe_len, 1, st->spool) != 1)
		return -EIO;
	st->taken++;
	return 0;
}

/* ---- the end of the capture ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* A PE module's identity: build_id the symbol servers' key, pe the
 * TimeDateStamp, SizeOfImage and CodeView record (GUID as symbol servers
 * print it, lowercase; empty without CodeView) */
static void pe_module(const struct katra_peu_identity *id, char *key, size_t n, char guid[33],
		      struct katra_module *m)
{
	const uint8_t *g = id->guid;

	katra_pe_identity_key(id, key, n);
	guid[0] = '\0';
	if (id->has_codeview)
		snprintf(guid, 33, "%08x%04x%04x%02x%02x%02x%02x%02x%02x%02x%02x", katra_rd32(g),
			 katra_rd16(g + 4), katra_rd16(g + 6), g[8], g[9], g[10], g[11], g[12],
			 g[13], g[14], g[15]);
	m->has_pe = true;
	m->pe.time_date_stamp = id->timestamp;
	m->pe.size_of_image = id->image_size;
	m->pe.pdb_guid = katra_cstr(guid);
	m->pe.pdb_age = id->has_codeview ? id->age : 0;
}

/* A Module record the first time a frame names the file */
static int module_of(struct katra_stacks *st, struct katra_writer *w, uint32_t fi, uint32_t *id,
		     struct katra_stacks_result *res)
{
	struct stk_file *f = &st->files[fi];
	const void *bid = NULL;
	ssize_t blen = 0;
	struct katra_record r = { .type = KATRA_RECORD_MODULE };

	if (f->module_id) {
		*id = f->module_id;
		return 0;
	}
	Elf *elf = f->pe ? NULL : elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		blen = dwelf_elf_gnu_build_id(elf, &bid);
	char hex[2 * 64 + 1] = "", guid[33];
	for (ssize_t i = 0; i < blen && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)bid)[i]);
	struct katra_peu_identity pid;
	const struct katra_blob *pb = stk_pe_blob(f);
	if (pb && !katra_pe_identity(pb, &pid)) {
		pe_module(&pid, hex, sizeof(hex), guid, &r.u.module);
		r.u.module.pe.pdb_name = katra_cstr(pid.pdb);
	}
	f->module_id = ++st->next_module;
	const char *name = f->path, *slash = strrchr(f->path, '/');
	if (!st->o.full_paths && slash)
		name = slash + 1;
	r.u.module.id = f->module_id;
	r.u.module.name = katra_cstr(name);
	r.u.module.build_id = katra_cstr(hex);
	int rc = katra_writer_append(w, &r);
	if (elf)
		elf_end(elf);
	res->modules++;
	*id = f->module_id;
	return rc;
}

/* The stack's id: a Stack record the first time it is seen */
static int stack_id(struct katra_stacks *st, struct katra_writer *w, const struct kallsyms *ks,
		    const struct stk_frame *fr, uint32_t n, const uint64_t *kips, uint32_t nk,
		    bool truncated, uint64_t *id, struct katra_stacks_result *res)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, fr, n * sizeof(*fr));
	h = fnv(fnv(h, kips, nk * 8), &truncated, 1);
	for (size_t i = 0; i < st->nstacks; i++) {
		const struct stk_stack *s = &st->stacks[i];
		if (s->hash == h && s->nframes == n && s->nkernel == nk && s->truncated == truncated &&
		    !memcmp(s->frames, fr, n * sizeof(*fr)) && !memcmp(s->kernel, kips, nk * 8)) {
			*id = s->id;
			return 0;
		}
	}
	if (st->nstacks == st->capstacks) {
		size_t cap = st->capstacks ? st->capstacks * 2 : 256;
		struct stk_stack *ns = realloc(st->stacks, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		st->stacks = ns;
		st->capstacks = cap;
	}
	struct stk_stack *s = &st->stacks[st->nstacks];
	s->frames = malloc(n * sizeof(*fr) + 1);
	s->kernel = malloc(nk * 8 + 1);
	if (!s->frames || !s->kernel) {
		free(s->frames);
		free(s->kernel);
		return -ENOMEM;
	}
	memcpy(s->frames, fr, n * sizeof(*fr));
	memcpy(s->kernel, kips, nk * 8);
	*s = (struct stk_stack){ h, st->nstacks + 1, n, nk, truncated, s->frames, s->kernel };
	st->nstacks++;

	struct katra_stack_frame frames[STK_MAX_FRAMES];
	static char knames[KATRA_STACK_KDEPTH][160];
	struct katra_str kstr[KATRA_STACK_KDEPTH];
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		frames[i].module = 0;
		frames[i].address = fr[i].address;
		if (fr[i].file != UINT32_MAX)
			rc = module_of(st, w, fr[i].file, &frames[i].module, res);
	}
	/* the probe's own frames (the BPF programs and the tracepoint's
	 * trampoline) are not the thread's: the stack starts below them */
	uint32_t nks = 0, skip = 0;
	for (uint32_t i = 0; i < nk; i++) {
		kallsyms_name(ks, kips[i], knames[nks], sizeof(knames[nks]));
		if (nks == 0 && skip == i && (!strncmp(knames[0], "bpf_", 4) ||
					     !strncmp(knames[0], "__bpf_", 6) ||
					     !strncmp(knames[0], "__traceiter_", 12))) {
			skip++;
			continue;
		}
		kstr[nks] = katra_cstr(knames[nks]);
		nks++;
	}
	struct katra_record r = { .type = KATRA_RECORD_STACK };
	r.u.stack = (struct katra_stack){ s->id, frames, n, { kstr, nks }, truncated };
	if (!rc)
		rc = katra_writer_append(w, &r);
	res->stacks++;
	res->truncated += truncated;
	*id = s->id;
	return rc;
}

/* The probe's site as the trace names it */
static uint32_t site_of(uint32_t wire)
{
	return wire == KATRA_WSTACK_SYSCALL  ? KATRA_SITE_SYSCALL
	       : wire == KATRA_WSTACK_SAMPLE ? KATRA_SITE_SAMPLE
					     : KATRA_SITE_OFF_CPU;
}

int katra_stacks_finish(struct katra_stacks *st, struct katra_writer *w, katra_kstack_fn kstack,
			void *kctx, struct katra_stacks_result *res)
{
	static struct katra_stack_rec rec; /* 16 KiB: not on the stack */
	struct stk_frame frames[STK_MAX_FRAMES];
	uint64_t kips[KATRA_STACK_KDEPTH];
	struct kallsyms *ks = NULL;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->taken = st->taken;
	if (!st->taken)
		return 0;
	if (kallsyms_load("/proc/kallsyms", &ks))
		ks = NULL; /* kernel frames then by address */
	rewind(st->spool);
	while (!rc && fread(&rec, KATRA_STACK_HEAD_BYTES, 1, st->spool) == 1) {
		uint32_t n = 0, nk = 0;
		bool truncated = true;
		uint64_t id;

		uint32_t len = rec.stack_len + rec.pe_len;
		if (rec.stack_len > KATRA_STACK_BYTES || len > KATRA_STACK_BYTES ||
		    (len && fread(rec.data, len, 1, st->spool) != 1)) {
			rc = -EIO;
			break;
		}
		/* its Begin is not in the trace: nothing to cite */
		if (rec.begin_ts < st->o.start_mono_ns) {
			res->before++;
			continue;
		}
		struct stk_proc *p = proc_of(st, rec.tgid, false);
		if (!p || p->read_failed || stk_unwind(p, st->files, &rec, st->o.fp_only, frames, &n,
							&truncated)) {
			/* no module table: the pc alone */
			frames[0] = (struct stk_frame){ UINT32_MAX, rec.regs[16] };
			n = 1;
			truncated = true;
			res->no_module++;
		}
		if (kstack && !kstack(kctx, (int32_t)rec.kstack_id, kips)) {
			while (nk < KATRA_STACK_KDEPTH && kips[nk])
				nk++;
		} else if (rec.kstack_id < 0 && rec.knr) {
			/* the map refused it: its frames came in the record */
			nk = rec.knr < KATRA_STACK_KDEPTH ? rec.knr : KATRA_STACK_KDEPTH;
			memcpy(kips, rec.kips, nk * sizeof(kips[0]));
			res->kernel_beside++;
		}
		rc = stack_id(st, w, ks, frames, n, kips, nk, truncated, &id, res);
		if (rc)
			break;
		struct katra_record r = { .type = KATRA_RECORD_STACK_OF };
		r.u.stack_of = (struct katra_stack_of){ id, rec.tid, rec.tgid,
							rec.begin_ts - st->o.start_mono_ns,
							rec.end_ts - rec.begin_ts,
							site_of(rec.site) };
		rc = katra_writer_append(w, &r);
		res->written += !rc;
	}
	kallsyms_free(ks);
	if (!rc && !st->o.no_symbols) {
		uint64_t t0 = now_ns();
		rc = stk_write_symbols(st->files, st->stacks, st->nstacks, w,
				       &res->named, &res->unnamed);
		res->symbols_ns = now_ns() - t0;
	}
	return rc;
}
