// SPDX-License-Identifier: GPL-2.0-only
/* A user stack unwound from its registers and its copy (the process's
 * module table reported to libdwfl, as perf's --call-graph dwarf does):
 * CFI (.eh_frame, .debug_frame) first; frame pointers where CFI yields no
 * caller.  Memory outside the copy is never read. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "stacks_int.h"

/* x86_64 struct pt_regs words (wire.h: KATRA_STACK_REGS) */
enum { R15, R14, R13, R12, RBP, RBX, R11, R10, R9, R8, RAX, RCX, RDX, RSI, RDI, ORIG_AX, RIP,
       CS, EFLAGS, RSP, SS };

struct walk {
	const struct katra_stack_rec *rec;
	struct stk_proc *p;
	struct stk_frame *out;
	uint32_t n;
};

static bool in_copy(const struct katra_stack_rec *r, uint64_t addr, uint64_t *v)
{
	if (addr < r->stack_base || addr + 8 > r->stack_base + r->stack_len)
		return false;
	memcpy(v, r->data + (addr - r->stack_base), 8);
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0;
}

/* arg: the process (dwfl_attach_state's); its walk in progress is the thread's */
static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = ((struct stk_proc *)arg)->walk;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct walk *w = ((struct stk_proc *)arg)->walk;
	uint64_t v;

	(void)dwfl;
	if (!in_copy(w->rec, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct walk *w = arg;
	const __u64 *r = w->rec->regs;
	/* DWARF's x86_64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	Dwarf_Word dw[17] = { r[RAX], r[RDX], r[RCX], r[RBX], r[RSI], r[RDI], r[RBP], r[RSP],
			      r[R8],  r[R9],  r[R10], r[R11], r[R12], r[R13], r[R14], r[R15],
			      r[RIP] };

	dwfl_thread_state_register_pc(thread, r[RIP]);
	return dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* The load bias of a file mapped at m: the mapping's address less the
 * address its file offset has in the ELF's own address space */
static int file_bias(int fd, const struct stk_map *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t n;
	int rc = -ENOEXEC;

	if (!elf)
		return -ENOEXEC;
	if (gelf_getehdr(elf, &eh) && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			uint64_t align = ph.p_align > 4096 ? ph.p_align : 4096;
			uint64_t off = ph.p_offset & ~(align - 1);
			if (m->pgoff < off || m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = eh.e_type == ET_EXEC ? 0 : m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
			rc = 0;
			break;
		}
	}
	elf_end(elf);
	return rc;
}

/* Each file of p once, at the mapping of its lowest offset */
static int report(struct stk_proc *p, struct stk_file *files)
{
	Dwfl *dwfl = dwfl_begin(&dwfl_cbs);

	if (!dwfl)
		return -ENOMEM;
	p->mods = calloc(p->nmaps ? p->nmaps : 1, sizeof(*p->mods));
	p->mod_files = calloc(p->nmaps ? p->nmaps : 1, sizeof(*p->mod_files));
	if (!p->mods || !p->mod_files) {
		dwfl_end(dwfl);
		return -ENOMEM;
	}
	dwfl_report_begin(dwfl);
	for (uint32_t i = 0; i < p->nmaps; i++) {
		const struct stk_map *m = &p->maps[i];
		bool seen = false;
		uint64_t bias;
		for (uint32_t j = 0; j < p->nmods && !seen; j++)
			seen = p->mod_files[j] == m->file;
		for (uint32_t j = 0; j < p->nmaps && !seen; j++)
			seen = p->maps[j].file == m->file && p->maps[j].pgoff < m->pgoff;
		if (seen || files[m->file].fd < 0 || file_bias(files[m->file].fd, m, &bias))
			continue;
		int fd = dup(files[m->file].fd); /* the module's own: dwfl_end closes it */
		if (fd < 0)
			continue;
		Dwfl_Module *mod = dwfl_report_elf(dwfl, files[m->file].path, files[m->file].path,
						   fd, bias, true);
		if (!mod) {
			close(fd);
			continue;
		}
		p->mods[p->nmods] = mod;
		p->mod_files[p->nmods++] = m->file;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	p->dwfl = dwfl;
	return 0;
}

static void add_frame(struct walk *w, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(w->p->dwfl, pc);
	struct stk_frame *f = &w->out[w->n++];

	f->file = UINT32_MAX;
	f->address = pc;
	for (uint32_t i = 0; mod && i < w->p->nmods; i++) {
		Dwarf_Addr bias;
		if (w->p->mods[i] != mod || !dwfl_module_getelf(mod, &bias))
			continue;
		f->file = w->p->mod_files[i];
		f->address = pc - bias;
	}
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a caller's pc is its return address: the call is the byte before */
	add_frame(w, activation ? pc : pc - 1);
	return w->n < STK_MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The rbp chain from the registers, in the copy; the end of it (a zero
 * rbp, a return address of 0) is the outermost frame */
static bool walk_fp(struct walk *w, uint64_t bp)
{
	uint64_t next, ret;

	while (w->n < STK_MAX_FRAMES) {
		if (!bp)
			return true;
		if (!in_copy(w->rec, bp, &next) || !in_copy(w->rec, bp + 8, &ret))
			return false;
		if (!ret)
			return true;
		add_frame(w, ret - 1);
		if (next <= bp)
			return next == 0;
		bp = next;
	}
	return false;
}

int stk_unwind(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
	       bool fp_only, struct stk_frame *out, uint32_t *n, bool *truncated)
{
	struct walk w = { rec, p, out, 0 };
	int rc;

	*n = 0;
	*truncated = true;
	/* Windows x64 code (a Wine thread in its PE code): .pdata, not CFI */
	if (stk_pe_unwind(p, files, rec, out, n, truncated))
		return 0;
	if (!p->dwfl) {
		rc = report(p, files);
		if (rc)
			return rc;
		if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_cbs, p))
			return -ENOEXEC;
	}
	if (!fp_only) {
		/* the thread argument is the walk: get_thread hands it back */
		p->walk = &w;
		rc = dwfl_getthread_frames(p->dwfl, (pid_t)rec->tid, on_frame, &w);
		*truncated = rc != 0;
		if (w.n > 1 || !*truncated) {
			*n = w.n;
			stk_pe_join(p, files, rec, out, n, truncated);
			return 0;
		}
	}
	/* no caller found by CFI: the frame pointers */
	w.n = 0;
	add_frame(&w, rec->regs[RIP]);
	*truncated = !walk_fp(&w, rec->regs[RBP]);
	*n = w.n;
	stk_pe_join(p, files, rec, out, n, truncated);
	return 0;
}

void stk_proc_release(struct stk_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->mods);
	free(p->mod_files);
	free(p->maps);
	stk_pe_release(p);
	p->dwfl = NULL;
	p->mods = NULL;
	p->mod_files = NULL;
	p->maps = NULL;
}
