// SPDX-License-Identifier: GPL-2.0-only
//! katra-format-compat: the Katra trace format v1 (format/SPEC.md) as serde
//! types encoded with the real bincode 1.x crate.  It exists to prove that
//! the C library (user/format/) and Rust agree on every byte.

pub mod coverage;
pub mod framing;
pub mod sample;
pub mod types;

pub use framing::{fnv1a64, FORMAT_VERSION, MAGIC, SCHEMA_HASH};
pub use types::*;
