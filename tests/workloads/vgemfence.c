// SPDX-License-Identifier: GPL-2.0-only
/* Workload: N dma_fences made and signalled through vgem, the kernel's
 * virtual GEM driver (no GPU needed: `modprobe vgem` makes /dev/dri/cardN).
 *
 * usage: vgemfence [--gate GATE] N
 *
 * Finds the vgem card (DRM_IOCTL_VERSION's name), makes N dumb buffers
 * (DRM_IOCTL_MODE_CREATE_DUMB); after the gate, attaches a fence to each
 * (DRM_IOCTL_VGEM_FENCE_ATTACH: vgem makes one dma_fence, on a context of
 * its own, inside the ioctl), then signals each (DRM_IOCTL_VGEM_FENCE_SIGNAL:
 * dma_fence_signal inside the ioctl), all on the main thread.  One JSON line:
 * {"workload":"vgemfence","pid":P,"tid":T,"card":"/dev/dri/card0","fences":N}
 * Exits 77 when no vgem card exists. */
#include <dirent.h>
#include <sys/ioctl.h>

#include "workload.h"

/* The uapi (drm.h, drm_mode.h, vgem_drm.h), written out: the build machine
 * need not carry libdrm's headers. */
struct drm_version_ {
	int version_major, version_minor, version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct drm_mode_create_dumb_ {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct drm_vgem_fence_attach_ {
	uint32_t handle, flags, out_fence, pad;
};
struct drm_vgem_fence_signal_ {
	uint32_t fence, flags;
};
#define DRM_IOCTL_VERSION_ _IOWR('d', 0x00, struct drm_version_)
#define DRM_IOCTL_MODE_CREATE_DUMB_ _IOWR('d', 0xB2, struct drm_mode_create_dumb_)
#define DRM_IOCTL_VGEM_FENCE_ATTACH_ _IOWR('d', 0x41, struct drm_vgem_fence_attach_)
#define DRM_IOCTL_VGEM_FENCE_SIGNAL_ _IOW('d', 0x42, struct drm_vgem_fence_signal_)
#define VGEM_FENCE_WRITE_ 0x1
#define MAX_FENCES 4096

static const char *prog = "vgemfence";

/* The first /dev/dri/card* whose driver is vgem: its fd, or -1. */
static int open_vgem(char *path, size_t cap)
{
	DIR *d = opendir("/dev/dri");
	struct dirent *de;
	int fd = -1;

	while (d && fd < 0 && (de = readdir(d))) {
		char name[32] = "";
		struct drm_version_ v = { .name_len = sizeof(name) - 1, .name = name };

		if (strncmp(de->d_name, "card", 4))
			continue;
		snprintf(path, cap, "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && (ioctl(fd, DRM_IOCTL_VERSION_, &v) || strcmp(name, "vgem"))) {
			close(fd);
			fd = -1;
		}
	}
	if (d)
		closedir(d);
	return fd;
}

int main(int argc, char **argv)
{
	static uint32_t handles[MAX_FENCES], fences[MAX_FENCES];
	const char *gate = NULL;
	char card[300];
	int i = 1, n, fd;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc != i + 1 || (n = atoi(argv[i])) <= 0 || n > MAX_FENCES)
		wl_die(prog, "usage: vgemfence [--gate GATE] N (1 to %d)", MAX_FENCES);
	fd = open_vgem(card, sizeof(card));
	if (fd < 0) {
		fprintf(stderr, "%s: no vgem card in /dev/dri (modprobe vgem)\n", prog);
		return 77;
	}
	for (int k = 0; k < n; k++) {
		struct drm_mode_create_dumb_ c = { .height = 16, .width = 16, .bpp = 32 };

		if (ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB_, &c))
			wl_die(prog, "DRM_IOCTL_MODE_CREATE_DUMB: %s", strerror(errno));
		handles[k] = c.handle;
	}
	wl_gate_wait(gate);
	for (int k = 0; k < n; k++) {
		struct drm_vgem_fence_attach_ a = { .handle = handles[k], .flags = VGEM_FENCE_WRITE_ };

		if (ioctl(fd, DRM_IOCTL_VGEM_FENCE_ATTACH_, &a))
			wl_die(prog, "DRM_IOCTL_VGEM_FENCE_ATTACH: %s", strerror(errno));
		fences[k] = a.out_fence;
	}
	for (int k = 0; k < n; k++) {
		struct drm_vgem_fence_signal_ s = { .fence = fences[k] };

		if (ioctl(fd, DRM_IOCTL_VGEM_FENCE_SIGNAL_, &s))
			wl_die(prog, "DRM_IOCTL_VGEM_FENCE_SIGNAL: %s", strerror(errno));
	}
	printf("{\"workload\":\"vgemfence\",\"pid\":%d,\"tid\":%d,\"card\":\"%s\",\"fences\":%d}\n",
	       (int)getpid(), (int)wl_gettid(), card, n);
	close(fd);
	return 0;
}
