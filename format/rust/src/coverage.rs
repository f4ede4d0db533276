// SPDX-License-Identifier: GPL-2.0-only
//! Which record shapes a trace exercises: every variant of every enum, and
//! each Option field of a record both absent and present.  A round trip only
//! proves the shapes it saw, so the compatibility test demands all of them.

use std::collections::BTreeMap;

use crate::types::*;

/// Option fields of records, each required as both None and Some.
const OPTION_FIELDS: &[&str] = &[
    "TraceEvent.span_id",
    "TraceEvent.request_id",
    "TraceEvent.cost_estimate_ns",
    "FileIoPayload.offset",
    "FileOpenPayload.path",
    "WaitPayload.timeout_ns",
    "ExecvePayload.path",
    "TaskExecPayload.path",
    "NtCallPayload.offset",
    "NtCallPayload.status",
    "WineServerCallPayload.status",
    "VulkanPayload.result",
    "ProcessInfoPayload.exe_path",
    "ProcessInfoPayload.windows_image",
    "NtSyscallPayload.name",
    "NtSyscallPayload.status",
];

/// Every enum of the schema and its variant names, in index order.
pub fn all_enums() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        ("TraceRecord", TraceRecord::NAMES),
        ("Scope", Scope::NAMES),
        ("Phase", Phase::NAMES),
        ("Confidence", Confidence::NAMES),
        ("EventKind", EventKind::NAMES),
        ("ResourceDomain", ResourceDomain::NAMES),
        ("Payload", Payload::NAMES),
        ("DropSource", DropSource::NAMES),
        ("ProcessOrigin", ProcessOrigin::NAMES),
        ("EpochKind", EpochKind::NAMES),
        ("CounterKind", CounterKind::NAMES),
        ("StackSite", StackSite::NAMES),
    ]
}

#[derive(Default)]
pub struct Coverage {
    counts: BTreeMap<String, u64>,
}

impl Coverage {
    fn hit(&mut self, key: String) {
        *self.counts.entry(key).or_insert(0) += 1;
    }

    fn variant(&mut self, ty: &str, name: &str) {
        self.hit(format!("{}::{}", ty, name));
    }

    fn opt<T>(&mut self, field: &str, v: &Option<T>) {
        let s = if v.is_some() { "Some" } else { "None" };
        self.hit(format!("{}={}", field, s));
    }

    pub fn record(&mut self, r: &TraceRecord) {
        self.variant("TraceRecord", r.name());
        match r {
            TraceRecord::Event(e) => self.event(e),
            TraceRecord::EpochMarker(m) => self.variant("EpochKind", m.kind.name()),
            TraceRecord::Counter(c) => self.variant("CounterKind", c.kind.name()),
            TraceRecord::SessionSummary(s) => {
                for d in &s.drops {
                    self.variant("DropSource", d.source.name());
                }
            }
            TraceRecord::StackOf(s) => self.variant("StackSite", s.site.name()),
            TraceRecord::Module(_) | TraceRecord::Stack(_) | TraceRecord::Symbols(_) => {}
        }
    }

    fn event(&mut self, e: &TraceEvent) {
        self.variant("Scope", e.scope.name());
        self.variant("Phase", e.phase.name());
        self.variant("Confidence", e.confidence.name());
        self.variant("EventKind", e.kind.name());
        self.variant("ResourceDomain", e.resource.domain.name());
        self.variant("Payload", e.payload.name());
        self.opt("TraceEvent.span_id", &e.span_id);
        self.opt("TraceEvent.request_id", &e.request_id);
        self.opt("TraceEvent.cost_estimate_ns", &e.cost_estimate_ns);
        let c = if e.causes.is_empty() {
            "empty"
        } else {
            "non-empty"
        };
        self.hit(format!("TraceEvent.causes={}", c));
        match &e.payload {
            Payload::FileIo(p) => self.opt("FileIoPayload.offset", &p.offset),
            Payload::FileOpen(p) => self.opt("FileOpenPayload.path", &p.path),
            Payload::Wait(p) => self.opt("WaitPayload.timeout_ns", &p.timeout_ns),
            Payload::Execve(p) => self.opt("ExecvePayload.path", &p.path),
            Payload::TaskExec(p) => self.opt("TaskExecPayload.path", &p.path),
            Payload::NtCall(p) => {
                self.opt("NtCallPayload.offset", &p.offset);
                self.opt("NtCallPayload.status", &p.status);
            }
            Payload::WineServerCall(p) => self.opt("WineServerCallPayload.status", &p.status),
            Payload::Vulkan(p) => self.opt("VulkanPayload.result", &p.result),
            Payload::Drop(p) => self.variant("DropSource", p.source.name()),
            Payload::NtSyscall(p) => {
                self.opt("NtSyscallPayload.name", &p.name);
                self.opt("NtSyscallPayload.status", &p.status);
            }
            Payload::ProcessInfo(p) => {
                self.opt("ProcessInfoPayload.exe_path", &p.exe_path);
                self.opt("ProcessInfoPayload.windows_image", &p.windows_image);
                self.variant("ProcessOrigin", p.origin.name());
            }
            _ => {}
        }
    }

    /// Every shape the test requires, in a stable order.
    pub fn required() -> Vec<String> {
        let mut keys = Vec::new();
        for (ty, names) in all_enums() {
            for n in names {
                keys.push(format!("{}::{}", ty, n));
            }
        }
        for f in OPTION_FIELDS {
            keys.push(format!("{}=None", f));
            keys.push(format!("{}=Some", f));
        }
        keys.push("TraceEvent.causes=empty".to_string());
        keys.push("TraceEvent.causes=non-empty".to_string());
        keys
    }

    pub fn count(&self, key: &str) -> u64 {
        self.counts.get(key).copied().unwrap_or(0)
    }

    /// Required shapes that never occurred.
    pub fn missing(&self) -> Vec<String> {
        Self::required()
            .into_iter()
            .filter(|k| self.count(k) == 0)
            .collect()
    }
}
