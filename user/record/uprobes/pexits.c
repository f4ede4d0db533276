// SPDX-License-Identifier: GPL-2.0-only
/* A PE function's exits (pexits.h): .pdata's RUNTIME_FUNCTION entries
 * (BeginAddress, EndAddress, UnwindInfo: 12 bytes each, data directory 3)
 * bound a linear decode of each range the function reaches: the entry
 * whose [BeginAddress, EndAddress) holds an address is the function (or
 * the part of it) that address belongs to. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <capstone/capstone.h>

#include "pexits.h"

/* capstone is opened at the first decode, not linked: its relocations
 * alone kept about 3 MiB of every capture resident, where only a d3d12
 * module under Wine decodes. */
#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)
#define CS_SONAME "libcapstone.so." CS_STR(CS_API_MAJOR)

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	bool (*insn_group)(csh, const cs_insn *, unsigned int);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;
static bool cs_loaded;

static void cs_load(void)
{
	void *l = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!l)
		return;
	cs.open = (cs_err (*)(cs_arch, cs_mode, csh *))dlsym(l, "cs_open");
	cs.option = (cs_err (*)(csh, cs_opt_type, size_t))dlsym(l, "cs_option");
	cs.malloc = (cs_insn * (*)(csh)) dlsym(l, "cs_malloc");
	cs.disasm_iter = (bool (*)(csh, const uint8_t **, size_t *, uint64_t *,
				   cs_insn *))dlsym(l, "cs_disasm_iter");
	cs.insn_group = (bool (*)(csh, const cs_insn *, unsigned int))dlsym(l, "cs_insn_group");
	cs.free = (void (*)(cs_insn *, size_t))dlsym(l, "cs_free");
	cs.close = (cs_err (*)(csh *))dlsym(l, "cs_close");
	cs_loaded = cs.open && cs.option && cs.malloc && cs.disasm_iter && cs.insn_group &&
		    cs.free && cs.close;
}

#define DIR_EXCEPTION_OFF 136 /* data directory 3 in a PE32+ optional header */
#define PDATA_MAX 1000000u

struct pe_code {
	const struct katra_blob *b;
	struct katra_pe pe;
	uint64_t pdata; /* file offset of .pdata's entries */
	uint32_t npdata;
};

/* rva of file offset off (in a section's file bytes), or UINT32_MAX */
static uint32_t rva_of(const struct pe_code *c, uint64_t off)
{
	for (uint32_t i = 0; i < c->pe.nsec; i++) {
		const uint8_t *s = c->b->p + c->pe.sec + 40ull * i;
		uint32_t va = katra_rd32(s + 12), rsize = katra_rd32(s + 16), raw = katra_rd32(s + 20);
		if (off >= raw && off - raw < rsize)
			return va + (uint32_t)(off - raw);
	}
	return UINT32_MAX;
}

/* The .pdata range [*begin, *end) holding rva; false when none does. */
static bool range_of(const struct pe_code *c, uint32_t rva, uint32_t *begin, uint32_t *end)
{
	uint32_t lo = 0, hi = c->npdata;

	/* sorted by BeginAddress, as the loader requires */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const uint8_t *e = c->b->p + c->pdata + 12ull * mid;
		if (katra_rd32(e) <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	const uint8_t *e = c->b->p + c->pdata + 12ull * (lo - 1);
	*begin = katra_rd32(e);
	*end = katra_rd32(e + 4);
	return rva < *end && *end - *begin < (1u << 20);
}

static int add_exit(struct katra_pe_exit *out, uint32_t *n, uint64_t off, uint32_t kind)
{
	for (uint32_t i = 0; i < *n; i++)
		if (out[i].off == off)
			return 0;
	if (*n >= KATRA_PE_EXITS_MAX)
		return -E2BIG;
	out[(*n)++] = (struct katra_pe_exit){ off, kind };
	return 0;
}

/* What the decode of one range remembers of the registers: the address a
 * RIP-relative lea put in each (+1; 0: none), and the jump table whose
 * entry each holds (+1), loaded by `movsxd r, [base + index*4]` from a
 * lea'd base (+ that base again: gcc's and clang's switch) */
struct regs {
	uint64_t lea[X86_REG_ENDING];
	uint64_t table[X86_REG_ENDING];
};

static bool reg_ok(unsigned r)
{
	return r > X86_REG_INVALID && r < X86_REG_ENDING;
}

/* The jump table's targets (entry size 4: table + int32, a switch in
 * position-independent code; 8: absolute addresses) from its first entry,
 * while they are inside [begin, end), at most JT_MAX; how many. */
#define JT_MAX 1024
static uint32_t table_targets(const struct pe_code *c, uint64_t table, unsigned size,
			      uint32_t begin, uint32_t end, uint64_t *work)
{
	uint32_t k = 0;

	for (; k < JT_MAX && table + (uint64_t)size * (k + 1) <= UINT32_MAX; k++) {
		uint64_t off = katra_pe_offset(&c->pe, (uint32_t)(table + (uint64_t)size * k));
		uint64_t t;
		++*work;
		if (off == UINT64_MAX || !katra_in_blob(c->b, off, size))
			break;
		if (size == 4)
			t = table + (uint64_t)(int64_t)(int32_t)katra_rd32(c->b->p + off);
		else
			t = katra_rd64(c->b->p + off) - c->pe.image_base;
		if (t < begin || t >= end)
			break;
	}
	return k;
}

/* Tracks the registers through insn (struct regs); for an indirect jmp,
 * true when it goes through a jump table whose targets are inside [begin,
 * end): a switch, not an exit. */
static bool switch_jump(const struct pe_code *c, const cs_insn *insn, struct regs *r,
			uint32_t begin, uint32_t end, uint64_t *work)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *op = x->operands;

	if (insn->id == X86_INS_JMP && x->op_count == 1) {
		if (op[0].type == X86_OP_REG && reg_ok(op[0].reg) && r->table[op[0].reg])
			return table_targets(c, r->table[op[0].reg] - 1, 4, begin, end, work) > 0;
		/* jmp *[base + index*8] from a lea'd base */
		if (op[0].type == X86_OP_MEM && reg_ok(op[0].mem.base) && r->lea[op[0].mem.base] &&
		    op[0].mem.index != X86_REG_INVALID && op[0].mem.scale == 8)
			return table_targets(c, r->lea[op[0].mem.base] - 1 + (uint64_t)op[0].mem.disp, 8,
					     begin, end, work) > 0;
		return false;
	}
	if (x->op_count != 2 || op[0].type != X86_OP_REG || !reg_ok(op[0].reg))
		return false;
	unsigned d = op[0].reg;
	uint64_t lea = 0, table = 0;
	if (insn->id == X86_INS_LEA && op[1].type == X86_OP_MEM && op[1].mem.base == X86_REG_RIP &&
	    op[1].mem.index == X86_REG_INVALID)
		lea = insn->address + insn->size + (uint64_t)op[1].mem.disp + 1;
	else if (insn->id == X86_INS_MOVSXD && op[1].type == X86_OP_MEM &&
		 reg_ok(op[1].mem.base) && r->lea[op[1].mem.base] && op[1].mem.scale == 4 &&
		 !op[1].mem.disp)
		table = r->lea[op[1].mem.base];
	else if (insn->id == X86_INS_ADD && op[1].type == X86_OP_REG && reg_ok(op[1].reg)) {
		/* entry + base, into either register */
		if (r->table[d] && r->lea[op[1].reg] == r->table[d])
			table = r->table[d];
		else if (r->table[op[1].reg] && r->lea[d] == r->table[op[1].reg])
			table = r->table[op[1].reg];
	}
	if (op[0].access & CS_AC_WRITE) {
		r->lea[d] = lea;
		r->table[d] = table;
	}
	return false;
}

/* Decodes [start, end) (rvas): exits into out, jump targets out of
 * [begin, end) into todo (a jmp's, and a conditional jump's: a tail call
 * taken on a condition); *work counts the bytes decoded and the jump
 * table entries read, -E2BIG past KATRA_PE_DECODE_MAX. */
static int sweep(const struct pe_code *c, csh h, cs_insn *insn, uint32_t start, uint32_t begin,
		 uint32_t end, struct katra_pe_exit *out, uint32_t *n, uint32_t *todo,
		 uint32_t *ntodo, uint64_t *work)
{
	uint64_t off = katra_pe_offset(&c->pe, start);
	uint64_t addr = start;
	size_t size;
	const uint8_t *code;
	struct regs regs;

	if (off == UINT64_MAX || !katra_pe_exec(&c->pe, start) ||
	    !katra_in_blob(c->b, off, end - start))
		return -ENOENT;
	if (*work + (end - start) > KATRA_PE_DECODE_MAX)
		return -E2BIG;
	*work += end - start;
	memset(&regs, 0, sizeof(regs));
	code = c->b->p + off;
	size = end - start;
	while (size) {
		if (!cs.disasm_iter(h, &code, &size, &addr, insn))
			return -ENOENT;
		/* where these bytes are in the file: the range was checked as one
		 * run from off (a section table that maps an address in it
		 * elsewhere, or nowhere, is not followed) */
		uint64_t at = off + (insn->address - start);
		if (insn->id == X86_INS_RET) {
			int rc = add_exit(out, n, at, KATRA_PE_EXIT_RET);
			if (rc)
				return rc;
			continue;
		}
		if (!insn->detail)
			continue;
		bool sw = switch_jump(c, insn, &regs, begin, end, work);
		if (*work > KATRA_PE_DECODE_MAX)
			return -E2BIG;
		if (sw)
			continue; /* a switch: its targets are decoded in this range */
		bool jmp = insn->id == X86_INS_JMP, jcc = !jmp && cs.insn_group(h, insn, X86_GRP_JUMP);
		if (!(jmp || jcc) || insn->detail->x86.op_count != 1)
			continue;
		const cs_x86_op *op = &insn->detail->x86.operands[0];
		if (op->type != X86_OP_IMM) { /* through a pointer: its own exit */
			if (!jmp)
				continue;
			int rc = add_exit(out, n, at, KATRA_PE_EXIT_JMP);
			if (rc)
				return rc;
			continue;
		}
		uint64_t target = (uint64_t)op->imm;
		if (target >= begin && target < end)
			continue;
		if (target > UINT32_MAX)
			return -ENOENT;
		if (*ntodo >= KATRA_PE_REGIONS_MAX)
			return -E2BIG;
		todo[(*ntodo)++] = (uint32_t)target;
	}
	return 0;
}

int katra_pe_exits(const struct katra_blob *dll, uint64_t fn_off, struct katra_pe_exit *out,
		   uint32_t *n)
{
	uint64_t work;

	return katra_pe_exits_counted(dll, fn_off, out, n, &work);
}

int katra_pe_exits_counted(const struct katra_blob *dll, uint64_t fn_off,
			   struct katra_pe_exit *out, uint32_t *n, uint64_t *work)
{
	struct pe_code c = { .b = dll };
	uint32_t todo[KATRA_PE_REGIONS_MAX], ntodo = 0, done = 0;
	csh h;
	cs_insn *insn;
	int rc;

	*n = 0;
	*work = 0;
	if (katra_pe_open(dll, &c.pe) || c.pe.optsize < DIR_EXCEPTION_OFF + 8)
		return -ENOEXEC;
	uint32_t prva = katra_rd32(dll->p + c.pe.opt + DIR_EXCEPTION_OFF);
	uint32_t psize = katra_rd32(dll->p + c.pe.opt + DIR_EXCEPTION_OFF + 4);
	c.pdata = katra_pe_offset(&c.pe, prva);
	c.npdata = psize / 12;
	if (!prva || c.pdata == UINT64_MAX || c.npdata > PDATA_MAX ||
	    !katra_in_blob(dll, c.pdata, 12ull * c.npdata))
		return -ENOENT;
	uint32_t fn = rva_of(&c, fn_off);
	if (fn == UINT32_MAX)
		return -ENOEXEC;
	pthread_once(&cs_once, cs_load);
	if (!cs_loaded)
		return -ELIBACC;
	if (cs.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOMEM;
	cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs.malloc(h);
	rc = insn ? 0 : -ENOMEM;
	todo[ntodo++] = fn;
	/* each range once: a jump back into one already swept (a cold part's
	 * return to its hot part) is no new exit */
	uint32_t swept_begin[KATRA_PE_REGIONS_MAX], nswept = 0;
	while (!rc && done < ntodo) {
		uint32_t start = todo[done++], begin, end;
		bool seen = false;
		if (!range_of(&c, start, &begin, &end)) {
			rc = -ENOENT;
			break;
		}
		for (uint32_t i = 0; i < nswept; i++)
			seen |= swept_begin[i] == begin;
		if (seen)
			continue;
		swept_begin[nswept++] = begin;
		/* from the range's start: a target inside it is an instruction
		 * boundary of a linear decode from there */
		rc = sweep(&c, h, insn, begin, begin, end, out, n, todo, &ntodo, work);
	}
	if (insn)
		cs.free(insn, 1);
	cs.close(&h);
	if (!rc && !*n)
		rc = -ENOENT;
	return rc;
}
