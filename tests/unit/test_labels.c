// SPDX-License-Identifier: GPL-2.0-only
/* Run labels (user/replay/util/labels.c): the "label KEY=VALUE" notes of
 * format/SPEC.md, Labels, read back exactly; everything else is free text. */
#include <criterion/criterion.h>
#include <string.h>

#include "replay/util/labels.h"

static bool parse(const char *note, struct kr_label *l)
{
	struct katra_str s = { note, strlen(note) };

	return kr_label_parse(&s, l);
}

Test(labels, a_label_note_gives_its_key_and_value)
{
	struct kr_label l;

	cr_assert(parse("label build=812", &l));
	cr_assert_str_eq(l.key, "build");
	cr_assert_str_eq(l.value, "812");
	cr_assert(parse("label gpu.driver-v_2=Mesa 25.0 = lavapipe", &l));
	cr_assert_str_eq(l.key, "gpu.driver-v_2");
	cr_assert_str_eq(l.value, "Mesa 25.0 = lavapipe");
	cr_assert(parse("label empty=", &l));
	cr_assert_str_eq(l.value, "");
}

Test(labels, notes_outside_the_grammar_are_not_labels)
{
	struct kr_label l;
	char long_key[80], long_value[200];

	cr_expect(!parse("labels: 3", &l));
	cr_expect(!parse("label build", &l));
	cr_expect(!parse("label =812", &l));
	cr_expect(!parse("label Build=812", &l));
	cr_expect(!parse("label bu ild=812", &l));
	cr_expect(!parse("label build=8\t12", &l));
	cr_expect(!parse("label build=\xc3\xa9", &l));
	cr_expect(!parse("probes: tp_btf, 2 per-CPU rings", &l));
	memset(long_key, 'k', 65);
	strcpy(long_key + 65, "=v");
	memmove(long_key + 6, long_key, 68);
	memcpy(long_key, "label ", 6);
	cr_expect(!parse(long_key, &l), "a KEY of 65 bytes");
	strcpy(long_value, "label k=");
	memset(long_value + 8, 'v', 161);
	long_value[8 + 161] = 0;
	cr_expect(!parse(long_value, &l), "a VALUE of 161 bytes");
	long_value[8 + 160] = 0;
	cr_expect(parse(long_value, &l), "a VALUE of 160 bytes");
}

Test(labels, a_header_gives_its_labels_in_order_the_first_of_a_key_winning)
{
	struct katra_str notes[] = {
		{ "label build=812", 15 }, { "events: all", 11 }, { "label machine=ci-7", 18 },
		{ "label build=813", 15 },
	};
	struct katra_header h = { 0 };
	struct kr_labels ls;

	h.notes = (struct katra_str_vec){ notes, 4 };
	kr_labels_read(&h, &ls);
	cr_assert_eq(ls.n, 2);
	cr_assert_str_eq(ls.l[0].key, "build");
	cr_assert_str_eq(ls.l[0].value, "812");
	cr_assert_str_eq(ls.l[1].key, "machine");
	cr_assert_str_eq(ls.l[1].value, "ci-7");
	cr_assert_eq(ls.skipped, 1);
}
