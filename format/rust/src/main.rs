// SPDX-License-Identifier: GPL-2.0-only
//! katra-format-compat roundtrip FILE | write [--force] FILE | dump FILE | hash
//!                     | pad IN OUT INDEX
//!
//! roundtrip: decodes the header and every record with bincode::deserialize,
//! re-encodes each with bincode::serialize and demands identical bytes, then
//! demands that every record shape occurred (coverage.rs).  Exit 0 when all
//! holds, 1 otherwise, 2 on usage errors.
//! pad: copies IN to OUT with one zero byte appended inside record INDEX (its
//! length grown by one): a file whose bytes no encoder would write, for the
//! negative half of the compatibility test.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::process::exit;

use katra_format_compat::coverage::Coverage;
use katra_format_compat::framing::{write_trace_file, FrameReader, PREAMBLE_LEN};
use katra_format_compat::sample;
use katra_format_compat::types::{TraceHeader, TraceRecord};
use katra_format_compat::{FORMAT_VERSION, SCHEMA_HASH};

const PROG: &str = "katra-format-compat";

fn usage() -> ! {
    eprintln!(
        "usage: {} roundtrip FILE | write [--force] FILE | dump FILE | hash | pad IN OUT INDEX",
        PROG
    );
    exit(2);
}

fn open(path: &str) -> FrameReader<BufReader<File>> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}: cannot open trace file '{}': {}", PROG, path, e);
            exit(1);
        }
    };
    match FrameReader::new(BufReader::new(f)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: {}: {}", PROG, path, e);
            exit(1);
        }
    }
}

/// First differing byte, or the shorter length when one is a prefix.
fn first_diff(a: &[u8], b: &[u8]) -> Option<usize> {
    if let Some(i) = a.iter().zip(b.iter()).position(|(x, y)| x != y) {
        return Some(i);
    }
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    None
}

fn describe_diff(what: &str, file_off: u64, orig: &[u8], re: &[u8]) -> Option<String> {
    first_diff(orig, re).map(|i| {
        format!(
            "{} at byte {}: re-encoded bytes differ at byte {} of the value (file byte {}): \
             file has {} bytes {}, bincode::serialize gave {} bytes {}",
            what,
            file_off,
            i,
            file_off + 4 + i as u64,
            orig.len(),
            orig.get(i)
                .map_or("(end)".to_string(), |b| format!("0x{:02x}", b)),
            re.len(),
            re.get(i)
                .map_or("(end)".to_string(), |b| format!("0x{:02x}", b)),
        )
    })
}

fn check_header(path: &str, r: &FrameReader<BufReader<File>>) -> Vec<String> {
    let mut errs = Vec::new();
    let h: TraceHeader = match bincode::deserialize(&r.header.bytes) {
        Ok(h) => h,
        Err(e) => {
            errs.push(format!(
                "header at byte {}: bincode::deserialize failed: {}",
                PREAMBLE_LEN, e
            ));
            return errs;
        }
    };
    match bincode::serialize(&h) {
        Ok(re) => {
            if let Some(m) = describe_diff("header", r.header.offset, &r.header.bytes, &re) {
                errs.push(m);
            }
        }
        Err(e) => errs.push(format!("header: bincode::serialize failed: {}", e)),
    }
    if h.format_version != FORMAT_VERSION {
        errs.push(format!(
            "header format_version: expected {}, found {}",
            FORMAT_VERSION, h.format_version
        ));
    }
    if h.schema_hash != SCHEMA_HASH {
        errs.push(format!(
            "header schema_hash: expected 0x{:016x} (FNV-1a of format/schema.txt), found 0x{:016x}",
            SCHEMA_HASH, h.schema_hash
        ));
    }
    println!(
        "{}: header: format_version {}, schema_hash 0x{:016x}, tool '{}', {} bytes",
        path,
        h.format_version,
        h.schema_hash,
        h.tool_version,
        r.header.bytes.len()
    );
    errs
}

fn roundtrip(path: &str) -> i32 {
    let mut r = open(path);
    let mut errs = check_header(path, &r);
    let mut cov = Coverage::default();
    let mut index: u64 = 0;
    let mut bytes: u64 = 0;
    let mut last_type: Option<u32> = None;
    loop {
        let frame = match r.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => {
                errs.push(format!("{}", e));
                break;
            }
        };
        let rec: TraceRecord = match bincode::deserialize(&frame.bytes) {
            Ok(v) => v,
            Err(e) => {
                errs.push(format!(
                    "record {} at byte {}: bincode::deserialize failed: {}",
                    index, frame.offset, e
                ));
                index += 1;
                continue;
            }
        };
        match bincode::serialize(&rec) {
            Ok(re) => {
                let seq = rec.seq().map_or("-".to_string(), |q| q.to_string());
                let what = format!("record {} ({}, seq {})", index, rec.name(), seq);
                if let Some(m) = describe_diff(&what, frame.offset, &frame.bytes, &re) {
                    errs.push(m);
                }
            }
            Err(e) => errs.push(format!(
                "record {}: bincode::serialize failed: {}",
                index, e
            )),
        }
        cov.record(&rec);
        last_type = Some(rec.index());
        bytes += frame.bytes.len() as u64;
        index += 1;
    }
    if last_type != Some(3) {
        errs.push("the last record is not a SessionSummary".to_string());
    }
    println!(
        "{}: {} records ({} record bytes) decoded with bincode::deserialize and re-encoded \
         with bincode::serialize",
        path, index, bytes
    );
    print_coverage(&cov);
    let missing = cov.missing();
    if !missing.is_empty() {
        errs.push(format!(
            "{} required shapes never occurred: {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    for e in &errs {
        eprintln!("{}: {}: {}", PROG, path, e);
    }
    if errs.is_empty() {
        println!(
            "{}: roundtrip OK: every byte identical, every shape covered",
            path
        );
        0
    } else {
        eprintln!(
            "{}: {}: roundtrip FAILED: {} problems",
            PROG,
            path,
            errs.len()
        );
        1
    }
}

fn print_coverage(cov: &Coverage) {
    // one line per enum / Option field: "Scope: Linux=36 Gpu=1 ..."
    let mut line = String::new();
    let mut group = String::new();
    for key in Coverage::required() {
        let cut = key
            .find("::")
            .map(|i| (i, 2))
            .or_else(|| key.find('=').map(|i| (i, 1)));
        let (g, item) = match cut {
            Some((i, n)) => (&key[..i], &key[i + n..]),
            None => (key.as_str(), ""),
        };
        if g != group {
            if !line.is_empty() {
                println!("{}", line);
            }
            group = g.to_string();
            line = format!("  {}:", g);
        }
        line.push_str(&format!(" {}={}", item, cov.count(&key)));
    }
    if !line.is_empty() {
        println!("{}", line);
    }
}

fn write(path: &str, force: bool) -> i32 {
    let recs = sample::records();
    match write_trace_file(Path::new(path), &sample::header(), &recs, force) {
        Ok(()) => {
            println!(
                "{}: wrote {} records with bincode::serialize",
                path,
                recs.len()
            );
            0
        }
        Err(e) => {
            eprintln!("{}: cannot write trace file '{}': {}", PROG, path, e);
            1
        }
    }
}

fn dump(path: &str) -> i32 {
    let mut r = open(path);
    match bincode::deserialize::<TraceHeader>(&r.header.bytes) {
        Ok(h) => println!("{:?}", h),
        Err(e) => {
            eprintln!("{}: {}: header: {}", PROG, path, e);
            return 1;
        }
    }
    loop {
        match r.next_frame() {
            Ok(Some(f)) => match bincode::deserialize::<TraceRecord>(&f.bytes) {
                Ok(rec) => println!("@{} {:?}", f.offset, rec),
                Err(e) => {
                    eprintln!("{}: {}: record at byte {}: {}", PROG, path, f.offset, e);
                    return 1;
                }
            },
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("{}: {}: {}", PROG, path, e);
                return 1;
            }
        }
    }
}

fn pad(input: &str, output: &str, index: &str) -> i32 {
    let index: u64 = match index.parse() {
        Ok(i) => i,
        Err(_) => usage(),
    };
    let mut r = open(input);
    let mut out = Vec::new();
    out.extend_from_slice(katra_format_compat::MAGIC);
    out.extend_from_slice(&r.format_version.to_le_bytes());
    out.extend_from_slice(&(r.header.bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&r.header.bytes);
    let mut i = 0;
    loop {
        match r.next_frame() {
            Ok(Some(mut f)) => {
                if i == index {
                    f.bytes.push(0);
                }
                out.extend_from_slice(&(f.bytes.len() as u32).to_le_bytes());
                out.extend_from_slice(&f.bytes);
                i += 1;
            }
            Ok(None) => break,
            Err(e) => {
                eprintln!("{}: {}: {}", PROG, input, e);
                return 1;
            }
        }
    }
    if index >= i {
        eprintln!("{}: {}: has only {} records", PROG, input, i);
        return 1;
    }
    match std::fs::write(output, &out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{}: cannot write '{}': {}", PROG, output, e);
            1
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let rc = match a.as_slice() {
        ["roundtrip", f] => roundtrip(f),
        ["write", f] => write(f, false),
        ["write", "--force", f] => write(f, true),
        ["dump", f] => dump(f),
        ["pad", i, o, n] => pad(i, o, n),
        ["hash"] => {
            println!("0x{:016x}", SCHEMA_HASH);
            0
        }
        ["--help"] | ["-h"] => {
            println!(
                "usage: {} roundtrip FILE | write [--force] FILE | dump FILE | hash | \
                 pad IN OUT INDEX",
                PROG
            );
            0
        }
        _ => usage(),
    };
    exit(rc);
}
