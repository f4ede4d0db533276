// SPDX-License-Identifier: GPL-2.0-only
/* The words the report's three renderers share: reason, hop, resource and
 * thread descriptions, and the timeline's categories and colours. */
#include <inttypes.h>
#include <stdio.h>

#include "replay/names/procnames.h"
#include "replay/names/resnames.h"
#include "report.h"

const char *kr_off_class_name(unsigned cls)
{
	static const char *const n[KR_OFF_CLASS_COUNT] = {
		"preempted", "syscall", "page-fault", "no-span", "before-capture", "new-thread",
	};

	return cls < KR_OFF_CLASS_COUNT ? n[cls] : "unknown";
}

const char *kr_hop_type_name(unsigned type)
{
	static const char *const n[KR_HOP_TYPE_COUNT] = {
		"running", "woken", "blocked", "io_uring", "thread-start", "message",
	};

	return type < KR_HOP_TYPE_COUNT ? n[type] : "unknown";
}

void kr_thread_text(FILE *f, const struct kr_report *rp, uint64_t tid, uint64_t pid)
{
	kr_put_thread(f, kr_report_names(rp), tid, pid ? pid : kr_report_pid_of(rp, tid));
}

/* The resource as every command spells it (names/resnames.h); a file's
 * path beside it, a futex's process after it. */
void kr_resource_text(FILE *f, const struct kr_report *rp, unsigned domain, uint64_t id,
		      uint64_t pid)
{
	const char *path = domain == KATRA_RES_FILE ? kr_report_file_path(rp, id) : NULL;

	kr_res_put(f, domain, id);
	if (path)
		fprintf(f, " (%s)", path);
	if (domain == KATRA_RES_FUTEX)
		fprintf(f, "@%" PRIu64, pid);
}

static void waker_text(FILE *f, const struct kr_report *rp, uint64_t waker)
{
	char comm[16];

	if (kr_waker_is_proc(waker)) {
		uint64_t pid = waker & ~KR_WAKER_PROC;
		const char *name = kr_report_outside_comm(rp, pid, comm);

		fprintf(f, ", woken by %s%s(pid %" PRIu64 ")", name, *name ? " " : "", pid);
	} else if (waker == KR_WAKER_IRQ)
		fputs(", woken by an interrupt", f);
	else if (waker == KR_WAKER_OUTSIDE)
		fputs(", woken from outside the traced processes (an interrupt, a kernel thread or "
		      "another process)", f);
	else if (waker == KR_WAKER_UNSEEN)
		fputs(", woken by a wakeup no probe saw", f);
	else if (waker == KR_WAKER_PENDING)
		fputs(", still off the CPU at the window's end", f);
	else if (waker != KR_WAKER_NONE) {
		fputs(", woken by ", f);
		kr_thread_text(f, rp, waker, 0);
	}
}

void kr_reason_text(FILE *f, const struct kr_report *rp, const struct kr_reason *r)
{
	const char *k = r->kind != KR_KIND_NONE ? katra_kind_name(r->kind) : NULL;

	switch (r->cls) {
	case KR_OFF_PREEMPTED:
		fputs("preempted (runnable, waiting for a CPU)", f);
		return;
	case KR_OFF_SYSCALL: {
		char nb[160];
		const char *nt = r->nt ? kr_report_ucall(rp, r->nt, nb, sizeof(nb)) : NULL;
		bool nt_span = r->kind == KATRA_KIND_NT_SYSCALL ||
			       (r->kind >= KATRA_KIND_NT_READ_FILE &&
				r->kind <= KATRA_KIND_NT_CREATE_USER_PROCESS);

		/* a Wine thread: the NT call it waited in, the Linux syscall beneath */
		if (nt && nt_span) {
			fprintf(f, "blocked in %s", nt);
		} else if (nt) {
			fprintf(f, "blocked in %s (Linux %s", nt, k ? k : "syscall");
		} else {
			fprintf(f, "blocked in %s", k ? k : "a syscall");
		}
		if (r->res_domain != KATRA_RES_NONE) {
			fputs(" on ", f);
			kr_resource_text(f, rp, r->res_domain, r->res_id, r->res_pid);
		}
		if (nt && !nt_span)
			fputc(')', f);
		break;
	}
	case KR_OFF_FAULT:
		fputs("blocked in a page fault", f);
		break;
	case KR_OFF_OTHER:
		fputs("blocked outside any traced syscall", f);
		break;
	case KR_OFF_BEFORE:
		fputs("off the CPU since before the capture", f);
		break;
	case KR_OFF_NEW:
		fputs("new thread, waiting for its first run", f);
		break;
	}
	waker_text(f, rp, r->waker);
}

void kr_hop_text(FILE *f, const struct kr_report *rp, const struct kr_hop *h)
{
	switch (h->type) {
	case KR_HOP_RUN:
		fputs("running", f);
		break;
	case KR_HOP_WAKE:
		fputs("woken by ", f);
		kr_thread_text(f, rp, h->other_tid, 0);
		fputs(", waiting for a CPU", f);
		break;
	case KR_HOP_BLOCKED: {
		struct kr_reason r = { 0 };

		r.cls = h->cls;
		r.kind = h->kind;
		r.res_domain = h->res_domain;
		r.res_id = h->res_id;
		r.res_pid = h->res_pid;
		r.waker = kr_waker_outside(h->other_tid) || h->other_tid == KR_WAKER_UNSEEN ?
			  h->other_tid : KR_WAKER_NONE;
		r.nt = kr_ucall_is_nt(rp, h->ucall) && h->cls == KR_OFF_SYSCALL ? h->ucall : 0;
		kr_reason_text(f, rp, &r);
		if (h->other_tid == KR_WAKER_NONE)
			fputs(" (no wakeup recorded)", f);
		break;
	}
	case KR_HOP_URING:
		fprintf(f, "io_uring request %" PRIu64 " in flight, completed on ", h->res_id);
		kr_thread_text(f, rp, h->other_tid, 0);
		break;
	case KR_HOP_MESSAGE:
		fputs("wrote what ", f);
		kr_thread_text(f, rp, h->other_tid, 0);
		fputs(" read", f);
		break;
	case KR_HOP_START:
		fputs("new thread, created by ", f);
		kr_thread_text(f, rp, h->other_tid, 0);
		fputs(", until its first run", f);
		break;
	}
	char buf[160];
	const char *in = kr_report_ucall(rp, h->ucall, buf, sizeof(buf));
	/* a blocked hop names its NT call first (above) */
	if (in && !(h->type == KR_HOP_BLOCKED && h->cls == KR_OFF_SYSCALL &&
		    kr_ucall_is_nt(rp, h->ucall)))
		fprintf(f, ", in %s", in);
}

const char *kr_tl_cat_name(unsigned cat)
{
	static const char *const n[KR_TL_CAT_COUNT] = {
		"running", "file syscall", "waiting syscall", "other syscall", "page fault",
		"off-CPU: blocked on I/O", "off-CPU: blocked, waiting", "off-CPU: preempted",
	};

	return cat < KR_TL_CAT_COUNT ? n[cat] : "";
}

const char *kr_tl_cat_color(unsigned cat)
{
	static const char *const c[KR_TL_CAT_COUNT] = {
		"#2e8b57", "#4682b4", "#9370db", "#8fbc8f", "#d2691e",
		"#e9967a", "#d3d3d3", "#f0c040",
	};

	return cat < KR_TL_CAT_COUNT ? c[cat] : "#ffffff";
}
