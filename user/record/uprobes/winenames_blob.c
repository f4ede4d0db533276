// SPDX-License-Identifier: GPL-2.0-only
/* The name lists the parsers of winenames.c return. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "winenames.h"

void katra_names_free(char **names, uint32_t count)
{
	if (!names)
		return;
	for (uint32_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

uint32_t katra_names_count(char *const *names, uint32_t count)
{
	uint32_t n = 0;

	for (uint32_t i = 0; names && i < count; i++)
		n += names[i] != NULL;
	return n;
}

/* Header counts beyond these are no binary Wine ships (the Windows loader
 * itself stops at 96 sections: KATRA_PE_SECTIONS_MAX); refusing them keeps
 * each lookup cheap. */
