// SPDX-License-Identifier: GPL-2.0-only
/* Wine's syscall frame layout read from ntdll.so's dispatcher
 * (user/record/uprobes/wineframe.c): crafted files (another TEB offset,
 * other slots, Wine 8's and Wine 10's symbols, damaged code) and the real
 * Wine 8 and 10 files when installed; the replay's name of the dispatcher
 * from Wine 8's label. */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/uprobes/wineframe.h"
#include "record/uprobes/winenames.h"
#include "symbols/elfsyms.h"

#define CODE_AT 0x1000 /* vaddr = file offset: one executable PT_LOAD */
#define FILE_LEN 0x2000

/* An ntdll.so of FILE_LEN bytes: one PT_LOAD (R E) over the whole file at
 * vaddr 0, a .dynsym of one symbol `name` at value, and code at CODE_AT */
static void crafted_so(uint8_t *p, const char *name, uint64_t value, const uint8_t *code,
		       size_t n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
	Elf64_Phdr *ph = (Elf64_Phdr *)(p + 64);
	Elf64_Sym *sym = (Elf64_Sym *)(p + 512);
	Elf64_Shdr *sh = (Elf64_Shdr *)(p + 2048);

	memset(p, 0, FILE_LEN);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = 64;
	eh->e_phnum = 1;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_shoff = 2048;
	eh->e_shnum = 3;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = FILE_LEN,
			    .p_memsz = FILE_LEN };
	sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE),
			      .st_shndx = 1, .st_value = value };
	p[768] = 0;
	strcpy((char *)p + 769, name);
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_DYNSYM, .sh_offset = 512, .sh_size = 2 * sizeof(*sym),
			      .sh_entsize = sizeof(*sym), .sh_link = 2 };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = 768,
			      .sh_size = 2 + strlen(name) };
	memcpy(p + CODE_AT, code, n);
}

/* Wine 10's prologue (objdump of its ntdll.so), the frame's load and
 * offsets given: gs_disp, and rip rsp rbp rbx rsi rdi r12 (r13-r15 after
 * r12) as disp32 stores */
static size_t prologue(uint8_t *c, uint32_t gs_disp, const uint32_t s[7])
{
	size_t n = 0;
#define B(...) do { const uint8_t b_[] = { __VA_ARGS__ }; memcpy(c + n, b_, sizeof(b_)); n += sizeof(b_); } while (0)
#define D(v) do { uint32_t v_ = (v); memcpy(c + n, &v_, 4); n += 4; } while (0)
	B(0x65, 0x48, 0x8b, 0x0c, 0x25); D(gs_disp);       /* mov %gs:disp,%rcx */
	B(0x8f, 0x81); D(s[0]);                            /* pop rip(%rcx) */
	B(0x9c);                                           /* pushf */
	B(0x8f, 0x81, 0x80, 0, 0, 0);                      /* pop 0x80(%rcx) */
	B(0xc7, 0x81, 0xb4, 0, 0, 0, 0, 0, 0, 0);          /* movl $0,0xb4(%rcx) */
	B(0x48, 0x89, 0x01);                               /* mov %rax,(%rcx) */
	B(0x48, 0x89, 0x99); D(s[3]);                      /* mov %rbx */
	B(0x48, 0x89, 0x51, 0x18);                         /* mov %rdx,0x18(%rcx) */
	B(0x48, 0x89, 0xb1); D(s[4]);                      /* mov %rsi */
	B(0x48, 0x89, 0xb9); D(s[5]);                      /* mov %rdi */
	for (uint8_t r = 0; r < 4; r++) {
		B(0x4c, 0x89, (uint8_t)(0x81 | ((4 + r) << 3))); D(s[6] + 8 * r); /* r12-r15 */
	}
	B(0x8c, 0x49, 0x78);                               /* mov %cs,0x78(%rcx) */
	B(0x48, 0x89, 0xa1); D(s[1]);                      /* mov %rsp */
	B(0x8c, 0x91, 0x90, 0, 0, 0);                      /* mov %ss,0x90(%rcx) */
	B(0x48, 0x89, 0xa9); D(s[2]);                      /* mov %rbp */
	B(0x48, 0x83, 0x69, 0x70, 0x0b);                   /* subq $0xb,0x70(%rcx) */
#undef B
#undef D
	return n;
}

static uint8_t f[FILE_LEN] __attribute__((aligned(8)));

Test(wineframe, crafted_wine10_at_another_offset)
{
	static const uint32_t s[7] = { 0x170, 0x188, 0x198, 0x108, 0x120, 0x128, 0x150 };
	struct katra_blob b = { f, sizeof(f) };
	struct katra_wine_frame w;
	uint8_t code[256];
	const char *why;
	size_t n = prologue(code, 0x338, s);

	/* its call through the table, 16 bytes after the prologue */
	memcpy(code + n + 16, "\x41\xff\x14\xc2", 4);
	crafted_so(f, "__wine_syscall_dispatcher", CODE_AT, code, n + 20);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), 0, "%s", why);
	cr_assert_eq(w.call_ret, CODE_AT + n + 20);
	cr_assert_eq(w.offs.teb_frame, 0x338);
	cr_assert_eq(w.load_vaddr, CODE_AT);
	cr_assert_str_eq(w.symbol, "__wine_syscall_dispatcher");
	/* rip rsp rbp rbx rsi rdi r12 r13 r14 r15 */
	const uint16_t want[KATRA_WF_SLOTS] = { 0x170, 0x188, 0x198, 0x108, 0x120,
						0x128, 0x150, 0x158, 0x160, 0x168 };
	for (int i = 0; i < KATRA_WF_SLOTS; i++)
		cr_assert_eq(w.offs.slot[i], want[i], "slot %d: 0x%x", i, w.offs.slot[i]);
	cr_assert_not(katra_wine_frame_is_default(&w.offs));
}

Test(wineframe, crafted_wine8_before_its_prologue_end)
{
	/* the constants' own layout: rip 0x70 rsp 0x88 rbp 0x98 rbx 8 ... */
	static const uint32_t s[7] = { 0x70, 0x88, 0x98, 0x08, 0x20, 0x28, 0x50 };
	struct katra_blob b = { f, sizeof(f) };
	struct katra_wine_frame w;
	uint8_t code[256];
	const char *why;
	size_t n = prologue(code, 0x328, s);

	/* Wine 8 exports the label after the first four instructions only */
	crafted_so(f, "__wine_syscall_dispatcher_prolog_end", CODE_AT + 29, code, n);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), 0, "%s", why);
	cr_assert_eq(w.offs.teb_frame, 0x328);
	cr_assert_eq(w.load_vaddr, CODE_AT);
	cr_assert(katra_wine_frame_is_default(&w.offs));
	cr_assert_eq(w.call_ret, 0); /* no call: none */
}

Test(wineframe, crafted_refusals)
{
	static const uint32_t s[7] = { 0x70, 0x88, 0x98, 0x08, 0x20, 0x28, 0x50 };
	struct katra_blob b = { f, sizeof(f) };
	struct katra_wine_frame w;
	uint8_t code[256];
	const char *why;
	size_t n = prologue(code, 0x328, s);

	/* another symbol: no dispatcher */
	crafted_so(f, "NtTest", CODE_AT, code, n);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), -ENOENT);
	cr_assert_not_null(why);
	/* the rbp store cut off (the rest of the file zero: `add %al,(%rax)`) */
	crafted_so(f, "__wine_syscall_dispatcher", CODE_AT, code, n - 12);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), -ENOENT);
	/* a load through %gs into rbp, which the decode does not take */
	code[3] = 0x2c;
	crafted_so(f, "__wine_syscall_dispatcher", CODE_AT, code, n);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), -ENOENT);
	code[3] = 0x0c;
	/* a slot not 8-aligned */
	code[11] = 0x71;
	crafted_so(f, "__wine_syscall_dispatcher", CODE_AT, code, n);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), -ERANGE);
	code[11] = 0x70;
	/* the dispatcher at the file's last bytes: nothing read past it */
	crafted_so(f, "__wine_syscall_dispatcher", FILE_LEN - 4, code, 0);
	memcpy(f + FILE_LEN - 4, code, 4);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), -ENOENT);
	/* a symbol outside the executable segment */
	crafted_so(f, "__wine_syscall_dispatcher", FILE_LEN + 64, code, n);
	cr_assert_eq(katra_wine_frame_read(&b, &w, &why), -ENOENT);
}

/* The installed Wine 8 (Debian) and the Proton-class root's Wine 10: the
 * layout wire.h's constants describe */
Test(wineframe, installed_wine_files)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so",
		"/var/cache/katra-proton/root/usr/lib/x86_64-linux-gnu/wine/x86_64-unix/ntdll.so",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct katra_blob b;
		struct katra_wine_frame w;
		const char *why;

		if (access(paths[i], R_OK) || katra_blob_read(paths[i], 256u << 20, &b))
			continue;
		cr_assert_eq(katra_wine_frame_read(&b, &w, &why), 0, "%s: %s", paths[i], why);
		cr_assert(katra_wine_frame_is_default(&w.offs), "%s: TEB+0x%x", paths[i],
			  w.offs.teb_frame);
		/* the call through the table, after the load */
		uint64_t off = katra_elf_offset(&b, w.call_ret - 4, 4, true);
		cr_assert(w.call_ret > w.load_vaddr && off != UINT64_MAX, "%s", paths[i]);
		cr_assert_eq(memcmp(b.p + off, "\x41\xff\x14\xc2", 4), 0, "%s", paths[i]);
		katra_blob_free(&b);
	}
}

/* The replay's names (replay/names/elfsyms.c): Wine 8's untyped, size-0
 * label inside its dispatcher names the code after it as the dispatcher;
 * another untyped symbol names nothing */
static const char *name_in(const char *dir, uint64_t at, char *buf, size_t cap)
{
	struct kr_elfsyms *s = kr_elfsyms_new(dir);
	static char out[128];

	cr_assert_not_null(s);
	cr_assert_eq(kr_elfsyms_module(s, 1, "ntdll.so", 8, "", 0), 0); /* no build id: any file */
	snprintf(out, sizeof(out), "%s", kr_elfsyms_name(s, 1, at, 1, buf, cap));
	kr_elfsyms_free(s);
	return out;
}

Test(wineframe, replay_names_the_dispatcher_after_its_label)
{
	char dir[] = "/tmp/katra-unit-XXXXXX", path[64], buf[128];
	static const uint8_t code[16] = { 0x90 };
	FILE *fp;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ntdll.so", dir);
	crafted_so(f, "__wine_syscall_dispatcher_prolog_end", CODE_AT + 29, code, sizeof(code));
	cr_assert_not_null(fp = fopen(path, "w"));
	cr_assert_eq(fwrite(f, 1, sizeof(f), fp), sizeof(f));
	fclose(fp);
	cr_assert_str_eq(name_in(dir, CODE_AT + 29 + 0x15c, buf, sizeof(buf)),
			 "__wine_syscall_dispatcher+0x15c");
	crafted_so(f, "NtTest", CODE_AT + 29, code, sizeof(code));
	cr_assert_not_null(fp = fopen(path, "w"));
	cr_assert_eq(fwrite(f, 1, sizeof(f), fp), sizeof(f));
	fclose(fp);
	cr_assert_str_eq(name_in(dir, CODE_AT + 29 + 0x15c, buf, sizeof(buf)), "ntdll.so+0x1179");
	unlink(path);
	rmdir(dir);
}
