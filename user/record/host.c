// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "host.h"

/* Who -- COMMAND runs as: -u USER, else under sudo the invoking user
 * (Steam and Proton refuse to run as root), else as we are. */
int katra_resolve_run_as(const struct katra_record_opts *o, struct katra_run_as *as)
{
	const char *sudo_uid = getenv("SUDO_UID");
	struct passwd *pw = NULL;
	char *end;

	memset(as, 0, sizeof(*as));
	if (geteuid() != 0)
		return 0;
	if (o->user) {
		if (!strcmp(o->user, "root") || !strcmp(o->user, "0"))
			return 0;
		pw = getpwnam(o->user);
		if (!pw) {
			unsigned long uid = strtoul(o->user, &end, 10);
			if (!*end)
				pw = getpwuid((uid_t)uid);
		}
		if (!pw) {
			fprintf(stderr, "katra-record: no user '%s'\n", o->user);
			return -EINVAL;
		}
	} else if (sudo_uid && sudo_uid[0]) {
		unsigned long uid = strtoul(sudo_uid, &end, 10);
		if (*end || uid == 0)
			return 0;
		pw = getpwuid((uid_t)uid);
		if (!pw)
			return 0;
	} else {
		return 0;
	}
	as->set = true;
	as->uid = pw->pw_uid;
	as->gid = pw->pw_gid;
	as->ngroups = 64;
	if (getgrouplist(pw->pw_name, pw->pw_gid, as->groups, &as->ngroups) < 0)
		as->ngroups = 0;
	snprintf(as->home, sizeof(as->home), "%s", pw->pw_dir);
	if (!o->quiet)
		fprintf(stderr, "katra-record: running '%s' as %s (uid %u)%s\n", o->command[0],
			pw->pw_name, (unsigned)pw->pw_uid, o->user ? "" : "; -u root keeps root");
	return 0;
}

/* Under sudo the invoking user owns what the capture writes for them (still
 * mode 0600): the open file fd, named path in messages. */
void katra_give_to_sudo_user(int fd, const char *path)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;

	if (geteuid() != 0 || !u || !g || !u[0] || !g[0])
		return;
	unsigned long uid = strtoul(u, &end, 10);
	if (*end)
		return;
	unsigned long gid = strtoul(g, &end, 10);
	if (*end)
		return;
	if (fchown(fd, (uid_t)uid, (gid_t)gid))
		fprintf(stderr, "katra-record: cannot give '%s' to uid %lu: %s\n", path, uid,
			strerror(errno));
}

/* The recorder's peak RSS, and what of it the BPF rings' mappings hold now:
 * peak - rings is its own memory.
 * Kernels before 6.2 fold a thread's RSS counts into VmHWM only every 64
 * faults, so a short capture's VmHWM can be below what its mappings hold
 * now; the peak is at least the RSS that smaps counts at the end. */
void katra_memory_use(uint64_t *peak_kib, uint64_t *ring_kib)
{
	char line[512];
	bool in_map = false;
	uint64_t rss_now = 0;
	FILE *f;

	*peak_kib = *ring_kib = 0;
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "VmHWM: %" SCNu64, peak_kib) == 1)
				break;
		fclose(f);
	}
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		uint64_t kib;
		unsigned long lo, hi;
		/* a mapping's header line names it: "lo-hi perms off dev inode name" */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in_map = strstr(line, "anon_inode:bpf") != NULL;
		else if (sscanf(line, "Rss: %" SCNu64 " kB", &kib) == 1) {
			rss_now += kib;
			if (in_map)
				*ring_kib += kib;
		}
	}
	fclose(f);
	if (rss_now > *peak_kib)
		*peak_kib = rss_now;
}

uint64_t katra_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}
