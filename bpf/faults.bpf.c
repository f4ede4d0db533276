/* exceptions:page_fault_user of tracked threads, as instants. */
#include "common.bpf.h"

static __always_inline int on_fault(__u64 address, __u64 ip, __u64 error_code)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct katra_ev_page_fault *e;
	__u32 cpu;
	__u64 ts;
	void *rb;

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	ts = bpf_ktime_get_ns();
	cpu = bpf_get_smp_processor_id();
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		return 0;
	katra_head(&e->head, KATRA_EV_PAGE_FAULT, cpu, pid_tgid, ts);
	e->address = address;
	e->ip = ip;
	e->error_code = error_code;
	katra_submit(rb, e, cpu);
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(tpb_page_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	return on_fault(address, regs->ip, error_code);
}

SEC("raw_tp/page_fault_user")
int BPF_PROG(raw_page_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	return on_fault(address, BPF_CORE_READ(regs, ip), error_code);
}
