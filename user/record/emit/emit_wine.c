// SPDX-License-Identifier: GPL-2.0-only
/* Calls probed in user space (struct katra_ev_ucall, wire.h): the NT calls of
 * Windows programs under Wine (WindowsFacing), wine_server_call and the
 * Win->Unix call dispatcher (WineProton), the Vulkan driver's entry points
 * (Vulkan), the D3D12 methods of vkd3d (D3d12Vkd3d).  Each call is a Begin at its ENTER and an End at its EXIT sharing
 * a span_id (the End cites the Begin); one open call per thread and layer,
 * except NT calls a user callback made inside a win32u call (KATRA_UC_LEVEL:
 * the enclosing ones set aside in nt_outer, open again when it ends).
 * A Begin cites the innermost call of another layer open on its thread (a
 * server call inside an NtReadFile), and so does a syscall's Begin
 * (emit_syscall.c): that is how a reader walks from a Windows call down to
 * the Linux work that served it.  Payloads and resources: SPEC section 10. */
#include <errno.h>
#include <string.h>

#include "emit_int.h"

#define STATUS_PENDING 0x103u
#define VK_SUBOPTIMAL_KHR 1000001003 /* vulkan_core.h: an acquire that still wrote its index */
#define WIN_EPOCH_100NS 116444736000000000ull /* 1601-01-01 to 1970-01-01 */

struct ucall_desc {
	uint32_t kind, scope;
};

static const struct ucall_desc descs[KATRA_UC_COUNT] = {
	[KATRA_UC_NT_READ_FILE] = { KATRA_KIND_NT_READ_FILE, KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_WRITE_FILE] = { KATRA_KIND_NT_WRITE_FILE, KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_CREATE_FILE] = { KATRA_KIND_NT_CREATE_FILE, KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_WAIT_SINGLE] = { KATRA_KIND_NT_WAIT, KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_WAIT_MULTIPLE] = { KATRA_KIND_NT_WAIT, KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_DELAY_EXECUTION] = { KATRA_KIND_NT_DELAY_EXECUTION,
					  KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_MAP_VIEW_OF_SECTION] = { KATRA_KIND_NT_MAP_VIEW_OF_SECTION,
					      KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_ALLOCATE_VIRTUAL_MEMORY] = { KATRA_KIND_NT_ALLOCATE_VIRTUAL_MEMORY,
						  KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_NT_CREATE_USER_PROCESS] = { KATRA_KIND_NT_CREATE_USER_PROCESS,
					      KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_WINE_SERVER_CALL] = { KATRA_KIND_WINE_SERVER_CALL, KATRA_SCOPE_WINE_PROTON },
	[KATRA_UC_WINE_UNIX_CALL] = { KATRA_KIND_WIN_TO_UNIX, KATRA_SCOPE_WINE_PROTON },
	[KATRA_UC_VK_QUEUE_SUBMIT] = { KATRA_KIND_VULKAN_QUEUE_SUBMIT, KATRA_SCOPE_VULKAN },
	[KATRA_UC_VK_QUEUE_SUBMIT2] = { KATRA_KIND_VULKAN_QUEUE_SUBMIT, KATRA_SCOPE_VULKAN },
	[KATRA_UC_VK_QUEUE_PRESENT] = { KATRA_KIND_VULKAN_QUEUE_PRESENT, KATRA_SCOPE_VULKAN },
	[KATRA_UC_VK_WAIT_FOR_FENCES] = { KATRA_KIND_VULKAN_FENCE_WAIT, KATRA_SCOPE_VULKAN },
	[KATRA_UC_VK_WAIT_SEMAPHORES] = { KATRA_KIND_VULKAN_SEMAPHORE_WAIT, KATRA_SCOPE_VULKAN },
	[KATRA_UC_VK_ACQUIRE_NEXT_IMAGE] = { KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE, KATRA_SCOPE_VULKAN },
	[KATRA_UC_NT_SYSCALL] = { KATRA_KIND_NT_SYSCALL, KATRA_SCOPE_WINDOWS_FACING },
	[KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS] = { KATRA_KIND_D3D12_EXECUTE_COMMAND_LISTS,
						   KATRA_SCOPE_D3D12_VKD3D },
	[KATRA_UC_D3D12_QUEUE_SIGNAL] = { KATRA_KIND_D3D12_QUEUE_SIGNAL, KATRA_SCOPE_D3D12_VKD3D },
	[KATRA_UC_D3D12_QUEUE_WAIT] = { KATRA_KIND_D3D12_QUEUE_WAIT, KATRA_SCOPE_D3D12_VKD3D },
	[KATRA_UC_D3D12_FENCE_SET_EVENT] = { KATRA_KIND_D3D12_FENCE_SET_EVENT,
					     KATRA_SCOPE_D3D12_VKD3D },
	[KATRA_UC_D3D12_FENCE_SIGNAL] = { KATRA_KIND_D3D12_FENCE_SIGNAL, KATRA_SCOPE_D3D12_VKD3D },
};

/* A Windows timeout (LARGE_INTEGER, 100 ns units: < 0 relative, >= 0 an
 * absolute system time since 1601) as ns from the call; absolute ones
 * against the event's wall time. */
static uint64_t win_timeout_ns(const struct emitter *e, uint64_t key, int64_t t)
{
	if (t < 0)
		return (uint64_t)(-(t + 1)) * 100 + 100;
	if ((uint64_t)t <= WIN_EPOCH_100NS)
		return 0;
	uint64_t abs_ns = ((uint64_t)t - WIN_EPOCH_100NS) * 100;
	uint64_t wall = e->start_wall + emit_rel(e, key);
	return abs_ns > wall ? abs_ns - wall : 0;
}

/* Read/write offsets: the special values (FILE_USE_FILE_POINTER_POSITION,
 * FILE_WRITE_TO_END_OF_FILE) are negative: no offset. */
static struct katra_opt_u64 nt_offset(const struct katra_ev_ucall *u)
{
	if (!(u->flags & KATRA_UC_A2_VALID) || (int64_t)u->a[2] < 0)
		return (struct katra_opt_u64){ false, 0 };
	return emit_some(u->a[2]);
}

static void ucall_payload(const struct emitter *e, const struct katra_ev_ucall *u, uint64_t key,
			  bool end, struct katra_event *ev)
{
	struct katra_payload *p = &ev->payload;
	struct katra_opt_u32 status = { end, (uint32_t)u->ret };

	switch ((enum katra_ucall)u->call) {
	case KATRA_UC_NT_READ_FILE:
	case KATRA_UC_NT_WRITE_FILE:
	case KATRA_UC_NT_MAP_VIEW_OF_SECTION:
		p->type = KATRA_PAYLOAD_NT_CALL;
		p->u.nt_call.handle = u->a[0];
		/* End: the bytes done (nothing yet while pending) / the view's size */
		p->u.nt_call.length = end && u->call != KATRA_UC_NT_MAP_VIEW_OF_SECTION &&
					      (uint32_t)u->ret == STATUS_PENDING ? 0 : u->a[1];
		p->u.nt_call.offset = nt_offset(u);
		p->u.nt_call.status = status;
		ev->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, u->a[0] };
		break;
	case KATRA_UC_NT_CREATE_FILE:
		p->type = KATRA_PAYLOAD_NT_CALL;
		/* Begin: the access asked for; End: the new handle */
		p->u.nt_call.handle = end && !u->ret ? u->a[0] : 0;
		p->u.nt_call.length = end ? 0 : u->a[1];
		p->u.nt_call.status = status;
		if (end && !u->ret)
			ev->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, u->a[0] };
		break;
	case KATRA_UC_NT_WAIT_SINGLE:
	case KATRA_UC_NT_WAIT_MULTIPLE:
	case KATRA_UC_NT_DELAY_EXECUTION: {
		bool delay = u->call == KATRA_UC_NT_DELAY_EXECUTION;
		if (!delay && u->a[1])
			ev->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, u->a[0] };
		if (end) {
			/* the status says which object signalled (STATUS_WAIT_0 + i),
			 * or STATUS_TIMEOUT, STATUS_USER_APC, ... */
			p->type = KATRA_PAYLOAD_NT_CALL;
			p->u.nt_call.handle = delay ? 0 : u->a[0];
			p->u.nt_call.length = delay ? 0 : u->a[1];
			p->u.nt_call.status = status;
			break;
		}
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = delay ? -1 : (int64_t)u->a[0];
		p->u.wait.count = delay ? 0 : (uint32_t)u->a[1];
		if (u->flags & KATRA_UC_A2_VALID)
			p->u.wait.timeout_ns = emit_some(win_timeout_ns(e, key, (int64_t)u->a[2]));
		break;
	}
	case KATRA_UC_NT_ALLOCATE_VIRTUAL_MEMORY:
		p->type = KATRA_PAYLOAD_NT_CALL;
		p->u.nt_call.handle = u->a[0];
		p->u.nt_call.length = u->a[1];
		p->u.nt_call.status = status;
		if (u->a[2] && (!end || !u->ret))
			ev->resource = (struct katra_resource){ KATRA_RES_MEMORY, u->a[2] };
		break;
	case KATRA_UC_NT_CREATE_USER_PROCESS:
		p->type = KATRA_PAYLOAD_NT_CALL;
		p->u.nt_call.handle = end && !u->ret ? u->a[0] : 0;
		p->u.nt_call.status = status;
		if (end && !u->ret)
			ev->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, u->a[0] };
		break;
	case KATRA_UC_WINE_SERVER_CALL:
		p->type = KATRA_PAYLOAD_WINE_SERVER_CALL;
		p->u.wine_server_call.request = (uint32_t)u->a[0];
		p->u.wine_server_call.status = status;
		break;
	case KATRA_UC_WINE_UNIX_CALL:
		/* request = the function index in the library's table; the
		 * library is the resource (its unixlib handle) */
		p->type = KATRA_PAYLOAD_WINE_SERVER_CALL;
		p->u.wine_server_call.request = (uint32_t)u->a[1];
		p->u.wine_server_call.status = status;
		ev->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, u->a[0] };
		break;
	case KATRA_UC_VK_QUEUE_SUBMIT:
	case KATRA_UC_VK_QUEUE_SUBMIT2:
	case KATRA_UC_VK_QUEUE_PRESENT:
		p->type = KATRA_PAYLOAD_VULKAN;
		p->u.vulkan.handle = u->a[0];
		p->u.vulkan.count = (uint32_t)u->a[1];
		p->u.vulkan.result = (struct katra_opt_i32){ end, (int32_t)u->ret };
		ev->resource = (struct katra_resource){ KATRA_RES_VULKAN_QUEUE, u->a[0] };
		break;
	case KATRA_UC_VK_WAIT_FOR_FENCES:
	case KATRA_UC_VK_WAIT_SEMAPHORES:
		p->type = KATRA_PAYLOAD_VULKAN;
		p->u.vulkan.handle = u->a[0]; /* the device */
		p->u.vulkan.count = (uint32_t)u->a[1];
		p->u.vulkan.result = (struct katra_opt_i32){ end, (int32_t)u->ret };
		break;
	case KATRA_UC_VK_ACQUIRE_NEXT_IMAGE:
		/* the swapchain; the End's count the image acquired (an index the
		 * call wrote: VK_SUCCESS, VK_SUBOPTIMAL_KHR), else UINT32_MAX */
		p->type = KATRA_PAYLOAD_VULKAN;
		p->u.vulkan.handle = u->a[1];
		p->u.vulkan.count = !end ? 0
				    : (u->flags & KATRA_UC_A1_VALID) &&
						      ((int32_t)u->ret == 0 ||
						       (int32_t)u->ret == VK_SUBOPTIMAL_KHR)
					      ? (uint32_t)u->a[3] : UINT32_MAX;
		p->u.vulkan.result = (struct katra_opt_i32){ end, (int32_t)u->ret };
		break;
	case KATRA_UC_NT_SYSCALL: {
		/* the name on the Begin only: the End names it through its span */
		const char *name = !end && e->nt_name ?
					   e->nt_name(e->wine_tables_ctx, (uint32_t)u->a[3],
						      (uint32_t)u->a[0]) : NULL;
		p->type = KATRA_PAYLOAD_NT_SYSCALL;
		p->u.nt_syscall.number = (uint32_t)u->a[0];
		if (name)
			p->u.nt_syscall.name = (struct katra_opt_str){ true, katra_cstr(name) };
		p->u.nt_syscall.status = status;
		break;
	}
	case KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS:
	case KATRA_UC_D3D12_QUEUE_SIGNAL:
	case KATRA_UC_D3D12_QUEUE_WAIT:
	case KATRA_UC_D3D12_FENCE_SET_EVENT:
	case KATRA_UC_D3D12_FENCE_SIGNAL: {
		bool queue = u->call <= KATRA_UC_D3D12_QUEUE_WAIT;
		p->type = KATRA_PAYLOAD_D3D12;
		p->u.d3d12.object = u->a[0];
		if (u->call == KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS) {
			p->u.d3d12.count = (uint32_t)u->a[1];
		} else {
			/* a queue's Signal / Wait: (fence, value); a fence's: (value) */
			p->u.d3d12.fence = queue ? u->a[1] : u->a[0];
			p->u.d3d12.value = queue ? u->a[2] : u->a[1];
			/* none when it left through a tail jump (KATRA_UC_RET_UNKNOWN) */
			p->u.d3d12.result = (struct katra_opt_i32){
				end && !(u->flags & KATRA_UC_RET_UNKNOWN), (int32_t)u->ret };
		}
		if (u->call == KATRA_UC_D3D12_FENCE_SET_EVENT)
			p->u.d3d12.event = u->a[2];
		ev->resource = (struct katra_resource){ KATRA_RES_D3D12_OBJECT, u->a[0] };
		break;
	}
	case KATRA_UC_COUNT:
		break;
	}
}

uint64_t emit_ucall_cause(const struct thread_state *th)
{
	uint64_t best = UINT64_MAX;

	/* the innermost open call is the one begun last: the largest seq */
	for (unsigned l = 0; l < KATRA_UC_LAYERS; l++)
		if ((th->uc_open & (1u << l)) && (best == UINT64_MAX || th->uc_seq[l] > best))
			best = th->uc_seq[l];
	return best;
}

/* The NT call that encloses the one that ended, open again. */
static void nt_pop(struct thread_state *th)
{
	const struct nt_outer *o;

	if (!th->nt_nouter)
		return;
	o = &th->nt_outer[--th->nt_nouter];
	th->uc_open |= 1u << KATRA_UC_LAYER_NT;
	th->uc_span[KATRA_UC_LAYER_NT] = o->span;
	th->uc_seq[KATRA_UC_LAYER_NT] = o->seq;
	th->uc_call[KATRA_UC_LAYER_NT] = o->call;
	th->nt_level = o->level;
	th->flags &= ~TH_RELEASED;
	if (o->released != UINT64_MAX) {
		th->flags |= TH_RELEASED;
		th->uc_released = o->released;
	}
}

/* The open NT call, set aside while the one a user callback made inside it
 * runs. */
static void nt_push(struct emitter *e, struct thread_state *th)
{
	if (!(th->uc_open & (1u << KATRA_UC_LAYER_NT)))
		return;
	th->uc_open &= ~(1u << KATRA_UC_LAYER_NT);
	if (th->nt_nouter >= KATRA_NT_DEPTH) {
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++; /* its End goes unpaired */
		return;
	}
	/* a release it had (its wait woke before the callback ran) is its own,
	 * not the nested call's */
	th->nt_outer[th->nt_nouter++] = (struct nt_outer){
		th->uc_span[KATRA_UC_LAYER_NT], th->uc_seq[KATRA_UC_LAYER_NT],
		(th->flags & TH_RELEASED) ? th->uc_released : UINT64_MAX,
		th->uc_call[KATRA_UC_LAYER_NT], th->nt_level
	};
}

static int close_layer(struct emitter *e, struct thread_state *th, uint32_t tid, unsigned l,
		       uint64_t key)
{
	struct katra_wire_head h = { .tid = tid, .tgid = th->tgid };
	uint32_t call = th->uc_call[l];
	uint64_t causes[1] = { th->uc_seq[l] };
	struct katra_event ev;

	uint64_t span = th->uc_span[l];

	th->uc_open &= ~(1u << l);
	if (l == KATRA_UC_LAYER_NT)
		nt_pop(th);
	if (call == 0 || call >= KATRA_UC_COUNT)
		return 0;
	emit_base(&ev, &h, descs[call].scope, descs[call].kind, KATRA_PHASE_END);
	ev.span_id = emit_some(span);
	ev.causes = (struct katra_u64_vec){ causes, 1 };
	ev.confidence = KATRA_CONFIDENCE_INFERRED;
	return emit_write(e, &ev, key, th);
}

int emit_ucall_close_all(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key)
{
	int rc = 0;

	/* innermost first: the order they were begun in, reversed */
	while (!rc && th->uc_open) {
		unsigned inner = 0;
		uint64_t best = 0;
		for (unsigned l = 0; l < KATRA_UC_LAYERS; l++)
			if ((th->uc_open & (1u << l)) && th->uc_seq[l] >= best) {
				best = th->uc_seq[l];
				inner = l;
			}
		rc = close_layer(e, th, tid, inner, key);
	}
	return rc;
}

/* Overlapped reads that Wine completes after NtReadFile returned
 * STATUS_PENDING (named pipes: the reply of the get_async_result server
 * call, read(2) straight into the buffer; sockets: the recvmsg(2) of the
 * async callback): the pending call is remembered by (process, buffer), and
 * the first Linux read of that process that lands data there (ret >= 0)
 * names its Begin among its End's causes.  A regular file's read lands
 * inside the call (Wine returns STATUS_PENDING after it): nothing is
 * remembered then. */
static uint64_t async_key(uint32_t tgid, uint64_t buf)
{
	return (buf << 16) ^ tgid;
}

static struct async_read *async_get(struct emitter *e, uint32_t tgid, uint64_t buf,
				    bool write)
{
	struct async_read *a = ktable_get(&e->asyncs, async_key(tgid, buf));

	return a && a->tgid == tgid && a->buf == buf && a->write == write ? a : NULL;
}

static void async_begin(struct emitter *e, struct thread_state *th, const struct katra_ev_ucall *u)
{
	th->uc_buf = (uint64_t)u->ret;
	th->flags &= ~TH_UC_FILLED;
	/* a buffer used again: the older read completed unseen */
	if (th->uc_buf && e->asyncs.count && async_get(e, th->tgid, th->uc_buf, false))
		ktable_remove(&e->asyncs, async_key(th->tgid, th->uc_buf));
}

static void async_remember(struct emitter *e, struct thread_state *th, uint64_t buf,
			   uint64_t begin_seq, bool write)
{
	struct async_read *a;
	bool created;

	a = ktable_upsert(&e->asyncs, async_key(th->tgid, buf), &created);
	if (!a) {
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++; /* its completion goes unlinked */
		return;
	}
	/* another (process, buffer) with the same key: the older read's
	 * completion goes unlinked, counted like a full table */
	if (!created && (a->tgid != th->tgid || a->buf != buf || a->write != write))
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
	*a = (struct async_read){ .buf = buf, .begin_seq = begin_seq, .tgid = th->tgid,
				  .write = write };
}

static void async_pending(struct emitter *e, struct thread_state *th, uint64_t begin_seq)
{
	if (th->uc_buf && !(th->flags & TH_UC_FILLED))
		async_remember(e, th, th->uc_buf, begin_seq, false);
}

/* Overlapped writes that Wine completes after NtWriteFile returned
 * STATUS_PENDING (a named pipe's message the reader has not taken yet, a
 * socket's send that waits for room): the data went to the wineserver (or
 * stays in the buffer) and no Linux call of the writer marks the moment it
 * is done; the server signals the write's event (else its file handle).
 * So the pending call is remembered by (process, that handle), and the
 * first NtWait of that process that returns STATUS_WAIT_0 on it (a
 * GetOverlappedResult, a WaitForSingleObject) names its Begin among its
 * End's causes.  ID3D12Fence::SetEventOnCompletion is remembered the same
 * way, by its event: vkd3d sets that event once the fence reaches the
 * value, and the first NtWait of the process that returns STATUS_WAIT_0 on
 * it is the wait it released (a later registration of the same event
 * replaces an unconsumed one). */
static void async_write_pending(struct emitter *e, struct thread_state *th,
				const struct katra_ev_ucall *u, uint64_t begin_seq)
{
	uint64_t handle = u->a[3] ? u->a[3] : u->a[0];

	if (handle)
		async_remember(e, th, handle, begin_seq, true);
}

static uint64_t async_write_done(struct emitter *e, struct thread_state *th,
				 const struct katra_ev_ucall *u)
{
	struct async_read *a;
	uint64_t seq;

	if ((uint32_t)u->ret != 0 || !u->a[0] || !u->a[1] || !e->asyncs.count ||
	    !(a = async_get(e, th->tgid, u->a[0], true)))
		return UINT64_MAX;
	seq = a->begin_seq;
	ktable_remove(&e->asyncs, async_key(th->tgid, u->a[0]));
	return seq;
}

uint64_t emit_async_completion(struct emitter *e, struct thread_state *th)
{
	struct async_read *a;
	uint64_t seq;

	if ((th->uc_open & (1u << KATRA_UC_LAYER_NT)) &&
	    th->uc_call[KATRA_UC_LAYER_NT] == KATRA_UC_NT_READ_FILE && th->uc_buf == th->sc_buf) {
		th->flags |= TH_UC_FILLED;
		return UINT64_MAX;
	}
	if (!e->asyncs.count || !(a = async_get(e, th->tgid, th->sc_buf, false)))
		return UINT64_MAX;
	seq = a->begin_seq;
	ktable_remove(&e->asyncs, async_key(th->tgid, th->sc_buf));
	return seq;
}

void emit_async_forget(struct emitter *e, uint32_t tgid)
{
	ktable_each(&e->asyncs, i) {
		const struct async_read *a = ktable_value_at(&e->asyncs, i);
		if (a->tgid == tgid)
			ktable_remove(&e->asyncs, ktable_key_at(&e->asyncs, i));
	}
}

int emit_ucall(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_ucall *u = &p->u.ucl;
	struct thread_state *th;
	struct katra_event ev;
	uint64_t causes[3], inner;
	unsigned n = 0, layer, level;
	bool enter = u->flags & KATRA_UC_ENTER;
	int rc;

	if (u->call == 0 || u->call >= KATRA_UC_COUNT)
		return 0;
	layer = KATRA_UC_LAYER_OF(u->call);
	th = emit_thread(e, u->head.tid, u->head.tgid);
	if (emit_late(e, th, u->head.tid, p->key, 1))
		return 0;
	rc = emit_running(e, th, u->head.tid, p->key);
	if (rc)
		return rc;
	/* an open call of this layer that never returned (left by a longjmp)
	 * ends where the next one begins; NT calls by level: a deeper one is
	 * a user callback's, nested (BPF's ntstack.bpf.h), and a return ends
	 * the calls left open above its own */
	level = layer == KATRA_UC_LAYER_NT ? KATRA_UC_LEVEL(u->flags) : 0;
	while (th && (th->uc_open & (1u << layer)) &&
	       (layer == KATRA_UC_LAYER_NT ? th->nt_level > level || (enter && th->nt_level == level)
					   : enter))
		if ((rc = close_layer(e, th, u->head.tid, layer, p->key)))
			return rc;

	if (!enter && th && (th->uc_open & (1u << layer)) && th->uc_call[layer] == u->call &&
	    (layer != KATRA_UC_LAYER_NT || th->nt_level == level)) {
		emit_base(&ev, &u->head, descs[u->call].scope, descs[u->call].kind, KATRA_PHASE_END);
		ev.span_id = emit_some(th->uc_span[layer]);
		causes[n++] = th->uc_seq[layer];
		th->uc_open &= ~(1u << layer);
		/* another thread's request released it through the wineserver
		 * (emit_winewake.c) */
		if (layer == KATRA_UC_LAYER_NT && (th->flags & TH_RELEASED))
			causes[n++] = th->uc_released;
		if (layer == KATRA_UC_LAYER_NT)
			nt_pop(th);
		if (u->call == KATRA_UC_NT_READ_FILE && (uint32_t)u->ret == STATUS_PENDING)
			async_pending(e, th, th->uc_seq[layer]);
		else if (u->call == KATRA_UC_NT_WRITE_FILE && (uint32_t)u->ret == STATUS_PENDING)
			async_write_pending(e, th, u, th->uc_seq[layer]);
		else if (u->call == KATRA_UC_D3D12_FENCE_SET_EVENT && !(uint32_t)u->ret && u->a[2])
			async_remember(e, th, u->a[2], th->uc_seq[layer], true);
		else if ((u->call == KATRA_UC_NT_WAIT_SINGLE ||
			  u->call == KATRA_UC_NT_WAIT_MULTIPLE) &&
			 (inner = async_write_done(e, th, u)) != UINT64_MAX)
			causes[n++] = inner;
	} else {
		/* a Begin; or an End whose Begin was never seen: an Instant */
		emit_base(&ev, &u->head, descs[u->call].scope, descs[u->call].kind,
			  enter && th ? KATRA_PHASE_BEGIN : KATRA_PHASE_INSTANT);
		emit_note_tracked(e, th, causes, &n);
		if (enter && th && th->uc_open && (inner = emit_ucall_cause(th)) != UINT64_MAX)
			causes[n++] = inner;
		if (enter && th) {
			th->flags |= TH_WINE;
			ev.span_id = emit_some(e->next_span++);
			if (layer == KATRA_UC_LAYER_NT) {
				nt_push(e, th); /* it encloses this one */
				th->nt_level = level;
				th->flags &= ~TH_RELEASED;
			}
			th->uc_open |= 1u << layer;
			th->uc_span[layer] = ev.span_id.value;
			th->uc_seq[layer] = e->next_seq;
			th->uc_call[layer] = u->call;
			if (u->call == KATRA_UC_NT_READ_FILE)
				async_begin(e, th, u);
		}
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	ucall_payload(e, u, p->key, !enter, &ev);
	/* the library's call names are read off the drain, written later */
	if (enter && u->call == KATRA_UC_WINE_UNIX_CALL && e->unix_names && e->names_ready &&
	    e->unix_names(e->wine_tables_ctx, u->head.tgid, u->a[0]) == -EAGAIN)
		e->names_waiting++;
	if (u->call != KATRA_UC_VK_QUEUE_PRESENT)
		return emit_write(e, &ev, p->key, th);
	/* a present that returned ends a frame (emit_frames.c) */
	ev.request_id = emit_some(emit_frame_of_present(e, u->head.tgid, u->a[2]));
	rc = emit_write(e, &ev, p->key, th);
	return rc || enter ? rc : emit_frame_presented(e, u->head.tgid, u->a[2], p->key);
}
