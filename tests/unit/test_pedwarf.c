// SPDX-License-Identifier: GPL-2.0-only
/* A mingw -g program's DWARF names its frames in katra-replay: built here
 * (skipped without x86_64-w64-mingw32-gcc), its COFF symbols of the chain's
 * functions removed (objcopy --strip-symbol keeps the .debug_* sections):
 * an address in the static function inner() reads "inner+0x..." from the
 * DWARF, not the nearest COFF symbol below it; the ELF image of the DWARF
 * holds the long-named sections ("/4" in the section table). */
#include <criterion/criterion.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pe/pe.h"
#include "symbols/elfsyms.h"
#include "symbols/pedwarf.h"

static const char src[] =
	"#include <windows.h>\n"
	"static __attribute__((noinline)) int inner(int x) { Sleep(x); return x * 3; }\n"
	"__attribute__((noinline)) int outer(int x) { return inner(x) + 1; }\n"
	"int main(void) { return outer(5) == 0; }\n";

/* dir/chain.exe built and stripped of its chain's COFF symbols; inner's
 * address (ImageBase + rva, as nm prints it) in *inner */
static bool build(const char *dir, uint64_t *inner)
{
	char cmd[1024];
	FILE *f;

	if (system("command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1"))
		return false;
	snprintf(cmd, sizeof(cmd), "%s/chain.c", dir);
	f = fopen(cmd, "w");
	cr_assert_not_null(f);
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && x86_64-w64-mingw32-gcc -g -O2 -o full.exe chain.c && "
		 "x86_64-w64-mingw32-objcopy --strip-symbol=inner --strip-symbol=outer "
		 "--strip-symbol=main full.exe chain.exe",
		 dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "x86_64-w64-mingw32-nm %s/full.exe | awk '$3 == \"inner\" {print $1}'",
		 dir);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%" SCNx64, inner), 1, "no inner in nm's list");
	pclose(f);
	return true;
}

Test(pedwarf, a_mingw_programs_dwarf_names_its_functions)
{
	char dir[] = "/tmp/katra-pedwarf.XXXXXX", buf[256], path[512];
	struct katra_blob b = { 0 };
	struct katra_pe pe;
	uint64_t inner;
	void *img;
	size_t len;

	cr_assert_not_null(mkdtemp(dir));
	if (!build(dir, &inner)) {
		rmdir(dir);
		cr_skip_test("x86_64-w64-mingw32-gcc is not installed");
	}
	/* the image: .debug_info among its sections, by its long name */
	snprintf(path, sizeof(path), "%s/chain.exe", dir);
	cr_assert_eq(katra_blob_read(path, 64 << 20, &b), 0);
	cr_assert_eq(katra_pe_open(&b, &pe), 0);
	cr_assert_eq(kr_pe_dwarf_image(&pe, &img, &len), 0);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(img, len);
	size_t shstr, found = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstr), 0);
	while ((scn = elf_nextscn(elf, scn)))
		found += gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstr, sh.sh_name),
							    ".debug_info");
	cr_expect_eq(found, 1, "no .debug_info in the image");
	elf_end(elf);
	free(img);
	katra_blob_free(&b);

	/* through katra-replay's symbols: the module found in --symbols DIR */
	struct kr_elfsyms *s = kr_elfsyms_new(dir);
	cr_assert_eq(kr_elfsyms_module(s, 1, "chain.exe", 9, "", 0), 0);
	cr_expect_str_eq(kr_elfsyms_name(s, 1, inner + 2, 1, buf, sizeof(buf)), "inner+0x2");
	cr_expect_str_eq(kr_elfsyms_name(s, 1, inner, 0, buf, sizeof(buf)), "inner");
	kr_elfsyms_free(s);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}
