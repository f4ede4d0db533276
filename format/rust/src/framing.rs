// SPDX-License-Identifier: GPL-2.0-only
//! The framing around the bincode values:
//! "KATRATRC" · format_version u32 LE · header_len u32 LE · header ·
//! (record_len u32 LE · record)*.
//! The reader hands back raw bytes so a caller can compare them with a
//! re-encoding; lengths are checked against the spec's limits before any
//! allocation.

use std::fmt;
use std::fs::OpenOptions;
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use serde::Serialize;

use crate::types::{TraceHeader, TraceRecord};

pub const MAGIC: &[u8; 8] = b"KATRATRC";
pub const FORMAT_VERSION: u32 = 1;
/// Bytes before the header: magic, format_version, header_len.
pub const PREAMBLE_LEN: u64 = 16;
pub const MAX_HEADER_LEN: u32 = 1 << 20;
pub const MAX_RECORD_LEN: u32 = 16 << 20;

/// 64-bit FNV-1a, as SPEC.md defines it (offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3, one byte at a time).
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

/// The canonical schema text; SCHEMA_HASH can never drift from it.
pub const SCHEMA_TEXT: &str = include_str!("../../schema.txt");
pub const SCHEMA_HASH: u64 = fnv1a64(SCHEMA_TEXT.as_bytes());

/// Resource id of a file: FNV-1a 64 over dev (u64 LE) then ino (u64 LE).
pub fn file_resource_id(dev: u64, ino: u64) -> u64 {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&dev.to_le_bytes());
    b[8..].copy_from_slice(&ino.to_le_bytes());
    fnv1a64(&b)
}

#[derive(Debug)]
pub enum FrameError {
    Io(io::Error),
    /// The file is not a Katra trace or has an unsupported framing.
    Header(String),
    /// The file ends inside a length prefix or a record.
    Truncated {
        offset: u64,
        records: u64,
    },
    /// A length beyond the reader limits.
    Corrupt {
        offset: u64,
        message: String,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Io(e) => write!(f, "{}", e),
            FrameError::Header(m) => write!(f, "{}", m),
            FrameError::Truncated { offset, records } => write!(
                f,
                "ends mid-record at byte {} after {} complete records",
                offset, records
            ),
            FrameError::Corrupt { offset, message } => {
                write!(f, "corrupt record at byte {}: {}", offset, message)
            }
        }
    }
}

impl From<io::Error> for FrameError {
    fn from(e: io::Error) -> Self {
        FrameError::Io(e)
    }
}

/// One framed value: where its u32 length prefix starts, and its bytes.
pub struct Frame {
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// Reads as many bytes as are there, up to buf.len(); returns the count.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(ref e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Streaming reader of the framing; memory is one record at a time.
pub struct FrameReader<R: Read> {
    inner: R,
    offset: u64,
    records: u64,
    pub format_version: u32,
    pub header: Frame,
}

impl<R: Read> FrameReader<R> {
    /// Reads and checks magic and format_version, and reads the header bytes.
    pub fn new(mut inner: R) -> Result<Self, FrameError> {
        let mut pre = [0u8; PREAMBLE_LEN as usize];
        let got = read_full(&mut inner, &mut pre)?;
        if got < pre.len() {
            return Err(FrameError::Header(format!(
                "file too short for the Katra preamble ({} of 16 bytes)",
                got
            )));
        }
        if &pre[..8] != MAGIC {
            return Err(FrameError::Header(format!(
                "bad magic: expected {:?}, found {:?}",
                String::from_utf8_lossy(MAGIC),
                String::from_utf8_lossy(&pre[..8])
            )));
        }
        let version = u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]);
        if version != FORMAT_VERSION {
            return Err(FrameError::Header(format!(
                "unsupported format_version: expected {}, found {}",
                FORMAT_VERSION, version
            )));
        }
        let hlen = u32::from_le_bytes([pre[12], pre[13], pre[14], pre[15]]);
        if hlen > MAX_HEADER_LEN {
            return Err(FrameError::Header(format!(
                "header_len {} exceeds the limit of {} bytes",
                hlen, MAX_HEADER_LEN
            )));
        }
        let mut bytes = vec![0u8; hlen as usize];
        let got = read_full(&mut inner, &mut bytes)?;
        if got < bytes.len() {
            return Err(FrameError::Header(format!(
                "file ends inside the header ({} of {} bytes)",
                got, hlen
            )));
        }
        Ok(FrameReader {
            inner,
            offset: PREAMBLE_LEN + hlen as u64,
            records: 0,
            format_version: version,
            header: Frame { offset: 12, bytes },
        })
    }

    /// The next record's bytes, Ok(None) at a clean end of file.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        let start = self.offset;
        let mut len = [0u8; 4];
        let got = read_full(&mut self.inner, &mut len)?;
        if got == 0 {
            return Ok(None);
        }
        if got < 4 {
            return Err(FrameError::Truncated {
                offset: start,
                records: self.records,
            });
        }
        let n = u32::from_le_bytes(len);
        if n > MAX_RECORD_LEN {
            return Err(FrameError::Corrupt {
                offset: start,
                message: format!(
                    "record_len {} exceeds the limit of {} bytes",
                    n, MAX_RECORD_LEN
                ),
            });
        }
        let mut bytes = vec![0u8; n as usize];
        let got = read_full(&mut self.inner, &mut bytes)?;
        if got < bytes.len() {
            return Err(FrameError::Truncated {
                offset: start,
                records: self.records,
            });
        }
        self.offset += 4 + n as u64;
        self.records += 1;
        Ok(Some(Frame {
            offset: start,
            bytes,
        }))
    }

    /// Byte offset just after the last complete record.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// Writes the framing with bincode::serialize, as the Katra Rust writer does.
pub struct FrameWriter<W: Write> {
    inner: W,
    records: u64,
}

fn encode<T: Serialize>(v: &T) -> io::Result<Vec<u8>> {
    bincode::serialize(v).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
}

fn len_u32(n: usize, max: u32) -> io::Result<[u8; 4]> {
    if n > max as usize {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("encoded length {} exceeds the limit of {} bytes", n, max),
        ));
    }
    Ok((n as u32).to_le_bytes())
}

impl<W: Write> FrameWriter<W> {
    pub fn new(mut inner: W, header: &TraceHeader) -> io::Result<Self> {
        let bytes = encode(header)?;
        inner.write_all(MAGIC)?;
        inner.write_all(&FORMAT_VERSION.to_le_bytes())?;
        inner.write_all(&len_u32(bytes.len(), MAX_HEADER_LEN)?)?;
        inner.write_all(&bytes)?;
        Ok(FrameWriter { inner, records: 0 })
    }

    pub fn append(&mut self, rec: &TraceRecord) -> io::Result<()> {
        let bytes = encode(rec)?;
        self.inner
            .write_all(&len_u32(bytes.len(), MAX_RECORD_LEN)?)?;
        self.inner.write_all(&bytes)?;
        self.records += 1;
        Ok(())
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    pub fn into_inner(mut self) -> io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// Creates path 0600 and writes the whole trace, fsynced.  O_CREAT|O_EXCL
/// never follows a symlink; with overwrite an existing entry (file or link)
/// is unlinked first, never written through.
pub fn write_trace_file(
    path: &Path,
    header: &TraceHeader,
    records: &[TraceRecord],
    overwrite: bool,
) -> io::Result<()> {
    if overwrite {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(ref e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    let mut w = FrameWriter::new(BufWriter::new(file), header)?;
    for r in records {
        w.append(r)?;
    }
    let file = w.into_inner()?.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}
