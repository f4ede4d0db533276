/* SPDX-License-Identifier: GPL-2.0-only */
/* What the Vulkan test programs (vksubmit, vkpresent) share: a VkResult
 * check, the first physical device, and the started/gate handshake with the
 * test that attaches a tracer in between.  Messages name the program
 * (program_invocation_short_name: define _GNU_SOURCE first). */
#ifndef KATRA_TESTS_VKPROG_H
#define KATRA_TESTS_VKPROG_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#define CHECK(x)                                                                    \
	do {                                                                        \
		VkResult r_ = (x);                                                  \
		if (r_ != VK_SUCCESS) {                                             \
			fprintf(stderr, "%s: %s: %d\n", program_invocation_short_name, \
				#x, r_);                                            \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

/* An instance and its first physical device; exits when there is none. */
static inline void vkprog_instance(const VkInstanceCreateInfo *ii, VkInstance *inst,
				   VkPhysicalDevice *pd)
{
	uint32_t n = 1;

	CHECK(vkCreateInstance(ii, NULL, inst));
	VkResult r = vkEnumeratePhysicalDevices(*inst, &n, pd);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n) {
		fprintf(stderr, "%s: no Vulkan device\n", program_invocation_short_name);
		exit(1);
	}
}

/* Creates the file started (when not NULL), then waits up to 30 s for the
 * file gate to exist; 0 when it does. */
static inline int vkprog_gate(const char *started, const char *gate)
{
	if (started) {
		FILE *f = fopen(started, "w");
		if (!f) {
			perror(started);
			return 1;
		}
		fclose(f);
	}
	for (int i = 0; i < 6000; i++) {
		if (!access(gate, F_OK))
			return 0;
		usleep(5000);
	}
	fprintf(stderr, "%s: no gate %s after 30 s\n", program_invocation_short_name, gate);
	return 1;
}

#endif
