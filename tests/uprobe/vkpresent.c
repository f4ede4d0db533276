// SPDX-License-Identifier: GPL-2.0-only
/* A Vulkan program with known submits and presents, for the uprobe tests: an
 * xcb window on $DISPLAY (Xvfb will do), a VK_KHR_xcb_surface and a swapchain
 * (lavapipe works):
 *
 *   vkpresent STARTED GATE K P
 *
 * sets everything up, creates the file STARTED, waits for GATE to exist (a
 * tracer attaches first), then P frames: vkAcquireNextImageKHR, one
 * vkQueueSubmit of a command buffer that clears the image and moves it to
 * PRESENT_SRC (waits on the acquire, signals the render semaphore, a fence
 * waited for), vkQueuePresentKHR of one swapchain; and K - P more submits of
 * an empty command buffer (one after each frame while any are left, the rest
 * at the end), so K submits in all (K >= P).  Prints one JSON line: the queue
 * handle, the device, K, P, the VkResult of each present, the swapchain, the
 * pid.
 *
 *   vkpresent STARTED GATE K P SLOW SPIN
 *
 * does the same with two frames made slow in known call chains (built
 * without frame pointers, with CFI: the Makefile's rule) before their
 * acquire: the frame that present number SLOW ends blocks in main ->
 * frame_slow -> slow_b -> slow_a -> nanosleep (SLOW_MS), the one that present
 * SPIN ends runs in main -> frame_spin -> spin_b -> spin_a for SPIN_MS of the
 * thread's CPU time (for --sample-hz); 0 for neither. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xcb/xcb.h>
#define VK_USE_PLATFORM_XCB_KHR
#include "vkprog.h"

#define MAX_IMAGES 8
#define SIZE 64
#define SLOW_MS 300
#define SPIN_MS 10

/* the empty asm after each call: no tail call, the caller stays a frame;
 * noipa: no clone or inlining renames or hides a frame */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")
#define CHAIN __attribute__((noipa))

struct gpu {
	VkInstance inst;
	VkPhysicalDevice pd;
	VkSurfaceKHR surface;
	VkDevice dev;
	VkQueue queue;
	VkSwapchainKHR chain;
	uint32_t nimages;
	VkImage images[MAX_IMAGES];
	VkCommandPool pool;
	VkCommandBuffer draw[MAX_IMAGES], empty;
	VkSemaphore acquired, rendered;
	VkFence fence;
};

static xcb_window_t open_window(xcb_connection_t **conn)
{
	const xcb_setup_t *setup;
	xcb_screen_t *screen;
	xcb_window_t win;

	*conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(*conn)) {
		fprintf(stderr, "vkpresent: cannot connect to the X server (DISPLAY=%s)\n",
			getenv("DISPLAY") ? getenv("DISPLAY") : "");
		exit(1);
	}
	setup = xcb_get_setup(*conn);
	screen = xcb_setup_roots_iterator(setup).data;
	win = xcb_generate_id(*conn);
	xcb_create_window(*conn, XCB_COPY_FROM_PARENT, win, screen->root, 0, 0, SIZE, SIZE, 0,
			  XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, 0, NULL);
	xcb_map_window(*conn, win);
	xcb_flush(*conn);
	return win;
}

static void create_device(struct gpu *g, xcb_connection_t *conn, xcb_window_t win)
{
	const char *inst_ext[] = { VK_KHR_SURFACE_EXTENSION_NAME,
				   VK_KHR_XCB_SURFACE_EXTENSION_NAME };
	const char *dev_ext[] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkpresent",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				    .pApplicationInfo = &app, .enabledExtensionCount = 2,
				    .ppEnabledExtensionNames = inst_ext };
	VkXcbSurfaceCreateInfoKHR xi = { .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
					 .connection = conn, .window = win };
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
				       .queueFamilyIndex = 0, .queueCount = 1,
				       .pQueuePriorities = &prio };
	VkDeviceCreateInfo di = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				  .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
				  .enabledExtensionCount = 1, .ppEnabledExtensionNames = dev_ext };
	VkBool32 can_present = VK_FALSE;

	vkprog_instance(&ii, &g->inst, &g->pd);
	CHECK(vkCreateXcbSurfaceKHR(g->inst, &xi, NULL, &g->surface));
	CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(g->pd, 0, g->surface, &can_present));
	if (!can_present) {
		fprintf(stderr, "vkpresent: queue family 0 cannot present to the window\n");
		exit(1);
	}
	CHECK(vkCreateDevice(g->pd, &di, NULL, &g->dev));
	vkGetDeviceQueue(g->dev, 0, 0, &g->queue);
}

static void create_swapchain(struct gpu *g)
{
	VkSurfaceCapabilitiesKHR caps;
	VkSurfaceFormatKHR fmt[32];
	uint32_t nfmt = 32;

	CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(g->pd, g->surface, &caps));
	VkResult fr = vkGetPhysicalDeviceSurfaceFormatsKHR(g->pd, g->surface, &nfmt, fmt);
	if ((fr != VK_SUCCESS && fr != VK_INCOMPLETE) || !nfmt) {
		fprintf(stderr, "vkpresent: no surface format\n");
		exit(1);
	}
	uint32_t count = caps.minImageCount < 2 ? 2 : caps.minImageCount;
	if (caps.maxImageCount && count > caps.maxImageCount)
		count = caps.maxImageCount;
	VkExtent2D extent = caps.currentExtent.width == UINT32_MAX
		? (VkExtent2D){ SIZE, SIZE } : caps.currentExtent;
	VkSwapchainCreateInfoKHR ci = {
		.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = g->surface,
		.minImageCount = count, .imageFormat = fmt[0].format,
		.imageColorSpace = fmt[0].colorSpace, .imageExtent = extent,
		.imageArrayLayers = 1,
		.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.preTransform = caps.currentTransform,
		.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
		.presentMode = VK_PRESENT_MODE_FIFO_KHR, /* the one every driver has */
		.clipped = VK_TRUE,
	};
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
		fprintf(stderr, "vkpresent: swapchain images cannot be cleared (no TRANSFER_DST)\n");
		exit(1);
	}
	if (!(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR))
		ci.compositeAlpha = VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
	CHECK(vkCreateSwapchainKHR(g->dev, &ci, NULL, &g->chain));
	g->nimages = MAX_IMAGES;
	VkResult ir = vkGetSwapchainImagesKHR(g->dev, g->chain, &g->nimages, g->images);
	if (ir != VK_SUCCESS && ir != VK_INCOMPLETE) {
		fprintf(stderr, "vkpresent: vkGetSwapchainImagesKHR: %d\n", ir);
		exit(1);
	}
}

static void barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from, VkImageLayout to,
		    VkAccessFlags src, VkAccessFlags dst, VkPipelineStageFlags src_stage,
		    VkPipelineStageFlags dst_stage)
{
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src,
		.dstAccessMask = dst, .oldLayout = from, .newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = img,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};

	vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* One command buffer per image (clear, then PRESENT_SRC) and an empty one. */
static void record_commands(struct gpu *g)
{
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.queueFamilyIndex = 0 };
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					   .commandBufferCount = 1 };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkClearColorValue color = { .float32 = { 0.2f, 0.4f, 0.8f, 1.0f } };
	VkImageSubresourceRange all = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };

	CHECK(vkCreateCommandPool(g->dev, &pci, NULL, &g->pool));
	ai.commandPool = g->pool;
	for (uint32_t i = 0; i < g->nimages; i++) {
		VkCommandBuffer cb;
		CHECK(vkAllocateCommandBuffers(g->dev, &ai, &cb));
		CHECK(vkBeginCommandBuffer(cb, &bi));
		barrier(cb, g->images[i], VK_IMAGE_LAYOUT_UNDEFINED,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
		vkCmdClearColorImage(cb, g->images[i], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color,
				     1, &all);
		barrier(cb, g->images[i], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_WRITE_BIT, 0,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
		CHECK(vkEndCommandBuffer(cb));
		g->draw[i] = cb;
	}
	CHECK(vkAllocateCommandBuffers(g->dev, &ai, &g->empty));
	CHECK(vkBeginCommandBuffer(g->empty, &bi));
	CHECK(vkEndCommandBuffer(g->empty));
	VkSemaphoreCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	CHECK(vkCreateSemaphore(g->dev, &si, NULL, &g->acquired));
	CHECK(vkCreateSemaphore(g->dev, &si, NULL, &g->rendered));
	CHECK(vkCreateFence(g->dev, &fi, NULL, &g->fence));
}

static void submit_wait(struct gpu *g, const VkSubmitInfo *si)
{
	CHECK(vkQueueSubmit(g->queue, 1, si, g->fence));
	CHECK(vkWaitForFences(g->dev, 1, &g->fence, VK_TRUE, UINT64_MAX));
	CHECK(vkResetFences(g->dev, 1, &g->fence));
}

CHAIN static void slow_a(void)
{
	struct timespec ts = { 0, SLOW_MS * 1000000L };

	nanosleep(&ts, NULL);
	KEEP_FRAME();
}

CHAIN static void slow_b(void)
{
	slow_a();
	KEEP_FRAME();
}

CHAIN static void frame_slow(void)
{
	slow_b();
	KEEP_FRAME();
}

/* the thread's CPU time: SPIN_MS on the CPU however loaded the machine is */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

CHAIN static void spin_a(double until_ms)
{
	static volatile unsigned long n;

	while (cpu_ms() < until_ms)
		for (int i = 0; i < 100000; i++)
			n++;
	KEEP_FRAME();
}

CHAIN static void spin_b(double until_ms)
{
	spin_a(until_ms);
	KEEP_FRAME();
}

CHAIN static void frame_spin(void)
{
	spin_b(cpu_ms() + SPIN_MS);
	KEEP_FRAME();
}

static int ok_or_suboptimal(VkResult r)
{
	return r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR;
}

int main(int argc, char **argv)
{
	struct gpu g = { 0 };
	xcb_connection_t *conn;
	xcb_window_t win;
	long k, p, extra, slow = 0, spin = 0;
	VkResult *results;
	uint32_t *acquired;

	if (argc == 7) {
		slow = atol(argv[5]);
		spin = atol(argv[6]);
	}
	if ((argc != 5 && argc != 7) || (k = atol(argv[3])) < (p = atol(argv[4])) || p < 1) {
		fprintf(stderr, "usage: vkpresent STARTED GATE K P [SLOW SPIN]   (K >= P >= 1)\n");
		return 2;
	}
	results = calloc((size_t)p, sizeof(*results));
	acquired = calloc((size_t)p, sizeof(*acquired));
	if (!results || !acquired)
		return 1;
	win = open_window(&conn);
	create_device(&g, conn, win);
	create_swapchain(&g);
	record_commands(&g);

	if (vkprog_gate(argv[1], argv[2]))
		return 1;

	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkSubmitInfo empty = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
			       .pCommandBuffers = &g.empty };
	extra = k - p;
	for (long i = 0; i < p; i++) {
		uint32_t idx;

		if (i + 1 == slow)
			frame_slow();
		if (i + 1 == spin)
			frame_spin();
		KEEP_FRAME();
		VkResult ar = vkAcquireNextImageKHR(g.dev, g.chain, UINT64_MAX, g.acquired,
						    VK_NULL_HANDLE, &idx);
		if (!ok_or_suboptimal(ar)) {
			fprintf(stderr, "vkpresent: vkAcquireNextImageKHR: %d\n", ar);
			return 1;
		}
		acquired[i] = idx;
		VkSubmitInfo draw = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				      .waitSemaphoreCount = 1, .pWaitSemaphores = &g.acquired,
				      .pWaitDstStageMask = &stage, .commandBufferCount = 1,
				      .pCommandBuffers = &g.draw[idx],
				      .signalSemaphoreCount = 1, .pSignalSemaphores = &g.rendered };
		submit_wait(&g, &draw);
		VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
					.waitSemaphoreCount = 1, .pWaitSemaphores = &g.rendered,
					.swapchainCount = 1, .pSwapchains = &g.chain,
					.pImageIndices = &idx };
		results[i] = vkQueuePresentKHR(g.queue, &pi);
		if (!ok_or_suboptimal(results[i])) {
			fprintf(stderr, "vkpresent: vkQueuePresentKHR: %d\n", results[i]);
			return 1;
		}
		if (extra > 0) {
			submit_wait(&g, &empty);
			extra--;
		}
	}
	for (; extra > 0; extra--)
		submit_wait(&g, &empty);
	CHECK(vkQueueWaitIdle(g.queue));

	printf("{\"queue\": %llu, \"device\": %llu, \"submits\": %ld, \"presents\": %ld, "
	       "\"present_results\": [",
	       (unsigned long long)(uintptr_t)g.queue, (unsigned long long)(uintptr_t)g.dev, k, p);
	for (long i = 0; i < p; i++)
		printf("%s%d", i ? ", " : "", (int)results[i]);
	printf("], \"acquired\": [");
	for (long i = 0; i < p; i++)
		printf("%s%u", i ? ", " : "", acquired[i]);
	printf("], \"swapchain\": %llu, \"pid\": %d}\n", (unsigned long long)(uintptr_t)g.chain,
	       (int)getpid());
	fflush(stdout);

	vkDestroyFence(g.dev, g.fence, NULL);
	vkDestroySemaphore(g.dev, g.rendered, NULL);
	vkDestroySemaphore(g.dev, g.acquired, NULL);
	vkDestroyCommandPool(g.dev, g.pool, NULL);
	vkDestroySwapchainKHR(g.dev, g.chain, NULL);
	vkDestroyDevice(g.dev, NULL);
	vkDestroySurfaceKHR(g.inst, g.surface, NULL);
	vkDestroyInstance(g.inst, NULL);
	xcb_destroy_window(conn, win);
	xcb_disconnect(conn);
	free(results);
	return 0;
}
