// SPDX-License-Identifier: GPL-2.0-only
/* katra-record --help ends with EXAMPLES, and every example command line in
 * it parses with today's options (help text never names an option that
 * does not exist). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/cli.h"

static char *help_text(void)
{
	struct katra_record_opts o;
	char *argv[] = { "katra-record", "--help", NULL };
	static char *buf; /* static: open_memstream keeps its address */
	static size_t len;
	FILE *out = open_memstream(&buf, &len), *err = fopen("/dev/null", "w");

	cr_assert_not_null(out);
	cr_assert_eq(katra_record_parse_args(2, argv, &o, out, err), KATRA_CLI_HELP);
	fclose(out);
	fclose(err);
	return buf;
}

Test(record_help, ends_with_examples_that_parse)
{
	char *text = help_text(), *ex = strstr(text, "\nEXAMPLES:\n"), *line, *save = NULL;
	unsigned parsed = 0;

	cr_assert_not_null(ex, "no EXAMPLES section:\n%s", text);
	cr_assert_not_null(strstr(text, "usage: katra-record"));
	for (line = strtok_r(ex, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char buf[256], *argv[32], *hash, *tok, *tsave = NULL;
		int argc = 0;
		struct katra_record_opts o;
		FILE *null = fopen("/dev/null", "w");

		while (*line == ' ')
			line++;
		if (strncmp(line, "katra-record ", 13)) {
			fclose(null);
			continue;
		}
		snprintf(buf, sizeof(buf), "%s", line);
		hash = strstr(buf, " #");
		if (hash)
			*hash = 0;
		for (tok = strtok_r(buf, " ", &tsave); tok && argc < 31;
		     tok = strtok_r(NULL, " ", &tsave))
			argv[argc++] = tok;
		argv[argc] = NULL;
		cr_expect_eq(katra_record_parse_args(argc, argv, &o, null, null), KATRA_CLI_RUN,
			     "example does not parse: %s", line);
		fclose(null);
		parsed++;
	}
	cr_assert_geq(parsed, 3, "only %u example command lines", parsed);
	free(text);
}
