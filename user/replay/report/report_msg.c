// SPDX-License-Identifier: GPL-2.0-only
/* Data one thread wrote and another read, as katra-record links them (a
 * read's End citing the write's Begin: a Wine client's request read by the
 * wineserver, the server's reply or wake-up read by the client; SPEC
 * section 10): the critical path follows the data back to its writer, so a
 * wait released through the wineserver leads to the call that released it,
 * not to whoever last woke the server.
 *
 * Writes (FileWrite, SocketSend Begins) go into a small direct-mapped cache
 * by seq (a read follows its write closely: an older write fallen out of
 * it is a link the path does not take); a read's End (FileRead, SocketRecv)
 * that cites a cached write of another thread becomes a MESSAGE node. */
#include <stdlib.h>

#include "report_int.h"

#define KR_MSG_CACHE 4096 /* a power of two */
#define KR_MSG_SEQ_BITS 40

struct kr_msg_slot {
	uint64_t seq, ts;
	uint32_t thread;
	uint16_t ucall; /* the unix call the writer was in */
	bool used;
};

static void remember_write(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	if (!rp->msgs && !(rp->msgs = calloc(KR_MSG_CACHE, sizeof(*rp->msgs))))
		return; /* no memory: no message hops, nothing else lost */
	struct kr_msg_slot *m = &rp->msgs[e->seq & (KR_MSG_CACHE - 1)];
	*m = (struct kr_msg_slot){ e->seq, e->ts_mono_ns, t, rp->threads[t].ucall, true };
}

static void read_of_write(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	for (uint64_t i = 1; i < e->causes.len; i++) {
		uint64_t c = e->causes.items[i];
		const struct kr_msg_slot *m = &rp->msgs[c & (KR_MSG_CACHE - 1)];

		if (!m->used || m->seq != c || m->thread == t || c >> KR_MSG_SEQ_BITS ||
		    m->ts > e->ts_mono_ns)
			continue;
		struct kr_node n = { 0 };
		n.seq = e->seq;
		n.ts = e->ts_mono_ns;
		n.begin_ns = m->ts;
		n.link = KR_NO_NODE;
		n.res_id = (uint64_t)m->thread << KR_MSG_SEQ_BITS | c;
		n.thread = t;
		n.type = KR_NODE_MESSAGE;
		n.kind = m->ucall; /* a MESSAGE's kind: the writer's unix call */
		kr_index_add(&rp->index, &rp->threads[t], &n);
		return;
	}
}

void kr_msg_event(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	if (e->phase == KATRA_PHASE_BEGIN &&
	    (e->kind == KATRA_KIND_FILE_WRITE || e->kind == KATRA_KIND_SOCKET_SEND))
		remember_write(rp, t, e);
	else if (e->phase == KATRA_PHASE_END && e->causes.len > 1 && rp->msgs &&
		 (e->kind == KATRA_KIND_FILE_READ || e->kind == KATRA_KIND_SOCKET_RECV))
		read_of_write(rp, t, e);
}
