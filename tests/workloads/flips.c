// SPDX-License-Identifier: GPL-2.0-only
/* Workload: N page flips on a display (no GPU needed: QEMU's standard VGA
 * under bochs-drm, vkms, virtio-gpu), and N vblank waits where the driver
 * has vblanks; or (--atomic) N atomic commits, each with an out-fence.
 *
 * usage: flips [--driver NAME] [--atomic | --cursor | --atomic-cursor] N
 *
 * Finds the first /dev/dri/card* with a CRTC and a connector (a KMS
 * driver; with --driver, the first whose driver is NAME), lights the connector's preferred mode on the first CRTC with one
 * of two dumb framebuffers (legacy SETCRTC), then N times on the main
 * thread: where the driver has vblanks, a vblank event asked for
 * (DRM_IOCTL_WAIT_VBLANK, relative 1, with _DRM_VBLANK_EVENT: the kernel's
 * drm_vblank_event_queued in the ioctl) and read back; a page flip to the
 * other framebuffer with DRM_MODE_PAGE_FLIP_EVENT and its event read back
 * (a driver without vblanks sends it from the commit: the kernel's
 * drm_vblank_event_delivered).  One JSON line:
 * {"workload":"flips","pid":P,"tid":T,"card":"/dev/dri/card1",
 *  "driver":"bochs-drm","crtc":0,"waits":W,"flips":N}
 * (crtc: the CRTC's index, as the drm trace events name it; waits: N or 0).
 *
 * --atomic: the same mode lit the same way, then N times on the main
 * thread one atomic commit (DRM_CLIENT_CAP_ATOMIC) with
 * DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT that sets the
 * primary plane's FB_ID to the other framebuffer and the CRTC's
 * OUT_FENCE_PTR (the kernel makes one dma_fence in the ioctl, on the CRTC's
 * own timeline, driver "drm_crtc"), then waits for that out-fence (poll on
 * its sync_file), closes it, and reads the commit's event back.  One line:
 * {"workload":"atomic","pid":P,"tid":T,"card":"...","driver":"bochs-drm",
 *  "crtc":0,"commits":N,"fences":N}
 * (fences: the commits whose out-fence fd was valid and became readable).
 *
 * --cursor: instead of the flips, N legacy cursor updates
 * (DRM_IOCTL_MODE_CURSOR with a buffer), alternating two 64x64 dumb
 * buffers, so that each is a new cursor image: virtio_gpu makes a fence for
 * each (its cursor plane's prepare_fb), sends the image to the host with it
 * (TRANSFER_TO_HOST_2D) and waits for it in the ioctl.  --atomic-cursor:
 * the same N images through atomic commits of the cursor plane alone,
 * nonblocking (DRM_MODE_ATOMIC_NONBLOCK with a page-flip event, read back
 * before the next): the fence is made in the ioctl (prepare_fb), emitted,
 * waited for and signalled from the commit's worker.  Both print the flips
 * line with "flips":0, "cursors":N and "atomic":0 or 1.
 * Exits 77 when no such card exists, or the driver is not atomic. */
#include <dirent.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/ioctl.h>

#include "workload.h"

/* The uapi (drm.h, drm_mode.h), written out: the build machine need not
 * carry libdrm's headers. */
struct drm_version_ {
	int version_major, version_minor, version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct drm_mode_card_res_ {
	uint64_t fb_id_ptr, crtc_id_ptr, connector_id_ptr, encoder_id_ptr;
	uint32_t count_fbs, count_crtcs, count_connectors, count_encoders;
	uint32_t min_width, max_width, min_height, max_height;
};
struct drm_mode_modeinfo_ {
	uint32_t clock;
	uint16_t hdisplay, hsync_start, hsync_end, htotal, hskew;
	uint16_t vdisplay, vsync_start, vsync_end, vtotal, vscan;
	uint32_t vrefresh, flags, type;
	char name[32];
};
struct drm_mode_get_connector_ {
	uint64_t encoders_ptr, modes_ptr, props_ptr, prop_values_ptr;
	uint32_t count_modes, count_props, count_encoders, encoder_id, connector_id;
	uint32_t connector_type, connector_type_id, connection, mm_width, mm_height;
	uint32_t subpixel, pad;
};
struct drm_mode_create_dumb_ {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct drm_mode_fb_cmd_ {
	uint32_t fb_id, width, height, pitch, bpp, depth, handle;
};
struct drm_mode_crtc_ {
	uint64_t set_connectors_ptr;
	uint32_t count_connectors, crtc_id, fb_id, x, y, gamma_size, mode_valid;
	struct drm_mode_modeinfo_ mode;
};
struct drm_mode_crtc_page_flip_ {
	uint32_t crtc_id, fb_id, flags, reserved;
	uint64_t user_data;
};
struct drm_set_client_cap_ {
	uint64_t capability, value;
};
struct drm_mode_get_plane_res_ {
	uint64_t plane_id_ptr;
	uint32_t count_planes;
};
struct drm_mode_get_plane_ {
	uint32_t plane_id, crtc_id, fb_id, possible_crtcs, gamma_size, count_format_types;
	uint64_t format_type_ptr;
};
struct drm_mode_obj_get_properties_ {
	uint64_t props_ptr, prop_values_ptr;
	uint32_t count_props, obj_id, obj_type;
};
struct drm_mode_get_property_ {
	uint64_t values_ptr, enum_blob_ptr;
	uint32_t prop_id, flags;
	char name[32];
	uint32_t count_values, count_enum_blobs;
};
struct drm_mode_atomic_ {
	uint32_t flags, count_objs;
	uint64_t objs_ptr, count_props_ptr, props_ptr, prop_values_ptr, reserved, user_data;
};
struct drm_mode_cursor_ {
	uint32_t flags, crtc_id;
	int32_t x, y;
	uint32_t width, height, handle;
};
#define DRM_MODE_CURSOR_BO_ 0x01
union drm_wait_vblank_ {
	struct { uint32_t type, sequence; unsigned long signal; } request;
	struct { uint32_t type, sequence; long tval_sec, tval_usec; } reply;
};
struct drm_event_vblank_ {
	uint32_t type, length;
	uint64_t user_data;
	uint32_t tv_sec, tv_usec, sequence, crtc_id;
};
#define DRM_IOCTL_VERSION_ _IOWR('d', 0x00, struct drm_version_)
#define DRM_IOCTL_WAIT_VBLANK_ _IOWR('d', 0x3a, union drm_wait_vblank_)
#define DRM_IOCTL_MODE_GETRESOURCES_ _IOWR('d', 0xA0, struct drm_mode_card_res_)
#define DRM_IOCTL_MODE_SETCRTC_ _IOWR('d', 0xA2, struct drm_mode_crtc_)
#define DRM_IOCTL_MODE_CURSOR_ _IOWR('d', 0xA3, struct drm_mode_cursor_)
#define DRM_IOCTL_MODE_GETCONNECTOR_ _IOWR('d', 0xA7, struct drm_mode_get_connector_)
#define DRM_IOCTL_MODE_ADDFB_ _IOWR('d', 0xAE, struct drm_mode_fb_cmd_)
#define DRM_IOCTL_MODE_PAGE_FLIP_ _IOWR('d', 0xB0, struct drm_mode_crtc_page_flip_)
#define DRM_IOCTL_MODE_CREATE_DUMB_ _IOWR('d', 0xB2, struct drm_mode_create_dumb_)
#define DRM_IOCTL_SET_CLIENT_CAP_ _IOW('d', 0x0d, struct drm_set_client_cap_)
#define DRM_IOCTL_MODE_GETPROPERTY_ _IOWR('d', 0xAA, struct drm_mode_get_property_)
#define DRM_IOCTL_MODE_GETPLANERESOURCES_ _IOWR('d', 0xB5, struct drm_mode_get_plane_res_)
#define DRM_IOCTL_MODE_GETPLANE_ _IOWR('d', 0xB6, struct drm_mode_get_plane_)
#define DRM_IOCTL_MODE_OBJ_GETPROPERTIES_ _IOWR('d', 0xB9, struct drm_mode_obj_get_properties_)
#define DRM_IOCTL_MODE_ATOMIC_ _IOWR('d', 0xBC, struct drm_mode_atomic_)
#define DRM_CLIENT_CAP_UNIVERSAL_PLANES_ 2
#define DRM_CLIENT_CAP_ATOMIC_ 3
#define DRM_MODE_OBJECT_CRTC_ 0xccccccccu
#define DRM_MODE_OBJECT_PLANE_ 0xeeeeeeeeu
#define DRM_PLANE_TYPE_PRIMARY_ 1
#define DRM_PLANE_TYPE_CURSOR_ 2
#define DRM_MODE_ATOMIC_NONBLOCK_ 0x0200
#define MAX_PROPS 64
#define DRM_VBLANK_RELATIVE_ 0x1
#define DRM_VBLANK_EVENT_ 0x4000000
#define DRM_MODE_PAGE_FLIP_EVENT_ 0x1
#define DRM_MODE_TYPE_PREFERRED_ (1 << 3)
#define DRM_EVENT_VBLANK_ 0x01
#define DRM_EVENT_FLIP_COMPLETE_ 0x02
#define MAX_MODES 64

static const char *prog = "flips";

/* The first /dev/dri/card* with a CRTC and a connector (and whose driver
 * is want, unless NULL): its fd (its driver's name in driver), or -1. */
static int open_kms(char *path, size_t cap, char *driver, size_t dcap, const char *want)
{
	DIR *d = opendir("/dev/dri");
	struct dirent *de;
	int fd = -1;

	while (d && fd < 0 && (de = readdir(d))) {
		struct drm_version_ v = { .name_len = dcap - 1, .name = driver };
		struct drm_mode_card_res_ res = { 0 };

		if (strncmp(de->d_name, "card", 4))
			continue;
		snprintf(path, cap, "/dev/dri/%s", de->d_name);
		memset(driver, 0, dcap);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && (ioctl(fd, DRM_IOCTL_VERSION_, &v) ||
				ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES_, &res) || !res.count_crtcs ||
				!res.count_connectors || (want && strcmp(driver, want)))) {
			close(fd);
			fd = -1;
		}
	}
	if (d)
		closedir(d);
	return fd;
}

static void xioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg))
		wl_die(prog, "%s: %s", what, strerror(errno));
}

/* One event of TYPE read back (the read blocks until the kernel sends it). */
static void read_event(int fd, uint32_t type)
{
	struct drm_event_vblank_ ev;
	ssize_t got = read(fd, &ev, sizeof(ev));

	if (got != (ssize_t)sizeof(ev) || ev.type != type)
		wl_die(prog, "read event: got %zd bytes, type %u, expected type %u", got,
		       got >= 8 ? ev.type : 0, type);
}

/* The id of object obj's property called name (its value in *value), or
 * 0 when it has none. */
static uint32_t prop_of(int fd, uint32_t obj, uint32_t type, const char *name, uint64_t *value)
{
	uint32_t ids[MAX_PROPS];
	uint64_t vals[MAX_PROPS];
	struct drm_mode_obj_get_properties_ op = { .obj_id = obj, .obj_type = type };

	xioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES_, &op, "DRM_IOCTL_MODE_OBJ_GETPROPERTIES");
	op.count_props = op.count_props < MAX_PROPS ? op.count_props : MAX_PROPS;
	op.props_ptr = (uintptr_t)ids;
	op.prop_values_ptr = (uintptr_t)vals;
	xioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES_, &op, "DRM_IOCTL_MODE_OBJ_GETPROPERTIES");
	for (uint32_t i = 0; i < op.count_props && i < MAX_PROPS; i++) {
		struct drm_mode_get_property_ gp = { .prop_id = ids[i] };
		xioctl(fd, DRM_IOCTL_MODE_GETPROPERTY_, &gp, "DRM_IOCTL_MODE_GETPROPERTY");
		if (!strncmp(gp.name, name, sizeof(gp.name))) {
			if (value)
				*value = vals[i];
			return ids[i];
		}
	}
	return 0;
}

/* The plane of type (DRM_PLANE_TYPE_*) that CRTC index 0 can show, or 0. */
static uint32_t plane_of_type(int fd, uint64_t want)
{
	uint32_t planes[16];
	struct drm_mode_get_plane_res_ pr = { 0 };

	xioctl(fd, DRM_IOCTL_MODE_GETPLANERESOURCES_, &pr, "DRM_IOCTL_MODE_GETPLANERESOURCES");
	pr.count_planes = pr.count_planes < 16 ? pr.count_planes : 16;
	pr.plane_id_ptr = (uintptr_t)planes;
	xioctl(fd, DRM_IOCTL_MODE_GETPLANERESOURCES_, &pr, "DRM_IOCTL_MODE_GETPLANERESOURCES");
	for (uint32_t i = 0; i < pr.count_planes && i < 16; i++) {
		struct drm_mode_get_plane_ gp = { .plane_id = planes[i] };
		uint64_t type = 0;
		xioctl(fd, DRM_IOCTL_MODE_GETPLANE_, &gp, "DRM_IOCTL_MODE_GETPLANE");
		if ((gp.possible_crtcs & 1) &&
		    prop_of(fd, planes[i], DRM_MODE_OBJECT_PLANE_, "type", &type) &&
		    type == want)
			return planes[i];
	}
	return 0;
}

/* n atomic commits on crtc, alternating fbs on the primary plane, each
 * with an out-fence waited for and its event read: the fences seen. */
static int atomic_commits(int fd, uint32_t crtc, const uint32_t *fbs, int n)
{
	uint32_t plane = plane_of_type(fd, DRM_PLANE_TYPE_PRIMARY_), fb_prop, fence_prop;
	int fences = 0;

	if (!plane)
		wl_die(prog, "no primary plane for CRTC %u", crtc);
	fb_prop = prop_of(fd, plane, DRM_MODE_OBJECT_PLANE_, "FB_ID", NULL);
	fence_prop = prop_of(fd, crtc, DRM_MODE_OBJECT_CRTC_, "OUT_FENCE_PTR", NULL);
	if (!fb_prop || !fence_prop)
		wl_die(prog, "no FB_ID (%u) or OUT_FENCE_PTR (%u) property", fb_prop, fence_prop);
	for (int k = 0; k < n; k++) {
		int32_t fence = -1;
		uint32_t objs[2] = { plane, crtc }, counts[2] = { 1, 1 };
		uint32_t props[2] = { fb_prop, fence_prop };
		uint64_t vals[2] = { fbs[(k + 1) % 2], (uintptr_t)&fence };
		struct drm_mode_atomic_ a = {
			.flags = DRM_MODE_ATOMIC_NONBLOCK_ | DRM_MODE_PAGE_FLIP_EVENT_,
			.count_objs = 2, .objs_ptr = (uintptr_t)objs,
			.count_props_ptr = (uintptr_t)counts, .props_ptr = (uintptr_t)props,
			.prop_values_ptr = (uintptr_t)vals, .user_data = (uint64_t)k,
		};
		xioctl(fd, DRM_IOCTL_MODE_ATOMIC_, &a, "DRM_IOCTL_MODE_ATOMIC");
		if (fence >= 0) {
			struct pollfd pfd = { .fd = fence, .events = POLLIN };
			while (poll(&pfd, 1, -1) < 0)
				if (errno != EINTR)
					wl_die(prog, "poll on the out-fence: %s", strerror(errno));
			fences += !!(pfd.revents & POLLIN);
			close(fence);
		}
		read_event(fd, DRM_EVENT_FLIP_COMPLETE_);
	}
	return fences;
}

/* The atomic properties of the cursor plane the commits set, in order. */
static const char *const cursor_props[] = { "FB_ID", "CRTC_ID", "CRTC_X", "CRTC_Y", "CRTC_W",
					    "CRTC_H", "SRC_X", "SRC_Y", "SRC_W", "SRC_H" };
#define NPROPS (sizeof(cursor_props) / sizeof(cursor_props[0]))

/* Two 64x64 dumb buffers for cursor images: their handles, and with fbs
 * their framebuffers (ARGB8888). */
static void cursor_buffers(int fd, uint32_t *handles, uint32_t *fbs)
{
	for (int k = 0; k < 2; k++) {
		struct drm_mode_create_dumb_ c = { .height = 64, .width = 64, .bpp = 32 };
		xioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB_, &c, "DRM_IOCTL_MODE_CREATE_DUMB");
		handles[k] = c.handle;
		if (!fbs)
			continue;
		struct drm_mode_fb_cmd_ f = {
			.width = 64, .height = 64, .pitch = c.pitch, .bpp = 32, .depth = 32,
			.handle = c.handle,
		};
		xioctl(fd, DRM_IOCTL_MODE_ADDFB_, &f, "DRM_IOCTL_MODE_ADDFB");
		fbs[k] = f.fb_id;
	}
}

/* n cursor images on crtc, alternating two buffers: by the legacy cursor
 * ioctl, or (atomic) by nonblocking atomic commits of the cursor plane
 * alone, each commit's event read back before the next. */
static void cursors(int fd, uint32_t crtc, int n, bool atomic)
{
	uint32_t handles[2], fbs[2], ids[NPROPS], plane;

	if (!atomic) {
		cursor_buffers(fd, handles, NULL);
		for (int k = 0; k < n; k++) {
			struct drm_mode_cursor_ c = {
				.flags = DRM_MODE_CURSOR_BO_, .crtc_id = crtc, .width = 64,
				.height = 64, .handle = handles[k % 2],
			};
			xioctl(fd, DRM_IOCTL_MODE_CURSOR_, &c, "DRM_IOCTL_MODE_CURSOR");
		}
		return;
	}
	plane = plane_of_type(fd, DRM_PLANE_TYPE_CURSOR_);
	if (!plane)
		wl_die(prog, "no cursor plane");
	for (size_t k = 0; k < NPROPS; k++)
		if (!(ids[k] = prop_of(fd, plane, DRM_MODE_OBJECT_PLANE_, cursor_props[k], NULL)))
			wl_die(prog, "the cursor plane has no property %s", cursor_props[k]);
	cursor_buffers(fd, handles, fbs);
	for (int k = 0; k < n; k++) {
		uint64_t values[NPROPS] = { fbs[k % 2], crtc, 0, 0, 64, 64, 0, 0, 64 << 16, 64 << 16 };
		uint32_t count = NPROPS;
		struct drm_mode_atomic_ a = {
			.flags = DRM_MODE_ATOMIC_NONBLOCK_ | DRM_MODE_PAGE_FLIP_EVENT_, .count_objs = 1,
			.objs_ptr = (uintptr_t)&plane, .count_props_ptr = (uintptr_t)&count,
			.props_ptr = (uintptr_t)ids, .prop_values_ptr = (uintptr_t)values,
		};
		xioctl(fd, DRM_IOCTL_MODE_ATOMIC_, &a, "DRM_IOCTL_MODE_ATOMIC");
		read_event(fd, DRM_EVENT_FLIP_COMPLETE_);
	}
}

int main(int argc, char **argv)
{
	static struct drm_mode_modeinfo_ modes[MAX_MODES];
	uint32_t crtcs[8], conns[8], fbs[2];
	char card[300], driver[32];
	int n, fd, waits = 0, a = 1;
	bool atomic = false, cursor = false;
	const char *want = NULL;

	for (; a < argc - 1; a++) {
		if (!strcmp(argv[a], "--driver") && a + 2 < argc)
			want = argv[++a];
		else if (!strcmp(argv[a], "--atomic"))
			atomic = true;
		else if (!strcmp(argv[a], "--cursor"))
			cursor = true;
		else if (!strcmp(argv[a], "--atomic-cursor"))
			cursor = atomic = true;
		else
			break;
	}
	if (a != argc - 1 || (n = atoi(argv[a])) <= 0)
		wl_die(prog, "usage: flips [--driver NAME] [--atomic | --cursor | --atomic-cursor] N");
	fd = open_kms(card, sizeof(card), driver, sizeof(driver), want);
	if (fd < 0) {
		fprintf(stderr, "%s: no KMS card in /dev/dri (a display's driver: bochs, vkms)\n",
			prog);
		return 77;
	}
	struct drm_mode_card_res_ res = { 0 };
	xioctl(fd, DRM_IOCTL_MODE_GETRESOURCES_, &res, "DRM_IOCTL_MODE_GETRESOURCES");
	if (!res.count_crtcs || !res.count_connectors || res.count_crtcs > 8 ||
	    res.count_connectors > 8)
		wl_die(prog, "%u CRTCs, %u connectors", res.count_crtcs, res.count_connectors);
	res = (struct drm_mode_card_res_){
		.crtc_id_ptr = (uintptr_t)crtcs, .connector_id_ptr = (uintptr_t)conns,
		.count_crtcs = res.count_crtcs, .count_connectors = res.count_connectors,
	};
	xioctl(fd, DRM_IOCTL_MODE_GETRESOURCES_, &res, "DRM_IOCTL_MODE_GETRESOURCES");
	struct drm_mode_get_connector_ con = { .connector_id = conns[0] };
	xioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR_, &con, "DRM_IOCTL_MODE_GETCONNECTOR");
	if (!con.count_modes)
		wl_die(prog, "connector %u has no modes", conns[0]);
	con = (struct drm_mode_get_connector_){
		.connector_id = conns[0], .modes_ptr = (uintptr_t)modes,
		.count_modes = con.count_modes < MAX_MODES ? con.count_modes : MAX_MODES,
	};
	xioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR_, &con, "DRM_IOCTL_MODE_GETCONNECTOR");
	unsigned m = 0;
	for (unsigned k = 0; k < con.count_modes && k < MAX_MODES; k++)
		if (modes[k].type & DRM_MODE_TYPE_PREFERRED_) {
			m = k;
			break;
		}
	for (int k = 0; k < 2; k++) {
		struct drm_mode_create_dumb_ c = {
			.height = modes[m].vdisplay, .width = modes[m].hdisplay, .bpp = 32,
		};
		xioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB_, &c, "DRM_IOCTL_MODE_CREATE_DUMB");
		struct drm_mode_fb_cmd_ f = {
			.width = c.width, .height = c.height, .pitch = c.pitch, .bpp = 32,
			.depth = 24, .handle = c.handle,
		};
		xioctl(fd, DRM_IOCTL_MODE_ADDFB_, &f, "DRM_IOCTL_MODE_ADDFB");
		fbs[k] = f.fb_id;
	}
	struct drm_mode_crtc_ set = {
		.set_connectors_ptr = (uintptr_t)conns, .count_connectors = 1,
		.crtc_id = crtcs[0], .fb_id = fbs[0], .mode_valid = 1, .mode = modes[m],
	};
	xioctl(fd, DRM_IOCTL_MODE_SETCRTC_, &set, "DRM_IOCTL_MODE_SETCRTC");
	if (atomic) {
		struct drm_set_client_cap_ up = { DRM_CLIENT_CAP_UNIVERSAL_PLANES_, 1 };
		struct drm_set_client_cap_ at = { DRM_CLIENT_CAP_ATOMIC_, 1 };
		if (ioctl(fd, DRM_IOCTL_SET_CLIENT_CAP_, &up) ||
		    ioctl(fd, DRM_IOCTL_SET_CLIENT_CAP_, &at)) {
			fprintf(stderr, "%s: %s is not an atomic driver: %s\n", prog, driver,
				strerror(errno));
			return 77;
		}
	}
	if (cursor) {
		cursors(fd, crtcs[0], n, atomic);
		printf("{\"workload\":\"flips\",\"pid\":%d,\"tid\":%d,\"card\":\"%s\","
		       "\"driver\":\"%s\",\"crtc\":0,\"waits\":0,\"flips\":0,\"cursors\":%d,"
		       "\"atomic\":%d}\n",
		       (int)getpid(), (int)wl_gettid(), card, driver, n, atomic);
		close(fd);
		return 0;
	}
	if (atomic) {
		int fences = atomic_commits(fd, crtcs[0], fbs, n);
		printf("{\"workload\":\"atomic\",\"pid\":%d,\"tid\":%d,\"card\":\"%s\","
		       "\"driver\":\"%s\",\"crtc\":0,\"commits\":%d,\"fences\":%d}\n",
		       (int)getpid(), (int)wl_gettid(), card, driver, n, fences);
		close(fd);
		return 0;
	}
	/* vblanks: a relative wait of 0 without an event fails where the
	 * driver has none */
	union drm_wait_vblank_ q = { .request = { .type = DRM_VBLANK_RELATIVE_ } };
	bool vblanks = !ioctl(fd, DRM_IOCTL_WAIT_VBLANK_, &q);
	for (int k = 0; k < n; k++) {
		union drm_wait_vblank_ w = { .request = {
			.type = DRM_VBLANK_RELATIVE_ | DRM_VBLANK_EVENT_, .sequence = 1,
		} };
		if (vblanks) {
			xioctl(fd, DRM_IOCTL_WAIT_VBLANK_, &w, "DRM_IOCTL_WAIT_VBLANK");
			read_event(fd, DRM_EVENT_VBLANK_);
			waits++;
		}
		struct drm_mode_crtc_page_flip_ p = {
			.crtc_id = crtcs[0], .fb_id = fbs[(k + 1) % 2],
			.flags = DRM_MODE_PAGE_FLIP_EVENT_,
		};
		xioctl(fd, DRM_IOCTL_MODE_PAGE_FLIP_, &p, "DRM_IOCTL_MODE_PAGE_FLIP");
		read_event(fd, DRM_EVENT_FLIP_COMPLETE_);
	}
	printf("{\"workload\":\"flips\",\"pid\":%d,\"tid\":%d,\"card\":\"%s\",\"driver\":\"%s\","
	       "\"crtc\":0,\"waits\":%d,\"flips\":%d}\n",
	       (int)getpid(), (int)wl_gettid(), card, driver, waits, n);
	close(fd);
	return 0;
}
