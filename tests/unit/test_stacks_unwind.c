// SPDX-License-Identifier: GPL-2.0-only
/* The stacks wing without the kernel (user/record/stacks/): a record made
 * here as the probe makes it (this thread's registers in pt_regs' layout, a
 * page-by-page copy of its stack from sp's page) is spooled, unwound by CFI
 * at the finish and written as Module / Stack / StackOf; the frames name
 * unwind_leaf <- unwind_mid <- unwind_outer in order (this binary is built
 * without frame pointers), and StackOf carries the times less the start.
 * /proc/self is the traced process. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "katra/format.h"
#include "katra/wire.h"
#include "record/stacks/kallsyms.h"
#include "record/stacks/stacks.h"
#include "crafted_pe_util.h"
#include "symbols/elfsyms.h"
#include "../../tools/sample_records.h"

static struct katra_stack_rec rec;

/* The copy as bpf_probe_read_user makes it: whole pages, up to the first
 * one that cannot be read */
static void copy_stack(uint64_t sp)
{
	rec.stack_base = sp & ~4095ull;
	rec.stack_len = 0;
	for (int i = 0; i < KATRA_STACK_PAGES; i++) {
		struct iovec local = { rec.data + i * 4096, 4096 };
		struct iovec remote = { (void *)(uintptr_t)(rec.stack_base + i * 4096ull), 4096 };
		if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 4096)
			break;
		rec.stack_len = (i + 1) * 4096;
	}
}

__attribute__((noinline)) static void unwind_leaf(void)
{
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;

	/* pt_regs: r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx dx si di orig_ax ip cs
	 * flags sp ss; ip and sp of one instant (one asm) */
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\tmov %%r13, %5\n\tmov %%r14, %6\n\tmov %%r15, %7"
			 : "=r"(ip), "=r"(sp), "=r"(bp), "=r"(bx), "=r"(r12), "=r"(r13), "=r"(r14),
			   "=r"(r15));
	memset(rec.regs, 0, sizeof(rec.regs));
	rec.regs[0] = r15;
	rec.regs[1] = r14;
	rec.regs[2] = r13;
	rec.regs[3] = r12;
	rec.regs[4] = bp;
	rec.regs[5] = bx;
	rec.regs[16] = ip;
	rec.regs[19] = sp;
	copy_stack(sp);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void unwind_mid(void)
{
	unwind_leaf();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void unwind_outer(void)
{
	unwind_mid();
	__asm__ volatile("" ::: "memory");
}

Test(stacks_unwind, cfi_names_the_chain_made_here)
{
	char path[] = "/tmp/katra-stk-XXXXXX", msg[256], buf[256];
	struct katra_stacks_opts o = { .proc = "/proc", .full_paths = true,
				       .start_mono_ns = 1000 };
	struct katra_stacks_result res;
	struct katra_stacks *st;
	struct katra_writer *w;
	struct katra_reader *r;
	struct katra_record kr;
	struct kr_elfsyms *sy = kr_elfsyms_new(NULL);
	const char *want[] = { "unwind_leaf", "unwind_mid", "unwind_outer" };
	int fd = mkstemp(path), nstack = 0, nof = 0, nsym = 0;
	struct katra_stack_frame top[3] = { { 0, 0 } };

	cr_assert_geq(fd, 0);
	close(fd);
	memset(&rec, 0, sizeof(rec));
	unwind_outer();
	cr_assert_gt(rec.stack_len, 0, "the stack copy");
	rec.tgid = (uint32_t)getpid();
	rec.tid = (uint32_t)gettid();
	rec.begin_ts = 5000;
	rec.end_ts = 9000;
	rec.kstack_id = -2;
	rec.site = KATRA_WSTACK_SYSCALL;
	cr_assert_eq(katra_stacks_new(&o, &st), 0);
	cr_assert_eq(katra_stacks_take(st, &rec, KATRA_STACK_HEAD_BYTES + rec.stack_len), 0);
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), KATRA_WRITER_OVERWRITE), 0);
	cr_assert_eq(katra_stacks_finish(st, w, NULL, NULL, &res), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	katra_stacks_free(st);
	cr_assert_eq(res.written, 1);
	cr_assert_eq(res.stacks, 1);

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &kr) == KATRA_READ_RECORD) {
		if (kr.type == KATRA_RECORD_MODULE) {
			kr_elfsyms_module(sy, kr.u.module.id, kr.u.module.name.ptr,
					  kr.u.module.name.len, kr.u.module.build_id.ptr,
					  kr.u.module.build_id.len);
		} else if (kr.type == KATRA_RECORD_STACK) {
			const struct katra_stack *s = &kr.u.stack;
			size_t i = 0, j;
			nstack++;
			cr_assert_eq(s->kernel.len, 0);
			/* the first frame is unwind_leaf itself (the pc) */
			for (j = 0; j < 3 && i < s->frames_len; i++, j++)
				top[j] = s->frames[i];
			for (i = 0, j = 0; j < 3 && i < s->frames_len; i++, j++)
				cr_assert_str_eq(kr_elfsyms_name(sy, s->frames[i].module,
								 s->frames[i].address, 0, buf,
								 sizeof(buf)),
						 want[j], "frame %zu", i);
			cr_assert_eq(j, 3, "%" PRIu64 " frames", s->frames_len);
			cr_assert_gt(s->frames_len, 3, "the test's callers below");
		} else if (kr.type == KATRA_RECORD_SYMBOLS) {
			/* the recorder's own names of the three frames, from the
			 * file it opened: the function and the offset in it */
			for (uint64_t i = 0; i < kr.u.symbols.names_len; i++) {
				const struct katra_symbol_name *e = &kr.u.symbols.names[i];
				for (int j = 0; j < 3; j++) {
					if (top[j].module != kr.u.symbols.module ||
					    top[j].address != e->address)
						continue;
					cr_assert_eq(e->name.len, strlen(want[j]));
					cr_assert(!memcmp(e->name.ptr, want[j], e->name.len),
						  "frame %d named %.*s", j, (int)e->name.len,
						  e->name.ptr);
					cr_assert_lt(e->offset, 0x1000);
					nsym++;
				}
			}
		} else if (kr.type == KATRA_RECORD_STACK_OF) {
			nof++;
			cr_assert_eq(kr.u.stack_of.begin_ns, 4000, "less the start");
			cr_assert_eq(kr.u.stack_of.duration_ns, 4000);
			cr_assert_eq(kr.u.stack_of.site, KATRA_SITE_SYSCALL);
			cr_assert_eq(kr.u.stack_of.thread_id, (uint64_t)gettid());
		}
	}
	katra_reader_close(r);
	kr_elfsyms_free(sy);
	unlink(path);
	cr_assert_eq(nstack, 1);
	cr_assert_eq(nof, 1);
	cr_assert_eq(nsym, 3, "the three frames in a Symbols record");
}

Test(stacks_unwind, kallsyms_names_the_symbol_below)
{
	char path[] = "/tmp/katra-ksym-XXXXXX", buf[128];
	int fd = mkstemp(path);
	static const char text[] = "ffffffff81000100 T do_nanosleep\n"
				   "0000000000000000 T zero_is_hidden\n"
				   "ffffffff81000000 t schedule\n"
				   "ffffffff81000200 D some_data\n"
				   "ffffffff81000300 W weak_fn\n";
	struct kallsyms *k;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	cr_assert_eq(kallsyms_load(path, &k), 0);
	kallsyms_name(k, 0xffffffff81000023ull, buf, sizeof(buf));
	cr_assert_str_eq(buf, "schedule+0x23");
	kallsyms_name(k, 0xffffffff8100015eull, buf, sizeof(buf));
	cr_assert_str_eq(buf, "do_nanosleep+0x5e");
	kallsyms_name(k, 0xffffffff81000210ull, buf, sizeof(buf));
	cr_assert_str_eq(buf, "do_nanosleep+0x110", "data symbols are not code");
	kallsyms_name(k, 0xffffffff81000301ull, buf, sizeof(buf));
	cr_assert_str_eq(buf, "weak_fn+0x1");
	kallsyms_name(k, 0x1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0x1000", "below every symbol");
	kallsyms_free(k);
	unlink(path);
}

/* A PE image mapped here as Wine maps one (its file at offset 0 from the
 * image's base): a record whose pc is in it is walked by .pdata, not CFI
 * (two functions without .pdata: leaves, each returning through [rsp]),
 * its frames ImageBase + rva, and its Module carries the PE's identity */
Test(stacks_unwind, a_pe_image_is_walked_by_pdata_and_named_by_identity)
{
	char path[] = "/tmp/katra-stk-XXXXXX", pe[] = "/tmp/katra-pe-XXXXXX", msg[256];
	struct katra_stacks_opts o = { .proc = "/proc", .start_mono_ns = 1000 };
	struct katra_stacks_result res;
	struct katra_stacks *st;
	struct katra_writer *w;
	struct katra_reader *r;
	struct katra_record kr;
	uint8_t *f = crafted_pe_image();
	int fd = mkstemp(path), pfd = mkstemp(pe), nstack = 0, nmod = 0;
	static uint64_t stk[4];

	cr_assert(f);
	cr_assert_geq(fd, 0);
	cr_assert_geq(pfd, 0);
	close(fd);
	cr_assert_eq(write(pfd, f, 0x2400), 0x2400);
	free(f);
	uint8_t *base = mmap(NULL, 0x3000, PROT_READ, MAP_PRIVATE, pfd, 0);
	cr_assert_neq(base, MAP_FAILED);
	close(pfd);

	memset(&rec, 0, sizeof(rec));
	stk[0] = (uint64_t)(uintptr_t)base + 0x1045; /* leaf at 0x1010 returns into 0x1040's */
	stk[1] = 0;                                  /* which returns to 0: the end */
	rec.stack_base = (uint64_t)(uintptr_t)stk;
	rec.stack_len = sizeof(stk);
	memcpy(rec.data, stk, sizeof(stk));
	rec.regs[16] = (uint64_t)(uintptr_t)base + 0x1010;
	rec.regs[19] = rec.stack_base;
	rec.tgid = (uint32_t)getpid();
	rec.tid = (uint32_t)gettid();
	rec.begin_ts = 5000;
	rec.end_ts = 9000;
	rec.kstack_id = -2;
	cr_assert_eq(katra_stacks_new(&o, &st), 0);
	cr_assert_eq(katra_stacks_take(st, &rec, KATRA_STACK_HEAD_BYTES + rec.stack_len), 0);
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), KATRA_WRITER_OVERWRITE), 0);
	cr_assert_eq(katra_stacks_finish(st, w, NULL, NULL, &res), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	katra_stacks_free(st);
	munmap(base, 0x3000);
	unlink(pe);

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &kr) == KATRA_READ_RECORD) {
		if (kr.type == KATRA_RECORD_MODULE) {
			const struct katra_module *m = &kr.u.module;
			nmod++;
			cr_assert(m->has_pe);
			cr_assert_eq(m->pe.time_date_stamp, 0x5f000000);
			cr_assert_eq(m->pe.size_of_image, 0x3000);
			cr_assert_eq(m->pe.pdb_guid.len, 0, "no CodeView");
			cr_assert_eq(m->build_id.len, 12);
			cr_assert_eq(memcmp(m->build_id.ptr, "5F0000003000", 12), 0);
			cr_assert_eq(m->name.len, strlen(pe + 5));
			cr_assert_eq(memcmp(m->name.ptr, pe + 5, m->name.len), 0);
		} else if (kr.type == KATRA_RECORD_STACK) {
			const struct katra_stack *s = &kr.u.stack;
			nstack++;
			cr_assert_eq(s->frames_len, 2);
			cr_assert_not(s->truncated, "ended at a return address of 0");
			cr_assert_eq(s->frames[0].module, 1);
			cr_assert_eq(s->frames[0].address, 0x140001010ull);
			cr_assert_eq(s->frames[1].module, 1);
			cr_assert_eq(s->frames[1].address, 0x140001044ull, "the call: return - 1");
		}
	}
	katra_reader_close(r);
	unlink(path);
	cr_assert_eq(nstack, 1);
	cr_assert_eq(nmod, 1);
}

/* A module mapped after the process's table was read, reached only as a
 * caller (the pc is in a module read before, the time well under the
 * second that re-reads anyway): Wine's kernelbase.dll mapped after a stack
 * early in the process's start.  The process's size changed since the read,
 * so the next stack reads its maps again and the caller's frame is named,
 * the walk whole. */
Test(stacks_unwind, a_module_mapped_after_the_read_is_read_at_the_next_stack)
{
	char path[] = "/tmp/katra-stk-XXXXXX", pa[] = "/tmp/katra-pe-XXXXXX",
	     pb[] = "/tmp/katra-pe-XXXXXX", msg[256];
	struct katra_stacks_opts o = { .proc = "/proc", .start_mono_ns = 1000 };
	struct katra_stacks_result res;
	struct katra_stacks *st;
	struct katra_writer *w;
	struct katra_reader *r;
	struct katra_record kr;
	uint8_t *f = crafted_pe_image();
	int fd = mkstemp(path), fa = mkstemp(pa), fb = mkstemp(pb), whole = 0;
	static uint64_t stk[4];

	cr_assert(f);
	cr_assert(fd >= 0 && fa >= 0 && fb >= 0);
	close(fd);
	cr_assert_eq(write(fa, f, 0x2400), 0x2400);
	cr_assert_eq(write(fb, f, 0x2400), 0x2400);
	free(f);
	uint8_t *a = mmap(NULL, 0x3000, PROT_READ, MAP_PRIVATE, fa, 0);
	cr_assert_neq(a, MAP_FAILED);
	close(fa);
	cr_assert_eq(katra_stacks_new(&o, &st), 0);

	/* the first stack: A's leaf returning to 0; the table read now */
	memset(&rec, 0, sizeof(rec));
	stk[0] = 0;
	rec.stack_base = (uint64_t)(uintptr_t)stk;
	rec.stack_len = sizeof(stk);
	memcpy(rec.data, stk, sizeof(stk));
	rec.regs[16] = (uint64_t)(uintptr_t)a + 0x1010;
	rec.regs[19] = rec.stack_base;
	rec.tgid = (uint32_t)getpid();
	rec.tid = (uint32_t)gettid();
	rec.begin_ts = 5000;
	rec.end_ts = 9000;
	rec.kstack_id = -2;
	cr_assert_eq(katra_stacks_take(st, &rec, KATRA_STACK_HEAD_BYTES + rec.stack_len), 0);

	/* B mapped after; the second stack: A's leaf called from B's 0x1040 */
	uint8_t *b = mmap(NULL, 0x3000, PROT_READ, MAP_PRIVATE, fb, 0);
	cr_assert_neq(b, MAP_FAILED);
	close(fb);
	stk[0] = (uint64_t)(uintptr_t)b + 0x1045;
	stk[1] = 0;
	memcpy(rec.data, stk, sizeof(stk));
	cr_assert_eq(katra_stacks_take(st, &rec, KATRA_STACK_HEAD_BYTES + rec.stack_len), 0);

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), KATRA_WRITER_OVERWRITE), 0);
	cr_assert_eq(katra_stacks_finish(st, w, NULL, NULL, &res), 0);
	cr_assert_eq(katra_writer_close(w), 0);
	katra_stacks_free(st);
	munmap(a, 0x3000);
	munmap(b, 0x3000);
	unlink(pa);
	unlink(pb);
	cr_assert_eq(res.written, 2);

	cr_assert_eq(katra_reader_open(&r, path, msg, sizeof(msg)), 0, "%s", msg);
	while (katra_reader_next(r, &kr) == KATRA_READ_RECORD) {
		if (kr.type != KATRA_RECORD_STACK || kr.u.stack.frames_len < 2)
			continue;
		const struct katra_stack *s = &kr.u.stack;
		cr_assert_not(s->truncated, "B's frame walked to its return address of 0");
		cr_assert_eq(s->frames_len, 2);
		cr_assert_eq(s->frames[1].address, 0x140001044ull, "B's call: return - 1");
		cr_assert_neq(s->frames[1].module, UINT32_MAX, "B in the module table");
		whole++;
	}
	katra_reader_close(r);
	unlink(path);
	cr_assert_eq(whole, 1, "the second stack, whole");
}
