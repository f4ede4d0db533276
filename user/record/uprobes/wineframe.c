// SPDX-License-Identifier: GPL-2.0-only
/* Wine's syscall frame: where the TEB points to it and where in it the
 * dispatcher saves the caller's registers, from ntdll.so's own code
 * (wineframe.h). */
#include <errno.h>
#include <string.h>

#include "wineframe.h"
#include "winenames.h"

#define LOAD_LEN 9     /* 65 REX 8b modrm 25 disp32 */
#define LOAD_WINDOW 64 /* bytes searched for it: after Wine 10's symbol, before Wine 8's */
#define MAX_INSNS 64

static const uint8_t slot_words[KATRA_WF_SLOTS] = KATRA_WF_SLOT_WORDS;

void katra_wine_frame_default(struct katra_wine_frame_offs *o)
{
	memset(o, 0, sizeof(*o));
	o->teb_frame = KATRA_WINE_TEB_SYSCALL_FRAME;
	for (int i = 0; i < KATRA_WF_SLOTS; i++)
		o->slot[i] = (__u16)(8 * slot_words[i]);
}

int katra_wine_frame_is_default(const struct katra_wine_frame_offs *o)
{
	struct katra_wine_frame_offs d;

	katra_wine_frame_default(&d);
	return !memcmp(o, &d, sizeof(d));
}

/* The bytes of the file at vaddr in an executable segment: *avail of them
 * (at most cap), or NULL */
static const uint8_t *code_at(const struct katra_blob *so, uint64_t vaddr, size_t cap,
			      size_t *avail)
{
	uint64_t off = katra_elf_offset(so, vaddr, 1, true);

	if (off == UINT64_MAX || off >= so->len)
		return NULL;
	*avail = so->len - off < cap ? (size_t)(so->len - off) : cap;
	return so->p + off;
}

/* `mov %gs:disp32,%reg` at c: the register (rsp, rbp, r12 and r13 need
 * encodings the decode below does not take: refused), else -1 */
static int gs_load(const uint8_t *c, uint32_t *disp)
{
	if (c[0] != 0x65 || (c[1] & 0xfb) != 0x48 || c[2] != 0x8b || (c[3] & 0xc7) != 0x04 ||
	    c[4] != 0x25)
		return -1;
	int reg = ((c[1] & 4) << 1) | ((c[3] >> 3) & 7);
	if ((reg & 7) == 4 || (reg & 7) == 5)
		return -1;
	memcpy(disp, c + 5, 4);
	return reg;
}

/* The slot index of a register (0 rax .. 15 r15), or -1 */
static int slot_of(int reg)
{
	switch (reg) {
	case 4: return 1;  /* rsp */
	case 5: return 2;  /* rbp */
	case 3: return 3;  /* rbx */
	case 6: return 4;  /* rsi */
	case 7: return 5;  /* rdi */
	case 12: case 13: case 14: case 15: return reg - 6;
	default: return -1;
	}
}

/* A memory operand at c (modrm first, rex its prefix or 0): its length, its
 * base register and displacement; -1 for a register operand, a SIB byte or
 * rip-relative (none of them is a store into the frame) or past n bytes */
static int mem_operand(const uint8_t *c, size_t n, uint8_t rex, int *base, int32_t *disp)
{
	uint8_t mod, rm;

	if (!n)
		return -1;
	mod = c[0] >> 6;
	rm = c[0] & 7;
	if (mod == 3 || rm == 4 || (mod == 0 && rm == 5))
		return -1;
	*base = ((rex & 1) << 3) | rm;
	if (mod == 0) {
		*disp = 0;
		return 1;
	}
	if (mod == 1) {
		if (n < 2)
			return -1;
		*disp = (int8_t)c[1];
		return 2;
	}
	if (n < 5)
		return -1;
	memcpy(disp, c + 1, 4);
	return 5;
}

/* The stores into the frame after its load (c: the instruction after it):
 * linear, until every slot is known or an instruction not of the
 * prologue's kinds (pop/mov/movl to memory, pushf, mov from a segment
 * register) */
static int decode_stores(const uint8_t *c, size_t n, int frame_reg, struct katra_wine_frame_offs *o)
{
	uint16_t seen = 0;
	size_t at = 0;

	for (int k = 0; k < MAX_INSNS && at < n && seen != (1u << KATRA_WF_SLOTS) - 1; k++) {
		uint8_t rex = (c[at] & 0xf0) == 0x40 ? c[at] : 0, op;
		size_t i = at + (rex ? 1 : 0);
		int base, len, slot = -1;
		int32_t disp;

		if (i >= n)
			break;
		op = c[i++];
		if (op == 0x9c && !rex) { /* pushf */
			at = i;
			continue;
		}
		if (op != 0x8f && op != 0x89 && op != 0xc7 && op != 0x8c)
			break;
		len = mem_operand(c + i, n - i, rex, &base, &disp);
		if (len < 0)
			break;
		if (op == 0x8f && ((c[i] >> 3) & 7)) /* pop is /0 */
			break;
		if (op == 0xc7 && ((c[i] >> 3) & 7)) /* mov imm32 is /0 */
			break;
		i += (size_t)len + (op == 0xc7 ? 4 : 0);
		if (i > n)
			break;
		at = i;
		if (base != frame_reg)
			continue;
		if (op == 0x8f) /* the first pop into the frame: the return address */
			slot = (seen & 1) ? -1 : 0;
		else if (op == 0x89 && (rex & 8))
			slot = slot_of(((rex & 4) << 1) | ((c[at - len] >> 3) & 7));
		if (slot < 0 || (seen & (1u << slot)))
			continue;
		if (disp < 0 || disp >= KATRA_WF_SLOT_MAX || (disp & 7))
			return -ERANGE;
		o->slot[slot] = (__u16)disp;
		seen |= (uint16_t)(1u << slot);
	}
	return seen == (1u << KATRA_WF_SLOTS) - 1 ? 0 : -ENOENT;
}

int katra_wine_frame_read(const struct katra_blob *so, struct katra_wine_frame *out,
			  const char **why)
{
	const uint8_t *c, *load = NULL;
	uint64_t at;
	size_t avail;
	uint32_t disp = 0;
	int reg = -1;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if ((at = katra_elf_dynsym(so, "__wine_syscall_dispatcher"))) {
		out->symbol = "__wine_syscall_dispatcher";
		out->dispatcher = at;
		c = code_at(so, at, LOAD_WINDOW + KATRA_WINE_FRAME_CODE, &avail);
		for (size_t i = 0; c && i < LOAD_WINDOW && i + LOAD_LEN <= avail && !load; i++)
			if ((reg = gs_load(c + i, &disp)) >= 0) {
				load = c + i;
				out->load_vaddr = at + i;
			}
	} else if ((at = katra_elf_dynsym(so, "__wine_syscall_dispatcher_prolog_end")) &&
		   at > LOAD_WINDOW) {
		out->symbol = "__wine_syscall_dispatcher_prolog_end";
		out->dispatcher = at;
		c = code_at(so, at - LOAD_WINDOW, LOAD_WINDOW + KATRA_WINE_FRAME_CODE, &avail);
		/* the last one before the label */
		for (size_t i = LOAD_WINDOW - LOAD_LEN + 1; c && i-- > 0 && !load;)
			if (i + LOAD_LEN <= avail && (reg = gs_load(c + i, &disp)) >= 0) {
				load = c + i;
				out->load_vaddr = at - LOAD_WINDOW + i;
			}
	} else {
		*why = "neither __wine_syscall_dispatcher nor its prologue's end is exported";
		return -ENOENT;
	}
	if (!load) {
		*why = "the dispatcher does not load its frame from %gs";
		return -ENOENT;
	}
	if (!disp || disp >= 0x10000 || (disp & 7)) {
		*why = "the dispatcher loads its frame from an unlikely TEB offset";
		return -ERANGE;
	}
	out->offs.teb_frame = disp;
	{
		static const uint8_t call[4] = { 0x41, 0xff, 0x14, 0xc2 };
		size_t len, at = (size_t)(load - so->p);
		size_t n = so->len - at < KATRA_WINE_CALL_WINDOW ? so->len - at : KATRA_WINE_CALL_WINDOW;
		for (len = 0; len + 4 <= n; len++)
			if (!memcmp(load + len, call, 4)) {
				out->call_ret = out->load_vaddr + len + 4;
				break;
			}
	}
	/* the code from the load on: avail counts from c */
	size_t from = (size_t)(load - c) + LOAD_LEN;
	size_t left = avail > from ? avail - from : 0;
	if (left > KATRA_WINE_FRAME_CODE)
		left = KATRA_WINE_FRAME_CODE;
	int rc = decode_stores(load + LOAD_LEN, left, reg, &out->offs);
	if (rc) {
		*why = "the dispatcher's stores of rip, rsp, rbp, rbx, rsi, rdi and r12-r15 into "
		       "its frame were not all found";
		return rc;
	}
	return 0;
}
