/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-record's command line: parsing only (no root, no libbpf), so the
 * rules are unit-tested. */
#ifndef KATRA_RECORD_CLI_H
#define KATRA_RECORD_CLI_H

#include <stdio.h>

#include "recorder.h"

enum katra_cli_result {
	KATRA_CLI_RUN = 0,   /* options filled: capture */
	KATRA_CLI_HELP = 1,  /* help or version printed: exit 0 */
	KATRA_CLI_USAGE = 2, /* usage error printed: exit 2 */
};

enum katra_cli_result katra_record_parse_args(int argc, char **argv, struct katra_record_opts *o,
					      FILE *out, FILE *err);
/* "64M", "1g", "4096" -> bytes; 0 or -EINVAL. */
int katra_parse_size(const char *s, uint64_t *out);
/* "10", "0.5" -> nanoseconds; 0 or -EINVAL. */
int katra_parse_seconds(const char *s, uint64_t *out);

#endif
