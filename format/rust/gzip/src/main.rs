// SPDX-License-Identifier: GPL-2.0-only
//! katra-format-gzip-compat read FILE | write FILE
//!
//! read: decompresses FILE with flate2 (every gzip member, as gzip(1) does),
//! decodes the header and every record with bincode::deserialize, demands
//! that each re-encodes to the same bytes, and that the trace ends with its
//! SessionSummary; prints "N records".  Exit 0 when all holds, 1 otherwise.
//! write: writes the sample trace gzip-compressed (flate2's GzEncoder over
//! the whole stream, preamble included), for the C reader to read.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::process::exit;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use katra_format_compat::framing::{FrameReader, FrameWriter};
use katra_format_compat::sample;
use katra_format_compat::types::{TraceHeader, TraceRecord};

const PROG: &str = "katra-format-gzip-compat";

fn die(msg: String) -> ! {
    eprintln!("{}: {}", PROG, msg);
    exit(1);
}

fn read(path: &str) {
    let f = File::open(path).unwrap_or_else(|e| die(format!("cannot open '{}': {}", path, e)));
    let mut r = FrameReader::new(MultiGzDecoder::new(BufReader::new(f)))
        .unwrap_or_else(|e| die(format!("{}: {}", path, e)));
    let h: TraceHeader = bincode::deserialize(&r.header.bytes)
        .unwrap_or_else(|e| die(format!("{}: header: {}", path, e)));
    if bincode::serialize(&h).unwrap() != r.header.bytes {
        die(format!("{}: the header does not re-encode identically", path));
    }
    let mut n = 0u64;
    let mut last_summary = false;
    loop {
        let frame = match r.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => die(format!("{}: {}", path, e)),
        };
        let rec: TraceRecord = bincode::deserialize(&frame.bytes).unwrap_or_else(|e| {
            die(format!("{}: record {} at byte {}: {}", path, n, frame.offset, e))
        });
        if bincode::serialize(&rec).unwrap() != frame.bytes {
            die(format!(
                "{}: record {} at byte {} does not re-encode identically",
                path, n, frame.offset
            ));
        }
        last_summary = matches!(rec, TraceRecord::SessionSummary(_));
        n += 1;
    }
    if !last_summary {
        die(format!("{}: no SessionSummary at the end", path));
    }
    println!("{} records", n);
}

fn write(path: &str) {
    let f = File::create(path).unwrap_or_else(|e| die(format!("cannot create '{}': {}", path, e)));
    let gz = GzEncoder::new(BufWriter::new(f), Compression::default());
    let mut w = FrameWriter::new(gz, &sample::header())
        .unwrap_or_else(|e| die(format!("{}: {}", path, e)));
    for rec in sample::records() {
        w.append(&rec)
            .unwrap_or_else(|e| die(format!("{}: {}", path, e)));
    }
    let gz = w
        .into_inner()
        .unwrap_or_else(|e| die(format!("{}: {}", path, e)));
    gz.finish()
        .unwrap_or_else(|e| die(format!("{}: {}", path, e)));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match (args.len(), args.get(1).map(String::as_str)) {
        (3, Some("read")) => read(&args[2]),
        (3, Some("write")) => write(&args[2]),
        _ => {
            eprintln!("usage: {} read FILE | write FILE", PROG);
            exit(2);
        }
    }
}
