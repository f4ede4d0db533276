// SPDX-License-Identifier: GPL-2.0-only
/* A headless Vulkan program with known submits (lavapipe works), for the
 * uprobe tests and benchmarks:
 *
 *   vksubmit STARTED GATE K
 *
 * creates a device and an empty command buffer, creates the file STARTED,
 * waits for GATE to exist (a tracer attaches first), then K times
 * vkQueueSubmit (one submit info, a fence) + vkWaitForFences +
 * vkResetFences, and prints one JSON line: the queue handle, the device, K.
 *
 *   vksubmit --loop GATE K
 *
 * (the benchmark) K vkQueueSubmit calls of the empty command buffer without a
 * fence, then one vkQueueWaitIdle; prints the ns per vkQueueSubmit call. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vkprog.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vksubmit",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				    .pApplicationInfo = &app };
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
				       .queueFamilyIndex = 0, .queueCount = 1,
				       .pQueuePriorities = &prio };
	VkDeviceCreateInfo di = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				  .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi };
	VkInstance inst;
	VkPhysicalDevice pd;
	VkDevice dev;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkFence fence;
	bool bench = argc == 4 && !strcmp(argv[1], "--loop");
	long k;

	if (argc != 4) {
		fprintf(stderr, "usage: vksubmit STARTED GATE K | vksubmit --loop GATE K\n");
		return 2;
	}
	k = atol(argv[3]);
	vkprog_instance(&ii, &inst, &pd);
	CHECK(vkCreateDevice(pd, &di, NULL, &dev));
	vkGetDeviceQueue(dev, 0, 0, &queue);
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.queueFamilyIndex = 0 };
	CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .commandPool = pool,
					   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					   .commandBufferCount = 1 };
	CHECK(vkAllocateCommandBuffers(dev, &ai, &cb));
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	CHECK(vkBeginCommandBuffer(cb, &bi));
	CHECK(vkEndCommandBuffer(cb));
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	CHECK(vkCreateFence(dev, &fi, NULL, &fence));
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
			    .pCommandBuffers = &cb };

	if (vkprog_gate(bench ? NULL : argv[1], argv[2]))
		return 1;
	if (bench) {
		uint64_t spent = 0;
		for (long i = 0; i < k; i++) {
			uint64_t t0 = now_ns();
			CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
			spent += now_ns() - t0;
			if ((i & 255) == 255)
				CHECK(vkQueueWaitIdle(queue));
		}
		CHECK(vkQueueWaitIdle(queue));
		printf("{\"calls\": %ld, \"ns_per_call\": %.1f}\n", k, (double)spent / (double)k);
	} else {
		for (long i = 0; i < k; i++) {
			CHECK(vkQueueSubmit(queue, 1, &si, fence));
			CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
			CHECK(vkResetFences(dev, 1, &fence));
		}
		printf("{\"queue\": %llu, \"device\": %llu, \"submits\": %ld, \"pid\": %d}\n",
		       (unsigned long long)(uintptr_t)queue, (unsigned long long)(uintptr_t)dev, k,
		       (int)getpid());
	}
	fflush(stdout);
	vkDestroyFence(dev, fence, NULL);
	vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
