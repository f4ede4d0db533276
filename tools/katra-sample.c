// SPDX-License-Identifier: GPL-2.0-only
/* katra-sample FILE: writes the fixed sample trace (every record type, every
 * enum variant, every payload shape) to FILE, replacing it. */
#include <stdio.h>
#include <string.h>

#include "sample_records.h"

int main(int argc, char **argv)
{
	int err;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: katra-sample FILE\n");
		return 2;
	}
	err = katra_sample_write(argv[1]);
	if (err) {
		fprintf(stderr, "katra-sample: cannot write sample trace '%s': %s\n",
			argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
