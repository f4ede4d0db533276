// SPDX-License-Identifier: GPL-2.0-only
/* stats --stacks / --folded (user/replay/stats/stats_stacks.c) and the frame
 * names of user/replay/names/elfsyms.c: stacks aggregated per (stack, site)
 * heaviest first, folded lines outermost first with kernel frames _[k], a
 * module's file never taken when its build id differs, and a file found by
 * --symbols naming its functions. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_test_util.h"
#include "symbols/elfsyms.h"
#include "crafted_pe_util.h"

#define MS 1000000ull

/* innermost first: libc-fake.so+0x10 <- game+0x1404 <- game+0x1500 <- a pc
 * outside every module */
static const struct katra_stack_frame frames1[] = {
	{ 2, 0x10 }, { 1, 0x1404 }, { 1, 0x1500 }, { 0, 0x7ffd0000 },
};
static struct katra_stack_frame frames2[] = { { 1, 0x2000 } };
static const struct katra_str kernel1[] = { { "schedule+0x23", 13 },
					    { "do_nanosleep+0x5e", 17 } };

static void stack_of(struct tb *t, uint64_t stack, uint64_t dur, uint32_t site)
{
	struct katra_record *r = tb_add(t, KATRA_RECORD_STACK_OF);

	r->u.stack_of = (struct katra_stack_of){ stack, 101, 100, 5 * MS, dur, site };
}

/* samples: two timer samples of stack 2 too, 10.10101 ms each (99 Hz) */
static void stacks_trace_with(struct tb *t, const char *game_bid, bool samples)
{
	struct katra_record *r;

	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	r = tb_add(t, KATRA_RECORD_MODULE);
	r->u.module = (struct katra_module){ .id = 1, .name = katra_cstr("game"),
					     .build_id = katra_cstr(game_bid) };
	r = tb_add(t, KATRA_RECORD_MODULE);
	r->u.module = (struct katra_module){ .id = 2, .name = katra_cstr("libc-fake.so"),
					     .build_id = katra_cstr("") };
	r = tb_add(t, KATRA_RECORD_STACK);
	r->u.stack = (struct katra_stack){ 1, frames1, 4, { kernel1, 2 }, false };
	r = tb_add(t, KATRA_RECORD_STACK);
	r->u.stack = (struct katra_stack){ 2, frames2, 1, { NULL, 0 }, true };
	stack_of(t, 1, 3 * MS, KATRA_SITE_OFF_CPU);
	stack_of(t, 2, 4 * MS, KATRA_SITE_OFF_CPU);
	stack_of(t, 1, 2 * MS, KATRA_SITE_OFF_CPU);
	stack_of(t, 1, 6 * MS, KATRA_SITE_SYSCALL);
	for (int i = 0; samples && i < 2; i++)
		stack_of(t, 2, 10101010, KATRA_SITE_SAMPLE);
	tb_write(t);
}

static void stacks_trace(struct tb *t, const char *game_bid)
{
	stacks_trace_with(t, game_bid, false);
}

static const char *run(struct tb *t, struct katra_stats_opts *o, struct outcap *out)
{
	struct outcap err;

	oc_open(out);
	oc_open(&err);
	cr_assert_eq(katra_stats_with(t->path, out->f, o, err.f), 0, "%s", oc_text(&err));
	oc_free(&err);
	return oc_text(out);
}

Test(stats_stacks, folded_outermost_first_heaviest_first_per_site)
{
	struct katra_stats_opts o = { .folded = true };
	struct outcap out;
	struct tb t;

	stacks_trace(&t, "ab12");
	cr_assert_str_eq(run(&t, &o, &out),
			 "0x7ffd0000;game+0x1500;game+0x1404;libc-fake.so+0x10;do_nanosleep_[k];"
			 "schedule_[k] 5000000\n"
			 "game+0x2000 4000000\n"
			 "0x7ffd0000;game+0x1500;game+0x1404;libc-fake.so+0x10;do_nanosleep_[k];"
			 "schedule_[k] 6000000\n");
	oc_free(&out);
	tb_cleanup(&t);
}

Test(stats_stacks, text_counts_times_and_truncation)
{
	struct katra_stats_opts o = { .stacks = true, .top = 1 };
	struct outcap out;
	struct tb t;

	stacks_trace(&t, "ab12");
	const char *s = run(&t, &o, &out);
	/* --top 1 per site: the OffCpu stack 1 (2 intervals, 5 ms), the
	 * Syscall stack 1; not stack 2 */
	cr_assert_not_null(strstr(s, "heaviest stacks, OffCpu (time of the spans they explain):\n\n"
				     "       5.000 ms       2 x  stack 1\n"
				     "      [k] schedule+0x23\n"
				     "      [k] do_nanosleep+0x5e\n"
				     "          libc-fake.so+0x10 (libc-fake.so)\n"
				     "          game+0x1404 (game)\n"
				     "          game+0x1500 (game)\n"
				     "          0x7ffd0000\n"), "%s", s);
	cr_assert_not_null(strstr(s, "heaviest stacks, Syscall (time of the spans they explain):\n\n"
				     "       6.000 ms       1 x  stack 1\n"), "%s", s);
	cr_assert_null(strstr(s, "stack 2"), "%s", s);
	oc_free(&out);
	o.top = 0;
	s = run(&t, &o, &out);
	cr_assert_not_null(strstr(s, "       4.000 ms       1 x  stack 2  (truncated: the walk "
				     "stopped short)\n"), "%s", s);
	oc_free(&out);
	tb_cleanup(&t);
}

Test(stats_stacks, on_cpu_and_off_cpu_select_their_sites)
{
	struct katra_stats_opts o = { .folded = true, .on_cpu = true };
	struct outcap out;
	struct tb t;

	stacks_trace_with(&t, "ab12", true);
	cr_assert_str_eq(run(&t, &o, &out), "game+0x2000 20202020\n");
	oc_free(&out);
	o = (struct katra_stats_opts){ .folded = true, .views = KATRA_STATS_OFFCPU };
	cr_assert_str_eq(run(&t, &o, &out),
			 "0x7ffd0000;game+0x1500;game+0x1404;libc-fake.so+0x10;do_nanosleep_[k];"
			 "schedule_[k] 5000000\n"
			 "game+0x2000 4000000\n");
	oc_free(&out);
	o.on_cpu = true; /* both: every site */
	cr_assert_not_null(strstr(run(&t, &o, &out), "game+0x2000 20202020\n"), "%s",
			   oc_text(&out));
	cr_assert_not_null(strstr(oc_text(&out), "schedule_[k] 6000000\n"), "%s", oc_text(&out));
	oc_free(&out);
	tb_cleanup(&t);
}

/* the unit-test binary as a module's file, in a --symbols directory */
static void symbols_dir(struct tb *t, char *dir, size_t cap)
{
	char link[256];

	snprintf(dir, cap, "%s/syms", t->dir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s/game", dir);
	cr_assert_eq(symlink("/proc/self/exe", link), 0);
}

static int main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr; /* the first one: the program */
	return 1;
}

Test(stats_stacks, a_file_whose_build_id_differs_is_not_used)
{
	struct katra_stats_opts o = { .folded = true };
	struct outcap out;
	uint64_t bias = 0;
	char dir[256], want[64];
	struct tb t;

	/* an address inside a function of the file in --symbols */
	dl_iterate_phdr(main_bias, &bias);
	frames2[0].address = (uint64_t)(uintptr_t)kr_elfsyms_new - bias;
	stacks_trace(&t, "ab12"); /* not this binary's build id */
	frames2[0].address = 0x2000;
	symbols_dir(&t, dir, sizeof(dir));
	o.symbols = dir;
	snprintf(want, sizeof(want), "game+0x%" PRIx64 " 4000000\n",
		 (uint64_t)(uintptr_t)kr_elfsyms_new - bias);
	cr_assert_not_null(strstr(run(&t, &o, &out), want), "%s", oc_text(&out));
	oc_free(&out);
	tb_cleanup(&t);
}

static uint64_t exe_bias(void)
{
	uint64_t bias = 0;

	dl_iterate_phdr(main_bias, &bias);
	return bias;
}

/* dir/game, the unit-test binary (or a copy), names kr_elfsyms_new */
static void names_in_game(const char *dir)
{
	char buf[256];
	struct kr_elfsyms *s = kr_elfsyms_new(dir);

	cr_assert_not_null(s);
	cr_assert_eq(kr_elfsyms_module(s, 7, "game", 4, "", 0), 0); /* no build id: any file */
	uint64_t at = (uint64_t)(uintptr_t)kr_elfsyms_new - exe_bias() + 3;
	cr_assert_str_eq(kr_elfsyms_name(s, 7, at, 1, buf, sizeof(buf)), "kr_elfsyms_new+0x3");
	cr_assert_str_eq(kr_elfsyms_name(s, 7, at, 0, buf, sizeof(buf)), "kr_elfsyms_new");
	cr_assert_str_eq(kr_elfsyms_name(s, 0, 0x1234, 1, buf, sizeof(buf)), "0x1234");
	int found = 0;
	cr_assert_str_eq(kr_elfsyms_module_name(s, 7, &found), "game");
	cr_assert(found);
	kr_elfsyms_free(s);
}

Test(stats_stacks, symbols_name_the_functions_of_the_file_found)
{
	char dir[256];
	struct tb t;

	tb_init(&t);
	symbols_dir(&t, dir, sizeof(dir));
	names_in_game(dir);
	tb_cleanup(&t);
}

/* dir/game: a copy of the unit-test binary whose .symtab reads as plain data
 * (its DWARF alone names its static and non-exported functions) */
static void symtab_hidden_copy(struct tb *t, char *dir, size_t cap)
{
	char path[256], cmd[600];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd, hidden = 0;

	snprintf(dir, cap, "%s/syms", t->dir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/game", dir);
	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe '%s'", (int)getpid(), path);
	cr_assert_eq(system(cmd), 0);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDWR);
	cr_assert_geq(fd, 0);
	Elf *e = elf_begin(fd, ELF_C_RDWR, NULL);
	cr_assert_not_null(e);
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT); /* the bytes stay where they are */
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			sh.sh_type = SHT_PROGBITS;
			cr_assert(gelf_update_shdr(scn, &sh));
			hidden++;
		}
	cr_assert_eq(hidden, 1, "the unit-test binary has a .symtab");
	cr_assert_geq(elf_update(e, ELF_C_WRITE), 0, "%s", elf_errmsg(-1));
	elf_end(e);
	close(fd);
}

Test(stats_stacks, dwarf_names_a_function_the_symbol_table_does_not)
{
	char dir[256], buf[256];
	struct tb t;

	tb_init(&t);
	symtab_hidden_copy(&t, dir, sizeof(dir));
	names_in_game(dir);
	/* a static one: its symbol is only in .symtab */
	struct kr_elfsyms *s = kr_elfsyms_new(dir);
	cr_assert_eq(kr_elfsyms_module(s, 7, "game", 4, "", 0), 0);
	uint64_t at = (uint64_t)(uintptr_t)symtab_hidden_copy - exe_bias();
	cr_assert_str_eq(kr_elfsyms_name(s, 7, at, 0, buf, sizeof(buf)), "symtab_hidden_copy");
	kr_elfsyms_free(s);
	tb_cleanup(&t);
}

/* A PE module (Wine): its file in --symbols by name, used only when its
 * identity (TimeDateStamp + SizeOfImage without CodeView) is the module's
 * build id; a frame (ImageBase + rva) named by its COFF symbols */
Test(stats_stacks, a_pe_module_is_named_by_its_coff_symbols_when_its_identity_matches)
{
	char dir[] = "/tmp/katra-pesym-XXXXXX", path[300], buf[256];
	uint8_t *f = crafted_pe_image();
	uint64_t sym = 0x1c00;

	cr_assert(f);
	cr_assert_not_null(mkdtemp(dir));
	/* COFF: "leaf" at .text+0x10 (rva 0x1010), a static function */
	crafted_put32(f, CRAFTED_LFANEW + 4 + 8, (uint32_t)sym);
	crafted_put32(f, CRAFTED_LFANEW + 4 + 12, 1);
	memcpy(f + sym, "leaf", 4);
	crafted_put32(f, sym + 8, 0x10);
	f[sym + 12] = 1;
	f[sym + 14] = 0x20;
	f[sym + 16] = 3;
	crafted_put32(f, sym + 18, 4);
	snprintf(path, sizeof(path), "%s/prog.exe", dir);
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(f, 0x2400, 1, fp), 1);
	fclose(fp);
	free(f);

	struct kr_elfsyms *s = kr_elfsyms_new(dir);
	cr_assert_not_null(s);
	cr_assert_eq(kr_elfsyms_module(s, 3, "prog.exe", 8, "5F0000003000", 12), 0);
	cr_assert_eq(kr_elfsyms_module(s, 4, "prog.exe", 8, "5F0000004000", 12), 0);
	cr_assert_str_eq(kr_elfsyms_name(s, 3, 0x140001015ull, 1, buf, sizeof(buf)), "leaf+0x5");
	cr_assert_str_eq(kr_elfsyms_name(s, 3, 0x140001015ull, 0, buf, sizeof(buf)), "leaf");
	cr_assert_str_eq(kr_elfsyms_name(s, 4, 0x140001015ull, 1, buf, sizeof(buf)),
			 "prog.exe+0x140001015", "another identity: not this file");
	int found = 0;
	kr_elfsyms_module_name(s, 4, &found);
	cr_assert_not(found);
	kr_elfsyms_free(s);
	unlink(path);
	rmdir(dir);
}

/* The recorder's naming: a module given as the open file, named with its
 * offset apart; an address no symbol holds is not named */
Test(stats_stacks, a_module_given_open_names_its_addresses)
{
	struct kr_elfsyms *s = kr_elfsyms_new(NULL);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	uint64_t at = (uint64_t)(uintptr_t)kr_elfsyms_new - exe_bias() + 3, off = 0;
	char buf[256];

	cr_assert_not_null(s);
	cr_assert_geq(fd, 0);
	cr_assert_eq(kr_elfsyms_module_fd(s, 4, "/nowhere/game", fd), 0);
	close(fd); /* dup'd */
	cr_assert_eq(kr_elfsyms_symbol(s, 4, at, buf, sizeof(buf), &off), 0);
	cr_assert_str_eq(buf, "kr_elfsyms_new");
	cr_assert_eq(off, 3);
	cr_assert_eq(kr_elfsyms_symbol(s, 4, 0x10, buf, sizeof(buf), &off), -ENOENT);
	cr_assert_eq(kr_elfsyms_symbol(s, 5, at, buf, sizeof(buf), &off), -ENOENT);
	kr_elfsyms_free(s);
}

/* A trace's Symbols name a module whose file is nowhere; a file found by
 * its build id wins over them */
Test(stats_stacks, trace_names_where_no_file_is_found)
{
	static const struct katra_symbol_name nm[] = { { 0x1000, { "from_trace", 10 }, 0x8 },
						       { 0x2000, { "second", 6 }, 0 } };
	const struct katra_symbols sy = { 7, nm, 2 };
	char buf[256], dir[256];
	struct tb t;

	struct kr_elfsyms *s = kr_elfsyms_new(NULL);
	cr_assert_eq(kr_elfsyms_module(s, 7, "no-such-game", 12, "00aa", 4), 0);
	cr_assert_eq(kr_elfsyms_trace_names(s, &sy), 0);
	cr_assert_str_eq(kr_elfsyms_name(s, 7, 0x1000, 1, buf, sizeof(buf)), "from_trace+0x8");
	cr_assert_str_eq(kr_elfsyms_name(s, 7, 0x1000, 0, buf, sizeof(buf)), "from_trace");
	cr_assert_str_eq(kr_elfsyms_name(s, 7, 0x2000, 1, buf, sizeof(buf)), "second+0x0");
	/* an address the trace did not name: module+address */
	cr_assert_str_eq(kr_elfsyms_name(s, 7, 0x1001, 1, buf, sizeof(buf)), "no-such-game+0x1001");
	kr_elfsyms_free(s);

	tb_init(&t);
	symbols_dir(&t, dir, sizeof(dir));
	uint64_t at = (uint64_t)(uintptr_t)kr_elfsyms_new - exe_bias() + 3;
	const struct katra_symbol_name wrong[] = { { at, { "stale", 5 }, 3 } };
	const struct katra_symbols sy2 = { 7, wrong, 1 };
	s = kr_elfsyms_new(dir);
	cr_assert_eq(kr_elfsyms_module(s, 7, "game", 4, "", 0), 0);
	cr_assert_eq(kr_elfsyms_trace_names(s, &sy2), 0);
	cr_assert_str_eq(kr_elfsyms_name(s, 7, at, 1, buf, sizeof(buf)), "kr_elfsyms_new+0x3");
	kr_elfsyms_free(s);
	tb_cleanup(&t);
}
