// SPDX-License-Identifier: GPL-2.0-only
/* Build tool: prints a C file defining katra_schema_hash, the 64-bit FNV-1a
 * of the file named on the command line (format/schema.txt). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fnv1a SCHEMA_FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	uint64_t h = 0xcbf29ce484222325ULL;
	int c;
	while ((c = fgetc(f)) != EOF) {
		h ^= (uint8_t)c;
		h *= 0x100000001b3ULL;
	}
	fclose(f);
	printf("/* generated from %s: do not edit */\n#include <stdint.h>\n"
	       "const uint64_t katra_schema_hash = 0x%016" PRIx64 "ULL;\n", argv[1], h);
	return 0;
}
