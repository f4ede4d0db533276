// SPDX-License-Identifier: GPL-2.0-only
//! The Rust types, format/schema.txt and format/SPEC.md must say the same
//! thing: these tests regenerate the schema lines from src/types.rs, check
//! serde's variant indices, and check SPEC.md's worked example against real
//! bincode output.

use katra_format_compat::coverage::all_enums;
use katra_format_compat::framing::{file_resource_id, FrameReader};
use katra_format_compat::*;

const TYPES_RS: &str = include_str!("../src/types.rs");
const SPEC_MD: &str = include_str!("../../SPEC.md");

/// schema.txt's type lines (struct/enum), in file order.
fn schema_lines() -> Vec<String> {
    framing::SCHEMA_TEXT
        .lines()
        .map(|l| l.trim())
        .filter(|l| l.starts_with("struct ") || l.starts_with("enum "))
        .map(|l| l.to_string())
        .collect()
}

/// The same lines rebuilt from the Rust source: `pub struct X { pub f: T, }`,
/// `pub enum X { A(T), }` and `unit_enum!(X { 0 A, 1 B });`.
fn lines_from_rust() -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = TYPES_RS.lines().map(|l| l.trim());
    while let Some(l) = lines.next() {
        if let Some(rest) = l.strip_prefix("pub struct ") {
            let name = rest.trim_end_matches(" {");
            let mut fields = Vec::new();
            for f in lines.by_ref() {
                if f == "}" {
                    break;
                }
                fields.push(
                    f.trim_start_matches("pub ")
                        .trim_end_matches(',')
                        .to_string(),
                );
            }
            out.push(format!("struct {} {{ {} }}", name, fields.join(", ")));
        } else if let Some(rest) = l.strip_prefix("pub enum ") {
            if rest.starts_with('$') {
                continue; // the macro body
            }
            let name = rest.trim_end_matches(" {");
            let mut vars = Vec::new();
            for v in lines.by_ref() {
                if v == "}" {
                    break;
                }
                vars.push(format!("{} {}", vars.len(), v.trim_end_matches(',')));
            }
            out.push(format!("enum {} {{ {} }}", name, vars.join(", ")));
        } else if let Some(rest) = l.strip_prefix("unit_enum!(") {
            let mut text = rest.to_string();
            while !text.ends_with("});") {
                text.push(' ');
                text.push_str(lines.next().expect("unterminated unit_enum!"));
            }
            let text = text.trim_end_matches("});");
            let (name, body) = text.split_at(text.find('{').unwrap());
            let body: Vec<&str> = body[1..].split_whitespace().collect();
            let vars: Vec<String> = body
                .join(" ")
                .split(',')
                .map(|s| s.trim().to_string())
                .collect();
            out.push(format!("enum {} {{ {} }}", name.trim(), vars.join(", ")));
        }
    }
    out
}

#[test]
fn rust_types_match_schema_txt() {
    let mut from_rust = lines_from_rust();
    let mut schema = schema_lines();
    assert_eq!(from_rust.len(), schema.len(), "number of types");
    from_rust.sort();
    schema.sort();
    for (r, s) in from_rust.iter().zip(schema.iter()) {
        assert_eq!(r, s, "src/types.rs and format/schema.txt disagree");
    }
}

#[test]
fn enum_tables_match_schema_txt() {
    let schema = schema_lines();
    for (name, names) in all_enums() {
        let prefix = format!("enum {} {{ ", name);
        let line = schema.iter().find(|l| l.starts_with(&prefix)).expect(name);
        let body = line[prefix.len()..].trim_end_matches(" }");
        let want: Vec<String> = body
            .split(", ")
            .enumerate()
            .map(|(i, v)| {
                let mut it = v.splitn(2, ' ');
                assert_eq!(it.next().unwrap(), i.to_string(), "{} index", name);
                it.next().unwrap().split('(').next().unwrap().to_string()
            })
            .collect();
        assert_eq!(
            want,
            names.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            "{}",
            name
        );
    }
}

fn check_unit<T: serde::Serialize + Copy>(all: &[T], index: fn(T) -> u32) {
    for (i, v) in all.iter().enumerate() {
        let b = bincode::serialize(v).unwrap();
        assert_eq!(b, (i as u32).to_le_bytes().to_vec());
        assert_eq!(index(*v), i as u32);
    }
}

#[test]
fn serde_variant_index_is_the_schema_index() {
    check_unit(Scope::ALL, Scope::index);
    check_unit(Phase::ALL, Phase::index);
    check_unit(Confidence::ALL, Confidence::index);
    check_unit(EventKind::ALL, EventKind::index);
    check_unit(ResourceDomain::ALL, ResourceDomain::index);
    check_unit(DropSource::ALL, DropSource::index);
    check_unit(EpochKind::ALL, EpochKind::index);
    check_unit(CounterKind::ALL, CounterKind::index);
    check_unit(StackSite::ALL, StackSite::index);
    for r in sample::records() {
        let b = bincode::serialize(&r).unwrap();
        assert_eq!(b[..4], r.index().to_le_bytes());
        if let TraceRecord::Event(e) = &r {
            let p = bincode::serialize(&e.payload).unwrap();
            assert_eq!(
                p[..4],
                e.payload.index().to_le_bytes(),
                "{}",
                e.payload.name()
            );
        }
    }
}

#[test]
fn schema_hash_is_fnv1a_of_schema_txt() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    let on_disk = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../schema.txt")).unwrap();
    assert_eq!(SCHEMA_HASH, fnv1a64(&on_disk));
    assert!(
        SPEC_MD.contains(&format!("0x{:016x}", SCHEMA_HASH)),
        "SPEC.md names the hash"
    );
}

fn hex_rows(b: &[u8]) -> Vec<String> {
    b.chunks(16)
        .enumerate()
        .map(|(i, c)| {
            let h: Vec<String> = c.iter().map(|x| format!("{:02x}", x)).collect();
            format!("{:04x}  {}", i * 16, h.join(" "))
        })
        .collect()
}

#[test]
fn spec_worked_example_is_real_bincode() {
    let file = file_resource_id(0x803, 131_077);
    assert_eq!(file, 0xd02a_e969_f516_f3a9);
    let ev = TraceRecord::Event(TraceEvent {
        seq: 7,
        ts_mono_ns: 1500,
        ts_wall_ns: 1_700_000_000_000_001_500,
        thread_id: 4243,
        process_id: 4242,
        scope: Scope::Linux,
        kind: EventKind::FileRead,
        phase: Phase::Begin,
        span_id: Some(3),
        request_id: None,
        causes: vec![5],
        resource: Resource {
            domain: ResourceDomain::File,
            id: file,
        },
        payload: Payload::FileIo(FileIoPayload {
            fd: 3,
            count: 4096,
            offset: None,
            iov_count: 1,
        }),
        cost_estimate_ns: None,
        confidence: Confidence::Measured,
    });
    let body = bincode::serialize(&ev).unwrap();
    assert_eq!(body.len(), 120);
    let mut framed = (body.len() as u32).to_le_bytes().to_vec();
    framed.extend_from_slice(&body);
    for row in hex_rows(&framed) {
        assert!(SPEC_MD.contains(&row), "SPEC.md lacks the row {:?}", row);
    }
    let back: TraceRecord = bincode::deserialize(&body).unwrap();
    assert_eq!(back, ev);

    let c = TraceRecord::Counter(Counter {
        seq: 9,
        ts_mono_ns: 2000,
        ts_wall_ns: 1_700_000_000_000_002_000,
        kind: CounterKind::RingFillBytes,
        instance: 1,
        value: 4096,
    });
    let b = bincode::serialize(&c).unwrap();
    assert_eq!(b.len(), 44);
    let h: Vec<String> = b.iter().map(|x| format!("{:02x}", x)).collect();
    let spec: String = SPEC_MD
        .split("without its length prefix):")
        .nth(1)
        .unwrap()
        .split("```")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(spec.trim_start_matches("text "), h.join(" "));
}

#[test]
fn bincode_rejects_what_the_spec_calls_invalid() {
    // bool 2, Option tag 2, enum index past the end, invalid UTF-8
    assert!(bincode::deserialize::<bool>(&[2]).is_err());
    assert!(bincode::deserialize::<Option<u64>>(&[2, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
    assert!(bincode::deserialize::<Scope>(&7u32.to_le_bytes()).is_err());
    assert!(bincode::deserialize::<String>(&[1, 0, 0, 0, 0, 0, 0, 0, 0xff]).is_err());
    // a length larger than the input is an error, not an allocation
    assert!(bincode::deserialize::<Vec<u64>>(&u64::MAX.to_le_bytes()).is_err());
}

#[test]
fn rust_sample_is_complete_and_roundtrips() {
    let mut cov = coverage::Coverage::default();
    let mut buf = Vec::new();
    let mut w = framing::FrameWriter::new(&mut buf, &sample::header()).unwrap();
    for r in sample::records() {
        cov.record(&r);
        w.append(&r).unwrap();
    }
    w.into_inner().unwrap();
    assert_eq!(cov.missing(), Vec::<String>::new());
    let mut rd = FrameReader::new(&buf[..]).unwrap();
    let h: TraceHeader = bincode::deserialize(&rd.header.bytes).unwrap();
    assert_eq!(h, sample::header());
    let mut n = 0;
    while let Some(f) = rd.next_frame().unwrap() {
        let r: TraceRecord = bincode::deserialize(&f.bytes).unwrap();
        assert_eq!(bincode::serialize(&r).unwrap(), f.bytes);
        n += 1;
    }
    assert_eq!(n, sample::records().len());
    // a cut anywhere inside the last record is a truncation, never a panic
    let cut = &buf[..buf.len() - 1];
    let mut rd = FrameReader::new(cut).unwrap();
    let mut res = Ok(None);
    for _ in 0..=n {
        res = rd.next_frame();
        if !matches!(res, Ok(Some(_))) {
            break;
        }
    }
    assert!(matches!(res, Err(framing::FrameError::Truncated { .. })));
}
