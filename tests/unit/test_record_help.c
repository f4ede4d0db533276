// SPDX-License-Identifier: GPL-2.0-only
/* katra-record --help ends with EXAMPLES, and every example command line in
 * it parses with today's options (help text never names an option that
 * does not exist). */
#include <criterion/criterion.h>
#include <stdbool.h>
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

/* ---- the option table against the man page and the completion ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	cr_assert_not_null(f, "cannot open %s (unit tests run from the source tree)", path);
	ssize_t n = getdelim(&buf, &cap, '\0', f);
	cr_assert_gt(n, 0, "%s is empty", path);
	fclose(f);
	return buf;
}

/* A list of names: "--pid", "-p", "--" (the -- COMMAND row). */
struct names {
	char v[128][48];
	size_t n;
};

static bool has(const struct names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

static void add(struct names *s, const char *name, size_t len)
{
	if (s->n < 128 && len < sizeof(s->v[0])) {
		memcpy(s->v[s->n], name, len);
		s->v[s->n][len] = 0;
		if (!has(s, s->v[s->n]))
			s->n++;
	}
}

/* The names a user sees, by the table: every option's long and short name,
 * "--" for the command row; the tests' own options left out. */
static void table_names(struct names *s)
{
	s->n = 0;
	for (size_t i = 0; i < katra_record_noptions; i++) {
		const struct katra_cli_option *op = &katra_record_options[i];
		char buf[48];
		if (op->flags & KATRA_OPT_TESTS)
			continue;
		if (op->flags & KATRA_OPT_COMMAND) {
			add(s, "--", 2);
			continue;
		}
		snprintf(buf, sizeof(buf), "--%s", op->name);
		add(s, buf, strlen(buf));
		if (op->short_name) {
			snprintf(buf, sizeof(buf), "-%c", op->short_name);
			add(s, buf, 2);
		}
	}
}

/* The option-like words of a line: "-p", "--pid", "--". */
static void words_of(struct names *s, const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (line[i] != '-' || (i && line[i - 1] != ' ' && line[i - 1] != '"' &&
				       line[i - 1] != '\t' && line[i - 1] != '('))
			continue;
		size_t j = i;
		while (j < len && (line[j] == '-' || (line[j] >= 'a' && line[j] <= 'z') ||
				   (line[j] >= 'A' && line[j] <= 'Z') || (line[j] >= '0' && line[j] <= '9')))
			j++;
		if (j - i >= 2)
			add(s, line + i, j - i);
		i = j;
	}
}

/* The man page's option headers: the line after each .TP of OPTIONS, with
 * the roff escapes for '-' taken out. */
static void man_names(struct names *s, const char *path)
{
	char *text = slurp(path), *sec = strstr(text, "\n.SH OPTIONS\n"), *end, *p;

	cr_assert_not_null(sec, "%s has no OPTIONS section", path);
	sec += 13;
	end = strstr(sec, "\n.SH ");
	if (end)
		*end = 0;
	s->n = 0;
	for (p = strstr(sec, ".TP\n"); p; p = strstr(p, "\n.TP\n"), p = p ? p + 1 : NULL) {
		char line[256];
		size_t n = 0;
		p = strchr(p, '\n') + 1;
		for (const char *q = p; *q && *q != '\n' && n < sizeof(line) - 1; q++)
			if (!(q[0] == '\\' && q[1] == '-'))
				line[n++] = *q;
		line[n] = 0;
		words_of(s, line, n);
		p--; /* its newline: the next .TP's "\n.TP\n" */
	}
	free(text);
}

/* The completion's word list: the compgen -W that offers the options. */
static void completion_names(struct names *s, const char *text)
{
	const char *w = strstr(text, "compgen -W \"-p "), *end;

	cr_assert_not_null(w, "no option word list in the completion");
	w += 12;
	end = strchr(w, '"');
	cr_assert_not_null(end);
	s->n = 0;
	words_of(s, w - 1, (size_t)(end - w + 1));
}

static void assert_same(const struct names *table, const struct names *doc, const char *what)
{
	for (size_t i = 0; i < table->n; i++)
		cr_expect(has(doc, table->v[i]), "%s is in the option table but not in %s",
			  table->v[i], what);
	for (size_t i = 0; i < doc->n; i++)
		cr_expect(has(table, doc->v[i]), "%s is in %s but not in the option table",
			  doc->v[i], what);
}

Test(record_help, the_man_page_has_every_option_of_the_table_and_no_other)
{
	struct names table, man;

	table_names(&table);
	man_names(&man, "man/katra-record.8");
	cr_assert_geq(table.n, 20);
	assert_same(&table, &man, "man/katra-record.8 (OPTIONS)");
}

Test(record_help, the_completion_offers_every_option_of_the_table_and_no_other)
{
	struct names table, comp;
	char *text = slurp("completion/katra-record.bash");

	table_names(&table);
	completion_names(&comp, text);
	assert_same(&table, &comp, "completion/katra-record.bash");
	free(text);
}

/* The case arm of `case $prev` that completes option name's argument. */
static const char *arm_of(const char *text, const char *name, char *body, size_t cap)
{
	const char *p = strstr(text, "case $prev in\n");

	for (p = p ? strchr(p, '\n') + 1 : NULL; p && *p; p = strchr(p, '\n') + 1) {
		const char *eol = strchr(p, '\n'), *close = strchr(p, ')');
		if (!strncmp(p, "\tesac", 5) || !eol)
			return NULL;
		if (p[0] == '\t' && p[1] == '-' && close && close < eol) {
			struct names s = { .n = 0 };
			words_of(&s, p, (size_t)(close - p));
			if (has(&s, name)) {
				const char *e = strstr(eol, ";;");
				snprintf(body, cap, "%.*s", e ? (int)(e - eol) : 0, eol);
				return body;
			}
		}
	}
	return NULL;
}

Test(record_help, the_completion_completes_each_argument_as_the_table_says)
{
	char *text = slurp("completion/katra-record.bash"), body[512];

	for (size_t i = 0; i < katra_record_noptions; i++) {
		const struct katra_cli_option *op = &katra_record_options[i];
		char name[48], want[160];
		if (op->flags & (KATRA_OPT_TESTS | KATRA_OPT_COMMAND) || !op->arg)
			continue;
		snprintf(name, sizeof(name), "--%s", op->name);
		cr_assert_not_null(op->complete, "%s: no completion hint in the table", name);
		cr_assert_not_null(arm_of(text, name, body, sizeof(body)),
				   "%s: no case arm in the completion", name);
		if (op->short_name) {
			char s[3] = { '-', op->short_name, 0 }, b2[512];
			cr_expect(arm_of(text, s, b2, sizeof(b2)) && !strcmp(b2, body),
				  "%s and %s in different case arms", s, name);
		}
		if (!strcmp(op->complete, "none"))
			snprintf(want, sizeof(want), "%s", "return");
		else if (!strcmp(op->complete, "pid"))
			snprintf(want, sizeof(want), "%s", "/proc");
		else if (!strcmp(op->complete, "file"))
			snprintf(want, sizeof(want), "%s", "compgen -f");
		else if (!strcmp(op->complete, "user"))
			snprintf(want, sizeof(want), "%s", "compgen -u");
		else if (!strncmp(op->complete, "words:", 6))
			snprintf(want, sizeof(want), "compgen -W \"%s\" -- \"$cur\"", op->complete + 6);
		else if (!strncmp(op->complete, "words,:", 7))
			snprintf(want, sizeof(want), "compgen -W \"%s\" -- \"${cur##*,}\"",
				 op->complete + 7);
		else
			cr_assert_fail("%s: unknown completion hint '%s'", name, op->complete);
		cr_expect(strstr(body, want), "%s: its case arm lacks '%s':%s", name, want, body);
		if (!strcmp(op->complete, "none"))
			cr_expect(!strstr(body, "compgen"), "%s takes no completion:%s", name, body);
	}
	free(text);
}

Test(record_help, help_shows_every_option_of_the_table_but_the_tests_own)
{
	char *text = help_text();

	for (size_t i = 0; i < katra_record_noptions; i++) {
		const struct katra_cli_option *op = &katra_record_options[i];
		char name[48];
		if (!op->name)
			continue;
		snprintf(name, sizeof(name), "--%s%s", op->name, op->arg ? " " : "");
		if (op->flags & KATRA_OPT_TESTS)
			cr_expect_null(strstr(text, name), "%s is for tests: not in --help", name);
		else
			cr_expect_not_null(strstr(text, name), "%s missing from --help", name);
		if (op->help && !(op->flags & KATRA_OPT_TESTS)) {
			/* its text's first line, as the table has it */
			char first[128];
			snprintf(first, sizeof(first), "%.*s", (int)strcspn(op->help, "\n"), op->help);
			cr_expect_not_null(strstr(text, first), "%s: '%s' not in --help", name, first);
		}
	}
	cr_assert_not_null(strstr(text, "  -- COMMAND ARGS...     start COMMAND"));
	free(text);
}

/* ---- katra-replay: each subcommand's getopt options, from its source ---- */

struct subcommand {
	char name[16];
	struct names opts; /* "--json", "-o" */
};

/* The subcommands' options as their getopt_long calls take them: the long
 * names of the struct option arrays and the short ones of the option string
 * (-h, --help aside), by the katra_cmd_NAME function they sit in. */
static size_t replay_subcommands(struct subcommand *cmds, size_t cap)
{
	static const char *const files[] = {
		"user/replay/dump/cmd_basic.c", "user/replay/compare/cmd_compare.c",
		"user/replay/export/cmd_export.c", "user/replay/report/cmd_report.c",
	};
	size_t n = 0;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char *text = slurp(files[f]), *save = NULL;
		struct subcommand *cur = NULL;
		for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *p;
			if (!strncmp(line, "int katra_cmd_", 14) && n < cap) {
				cur = &cmds[n++];
				cur->opts.n = 0;
				snprintf(cur->name, sizeof(cur->name), "%.*s",
					 (int)strcspn(line + 14, "("), line + 14);
			} else if (cur && (p = strstr(line, "{ \"")) && strstr(line, "_argument")) {
				char name[48];
				snprintf(name, sizeof(name), "--%.*s", (int)strcspn(p + 3, "\""), p + 3);
				if (strcmp(name, "--help"))
					add(&cur->opts, name, strlen(name));
			} else if (cur && (p = strstr(line, "getopt_long(argc, argv, \""))) {
				for (p += 25; *p && *p != '"'; p++)
					if (*p != ':' && *p != 'h' && *p != '+') {
						char s[3] = { '-', *p, 0 };
						add(&cur->opts, s, 2);
					}
			}
		}
		free(text);
	}
	return n;
}

Test(replay_help, each_subcommands_options_are_in_the_man_page_and_the_completion)
{
	struct subcommand cmds[8];
	size_t n = replay_subcommands(cmds, 8);
	char *man = slurp("man/katra-replay.1"), *comp = slurp("completion/katra-replay.bash");

	cr_assert_geq(n, 6, "found %zu subcommands", n);
	for (size_t c = 0; c < n; c++) {
		struct subcommand *sc = &cmds[c];
		char head[32], arm[32], *sec, *end, *line;
		struct names words = { .n = 0 };

		cr_assert_gt(sc->opts.n, 0, "%s: no options found", sc->name);
		/* the man page: its COMMANDS entry (".TP" then ".B NAME ...") to the next */
		snprintf(head, sizeof(head), "\n.TP\n.B %s ", sc->name);
		sec = strstr(man, head);
		cr_assert_not_null(sec, "man/katra-replay.1 has no entry for %s", sc->name);
		sec += strlen(head);
		end = strstr(sec, "\n.SH ");
		for (char *t = strstr(sec, "\n.TP\n.B "); t && (!end || t < end);
		     t = strstr(t + 1, "\n.TP\n.B ")) {
			bool other = false;
			for (size_t k = 0; k < n; k++)
				if (k != c && !strncmp(t + 8, cmds[k].name, strlen(cmds[k].name)) &&
				    t[8 + strlen(cmds[k].name)] == ' ')
					other = true;
			if (other) {
				end = t;
				break;
			}
		}
		for (size_t i = 0; i < sc->opts.n; i++) {
			char esc[96], *q = esc;
			for (const char *o = sc->opts.v[i]; *o && q < esc + sizeof(esc) - 3; o++) {
				if (*o == '-')
					*q++ = '\\';
				*q++ = *o;
			}
			*q = 0;
			char *at = strstr(sec, esc);
			cr_expect(at && (!end || at < end), "%s %s is not in man/katra-replay.1's %s entry",
				  sc->name, sc->opts.v[i], sc->name);
		}
		/* the completion: the subcommand's opts="..." */
		snprintf(arm, sizeof(arm), "\t%s) opts=\"", sc->name);
		line = strstr(comp, arm);
		cr_assert_not_null(line, "completion/katra-replay.bash: no options for %s", sc->name);
		line += strlen(arm);
		words_of(&words, line - 1, strcspn(line, "\"") + 1);
		for (size_t i = 0; i < sc->opts.n; i++)
			cr_expect(has(&words, sc->opts.v[i]),
				  "%s %s is not in completion/katra-replay.bash", sc->name,
				  sc->opts.v[i]);
		for (size_t i = 0; i < words.n; i++)
			cr_expect(has(&sc->opts, words.v[i]),
				  "completion/katra-replay.bash offers %s %s, which %s does not take",
				  sc->name, words.v[i], sc->name);
	}
	free(man);
	free(comp);
}
