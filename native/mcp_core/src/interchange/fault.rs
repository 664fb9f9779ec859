//! Translation faults: where a value cannot cross, and why.

use crate::json::CorruptionReport;
use std::convert::Infallible;
use std::fmt;

/// Why a value cannot cross between JSON and MessagePack. Each reason is a
/// short fixed lowercase phrase ([`Reason::as_str`]), the `Reason` binary
/// of an Erlang `interchange_fault()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A msgpack bin in a value going to JSON.
    Binary,
    /// A msgpack ext in a value going to JSON.
    Ext,
    /// A msgpack map key that is not a str.
    NonStringKey,
    /// A msgpack map key that is a str but not UTF-8.
    InvalidUtf8Key,
    /// A msgpack str that is not UTF-8.
    InvalidUtf8,
    /// NaN or an infinity (only a Rust-built value can hold one).
    NonFiniteFloat,
    /// A JSON integer outside [-2^63, 2^64 - 1].
    IntOutOfRange,
    /// More than `max_depth` nested containers (only a built value can).
    TooDeep,
    /// A string or container longer than msgpack's 32-bit lengths.
    TooLong,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Binary => "binary has no json form",
            Reason::Ext => "ext has no json form",
            Reason::NonStringKey => "map key is not a string",
            Reason::InvalidUtf8Key => "map key is not valid utf-8",
            Reason::InvalidUtf8 => "string is not valid utf-8",
            Reason::NonFiniteFloat => "float is not finite",
            Reason::IntOutOfRange => "integer outside msgpack range",
            Reason::TooDeep => "nesting too deep",
            Reason::TooLong => "too long for msgpack",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Infallible> for Reason {
    fn from(never: Infallible) -> Reason {
        match never {}
    }
}

impl From<crate::json::EncodeError> for Reason {
    fn from(error: crate::json::EncodeError) -> Reason {
        match error {
            crate::json::EncodeError::TooDeep => Reason::TooDeep,
            crate::json::EncodeError::NonFiniteFloat => Reason::NonFiniteFloat,
        }
    }
}

impl From<super::EncodeError> for Reason {
    fn from(error: super::EncodeError) -> Reason {
        match error {
            super::EncodeError::TooDeep => Reason::TooDeep,
            super::EncodeError::IntOutOfRange => Reason::IntOutOfRange,
            super::EncodeError::NonFiniteFloat => Reason::NonFiniteFloat,
            super::EncodeError::TooLong => Reason::TooLong,
        }
    }
}

/// The whole conversion failed at `path` (`$.args[2].name`) for `reason`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason} at {path}")]
pub struct InterchangeFault {
    pub path: String,
    pub reason: Reason,
}

/// Why a fast path (bytes to bytes) failed: the input bytes are corrupt, or
/// the value they hold cannot cross. Corruption is reported first, exactly
/// as decoding and then translating would.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineFault {
    #[error(transparent)]
    Corrupt(#[from] CorruptionReport),
    #[error(transparent)]
    Interchange(#[from] InterchangeFault),
}
