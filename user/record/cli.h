/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-record's command line: parsing only (no root, no libbpf), so the
 * rules are unit-tested. */
#ifndef KATRA_RECORD_CLI_H
#define KATRA_RECORD_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "recorder.h"

enum katra_cli_result {
	KATRA_CLI_RUN = 0,   /* options filled: capture */
	KATRA_CLI_HELP = 1,  /* help or version printed: exit 0 */
	KATRA_CLI_USAGE = 2, /* usage error printed: exit 2 */
};

struct katra_cli_state;

/* One option of katra-record: --help is printed from the table, the man page
 * and the completion are checked against it (tests/unit/test_record_help.c). */
struct katra_cli_option {
	const char *name;    /* long name without "--"; NULL: the -- COMMAND row */
	char short_name;     /* 0: none */
	const char *arg;     /* its argument's name in --help; NULL: takes none */
	const char *help;    /* --help's text, a line a '\n'; NULL: said on another row's */
	/* what the completion offers for the argument: "pid", "file", "user",
	 * "none", "words:A B" (one of the words), "words,:A B" (comma-separated
	 * words), "command"; NULL where there is no argument */
	const char *complete;
	enum katra_cli_result (*handler)(struct katra_cli_state *st, const char *arg);
	size_t field;        /* no handler: offsetof the field it sets + 1 (0: none) */
	unsigned flags;      /* KATRA_OPT_* */
};

#define KATRA_OPT_REPEAT  0x01u /* given more than once ("[-p PID]...") */
#define KATRA_OPT_COMMAND 0x02u /* the -- COMMAND ARGS... row, not a getopt option */
#define KATRA_OPT_TESTS   0x04u /* tests only: not in --help, man page or completion */
#define KATRA_OPT_CLEARS  0x08u /* a bool field cleared, not set (--no-follow) */
#define KATRA_OPT_COUNT   0x10u /* an int field counted up (-v, -vv) */
#define KATRA_OPT_STRING  0x20u /* a string field set to the argument */

extern const struct katra_cli_option katra_record_options[];
extern const size_t katra_record_noptions;

/* --help's text: synopsis, options, signals and exit, examples. */
void katra_record_print_help(FILE *out);
enum katra_cli_result katra_record_parse_args(int argc, char **argv, struct katra_record_opts *o,
					      FILE *out, FILE *err);
/* "64M", "1g", "4096" -> bytes; 0 or -EINVAL. */
int katra_parse_size(const char *s, uint64_t *out);
/* "10", "0.5" -> nanoseconds; 0 or -EINVAL. */
int katra_parse_seconds(const char *s, uint64_t *out);

#endif
