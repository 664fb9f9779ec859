//! The rule for one JSON scalar going to MessagePack, in one place for both
//! routes: the value translator ([`ToMsgpack`](super::ToMsgpack)) and the streaming
//! JSON-text-to-bytes path ([`json_to_msgpack_bytes`](super::json_to_msgpack_bytes)).

use super::events::JsonScalar;
use super::fault::Reason;
use super::value::Scalar;
use super::{MAX_MSGPACK_INT, MIN_MSGPACK_INT};

/// Longest string or container msgpack can announce.
pub(super) const MAX_MSGPACK_LEN: usize = u32::MAX as usize;

/// One JSON scalar as msgpack: total except integers outside
/// [-2^63, 2^64 - 1] (and, for Rust-built values, non-finite floats and
/// strings past msgpack's 32-bit lengths).
pub(super) fn msgpack_scalar(value: JsonScalar<'_>) -> Result<Scalar<'_>, Reason> {
    Ok(match value {
        JsonScalar::Null => Scalar::Nil,
        JsonScalar::Bool(b) => Scalar::Bool(b),
        JsonScalar::Int(int) => Scalar::Int(i128::from(int)),
        JsonScalar::BigInt(big) => match i128::try_from(big) {
            Ok(int) if (MIN_MSGPACK_INT..=MAX_MSGPACK_INT).contains(&int) => Scalar::Int(int),
            _ => return Err(Reason::IntOutOfRange),
        },
        JsonScalar::Float(f) if f.is_finite() => Scalar::Float(f),
        JsonScalar::Float(_) => return Err(Reason::NonFiniteFloat),
        JsonScalar::String(text) if text.len() > MAX_MSGPACK_LEN => return Err(Reason::TooLong),
        JsonScalar::String(text) => Scalar::String(text.as_bytes()),
    })
}
