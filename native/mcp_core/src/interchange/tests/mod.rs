//! Tests of the interchange module: byte codec examples, rule examples,
//! and properties (round trips, agreement with rmpv and between paths).

mod codec;
mod properties;
mod rules;

use super::*;
use crate::json::{CorruptionReport, Json};

fn fault(path: &str, reason: Reason) -> InterchangeFault {
    InterchangeFault { path: path.to_owned(), reason }
}

fn corrupt(offset: usize, reason: &'static str) -> CorruptionReport {
    CorruptionReport { offset, reason }
}

fn s(text: &str) -> Msgpack {
    Msgpack::String(text.as_bytes().to_vec())
}

/// Containers nested `depth` deep around `leaf`, as msgpack bytes.
fn nested_arrays(depth: usize, leaf: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0x91; depth];
    bytes.extend_from_slice(leaf);
    bytes
}

/// `rmpv`'s reading of the same bytes, as a [`Msgpack`] (reference oracle).
fn from_rmpv(value: rmpv::Value) -> Msgpack {
    use rmpv::Value;
    match value {
        Value::Nil => Msgpack::Nil,
        Value::Boolean(b) => Msgpack::Bool(b),
        Value::Integer(int) => {
            Msgpack::Int(int.as_i64().map(i128::from).or(int.as_u64().map(i128::from)).unwrap_or(i128::MAX))
        }
        Value::F32(f) => Msgpack::Float(f64::from(f)),
        Value::F64(f) => Msgpack::Float(f),
        Value::String(text) => Msgpack::String(text.into_bytes()),
        Value::Binary(data) => Msgpack::Binary(data),
        Value::Array(items) => Msgpack::Array(items.into_iter().map(from_rmpv).collect()),
        Value::Map(entries) => Msgpack::Map(entries.into_iter().map(|(k, v)| (from_rmpv(k), from_rmpv(v))).collect()),
        Value::Ext(kind, data) => Msgpack::Ext(kind, data),
    }
}

fn rmpv_decode(mut bytes: &[u8]) -> Option<(Msgpack, usize)> {
    let total = bytes.len();
    let value = rmpv::decode::read_value_with_max_depth(&mut bytes, 1024).ok()?;
    Some((from_rmpv(value), total - bytes.len()))
}
