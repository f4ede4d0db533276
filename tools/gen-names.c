// SPDX-License-Identifier: GPL-2.0-only
/* Build tool: prints a C header with one table of variant names per enum of
 * format/schema.txt, in index order, named katra_names_<Enum>: the names
 * user/format/names.c returns.  Fails when a variant's index is not its
 * position (the schema only ever appends). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int enum_line(const char *path, int lineno, char *line)
{
	char *open = strchr(line, '{'), *close = strrchr(line, '}');
	char *name = line + 5, *tok, *save = NULL;
	int n = 0;

	if (!open || !close || close < open) {
		fprintf(stderr, "%s:%d: an enum line without { }\n", path, lineno);
		return -1;
	}
	*open = *close = '\0';
	name[strcspn(name, " ")] = '\0';
	printf("static const char *const katra_names_%s[] __attribute__((unused)) = {\n", name);
	for (tok = strtok_r(open + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *p;
		long idx = strtol(tok, &p, 10);

		if (p == tok || idx != n) {
			fprintf(stderr, "%s:%d: %s: variant at position %d has index '%.20s'\n",
				path, lineno, name, n, tok);
			return -1;
		}
		p += strspn(p, " ");
		p[strcspn(p, " (")] = '\0';
		printf("\t\"%s\",\n", p);
		n++;
	}
	printf("};\n");
	return 0;
}

int main(int argc, char **argv)
{
	char line[4096];
	int lineno = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-names SCHEMA_FILE\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	printf("/* generated from %s by tools/gen-names.c: do not edit */\n", argv[1]);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (strncmp(line, "enum ", 5))
			continue;
		if (enum_line(argv[1], lineno, line)) {
			fclose(f);
			return 1;
		}
	}
	fclose(f);
	return 0;
}
