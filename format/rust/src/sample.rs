// SPDX-License-Identifier: GPL-2.0-only
//! A deterministic trace written from Rust that covers every record shape and
//! is valid per the verification rules of SPEC.md, so the C side can prove it
//! decodes what real bincode writes.

use std::collections::{BTreeMap, BTreeSet};

use crate::framing::{file_resource_id, FORMAT_VERSION, SCHEMA_HASH};
use crate::types::*;

const PID: u64 = 4242;
const CHILD_PID: u64 = 4300;
const WALL0: u64 = 1_700_000_000_000_000_000;
const STEP_NS: u64 = 1_000;

pub fn header() -> TraceHeader {
    TraceHeader {
        format_version: FORMAT_VERSION,
        schema_hash: SCHEMA_HASH,
        tool_version: "katra-format-compat 0.1.0".to_string(),
        capture_options: CaptureOptions {
            target_pids: vec![PID, CHILD_PID],
            follow_children: true,
            record_paths: false,
            buffer_size_bytes: 1 << 20,
            duration_limit_ns: Some(5_000_000_000),
            counter_interval_ns: 100_000_000,
            reorder_window_ns: 2_000_000,
        },
        start_wall_ns: WALL0,
        start_mono_ns: 987_654_321,
        process_id: 4100,
        workload: "rust-compat «sample»".to_string(),
        host: HostInfo {
            hostname: "katra-rust".to_string(),
            os: "Linux".to_string(),
            kernel_release: String::new(),
            machine: "x86_64".to_string(),
            cpu_count: 2,
            page_size: 4096,
        },
        notes: vec!["written by katra-format-compat".to_string(), String::new()],
    }
}

/// Assigns seq and a strictly increasing clock, so every ordering rule holds
/// by construction.
struct Builder {
    records: Vec<TraceRecord>,
    seq: u64,
    ts: u64,
    next_span: u64,
}

struct Ev {
    tid: u64,
    pid: u64,
    scope: Scope,
    kind: EventKind,
    phase: Phase,
    span: Option<u64>,
    request: Option<u64>,
    causes: Vec<u64>,
    res: Resource,
    payload: Payload,
    cost: Option<u64>,
    conf: Confidence,
}

fn ev(tid: u64, scope: Scope, kind: EventKind, res: Resource, payload: Payload) -> Ev {
    Ev {
        tid,
        pid: PID,
        scope,
        kind,
        phase: Phase::Instant,
        span: None,
        request: None,
        causes: Vec::new(),
        res,
        payload,
        cost: None,
        conf: Confidence::Measured,
    }
}

fn res(domain: ResourceDomain, id: u64) -> Resource {
    Resource { domain, id }
}

impl Builder {
    fn tick(&mut self) -> (u64, u64) {
        self.seq += 1;
        self.ts += STEP_NS;
        (self.seq, self.ts)
    }

    fn push(&mut self, e: Ev) -> u64 {
        let (seq, ts) = self.tick();
        self.records.push(TraceRecord::Event(TraceEvent {
            seq,
            ts_mono_ns: ts,
            ts_wall_ns: WALL0 + ts,
            thread_id: e.tid,
            process_id: e.pid,
            scope: e.scope,
            kind: e.kind,
            phase: e.phase,
            span_id: e.span,
            request_id: e.request,
            causes: e.causes,
            resource: e.res,
            payload: e.payload,
            cost_estimate_ns: e.cost,
            confidence: e.conf,
        }));
        seq
    }

    /// A Begin/End pair on one thread; returns the End's seq.
    fn span(&mut self, mut begin: Ev, end_payload: Payload) -> u64 {
        self.next_span += 1;
        let span = Some(self.next_span);
        begin.phase = Phase::Begin;
        begin.span = span;
        let mut end = ev(begin.tid, begin.scope, begin.kind, begin.res, end_payload);
        end.pid = begin.pid;
        end.request = begin.request;
        let b = self.push(begin);
        end.phase = Phase::End;
        end.span = span;
        end.causes = vec![b];
        self.push(end)
    }

    fn epoch(&mut self, epoch: u64, kind: EpochKind, name: &str) {
        let (seq, ts) = self.tick();
        self.records.push(TraceRecord::EpochMarker(EpochMarker {
            seq,
            ts_mono_ns: ts,
            ts_wall_ns: WALL0 + ts,
            epoch,
            kind,
            name: name.to_string(),
        }));
    }

    fn counter(&mut self, kind: CounterKind, instance: u32, value: u64) {
        let (seq, ts) = self.tick();
        self.records.push(TraceRecord::Counter(Counter {
            seq,
            ts_mono_ns: ts,
            ts_wall_ns: WALL0 + ts,
            kind,
            instance,
            value,
        }));
    }
}

/// Every record of the Rust sample trace, SessionSummary last.
pub fn records() -> Vec<TraceRecord> {
    use EventKind as K;
    use Payload as P;
    use ResourceDomain as D;
    use Scope as S;

    let mut b = Builder {
        records: Vec::new(),
        seq: 0,
        ts: 0,
        next_span: 0,
    };
    let t1 = PID;
    let t2 = PID + 1;
    let file = file_resource_id(0x803, 131_077);
    let thr = |t: u64| res(D::Thread, t);

    b.epoch(0, EpochKind::CaptureStart, "capture");
    b.counter(CounterKind::RingCapacityBytes, 0, 1 << 20);

    // Linux syscalls, files and memory.
    let mut e = ev(
        t1,
        S::Linux,
        K::Syscall,
        res(D::None, 0),
        P::Syscall(SyscallPayload { nr: 39 }),
    );
    e.request = Some(7);
    b.span(
        e,
        P::SyscallReturn(SyscallReturnPayload { nr: 39, ret: -11 }),
    );
    let open_path = Some("/tmp/données/κατρα.bin".to_string());
    let mut e = ev(
        t1,
        S::Linux,
        K::FileOpen,
        res(D::File, file),
        P::FileOpen(FileOpenPayload {
            dirfd: -100,
            flags: 0o2_000_000,
            mode: 0o644,
            path: open_path,
        }),
    );
    e.request = Some(7);
    let opened = b.span(
        e,
        P::SyscallReturn(SyscallReturnPayload { nr: 257, ret: 3 }),
    );
    b.push(ev(
        t1,
        S::Linux,
        K::FileOpen,
        res(D::File, file),
        P::FileOpen(FileOpenPayload {
            dirfd: 3,
            flags: 0,
            mode: 0,
            path: None,
        }),
    ));
    let mut e = ev(
        t1,
        S::Linux,
        K::FileRead,
        res(D::File, file),
        P::FileIo(FileIoPayload {
            fd: 3,
            count: 4096,
            offset: Some(8192),
            iov_count: 1,
        }),
    );
    e.causes = vec![opened];
    e.request = Some(7);
    b.span(
        e,
        P::SyscallReturn(SyscallReturnPayload { nr: 17, ret: 4096 }),
    );
    b.push(ev(
        t1,
        S::Linux,
        K::FileWrite,
        res(D::File, file),
        P::FileIo(FileIoPayload {
            fd: 3,
            count: u64::MAX,
            offset: None,
            iov_count: 0,
        }),
    ));
    b.push(ev(
        t1,
        S::Linux,
        K::FileClose,
        res(D::File, file),
        P::FileClose(FileClosePayload { fd: 3 }),
    ));
    b.push(ev(
        t1,
        S::Linux,
        K::MemoryMap,
        res(D::Memory, 0x7f00_0000_0000),
        P::MemoryMap(MemoryMapPayload {
            addr: 0x7f00_0000_0000,
            len: 1 << 21,
            prot: 3,
            flags: 0x22,
            fd: -1,
            offset: 0,
        }),
    ));
    for (k, arg) in [
        (K::MemoryUnmap, 0u64),
        (K::MemoryProtect, 1),
        (K::MemoryAdvise, 4),
    ]
    .iter()
    {
        b.push(ev(
            t1,
            S::Linux,
            *k,
            res(D::Memory, 0x7f00_0000_0000),
            P::MemoryRange(MemoryRangePayload {
                addr: 0x7f00_0000_0000,
                len: 4096,
                arg: *arg,
            }),
        ));
    }
    let mut e = ev(
        t2,
        S::Linux,
        K::Futex,
        res(D::Futex, 0x5555_0000_1000),
        P::Futex(FutexPayload {
            uaddr: 0x5555_0000_1000,
            op: 0x80,
            val: 2,
        }),
    );
    e.conf = Confidence::Estimated;
    e.cost = Some(1_400);
    let futex_end = b.span(
        e,
        P::SyscallReturn(SyscallReturnPayload { nr: 202, ret: 0 }),
    );
    b.push(ev(
        t2,
        S::Linux,
        K::EpollWait,
        res(D::File, 5),
        P::Wait(WaitPayload {
            handle: 5,
            count: 16,
            timeout_ns: Some(10_000_000),
        }),
    ));
    b.push(ev(
        t2,
        S::Linux,
        K::Poll,
        res(D::None, 0),
        P::Wait(WaitPayload {
            handle: -1,
            count: 2,
            timeout_ns: None,
        }),
    ));
    b.push(ev(
        t2,
        S::Linux,
        K::Sleep,
        res(D::None, 0),
        P::Wait(WaitPayload {
            handle: 0,
            count: 0,
            timeout_ns: Some(0),
        }),
    ));
    b.push(ev(
        t2,
        S::Linux,
        K::IoUringEnter,
        res(D::IoUring, 0xffff_8880_0000_0000),
        P::IoUringEnter(IoUringEnterPayload {
            fd: 7,
            to_submit: 1,
            min_complete: 1,
            flags: 1,
        }),
    ));
    b.push(ev(
        t2,
        S::Linux,
        K::SocketSend,
        res(D::Socket, 9),
        P::SocketMsg(SocketMsgPayload { fd: 9, flags: 0x40 }),
    ));
    b.push(ev(
        t2,
        S::Linux,
        K::SocketRecv,
        res(D::Socket, 9),
        P::SocketMsg(SocketMsgPayload { fd: 9, flags: 0 }),
    ));
    // a pipe (its inode) and an eventfd (AnonInode 1)
    b.push(ev(
        t2,
        S::Linux,
        K::FileRead,
        res(D::Pipe, 2349781),
        P::FileIo(FileIoPayload {
            fd: 3,
            count: 8,
            offset: None,
            iov_count: 0,
        }),
    ));
    b.push(ev(
        t2,
        S::Linux,
        K::FileWrite,
        res(D::AnonInode, 1),
        P::FileIo(FileIoPayload {
            fd: 7,
            count: 8,
            offset: None,
            iov_count: 0,
        }),
    ));

    b.counter(CounterKind::EventsRecorded, 0, 20);

    // Processes and threads.
    b.push(ev(
        t1,
        S::Linux,
        K::Execve,
        res(D::Process, PID),
        P::Execve(ExecvePayload {
            path: Some("/usr/bin/true".to_string()),
        }),
    ));
    b.push(ev(
        t1,
        S::Linux,
        K::Execve,
        res(D::Process, PID),
        P::Execve(ExecvePayload { path: None }),
    ));
    b.push(ev(
        t1,
        S::Linux,
        K::Clone,
        thr(t2),
        P::Clone(ClonePayload { flags: 0x3d0f00 }),
    ));
    b.push(ev(
        t1,
        S::Linux,
        K::TaskFork,
        res(D::Process, CHILD_PID),
        P::TaskFork(TaskForkPayload {
            parent_pid: PID,
            parent_tid: t1,
            child_pid: CHILD_PID,
            child_tid: CHILD_PID,
            is_thread: false,
        }),
    ));
    b.push(ev(
        t1,
        S::Linux,
        K::TaskFork,
        thr(t2),
        P::TaskFork(TaskForkPayload {
            parent_pid: PID,
            parent_tid: t1,
            child_pid: PID,
            child_tid: t2,
            is_thread: true,
        }),
    ));
    let mut e = ev(
        CHILD_PID,
        S::Linux,
        K::TaskExec,
        res(D::Process, CHILD_PID),
        P::TaskExec(TaskExecPayload {
            old_tid: CHILD_PID,
            path: Some("/bin/sh".to_string()),
        }),
    );
    e.pid = CHILD_PID;
    b.push(e);
    let mut e = ev(
        CHILD_PID,
        S::Linux,
        K::TaskExec,
        res(D::Process, CHILD_PID),
        P::TaskExec(TaskExecPayload {
            old_tid: CHILD_PID,
            path: None,
        }),
    );
    e.pid = CHILD_PID;
    b.push(e);
    let mut e = ev(
        CHILD_PID,
        S::Linux,
        K::TaskExit,
        res(D::Process, CHILD_PID),
        P::TaskExit(TaskExitPayload {
            exit_code: -1,
            group_dead: true,
        }),
    );
    e.pid = CHILD_PID;
    b.push(e);

    // Scheduler and faults.
    let mut e = ev(
        t2,
        S::Linux,
        K::OffCpu,
        thr(t2),
        P::Switch(SwitchPayload {
            cpu: 1,
            prev_state: 1,
        }),
    );
    e.causes = vec![futex_end];
    let off_end = b.span(
        e,
        P::Switch(SwitchPayload {
            cpu: 0,
            prev_state: 0,
        }),
    );
    let mut e = ev(
        t1,
        S::Linux,
        K::Wakeup,
        thr(t2),
        P::Wakeup(WakeupPayload {
            target_tid: t2,
            target_pid: PID,
            target_cpu: 0,
        }),
    );
    e.conf = Confidence::Inferred;
    e.causes = vec![off_end - 1];
    b.push(e);
    // woken from outside the traced set: by a process, then by an interrupt
    for (pid, tid, comm, context) in [(812u64, 815u64, "Xvfb", WakerContext::Task),
                                      (0, 0, "", WakerContext::Interrupt)] {
        let mut e = ev(
            0,
            S::Linux,
            K::Wakeup,
            thr(t2),
            P::WakeupOutside(WakeupOutsidePayload {
                target_tid: t2,
                target_pid: PID,
                target_cpu: 1,
                waker_pid: pid,
                waker_tid: tid,
                waker_comm: comm.to_string(),
                context,
            }),
        );
        e.pid = 0;
        b.push(e);
    }
    let mut e = ev(
        t1,
        S::Linux,
        K::PageFault,
        res(D::Memory, 0x7f00_0000_1000),
        P::PageFault(PageFaultPayload {
            address: 0x7f00_0000_1000,
            ip: 0x5555_0000_2000,
            error_code: 6,
        }),
    );
    e.cost = Some(16_000);
    e.conf = Confidence::Estimated;
    b.span(e, P::None);

    // io_uring.
    let ring = 0xffff_8880_0000_0000u64;
    b.push(ev(
        t2,
        S::Linux,
        K::IoUringCreate,
        res(D::IoUring, ring),
        P::IoUringCreate(IoUringCreatePayload {
            ctx: ring,
            fd: 7,
            sq_entries: 8,
            cq_entries: 16,
            flags: 0,
        }),
    ));
    let sub = b.push(ev(
        t2,
        S::Linux,
        K::IoUringSubmit,
        res(D::IoUring, ring),
        P::IoUringSubmit(IoUringSubmitPayload {
            ctx: ring,
            user_data: 42,
            opcode: 22,
            flags: 0,
            fd: 3,
        }),
    ));
    let mut e = ev(
        t2,
        S::Linux,
        K::IoUringComplete,
        res(D::IoUring, ring),
        P::IoUringComplete(IoUringCompletePayload {
            ctx: ring,
            user_data: 42,
            res: 4096,
            cflags: 0,
        }),
    );
    e.causes = vec![sub];
    b.push(e);

    b.epoch(1, EpochKind::Signal, "SIGUSR1");

    // Windows-facing (Wine ntdll) calls.
    let h = res(D::WinHandle, 0x44);
    let mut e = ev(
        t1,
        S::WindowsFacing,
        K::NtReadFile,
        h,
        P::NtCall(NtCallPayload {
            handle: 0x44,
            length: 512,
            offset: Some(0),
            status: None,
        }),
    );
    e.request = Some(8);
    b.span(
        e,
        P::NtCall(NtCallPayload {
            handle: 0x44,
            length: 512,
            offset: None,
            status: Some(0x103),
        }),
    );
    b.push(ev(
        t1,
        S::WindowsFacing,
        K::NtWriteFile,
        h,
        P::NtCall(NtCallPayload {
            handle: 0x44,
            length: 1,
            offset: None,
            status: Some(0),
        }),
    ));
    b.push(ev(
        t1,
        S::WindowsFacing,
        K::NtCreateFile,
        h,
        P::NtCall(NtCallPayload {
            handle: 0x44,
            length: 0,
            offset: None,
            status: None,
        }),
    ));
    b.push(ev(
        t1,
        S::WindowsFacing,
        K::NtWait,
        h,
        P::Wait(WaitPayload {
            handle: 0x44,
            count: 1,
            timeout_ns: None,
        }),
    ));
    b.push(ev(
        t1,
        S::WindowsFacing,
        K::NtDelayExecution,
        res(D::None, 0),
        P::Wait(WaitPayload {
            handle: 0,
            count: 0,
            timeout_ns: Some(1_000_000),
        }),
    ));
    for k in [
        K::NtMapViewOfSection,
        K::NtAllocateVirtualMemory,
        K::NtCreateUserProcess,
    ]
    .iter()
    {
        b.push(ev(
            t1,
            S::WindowsFacing,
            *k,
            h,
            P::NtCall(NtCallPayload {
                handle: 0x48,
                length: 65536,
                offset: Some(4096),
                status: Some(0),
            }),
        ));
    }
    let mut e = ev(
        t1,
        S::WineProton,
        K::WineServerCall,
        res(D::None, 0),
        P::WineServerCall(WineServerCallPayload {
            request: 31,
            status: None,
        }),
    );
    e.request = Some(8);
    b.span(
        e,
        P::WineServerCall(WineServerCallPayload {
            request: 31,
            status: Some(0),
        }),
    );
    b.push(ev(
        t1,
        S::WineProton,
        K::WinToUnix,
        res(D::None, 0),
        P::None,
    ));
    // A generic NT call: the name on the Begin, the status on the End.
    b.span(
        ev(
            t1,
            S::WindowsFacing,
            K::NtSyscall,
            res(D::None, 0),
            P::NtSyscall(NtSyscallPayload {
                number: 0x31,
                name: Some("NtQueryPerformanceCounter".to_string()),
                status: None,
            }),
        ),
        P::NtSyscall(NtSyscallPayload {
            number: 0x31,
            name: None,
            status: Some(0),
        }),
    );
    // A wineserver's request names.
    b.push(ev(
        t1,
        S::WineProton,
        K::WineServerRequests,
        res(D::Process, 4243),
        P::WineServerRequests(WineServerRequestsPayload {
            names: vec!["new_process".to_string(), "get_new_process_info".to_string()],
        }),
    ));
    // A unix library's call names (winevulkan.so), by its handle in one process.
    b.push(ev(
        t1,
        S::WineProton,
        K::WineUnixCallNames,
        res(D::WinHandle, 0x7f00_1234_5900),
        P::WineServerRequests(WineServerRequestsPayload {
            names: vec![String::new(), "vkQueueSubmit".to_string()],
        }),
    ));

    // Graphics.
    let q = res(D::VulkanQueue, 0x5555_aaaa_0000);
    let mut e = ev(
        t2,
        S::D3d12Vkd3d,
        K::VulkanQueueSubmit,
        q,
        P::Vulkan(VulkanPayload {
            handle: 0x5555_aaaa_0000,
            count: 3,
            result: None,
        }),
    );
    e.scope = S::Vulkan;
    let submit = b.span(
        e,
        P::Vulkan(VulkanPayload {
            handle: 0x5555_aaaa_0000,
            count: 3,
            result: Some(0),
        }),
    );
    b.push(ev(
        t2,
        S::D3d12Vkd3d,
        K::VulkanQueuePresent,
        q,
        P::Vulkan(VulkanPayload {
            handle: 0x5555_aaaa_0000,
            count: 1,
            result: Some(-4),
        }),
    ));
    let mut e = ev(
        t2,
        S::Gpu,
        K::VulkanFenceWait,
        q,
        P::Vulkan(VulkanPayload {
            handle: 0x5555_aaaa_1000,
            count: 1,
            result: Some(0),
        }),
    );
    e.causes = vec![submit];
    e.conf = Confidence::Inferred;
    b.push(e);
    // A semaphore wait on the device; an acquire of image 2 of a swapchain.
    b.push(ev(
        t2,
        S::Vulkan,
        K::VulkanSemaphoreWait,
        res(D::None, 0),
        P::Vulkan(VulkanPayload { handle: 0x5555_aaaa_1000, count: 2, result: Some(2) }),
    ));
    b.push(ev(
        t2,
        S::Vulkan,
        K::VulkanAcquireNextImage,
        res(D::None, 0),
        P::Vulkan(VulkanPayload { handle: 0x5555_aaaa_2000, count: 2, result: Some(1000001003) }),
    ));

    // The D3D12 calls vkd3d implements: an ExecuteCommandLists span, then a
    // queue Signal / Wait, a fence's SetEventOnCompletion and Signal.
    let queue = res(D::D3d12Object, 0x7fff_0000_1000);
    let fence = res(D::D3d12Object, 0x7fff_0000_2000);
    let d3d12 = |object: u64, fence: u64, value: u64, count: u32, event: u64, result| {
        P::D3d12(D3d12Payload { object, fence, value, count, event, result })
    };
    let e = ev(t2, S::D3d12Vkd3d, K::D3d12ExecuteCommandLists, queue,
               d3d12(0x7fff_0000_1000, 0, 0, 1, 0, None));
    b.span(e, d3d12(0x7fff_0000_1000, 0, 0, 1, 0, None));
    for (kind, r, f, v, event) in [
        (K::D3d12QueueSignal, queue, 0x7fff_0000_2000u64, 7u64, 0u64),
        (K::D3d12QueueWait, queue, 0x7fff_0000_2000, 7, 0),
        (K::D3d12FenceSetEventOnCompletion, fence, 0x7fff_0000_2000, 7, 0xac),
        (K::D3d12FenceSignal, fence, 0x7fff_0000_2000, 8, 0),
    ] {
        b.push(ev(t2, S::D3d12Vkd3d, kind, r, d3d12(r.id, f, v, 0, event, Some(0))));
    }

    // A dma_fence timeline's names, then fences made, signalled, waited on.
    let tl = res(D::GpuTimeline, 7);
    b.push(ev(
        t2,
        S::Gpu,
        K::GpuTimeline,
        tl,
        P::GpuTimeline(GpuTimelinePayload {
            context: 7,
            driver: "vgem".to_string(),
            timeline: "file".to_string(),
        }),
    ));
    let fence = |seqno: u64| P::GpuFence(GpuFencePayload { context: 7, seqno });
    for kind in [K::GpuFenceInit, K::GpuFenceEmit, K::GpuFenceEnableSignal, K::GpuFenceSignaled] {
        let mut e = ev(t2, S::Gpu, kind, tl, fence(1));
        e.request = Some(7 << 32 | 1);
        b.push(e);
    }
    b.span(ev(t2, S::Gpu, K::GpuFenceWait, tl, fence(1)), fence(1));
    b.push(ev(t2, S::Gpu, K::GpuFenceDestroy, tl, fence(2)));
    // A GPU scheduler job by its finished fence: queued, run, done.
    for kind in [K::GpuJobQueue, K::GpuJobRun, K::GpuJobDone] {
        let mut e = ev(t2, S::Gpu, kind, tl, fence(3));
        e.request = Some(7 << 32 | 3);
        b.push(e);
    }
    // A display's vblank, a vblank event asked for and delivered (CRTC 0, vblank 5).
    let crtc = res(D::DisplayCrtc, 0);
    for kind in [K::GpuVblank, K::GpuVblankQueued, K::GpuVblankDelivered] {
        b.push(ev(t2, S::Gpu, kind, crtc, P::GpuVblank(GpuVblankPayload { crtc: 0, sequence: 5 })));
    }
    // A driver's command with fence 1 queued to its device (virtio_gpu's
    // TRANSFER_TO_HOST_2D, fenced) and the device's response (OK_NODATA).
    for (kind, cmd_type) in [(K::GpuCmdQueue, 0x0105), (K::GpuCmdResponse, 0x1100)] {
        let mut e = ev(t2, S::Gpu, kind, tl, P::GpuCmd(GpuCmdPayload { cmd_type, flags: 1, fence_id: 1, ctx_id: 0 }));
        e.request = Some(7 << 32 | 1);
        b.push(e);
    }

    b.epoch(2, EpochKind::Fifo, "");
    b.epoch(3, EpochKind::User, "frame 1");

    // Process names: every origin, the Option fields both ways.
    let origins = [
        ProcessOrigin::Target,
        ProcessOrigin::Command,
        ProcessOrigin::Descendant,
        ProcessOrigin::Forked,
        ProcessOrigin::WineSession,
        ProcessOrigin::WineJoined,
    ];
    for (i, origin) in origins.iter().enumerate() {
        b.push(ev(
            t1,
            S::Katra,
            K::ProcessInfo,
            res(D::Process, 4242),
            P::ProcessInfo(ProcessInfoPayload {
                comm: "Game.exe".to_string(),
                exe_path: if i % 2 == 0 { None } else { Some("/opt/game/Game.exe".to_string()) },
                windows_image: if i % 3 == 0 { None } else { Some("C:\\Game\\Game.exe".to_string()) },
                origin: *origin,
            }),
        ));
    }
    // A thread's new name (prctl(PR_SET_NAME)).
    b.push(ev(
        t1,
        S::Linux,
        K::TaskRename,
        res(D::Thread, 4243),
        P::TaskRename(TaskRenamePayload {
            comm: "render".to_string(),
        }),
    ));

    // Katra-native.
    let ring_res = res(D::Ring, 1);
    b.push(ev(t1, S::Katra, K::Epoch, res(D::None, 0), P::None));
    b.push(ev(t1, S::Katra, K::Counter, ring_res, P::None));
    let sources = [
        (DropSource::RingReserve, 1u32, 5u64),
        (DropSource::SpanTable, 0, 1),
        (DropSource::WakeupTable, 0, 2),
        (DropSource::IoUringTable, 0, 3),
        (DropSource::Reorder, 0, 4),
        (DropSource::KernelTable, 2, 7),
        (DropSource::ProgramSkipped, 3, 2),
        (DropSource::Stacks, 1, 9),
        (DropSource::RingReserve, 1, 6),
    ];
    for (src, inst, n) in sources.iter() {
        b.push(ev(
            t1,
            S::Katra,
            K::Drop,
            ring_res,
            P::Drop(DropPayload {
                source: *src,
                instance: *inst,
                count: *n,
            }),
        ));
    }

    b.counter(CounterKind::EventsDropped, 0, 21);
    b.counter(CounterKind::RingFillBytes, 1, 12_345);
    b.counter(CounterKind::OpenSpans, 0, 0);
    b.counter(CounterKind::BytesWritten, 0, 9_999);
    for kind in [
        CounterKind::GpuOtherFences,
        CounterKind::GpuOtherFenceNs,
        CounterKind::GpuOtherBusyNs,
        CounterKind::GpuOtherJobs,
        CounterKind::GpuOtherRingBusyNs,
        CounterKind::GpuTimelineBusyNs,
        CounterKind::GpuRingBusyNs,
    ] {
        b.counter(kind, 7, 1_000 + kind.index() as u64);
    }
    b.epoch(4, EpochKind::Frame, "frame 1 (pid 4242, swapchain 0x55d0c8a1b2c0)");
    b.epoch(5, EpochKind::CaptureEnd, "capture");
    b.records.push(TraceRecord::Module(Module {
        id: 1,
        name: "game".to_string(),
        build_id: "b9e7d172173609569f999c8c718eaade4db63709".to_string(),
        pe: None,
    }));
    b.records.push(TraceRecord::Module(Module {
        id: 2,
        name: "d3d11.dll".to_string(),
        build_id: String::new(),
        pe: Some(PeIdentity {
            time_date_stamp: 0x6543_2100,
            size_of_image: 0x0040_0000,
            pdb_guid: "1f2e3d4c5b6a79881f2e3d4c5b6a7988".to_string(),
            pdb_age: 1,
            pdb_name: "d3d11.pdb".to_string(),
        }),
    }));
    b.records.push(TraceRecord::Stack(Stack {
        id: 1,
        frames: vec![
            StackFrame { module: 1, address: 0x1404 },
            StackFrame { module: 0, address: 0x7ffd_1234_5678 },
        ],
        kernel: vec!["do_nanosleep+0x5e".to_string()],
        truncated: false,
    }));
    b.records.push(TraceRecord::Symbols(Symbols {
        module: 1,
        names: vec![SymbolName {
            address: 0x1404,
            name: "wait_for_frame".to_string(),
            offset: 0x24,
        }],
    }));
    b.records.push(TraceRecord::StackOf(StackOf {
        stack_id: 1,
        thread_id: 4243,
        process_id: 4242,
        begin_ns: 1_500_000,
        duration_ns: 3_000_000,
        site: StackSite::OffCpu,
    }));
    b.records.push(TraceRecord::StackOf(StackOf {
        stack_id: 1,
        thread_id: 4243,
        process_id: 4242,
        begin_ns: 1_400_000,
        duration_ns: 3_200_000,
        site: StackSite::Syscall,
    }));
    b.records.push(TraceRecord::StackOf(StackOf {
        stack_id: 1,
        thread_id: 4243,
        process_id: 4242,
        begin_ns: 1_450_000,
        duration_ns: 10_101_010,
        site: StackSite::Sample,
    }));

    let summary = summarize(&b.records);
    b.records.push(TraceRecord::SessionSummary(summary));
    b.records
}

/// The SessionSummary that matches the records before it (SPEC.md rules).
pub fn summarize(records: &[TraceRecord]) -> TraceSummary {
    let mut s = TraceSummary {
        event_count: 0,
        epoch_count: 0,
        counter_count: 0,
        duration_ns: 0,
        events_by_kind: Vec::new(),
        dropped_events: 0,
        drops: Vec::new(),
        inferred_events: 0,
        probes_attached: vec![
            "tp_btf/sys_enter".to_string(),
            "tp/sched/sched_switch".to_string(),
        ],
        probes_failed: vec!["uprobe ntdll.so:NtReadFile: no Wine session".to_string()],
        processes_seen: 0,
        threads_seen: 0,
    };
    let mut kinds: BTreeMap<EventKind, u64> = BTreeMap::new();
    let mut drops: BTreeMap<(DropSource, u32), u64> = BTreeMap::new();
    let mut pids = BTreeSet::new();
    let mut tids = BTreeSet::new();
    for r in records {
        match r {
            TraceRecord::Event(e) => {
                s.event_count += 1;
                s.duration_ns = s.duration_ns.max(e.ts_mono_ns);
                *kinds.entry(e.kind).or_insert(0) += 1;
                if e.confidence == Confidence::Inferred {
                    s.inferred_events += 1;
                }
                if let Payload::Drop(d) = &e.payload {
                    *drops.entry((d.source, d.instance)).or_insert(0) += d.count;
                    s.dropped_events += d.count;
                }
                // the distinct nonzero ids (SPEC 5.6)
                if e.process_id != 0 {
                    pids.insert(e.process_id);
                }
                if e.thread_id != 0 {
                    tids.insert(e.thread_id);
                }
            }
            TraceRecord::EpochMarker(m) => {
                s.epoch_count += 1;
                s.duration_ns = s.duration_ns.max(m.ts_mono_ns);
            }
            TraceRecord::Counter(c) => {
                s.counter_count += 1;
                s.duration_ns = s.duration_ns.max(c.ts_mono_ns);
            }
            TraceRecord::SessionSummary(_)
            | TraceRecord::Module(_)
            | TraceRecord::Stack(_)
            | TraceRecord::StackOf(_)
            | TraceRecord::Symbols(_) => {}
        }
    }
    s.events_by_kind = kinds
        .into_iter()
        .map(|(kind, count)| KindCount { kind, count })
        .collect();
    s.drops = drops
        .into_iter()
        .map(|((source, instance), count)| DropCount {
            source,
            instance,
            count,
        })
        .collect();
    s.processes_seen = pids.len() as u64;
    s.threads_seen = tids.len() as u64;
    s
}
