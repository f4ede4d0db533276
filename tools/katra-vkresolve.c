// SPDX-License-Identifier: GPL-2.0-only
/* katra-vkresolve: where the Vulkan driver's entry points are.
 *
 * katra-record runs it (with the traced process's Vulkan loader variables:
 * VK_ICD_FILENAMES, VK_DRIVER_FILES, ...) when a traced process maps the
 * Vulkan loader, once per root.  Programs that matter (Wine's winevulkan,
 * DXVK, vkd3d-proton) call the driver through pointers from
 * vkGetDeviceProcAddr, not through the loader's exports, so the probes must
 * sit on the driver's own functions: this creates an instance and, on each
 * physical device, a device with the swapchain extension when offered, asks
 * vkGetDeviceProcAddr for the calls katra probes, and turns each address
 * into file + address within the file (dladdr).  Output, one line each:
 *
 *   device NAME                           (a physical device; spaces kept)
 *   entry FUNCTION VADDR_HEX PATH         (VADDR: the ELF virtual address in PATH)
 *   file PATH                             (every object loaded then: what the
 *                                          answer depends on, for its cache)
 *
 * Exit 0 when at least one device was created, 1 otherwise (a reason on
 * stderr).
 *
 * What it loads (the drivers, and through its ELF interpreter the ld.so and
 * libc of the process's root) is chosen by the traced process, so
 * katra-record runs it with no more power than that process has
 * (user/record/uprobes/asproc.c): in the process's namespaces and root,
 * with its uids, gids and groups, no capability and no_new_privs; this
 * binary is passed as an open file, so the root need not hold it.  Nothing
 * here relies on any privilege. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

static const char *const functions[] = {
	"vkQueueSubmit", "vkQueueSubmit2", "vkQueuePresentKHR", "vkWaitForFences",
	"vkWaitSemaphores", "vkAcquireNextImageKHR",
};

static int has_swapchain(VkPhysicalDevice pd)
{
	uint32_t n = 0;
	VkExtensionProperties *ext;
	int found = 0;

	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n)
		return 0;
	ext = calloc(n, sizeof(*ext));
	if (!ext)
		return 0;
	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ext) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			if (!strcmp(ext[i].extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME))
				found = 1;
	free(ext);
	return found;
}

static int resolve_device(VkPhysicalDevice pd)
{
	const char *swapchain = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	VkPhysicalDeviceProperties props;
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = 0, .queueCount = 1, .pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo di = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
	};
	VkDevice dev;
	VkResult res;

	vkGetPhysicalDeviceProperties(pd, &props);
	if (has_swapchain(pd)) {
		di.enabledExtensionCount = 1;
		di.ppEnabledExtensionNames = &swapchain;
	}
	res = vkCreateDevice(pd, &di, NULL, &dev);
	if (res != VK_SUCCESS) {
		fprintf(stderr, "katra-vkresolve: %s: vkCreateDevice: %d\n", props.deviceName, res);
		return 0;
	}
	printf("device %s\n", props.deviceName);
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		PFN_vkVoidFunction f = vkGetDeviceProcAddr(dev, functions[i]);
		Dl_info info;
		if (!f)
			continue;
		if (!dladdr((void *)f, &info) || !info.dli_fname || !info.dli_fbase) {
			fprintf(stderr, "katra-vkresolve: %s: no file for %s\n", props.deviceName,
				functions[i]);
			continue;
		}
		printf("entry %s %llx %s\n", functions[i],
		       (unsigned long long)((uintptr_t)f - (uintptr_t)info.dli_fbase), info.dli_fname);
	}
	vkDestroyDevice(dev, NULL);
	return 1;
}

static int print_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name && info->dlpi_name[0] == '/')
		printf("file %s\n", info->dlpi_name);
	return 0;
}

int main(void)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "katra-vkresolve", .apiVersion = VK_API_VERSION_1_3,
	};
	VkInstanceCreateInfo ii = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
	};
	VkPhysicalDevice *pds;
	VkInstance inst;
	uint32_t n = 0;
	int ok = 0;
	VkResult res;

	res = vkCreateInstance(&ii, NULL, &inst);
	if (res != VK_SUCCESS) {
		fprintf(stderr, "katra-vkresolve: vkCreateInstance: %d\n", res);
		return 1;
	}
	if (vkEnumeratePhysicalDevices(inst, &n, NULL) != VK_SUCCESS || !n) {
		fprintf(stderr, "katra-vkresolve: no Vulkan device\n");
		vkDestroyInstance(inst, NULL);
		return 1;
	}
	pds = calloc(n, sizeof(*pds));
	if (pds && vkEnumeratePhysicalDevices(inst, &n, pds) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			ok |= resolve_device(pds[i]);
	free(pds);
	dl_iterate_phdr(print_object, NULL); /* the drivers still loaded */
	vkDestroyInstance(inst, NULL);
	fflush(stdout);
	return ok ? 0 : 1;
}
